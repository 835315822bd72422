"""lucid.nn.functional, attention: scaled_dot_product_attention (fused engine kernel), multi_head_attention_forward, rotary and sinusoidal embeddings."""
import math

from lucid import _C

__all__ = ["scaled_dot_product_attention", "multi_head_attention_forward", "repeat_kv"]


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                                 enable_gqa=False):
    """Attention softmax(q k^T * scale + mask) v over the last two dims, in one fused engine op (flash-style
    CPU kernel: the (L, S) scores never exist whole). attn_mask: bool (True = attend) or float (added);
    is_causal: query i sees keys j <= i; enable_gqa: key/value heads (dim -3) divide the query heads."""
    return _C.scaled_dot_product_attention(query, key, value, attn_mask, float(dropout_p), bool(is_causal), scale,
                                           bool(enable_gqa))


def _canonical_mask(mask, mask_name, other_type, other_name, target_type, check_other=True):
    """A bool mask (True = masked out) becomes a float mask of target_type with -inf there; a float mask
    stays (PyTorch's _canonical_mask)."""
    if mask is None:
        return None
    import lucid
    if mask.dtype == lucid.bool:
        return lucid.zeros_like(mask, dtype=target_type).masked_fill_(mask, float("-inf"))
    if not mask.dtype.is_floating_point:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    return mask


def _none_or_dtype(t):
    return None if t is None else t.dtype


def repeat_kv(x, n_rep):
    """(batch, kv_heads, seq, head_dim) -> (batch, kv_heads * n_rep, seq, head_dim): each key/value head
    repeated for the n_rep query heads that share it (repeat_interleave on dim 1)."""
    if n_rep == 1:
        return x
    b, h, s, d = x.shape
    return x[:, :, None].expand(b, h, n_rep, s, d).reshape(b, h * n_rep, s, d)


def _in_projection_packed(q, k, v, w, b=None):
    """q, k, v projected by the three row blocks of w (and b). Three GEMMs rather than one on the packed
    weight: the same values, and the backward scatters weight-sized (not activation-sized) gradients."""
    from lucid.nn.functional import linear
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias,
                                 bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias,
                                 training=True, key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None, k_proj_weight=None,
                                 v_proj_weight=None, static_k=None, static_v=None, average_attn_weights=True,
                                 is_causal=False):
    """PyTorch's multi-head attention over (L, N, E) inputs (or unbatched (L, E)); masks use True = masked
    out. Without need_weights the heads go through the fused scaled_dot_product_attention op."""
    return _mha(query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias, bias_k, bias_v,
                add_zero_attn, dropout_p, out_proj_weight, out_proj_bias, training, key_padding_mask, need_weights,
                attn_mask, use_separate_proj_weight, q_proj_weight, k_proj_weight, v_proj_weight, static_k,
                static_v, average_attn_weights, is_causal, batch_first=False)


def _heads(x, batch_first, n, h, d):
    """Projected (S, N, E) (or (N, S, E) with batch_first) -> (N, h, S, d) (a view)."""
    if batch_first:
        return x.reshape(n, x.shape[1], h, d).transpose(1, 2)
    return x.reshape(x.shape[0], n, h, d).permute(1, 2, 0, 3)


def _mha(query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias, bias_k, bias_v,
         add_zero_attn, dropout_p, out_proj_weight, out_proj_bias, training, key_padding_mask, need_weights,
         attn_mask, use_separate_proj_weight, q_proj_weight, k_proj_weight, v_proj_weight, static_k, static_v,
         average_attn_weights, is_causal, batch_first):
    """multi_head_attention_forward on (L, N, E) inputs, or (N, L, E) ones with batch_first (no transposed
    copies: the projections run on the input's own layout, the heads are views of them)."""
    import lucid
    from lucid.nn.functional import linear, dropout, softmax, pad
    is_batched = query.dim() == 3
    if query.dim() not in (2, 3) or key.dim() != query.dim() or value.dim() != query.dim():
        raise AssertionError(f"multi_head_attention_forward: query, key and value must all be 2-D (unbatched) or "
                             f"3-D (batched), got {query.dim()}-D, {key.dim()}-D and {value.dim()}-D")
    if key_padding_mask is not None:
        want = 2 if is_batched else 1
        if key_padding_mask.dim() != want:
            raise AssertionError(f"for {'batched' if is_batched else 'unbatched'} {query.dim()}-D query, "
                                 f"key_padding_mask should be {want}-D, got {key_padding_mask.dim()}-D")
    if not is_batched:
        batch_first = False
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    sd = 1 if batch_first else 0   # the sequence dim
    tgt_len, bsz, embed_dim = query.shape[sd], query.shape[1 - sd], query.shape[2]
    src_len = key.shape[sd]
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask", _none_or_dtype(attn_mask), "attn_mask",
                                       query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                           "method `generate_square_subsequent_mask` to create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None  # the fused op applies causality itself
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, check_other=False)
        if key_padding_mask is not None:
            is_causal = False
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if key.shape[:2] != value.shape[:2]:
            raise AssertionError(f"key's sequence and batch dims {tuple(key.shape[:2])} do not match value's "
                                 f"{tuple(value.shape[:2])}")
    elif key.shape != value.shape:
        raise AssertionError(f"key shape {tuple(key.shape)} does not match value shape {tuple(value.shape)}")

    if not use_separate_proj_weight:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    else:
        if q_proj_weight is None or k_proj_weight is None or v_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is True but q/k/v_proj_weight is None")
        b_q, b_k, b_v = (None, None, None) if in_proj_bias is None else in_proj_bias.chunk(3)
        q, k, v = linear(query, q_proj_weight, b_q), linear(key, k_proj_weight, b_k), linear(value, v_proj_weight, b_v)

    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(f"The shape of the 2D attn_mask is {tuple(attn_mask.shape)}, but should be "
                                   f"{(tgt_len, src_len)}.")
            attn_mask = attn_mask.reshape(1, 1, tgt_len, src_len)
        elif attn_mask.dim() == 3:
            if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
                raise RuntimeError(f"The shape of the 3D attn_mask is {tuple(attn_mask.shape)}, but should be "
                                   f"{(bsz * num_heads, tgt_len, src_len)}.")
            attn_mask = attn_mask.reshape(bsz, num_heads, tgt_len, src_len)
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")

    q = _heads(q, batch_first, bsz, num_heads, head_dim)
    k = _heads(k, batch_first, bsz, num_heads, head_dim)
    v = _heads(v, batch_first, bsz, num_heads, head_dim)
    if bias_k is not None and bias_v is not None:
        if static_k is not None or static_v is not None:
            raise AssertionError("bias cannot be added to static key/value.")
        k = lucid.cat([k, bias_k.reshape(1, num_heads, 1, head_dim).expand(bsz, num_heads, 1, head_dim)], dim=2)
        v = lucid.cat([v, bias_v.reshape(1, num_heads, 1, head_dim).expand(bsz, num_heads, 1, head_dim)], dim=2)
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    elif bias_k is not None or bias_v is not None:
        raise AssertionError("bias_k and bias_v must both be given or both be None")
    for name, st in (("static_k", static_k), ("static_v", static_v)):
        if st is not None and (st.dim() != 3 or st.shape[0] != bsz * num_heads or st.shape[2] != head_dim):
            raise AssertionError(f"expecting {name} of shape {(bsz * num_heads, '*', head_dim)}, got "
                                 f"{tuple(st.shape)}")
    if static_k is not None:
        k = static_k.reshape(bsz, num_heads, static_k.shape[1], head_dim)
    if static_v is not None:
        v = static_v.reshape(bsz, num_heads, static_v.shape[1], head_dim)

    if add_zero_attn:
        zshape = (bsz, num_heads, 1, head_dim)
        k = lucid.cat([k, lucid.zeros(zshape, dtype=k.dtype, device=k.device)], dim=2)
        v = lucid.cat([v, lucid.zeros(zshape, dtype=v.dtype, device=v.device)], dim=2)
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    src_len = k.shape[2]

    if key_padding_mask is not None:
        if tuple(key_padding_mask.shape) != (bsz, src_len):
            raise AssertionError(f"expecting key_padding_mask shape of {(bsz, src_len)}, but got "
                                 f"{tuple(key_padding_mask.shape)}")
        kpm = key_padding_mask.reshape(bsz, 1, 1, src_len)
        attn_mask = kpm if attn_mask is None else attn_mask + kpm

    if not training:
        dropout_p = 0.0

    weights = None
    if need_weights:
        scores = lucid.matmul(q * math.sqrt(1.0 / head_dim), k.transpose(-2, -1))
        if attn_mask is not None:
            scores = scores + attn_mask
        w = softmax(scores, dim=-1)
        if dropout_p > 0.0:
            w = dropout(w, p=dropout_p)
        weights = w.mean(dim=1) if average_attn_weights else w   # as PyTorch: after dropout
        out = lucid.matmul(w, v)
    else:
        out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    # (N, H, L, d) -> the input's layout, heads merged
    out = out.transpose(1, 2) if batch_first else out.permute(2, 0, 1, 3)
    out = linear(out.reshape(-1, embed_dim), out_proj_weight, out_proj_bias)
    out = out.reshape((bsz, tgt_len, -1) if batch_first else (tgt_len, bsz, -1))
    if not is_batched:
        out = out.squeeze(1)
        if weights is not None:
            weights = weights.squeeze(0)
    return out, weights
