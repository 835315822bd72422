"""lucid.nn.functional, attention: scaled_dot_product_attention (fused engine kernel), multi_head_attention_forward, rotary and sinusoidal embeddings."""
from lucid import _C

__all__ = ["scaled_dot_product_attention"]


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                                 enable_gqa=False):
    """Attention softmax(q k^T * scale + mask) v over the last two dims, in one fused engine op (flash-style
    CPU kernel: the (L, S) scores never exist whole). attn_mask: bool (True = attend) or float (added);
    is_causal: query i sees keys j <= i; enable_gqa: key/value heads (dim -3) divide the query heads."""
    return _C.scaled_dot_product_attention(query, key, value, attn_mask, float(dropout_p), bool(is_causal), scale,
                                           bool(enable_gqa))
