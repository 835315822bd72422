"""nn.MultiheadAttention, F.multi_head_attention_forward and the Transformer layers against PyTorch with
the same weights (loaded through state_dict, so the parameter names match): outputs and gradients
for every mask kind and option; defaults and initialisation; Lucid's GroupedQueryAttention,
MultiQueryAttention and repeat_kv; typed errors."""
import numpy as np
import pytest

import lucid
import lucid.nn as nn
import lucid.nn.functional as F
import helpers

RNG = np.random.default_rng(7)
pytestmark = pytest.mark.filterwarnings("ignore:Support for mismatched key_padding_mask")


def arr(*shape):
    return RNG.standard_normal(shape)


def close(a, b, tol=1e-9):
    helpers.close(a, b, tol)


def pair(torch, lmod, tmod):
    """Float64 copies of tmod's weights into lmod (by state_dict key); both in eval mode."""
    tmod.double().eval()
    lmod.double().eval()
    lmod.load_state_dict({k: lucid.tensor(v.detach().numpy()) for k, v in tmod.state_dict().items()})
    return lmod, tmod


def inputs(torch, *shapes):
    xs = [arr(*s) for s in shapes]
    return ([lucid.tensor(x, requires_grad=True) for x in xs], [torch.tensor(x, requires_grad=True) for x in xs])


def check_grads(torch, lout, tout, lins, tins, lmod, tmod, tol=1e-9):
    g = arr(*tout.shape)
    lout.backward(lucid.tensor(g))
    tout.backward(torch.tensor(g))
    for a, b in zip(lins, tins):
        if b.grad is not None:
            close(a.grad, b.grad, tol)
    tp = dict(tmod.named_parameters())
    for name, p in lmod.named_parameters():
        if tp[name].grad is None:
            assert p.grad is None or np.all(p.grad.numpy() == 0)
        else:
            close(p.grad, tp[name].grad, tol)


def masks(torch, kind, shape, pad_rows=False):
    if kind is None:
        return None, None
    m = RNG.random(shape) < 0.3  # True = masked out
    m[..., 0] = False
    if kind == "bool":
        return lucid.tensor(m), torch.tensor(m)
    f = np.where(m, -np.inf, arr(*shape) * 0.5)
    return lucid.tensor(f), torch.tensor(f)


# ---- MultiheadAttention

@pytest.mark.parametrize("need_weights,average", [(True, True), (True, False), (False, True)])
@pytest.mark.parametrize("kind", [None, "bool", "float"])
def test_mha_self_attention(torch, need_weights, average, kind):
    L, N, E, H = 5, 3, 8, 2
    lm, tm = pair(torch, nn.MultiheadAttention(E, H), torch.nn.MultiheadAttention(E, H))
    (lx,), (tx,) = inputs(torch, (L, N, E))
    la, ta = masks(torch, kind, (L, L))
    lk, tk = masks(torch, kind, (N, L))
    lo, lw = lm(lx, lx, lx, key_padding_mask=lk, attn_mask=la, need_weights=need_weights,
                average_attn_weights=average)
    to, tw = tm(tx, tx, tx, key_padding_mask=tk, attn_mask=ta, need_weights=need_weights,
                average_attn_weights=average)
    close(lo, to)
    if need_weights:
        close(lw, tw)
    else:
        assert lw is None and tw is None
    check_grads(torch, lo, to, [lx], [tx], lm, tm)


@pytest.mark.parametrize("opts", [
    dict(kdim=3, vdim=5), dict(bias=False), dict(add_bias_kv=True), dict(add_zero_attn=True),
    dict(add_bias_kv=True, add_zero_attn=True, kdim=4, vdim=4), dict(batch_first=True)])
@pytest.mark.parametrize("need_weights", [True, False])
def test_mha_options_cross_attention(torch, opts, need_weights):
    L, S, N, E, H = 4, 6, 2, 8, 4
    lm, tm = pair(torch, nn.MultiheadAttention(E, H, **opts), torch.nn.MultiheadAttention(E, H, **opts))
    kd, vd = opts.get("kdim", E), opts.get("vdim", E)
    bf = opts.get("batch_first", False)
    shp = (lambda s, d: (N, s, d)) if bf else (lambda s, d: (s, N, d))
    lins, tins = inputs(torch, shp(L, E), shp(S, kd), shp(S, vd))
    lk, tk = masks(torch, "bool", (N, S))
    la, ta = masks(torch, "float", (N * H, L, S))
    lo, lw = lm(*lins, key_padding_mask=lk, attn_mask=la, need_weights=need_weights)
    to, tw = tm(*tins, key_padding_mask=tk, attn_mask=ta, need_weights=need_weights)
    close(lo, to)
    if need_weights:
        close(lw, tw)
    check_grads(torch, lo, to, lins, tins, lm, tm)


def test_mha_unbatched_and_is_causal(torch):
    L, E, H = 6, 8, 2
    lm, tm = pair(torch, nn.MultiheadAttention(E, H), torch.nn.MultiheadAttention(E, H))
    (lx,), (tx,) = inputs(torch, (L, E))
    causal = torch.nn.Transformer.generate_square_subsequent_mask(L, dtype=torch.float64)
    lc = nn.Transformer.generate_square_subsequent_mask(L, dtype=lucid.float64)
    close(lc, causal)
    for nw in (True, False):
        lo, _ = lm(lx, lx, lx, attn_mask=lc, is_causal=True, need_weights=nw)
        to, _ = tm(tx, tx, tx, attn_mask=causal, is_causal=True, need_weights=nw)
        close(lo, to)
    check_grads(torch, lo, to, [lx], [tx], lm, tm)
    lkp = lucid.tensor(np.array([False, False, True, False, False, False]))
    lo, lw = lm(lx, lx, lx, key_padding_mask=lkp, attn_mask=lc)
    to, tw = tm(tx, tx, tx, key_padding_mask=torch.tensor(lkp.numpy()), attn_mask=causal)
    close(lo, to)
    close(lw, tw)


def test_mha_functional_matches_torch(torch):
    L, N, E, H = 3, 2, 6, 3
    q, k, v = arr(L, N, E), arr(5, N, E), arr(5, N, E)
    w, b, ow, ob = arr(3 * E, E), arr(3 * E), arr(E, E), arr(E)
    args = lambda m: [m(x) for x in (q, k, v)] + [E, H, m(w), m(b), None, None, False, 0.0, m(ow), m(ob)]
    lo, lw = F.multi_head_attention_forward(*args(lucid.tensor), training=False)
    to, tw = torch.nn.functional.multi_head_attention_forward(*args(torch.tensor), training=False)
    close(lo, to)
    close(lw, tw)


def test_mha_dropout_in_training_only():
    m = nn.MultiheadAttention(8, 2, dropout=0.5)
    x = lucid.randn(4, 2, 8)
    m.eval()
    a, _ = m(x, x, x)
    b, _ = m(x, x, x)
    assert np.array_equal(a.numpy(), b.numpy())
    m.train()
    c, _ = m(x, x, x, need_weights=False)
    assert not np.allclose(a.numpy(), c.numpy())


def test_mha_defaults_and_init():
    m = nn.MultiheadAttention(16, 4)
    assert m.in_proj_weight.shape == (48, 16) and m.q_proj_weight is None and m.bias_k is None
    assert m.dropout == 0.0 and m.batch_first is False and m.head_dim == 4
    assert np.all(m.in_proj_bias.numpy() == 0) and np.all(m.out_proj.bias.numpy() == 0)
    bound = np.sqrt(6 / (16 + 48))
    assert np.abs(m.in_proj_weight.numpy()).max() <= bound
    m2 = nn.MultiheadAttention(16, 4, kdim=5, vdim=7, add_bias_kv=True)
    assert m2.in_proj_weight is None and m2.k_proj_weight.shape == (16, 5) and m2.v_proj_weight.shape == (16, 7)
    assert m2.bias_k.shape == (1, 1, 16)


def test_mha_errors():
    with pytest.raises(AssertionError, match="divisible"):
        nn.MultiheadAttention(10, 3)
    with pytest.raises(ValueError):
        nn.MultiheadAttention(0, 2)
    m = nn.MultiheadAttention(8, 2)
    x = lucid.randn(4, 2, 8)
    with pytest.raises(RuntimeError, match="2D attn_mask"):
        m(x, x, x, attn_mask=lucid.zeros(3, 4))
    with pytest.raises(RuntimeError, match="is_causal"):
        m(x, x, x, is_causal=True)
    with pytest.raises(AssertionError, match="embedding dimension"):
        m(lucid.randn(4, 2, 6), x, x)
    with pytest.raises(AssertionError, match="key_padding_mask"):
        m(x, x, x, key_padding_mask=lucid.zeros(2, 5, dtype=lucid.bool))


# ---- Transformer layers

@pytest.mark.parametrize("opts", [dict(), dict(norm_first=True), dict(activation="gelu", batch_first=True),
                                  dict(bias=False, layer_norm_eps=1e-3)])
def test_encoder_layer(torch, opts):
    S, N, E = 5, 2, 8
    lm, tm = pair(torch, nn.TransformerEncoderLayer(E, 2, 16, dropout=0.0, **opts),
                  torch.nn.TransformerEncoderLayer(E, 2, 16, dropout=0.0, **opts))
    bf = opts.get("batch_first", False)
    (lx,), (tx,) = inputs(torch, (N, S, E) if bf else (S, N, E))
    lk, tk = masks(torch, "bool", (N, S))
    lo = lm(lx, src_key_padding_mask=lk)
    to = tm(tx, src_key_padding_mask=tk)
    close(lo, to)
    check_grads(torch, lo, to, [lx], [tx], lm, tm)


def test_encoder_layer_callable_activation_and_causal(torch):
    S, N, E = 6, 2, 8
    lm, tm = pair(torch, nn.TransformerEncoderLayer(E, 2, 16, dropout=0.0, activation=F.silu),
                  torch.nn.TransformerEncoderLayer(E, 2, 16, dropout=0.0, activation=torch.nn.functional.silu))
    (lx,), (tx,) = inputs(torch, (S, N, E))
    lc = nn.Transformer.generate_square_subsequent_mask(S, dtype=lucid.float64)
    tc = torch.nn.Transformer.generate_square_subsequent_mask(S, dtype=torch.float64)
    lo = lm(lx, src_mask=lc, is_causal=True)
    to = tm(tx, src_mask=tc, is_causal=True)
    close(lo, to)
    check_grads(torch, lo, to, [lx], [tx], lm, tm)


@pytest.mark.parametrize("opts", [dict(), dict(norm_first=True, batch_first=True)])
def test_decoder_layer(torch, opts):
    T, S, N, E = 4, 6, 2, 8
    lm, tm = pair(torch, nn.TransformerDecoderLayer(E, 2, 16, dropout=0.0, **opts),
                  torch.nn.TransformerDecoderLayer(E, 2, 16, dropout=0.0, **opts))
    bf = opts.get("batch_first", False)
    lins, tins = inputs(torch, (N, T, E) if bf else (T, N, E), (N, S, E) if bf else (S, N, E))
    lc = nn.Transformer.generate_square_subsequent_mask(T, dtype=lucid.float64)
    tc = torch.nn.Transformer.generate_square_subsequent_mask(T, dtype=torch.float64)
    lk, tk = masks(torch, "bool", (N, S))
    lo = lm(*lins, tgt_mask=lc, memory_key_padding_mask=lk, tgt_is_causal=True)
    to = tm(*tins, tgt_mask=tc, memory_key_padding_mask=tk, tgt_is_causal=True)
    close(lo, to)
    check_grads(torch, lo, to, lins, tins, lm, tm)


def test_encoder_decoder_stacks(torch):
    S, N, E = 5, 2, 8
    lenc, tenc = pair(torch, nn.TransformerEncoder(nn.TransformerEncoderLayer(E, 2, 16, dropout=0.0), 2,
                                                   norm=nn.LayerNorm(E)),
                      torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(E, 2, 16, dropout=0.0), 2,
                                                  norm=torch.nn.LayerNorm(E), enable_nested_tensor=False))
    assert lenc.layers[0] is not lenc.layers[1]
    (lx,), (tx,) = inputs(torch, (S, N, E))
    lc = nn.Transformer.generate_square_subsequent_mask(S, dtype=lucid.float64)
    tc = torch.nn.Transformer.generate_square_subsequent_mask(S, dtype=torch.float64)
    lk, tk = masks(torch, "bool", (N, S))
    lo, to = lenc(lx, mask=lc), tenc(tx, mask=tc)   # causal detected from the mask
    close(lo, to)
    lo2, to2 = lenc(lx, src_key_padding_mask=lk), tenc(tx, src_key_padding_mask=tk)
    close(lo2, to2)
    check_grads(torch, lo, to, [lx], [tx], lenc, tenc)
    ldec, tdec = pair(torch, nn.TransformerDecoder(nn.TransformerDecoderLayer(E, 2, 16, dropout=0.0), 2),
                      torch.nn.TransformerDecoder(torch.nn.TransformerDecoderLayer(E, 2, 16, dropout=0.0), 2))
    lins, tins = inputs(torch, (4, N, E), (S, N, E))
    lc4 = nn.Transformer.generate_square_subsequent_mask(4, dtype=lucid.float64)
    tc4 = torch.nn.Transformer.generate_square_subsequent_mask(4, dtype=torch.float64)
    lo, to = ldec(*lins, tgt_mask=lc4), tdec(*tins, tgt_mask=tc4)
    close(lo, to)
    check_grads(torch, lo, to, lins, tins, ldec, tdec)


def test_transformer(torch):
    E, N = 8, 2
    lm, tm = pair(torch, nn.Transformer(E, 2, 2, 1, 16, dropout=0.0, batch_first=True),
                  torch.nn.Transformer(E, 2, 2, 1, 16, dropout=0.0, batch_first=True))
    assert list(lm.state_dict()) == list(tm.state_dict())
    lins, tins = inputs(torch, (N, 5, E), (N, 4, E))
    lc = nn.Transformer.generate_square_subsequent_mask(4, dtype=lucid.float64)
    tc = torch.nn.Transformer.generate_square_subsequent_mask(4, dtype=torch.float64)
    lk, tk = masks(torch, "bool", (N, 5))
    lo = lm(*lins, tgt_mask=lc, src_key_padding_mask=lk, memory_key_padding_mask=lk, tgt_is_causal=True)
    to = tm(*tins, tgt_mask=tc, src_key_padding_mask=tk, memory_key_padding_mask=tk, tgt_is_causal=True)
    close(lo, to)
    check_grads(torch, lo, to, lins, tins, lm, tm)


def test_transformer_defaults_init_and_errors(torch):
    m = nn.Transformer(16, 2, 1, 1, 32)
    assert m.d_model == 16 and m.batch_first is False
    layer = m.encoder.layers[0]
    assert layer.linear1.out_features == 32 and layer.dropout.p == 0.1 and layer.norm1.eps == 1e-5
    w = layer.linear1.weight.numpy()
    assert np.abs(w).max() <= np.sqrt(6 / (16 + 32)) + 1e-7  # xavier_uniform_ over every matrix
    assert nn.TransformerEncoderLayer(8, 2).linear1.out_features == 2048
    c = nn.Transformer.generate_square_subsequent_mask(3)
    assert c.dtype == lucid.float32
    np.testing.assert_array_equal(c.numpy(), torch.nn.Transformer.generate_square_subsequent_mask(3).numpy())
    with pytest.raises(RuntimeError, match="relu/gelu"):
        nn.TransformerEncoderLayer(8, 2, activation="tanh")
    with pytest.raises(RuntimeError, match="batch number"):
        m(lucid.randn(3, 2, 16), lucid.randn(3, 4, 16))
    with pytest.raises(RuntimeError, match="d_model"):
        m(lucid.randn(3, 2, 8), lucid.randn(3, 2, 8))


# ---- grouped / multi-query attention

def torch_gqa(torch, m, x, hq, hk, **kw):
    n, l, e = x.shape
    d = e // hq
    W = lambda lin: (torch.tensor(lin.weight.numpy()), torch.tensor(lin.bias.numpy()))
    q = torch.nn.functional.linear(x, *W(m.q_proj)).reshape(n, l, hq, d).transpose(1, 2)
    k = torch.nn.functional.linear(x, *W(m.k_proj)).reshape(n, l, hk, d).transpose(1, 2)
    v = torch.nn.functional.linear(x, *W(m.v_proj)).reshape(n, l, hk, d).transpose(1, 2)
    o = torch.nn.functional.scaled_dot_product_attention(q, k, v, enable_gqa=True, **kw)
    return torch.nn.functional.linear(o.transpose(1, 2).reshape(n, l, e), *W(m.out_proj))


@pytest.mark.parametrize("hk", [1, 2, 4])
def test_grouped_query_attention(torch, hk):
    m = nn.GroupedQueryAttention(16, 4, hk).double()
    assert m.k_proj.weight.shape == (hk * 4, 16)
    (lx,), (tx,) = inputs(torch, (2, 5, 16))
    lo = m(lx, is_causal=True)
    to = torch_gqa(torch, m, tx, 4, hk, is_causal=True)
    close(lo, to)
    g = arr(2, 5, 16)
    lo.backward(lucid.tensor(g))
    to.backward(torch.tensor(g))
    close(lx.grad, tx.grad)
    mask = RNG.random((5, 5)) > 0.3
    mask[:, 0] = True
    close(m(lx, attn_mask=lucid.tensor(mask)), torch_gqa(torch, m, tx, 4, hk, attn_mask=torch.tensor(mask)))


def test_multi_query_attention_and_padding(torch):
    m = nn.MultiQueryAttention(8, 4).double()
    assert m.num_kv_heads == 1 and m.k_proj.weight.shape == (2, 8)
    (lx,), (tx,) = inputs(torch, (2, 5, 8))
    close(m(lx), torch_gqa(torch, m, tx, 4, 1))
    kpm = np.zeros((2, 5), bool)
    kpm[0, 3:] = True   # padding
    allowed = torch.tensor(~kpm)[:, None, None, :] & torch.ones(5, 5, dtype=torch.bool).tril()
    close(m(lx, key_padding_mask=lucid.tensor(kpm), is_causal=True), torch_gqa(torch, m, tx, 4, 1, attn_mask=allowed))
    # sequence-first and unbatched layouts
    ms = nn.MultiQueryAttention(8, 4, batch_first=False).double()
    ms.load_state_dict(m.state_dict())
    close(ms(lx.transpose(0, 1)).transpose(0, 1), m(lx))
    close(m(lx[0]), m(lx)[0])


def test_repeat_kv(torch):
    x = arr(2, 3, 4, 5)
    close(F.repeat_kv(lucid.tensor(x), 2), torch.tensor(x).repeat_interleave(2, dim=1))
    assert F.repeat_kv(lucid.tensor(x), 1).shape == (2, 3, 4, 5)


def test_gqa_errors():
    with pytest.raises(ValueError, match="num_kv_heads"):
        nn.GroupedQueryAttention(16, 4, 3)
    with pytest.raises(ValueError, match="num_heads"):
        nn.GroupedQueryAttention(10, 4, 2)


def test_mha_functional_static_kv_and_separate_weights(torch):
    L, N, E, H, S = 3, 2, 6, 3, 5
    q, k, v = arr(L, N, E), arr(S, N, 4), arr(S, N, 5)
    wq, wk, wv, b, ow, ob = arr(E, E), arr(E, 4), arr(E, 5), arr(3 * E), arr(E, E), arr(E)
    sk, sv = arr(N * H, 7, E // H), arr(N * H, 7, E // H)
    for static in (False, True):
        def args(m):
            return ([m(x) for x in (q, k, v)] + [E, H, None, m(b), None, None, False, 0.0, m(ow), m(ob)])

        kw = lambda m: dict(training=False, use_separate_proj_weight=True, q_proj_weight=m(wq), k_proj_weight=m(wk),
                            v_proj_weight=m(wv), static_k=m(sk) if static else None,
                            static_v=m(sv) if static else None)
        lo, lw = F.multi_head_attention_forward(*args(lucid.tensor), **kw(lucid.tensor))
        to, tw = torch.nn.functional.multi_head_attention_forward(*args(torch.tensor), **kw(torch.tensor))
        close(lo, to)
        close(lw, tw)


def test_mha_float32_batch_first_fast_layout(torch):
    # batch_first inputs: projections on the input's layout, heads as views, no transposed copies.
    E, H, N, L = 32, 4, 3, 20
    lm, tm = nn.MultiheadAttention(E, H, batch_first=True), torch.nn.MultiheadAttention(E, H, batch_first=True)
    lm.load_state_dict({k: lucid.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    x = arr(N, L, E).astype("float32")
    lx, tx = lucid.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    causal = np.triu(np.ones((L, L), bool), 1)
    lo = lm(lx, lx, lx, attn_mask=lucid.tensor(causal), need_weights=False, is_causal=True)[0]
    to = tm(tx, tx, tx, attn_mask=torch.tensor(causal), need_weights=False, is_causal=True)[0]
    close(lo, to, 1e-5)
    g = arr(N, L, E).astype("float32")
    lo.backward(lucid.tensor(g))
    to.backward(torch.tensor(g))
    close(lx.grad, tx.grad, 1e-4)
    close(lm.in_proj_weight.grad, tm.in_proj_weight.grad, 1e-4)
