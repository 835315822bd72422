"""Lucid's own layers (spec 002) against NumPy reference formulas (and PyTorch where it has the pieces):
RoPE and the fused linear + activation engine ops (values, gradients, float64 gradcheck/gradgradcheck), the
sinusoidal and timestep encodings, GRN, NoisyLinear, vector quantisation, two-hot, straight-through,
symlog/symexp, DropBlock and accuracy; typed errors for each."""
import math

import numpy as np
import pytest

import lucid
import lucid.nn as nn
import lucid.nn.functional as F
from lucid.autograd import gradcheck, gradgradcheck
from helpers import close

RNG = np.random.default_rng(7)


def randn(*s):
    return RNG.standard_normal(s)


# ---- RoPE

def rope_ref(x, pos, interleaved, base=10000.0, sign=1.0):
    """Llama / GPT-NeoX reference: pairs rotated by pos * base^(-2i/d)."""
    d = x.shape[-1]
    h = d // 2
    th = pos[..., None] * base ** (-2.0 * np.arange(h) / d)
    c, s = np.cos(th), sign * np.sin(th)
    out = np.empty_like(x)
    if interleaved:
        a, b = x[..., 0::2], x[..., 1::2]
        out[..., 0::2], out[..., 1::2] = a * c - b * s, a * s + b * c
    else:
        a, b = x[..., :h], x[..., h:]
        out[..., :h], out[..., h:] = a * c - b * s, a * s + b * c
    return out


@pytest.mark.parametrize("interleaved", [False, True])
@pytest.mark.parametrize("dtype,tol", [(lucid.float32, 1e-5), (lucid.float64, 1e-12)])
def test_rope_values(interleaved, dtype, tol):
    x = randn(2, 3, 5, 8)
    pos = np.broadcast_to(np.arange(5.0), (2, 3, 5))
    y = F.apply_rotary_emb(lucid.tensor(x, dtype=dtype), interleaved=interleaved)
    assert y.dtype == dtype
    close(y, rope_ref(x, pos, interleaved), tol)
    p = RNG.integers(0, 300, (2, 5))                     # (batch, seq) ids for (batch, heads, seq, dim)
    y = F.apply_rotary_emb(lucid.tensor(x, dtype=dtype), lucid.tensor(p), base=500.0, interleaved=interleaved)
    close(y, rope_ref(x, np.broadcast_to(p[:, None].astype(float), (2, 3, 5)), interleaved, 500.0), tol)
    p1 = np.array([3.0, 1.5, 0.0, 7.0, 2.0])             # 1-D float positions broadcast over (batch, heads)
    y = F.apply_rotary_emb(lucid.tensor(x, dtype=dtype), lucid.tensor(p1), interleaved=interleaved)
    close(y, rope_ref(x, np.broadcast_to(p1, (2, 3, 5)), interleaved), tol)


def test_rope_matches_reference_code(torch):
    """Hugging Face Llama's apply_rotary_pos_emb (rotate_half) and GPT-J's rotate_every_two, in float64."""
    B, H, T, D = 2, 3, 6, 8
    x, pos = randn(B, H, T, D), RNG.integers(0, 40, (B, T))
    tx = torch.tensor(x)
    inv = 1.0 / (10000 ** (torch.arange(0, D, 2, dtype=torch.float64) / D))
    freqs = torch.tensor(pos, dtype=torch.float64)[..., None] * inv            # (B, T, D/2)
    emb = torch.cat([freqs, freqs], -1)
    cos, sin = emb.cos()[:, None], emb.sin()[:, None]
    rot_half = torch.cat([-tx[..., D // 2:], tx[..., :D // 2]], -1)
    close(F.apply_rotary_emb(lucid.tensor(x), lucid.tensor(pos)), tx * cos + rot_half * sin, 1e-12)
    cos2 = freqs.cos().repeat_interleave(2, -1)[:, None]
    sin2 = freqs.sin().repeat_interleave(2, -1)[:, None]
    every_two = torch.stack([-tx[..., 1::2], tx[..., ::2]], -1).flatten(-2)
    close(F.apply_rotary_emb(lucid.tensor(x), lucid.tensor(pos), interleaved=True), tx * cos2 + every_two * sin2,
          1e-12)


def test_rope_layouts_and_partial():
    x = randn(4, 6)
    # the half-split layout is the interleaved one with features permuted
    perm = np.stack([np.arange(3), np.arange(3) + 3], 1).reshape(-1)
    a = F.apply_rotary_emb(lucid.tensor(x)).numpy()
    b = F.apply_rotary_emb(lucid.tensor(x[:, perm]), interleaved=True).numpy()
    close(a[:, perm], b, 1e-12)
    assert tuple(F.apply_rotary_emb(lucid.tensor(randn(2, 4, 10)), rotary_dim=4).shape) == (2, 4, 10)
    xx = randn(2, 4, 10)
    y = nn.RotaryEmbedding(4)(lucid.tensor(xx))
    close(y[..., :4], rope_ref(xx[..., :4], np.broadcast_to(np.arange(4.0), (2, 4)), False), 1e-12)
    close(y[..., 4:], xx[..., 4:], 0)
    close(np.linalg.norm(a, axis=-1), np.linalg.norm(x, axis=-1), 1e-12)   # a rotation keeps norms


def test_rope_noncontiguous_and_half():
    x = randn(3, 8, 5)
    xt = lucid.tensor(x).transpose(1, 2)                  # (3, 5, 8), strided
    close(F.apply_rotary_emb(xt), rope_ref(x.transpose(0, 2, 1), np.broadcast_to(np.arange(5.0), (3, 5)), False),
          1e-12)
    xh = x.transpose(0, 2, 1).astype(np.float16)
    y = F.apply_rotary_emb(lucid.tensor(xh))
    assert y.dtype == lucid.float16
    close(y.to(lucid.float64), rope_ref(xh.astype(float), np.broadcast_to(np.arange(5.0), (3, 5)), False), 5e-3)


@pytest.mark.parametrize("interleaved", [False, True])
def test_rope_gradient_is_inverse_rotation(interleaved):
    x = lucid.tensor(randn(2, 5, 6), requires_grad=True)
    p = RNG.integers(0, 50, (2, 5))
    y = F.apply_rotary_emb(x, lucid.tensor(p), interleaved=interleaved)
    g = randn(2, 5, 6)
    y.backward(lucid.tensor(g))
    close(x.grad, rope_ref(g, p.astype(float), interleaved, sign=-1.0), 1e-12)
    pt = lucid.tensor(p)
    assert gradcheck(lambda t: F.apply_rotary_emb(t, pt, interleaved=interleaved), (x,))
    assert gradgradcheck(lambda t: F.apply_rotary_emb(t, interleaved=interleaved), (x,))


def test_rope_errors():
    with pytest.raises(lucid.ShapeMismatch, match="even"):
        F.apply_rotary_emb(lucid.randn(2, 4, 5))
    with pytest.raises(lucid.ShapeMismatch, match="seq_len"):
        F.apply_rotary_emb(lucid.randn(6))
    with pytest.raises(lucid.ShapeMismatch, match="broadcast"):
        F.apply_rotary_emb(lucid.randn(2, 4, 6), lucid.arange(5))
    with pytest.raises(lucid.DtypeMismatch, match="position_ids"):
        F.apply_rotary_emb(lucid.randn(2, 4, 6), lucid.ones(4, dtype=lucid.bool))
    with pytest.raises(NotImplementedError, match="rope"):
        F.apply_rotary_emb(lucid.ones(2, 4, 6, dtype=lucid.int64))
    with pytest.raises(ValueError, match="base"):
        F.apply_rotary_emb(lucid.randn(2, 4, 6), base=0.0)
    with pytest.raises(ValueError, match="rotary_dim"):
        F.apply_rotary_emb(lucid.randn(2, 4, 6), rotary_dim=8)
    with pytest.raises(ValueError):
        nn.RotaryEmbedding(5)


# ---- fused linear + activation

ACTS = [("linear_relu", {}, lambda t, tt: tt.relu(t)),
        ("linear_gelu", {}, lambda t, tt: tt.nn.functional.gelu(t)),
        ("linear_gelu", {"approximate": "tanh"}, lambda t, tt: tt.nn.functional.gelu(t, approximate="tanh"))]


@pytest.mark.parametrize("name,kw,ref", ACTS)
@pytest.mark.parametrize("shape,bias", [((4, 6), True), ((2, 3, 6), True), ((6,), False), ((0, 6), True)])
@pytest.mark.parametrize("dtype", [lucid.float32, lucid.float64])
def test_linear_act_matches_torch(torch, name, kw, ref, shape, bias, dtype):
    tdt = {lucid.float32: torch.float32, lucid.float64: torch.float64}[dtype]
    args = [randn(*shape), randn(5, 6)] + ([randn(5)] if bias else [])
    la = [lucid.tensor(a, dtype=dtype, requires_grad=True) for a in args]
    ta = [torch.tensor(a, dtype=tdt, requires_grad=True) for a in args]
    y = getattr(F, name)(*la, **kw)
    ty = ref(torch.nn.functional.linear(*ta), torch)
    tol = 1e-5 if dtype == lucid.float32 else 1e-12
    assert y.dtype == dtype
    close(y, ty, tol)
    g = randn(*ty.shape)
    y.backward(lucid.tensor(g, dtype=dtype))
    ty.backward(torch.tensor(g, dtype=tdt))
    for a, b in zip(la, ta):
        close(a.grad, b.grad, tol * 10)


@pytest.mark.parametrize("name,kw,ref", ACTS)
def test_linear_act_gradcheck(name, kw, ref):
    xs = (lucid.tensor(randn(2, 3, 4), requires_grad=True), lucid.tensor(randn(3, 4), requires_grad=True),
          lucid.tensor(randn(3), requires_grad=True))
    f = lambda *t: getattr(F, name)(*t, **kw)   # noqa: E731
    assert gradcheck(f, xs)
    assert gradgradcheck(f, xs)


def test_linear_act_nan_and_modules(torch):
    y = F.linear_relu(lucid.ones(1, 2), lucid.zeros(2, 2), lucid.tensor([float("nan"), 1.0]))
    assert math.isnan(y[0, 0].item()) and y[0, 1].item() == 1.0
    x0, w0 = lucid.zeros(3, 0, requires_grad=True), lucid.zeros(4, 0, requires_grad=True)   # in_features = 0
    b0 = lucid.tensor([-1.0, 2.0, 0.5, -3.0], dtype=lucid.float64, requires_grad=True)
    y = F.linear_gelu(x0.double(), w0.double(), b0)
    close(y, torch.nn.functional.gelu(torch.tensor(b0.detach().numpy())).expand(3, 4), 1e-12)
    y.sum().backward()
    assert tuple(x0.grad.shape) == (3, 0) and tuple(w0.grad.shape) == (4, 0)
    lm = nn.LinearReLU(4, 3)
    assert list(lm.state_dict()) == ["weight", "bias"]
    x = lucid.randn(5, 4)
    close(lm(x), F.relu(F.linear(x, lm.weight, lm.bias)), 1e-6)
    gm = nn.LinearGELU(4, 3, approximate="tanh")
    close(gm(x), F.gelu(F.linear(x, gm.weight, gm.bias), approximate="tanh"), 1e-6)
    assert "approximate='tanh'" in repr(gm)


def test_linear_act_errors():
    x, w = lucid.randn(2, 4), lucid.randn(3, 4)
    with pytest.raises(lucid.ShapeMismatch, match="linear_relu"):
        F.linear_relu(x, lucid.randn(3, 5))
    with pytest.raises(lucid.ShapeMismatch, match="bias"):
        F.linear_gelu(x, w, lucid.randn(4))
    with pytest.raises(lucid.DtypeMismatch, match="one dtype"):
        F.linear_relu(x, w.double())
    with pytest.raises(NotImplementedError, match="floating"):
        F.linear_relu(x.long(), w.long())
    with pytest.raises(ValueError, match="approximate"):
        F.linear_gelu(x, w, approximate="fast")


# ---- sinusoidal and timestep encodings

def sinusoid_ref(pos, d, base=10000.0):
    out = np.zeros(pos.shape + (d,))
    for j in range(d):
        f = base ** (-2 * (j // 2) / d)
        out[..., j] = np.sin(pos * f) if j % 2 == 0 else np.cos(pos * f)
    return out


@pytest.mark.parametrize("d", [8, 7, 1])
def test_sinusoidal_embedding(d):
    e = F.sinusoidal_embedding(6, d, dtype=lucid.float64)
    close(e, sinusoid_ref(np.arange(6.0), d), 1e-12)
    assert F.sinusoidal_embedding(6, d).dtype == lucid.get_default_dtype()
    close(F.sinusoidal_embedding(6, d, base=100.0, dtype=lucid.float64), sinusoid_ref(np.arange(6.0), d, 100.0), 1e-12)
    m = nn.SinusoidalEmbedding(d)
    close(m(6), e, 1e-6)
    pos = np.array([[0.5, 3.0], [10.0, 2.25]])
    close(m(lucid.tensor(pos)), sinusoid_ref(pos, d), 1e-12)
    assert m(lucid.tensor([1, 2])).dtype == lucid.get_default_dtype()
    with pytest.raises(ValueError):
        F.sinusoidal_embedding(4, 0)


def test_sinusoidal_embedding_2d():
    e = F.sinusoidal_embedding_2d(3, 4, 8, dtype=lucid.float64)
    gh, gw = np.meshgrid(np.arange(3.0), np.arange(4.0), indexing="ij")
    want = np.concatenate([sinusoid_ref(gh.reshape(-1), 4), sinusoid_ref(gw.reshape(-1), 4)], -1)
    close(e, want, 1e-12)
    with pytest.raises(ValueError, match="even"):
        F.sinusoidal_embedding_2d(2, 2, 5)


@pytest.mark.parametrize("dim", [8, 9])
def test_timestep_embedding(dim):
    t = np.array([0.0, 1.0, 250.5, 999.0])
    half = dim // 2
    f = np.exp(-math.log(10000) * np.arange(half) / half)
    want = np.concatenate([np.cos(t[:, None] * f), np.sin(t[:, None] * f)] + ([np.zeros((4, 1))] if dim % 2 else []),
                          -1)
    close(F.timestep_embedding(lucid.tensor(t), dim), want, 1e-12)
    assert F.timestep_embedding(lucid.tensor([1, 2]), dim).dtype == lucid.get_default_dtype()
    m = nn.TimestepEmbedding(6, frequency_embedding_size=dim, dtype=lucid.float64)
    assert list(m.state_dict()) == ["mlp.0.weight", "mlp.0.bias", "mlp.2.weight", "mlp.2.bias"]
    w0, b0, w2, b2 = [v.numpy() for v in m.state_dict().values()]
    h = want @ w0.T + b0
    h = h / (1 + np.exp(-h))
    close(m(lucid.tensor(t)), h @ w2.T + b2, 1e-12)


# ---- GRN

def grn_ref(x, gamma, beta, eps, channels_last):
    if not channels_last:
        x = np.moveaxis(x, 1, -1)
    sp = tuple(range(1, x.ndim - 1))
    g = np.sqrt((x * x).sum(sp, keepdims=True))
    n = g / (g.mean(-1, keepdims=True) + eps)
    out = gamma * (x * n) + beta + x
    return out if channels_last else np.moveaxis(out, -1, 1)


@pytest.mark.parametrize("channels_last,shape", [(True, (2, 3, 4, 5)), (False, (2, 5, 3, 4)), (True, (2, 6, 5)),
                                                 (False, (1, 5, 2, 2, 3))])
def test_grn(channels_last, shape):
    x, gamma, beta = randn(*shape), randn(5), randn(5)
    args = [lucid.tensor(a, requires_grad=True) for a in (x, gamma, beta)]
    close(F.global_response_norm(*args, channels_last=channels_last), grn_ref(x, gamma, beta, 1e-6, channels_last),
          1e-12)
    assert gradcheck(lambda *a: F.global_response_norm(*a, eps=1e-3, channels_last=channels_last), tuple(args))
    m = nn.GRN(5, channels_last=channels_last, dtype=lucid.float64)
    assert list(m.state_dict()) == ["gamma", "beta"]
    close(m(lucid.tensor(x)), x, 0)                     # zero-initialised: the identity
    with pytest.raises(lucid.ShapeMismatch, match="gamma"):
        F.global_response_norm(lucid.tensor(x), lucid.randn(4), lucid.randn(5), channels_last=channels_last)
    with pytest.raises(lucid.ShapeMismatch, match="spatial"):
        F.global_response_norm(lucid.randn(2, 5), lucid.randn(5), lucid.randn(5))


# ---- NoisyLinear

def test_noisy_linear():
    lucid.manual_seed(3)
    m = nn.NoisyLinear(16, 4, dtype=lucid.float64)
    assert list(m.state_dict()) == ["weight_mu", "weight_sigma", "bias_mu", "bias_sigma", "weight_epsilon",
                                    "bias_epsilon"]
    wmu = m.weight_mu.detach().numpy()
    assert np.abs(wmu).max() <= 0.25
    close(m.weight_sigma, np.full((4, 16), 0.5 / 4), 0)
    close(m.bias_sigma, np.full(4, 0.5 / 4), 0)
    eps_w, eps_b = m.weight_epsilon.numpy().copy(), m.bias_epsilon.numpy().copy()
    assert np.linalg.matrix_rank(eps_w) == 1                     # factorised: outer(f(e_out), f(e_in))
    close(eps_w[:, :1] / eps_w[:1, :1], (eps_b / eps_b[0])[:, None], 1e-12)
    x = randn(3, 16)
    w = wmu + m.weight_sigma.detach().numpy() * eps_w
    b = m.bias_mu.detach().numpy() + m.bias_sigma.detach().numpy() * eps_b
    close(m(lucid.tensor(x)), x @ w.T + b, 1e-12)
    m.eval()
    close(m(lucid.tensor(x)), x @ wmu.T + m.bias_mu.detach().numpy(), 1e-12)
    m.reset_noise()
    assert not np.allclose(m.weight_epsilon.numpy(), eps_w)
    m.train()
    m(lucid.tensor(x)).sum().backward()
    close(m.weight_sigma.grad, m.weight_epsilon.numpy() * x.sum(0), 1e-10)
    close(m.bias_sigma.grad, 3 * m.bias_epsilon.numpy(), 1e-10)
    assert nn.NoisyLinear(3, 2, bias=False).bias_mu is None
    args = [lucid.tensor(a, requires_grad=i in (0, 1, 2, 4, 5)) for i, a in
            enumerate([randn(2, 3), randn(4, 3), randn(4, 3), randn(4, 3), randn(4), randn(4), randn(4)])]
    assert gradcheck(F.noisy_linear, tuple(args))


# ---- vector quantisation

def test_nearest_codebook_and_vq():
    z, cb = randn(2, 5, 3), randn(7, 3)
    d = ((z[..., None, :] - cb) ** 2).sum(-1)
    idx = F.nearest_codebook(lucid.tensor(z), lucid.tensor(cb))
    assert idx.dtype == lucid.int64
    np.testing.assert_array_equal(idx.numpy(), d.argmin(-1))
    lz, lcb = lucid.tensor(z, requires_grad=True), lucid.tensor(cb, requires_grad=True)
    q, loss, idx = F.vector_quantize(lz, lcb, beta=0.3)
    qn = cb[d.argmin(-1)]
    close(q, qn, 1e-12)
    close(loss, 1.3 * ((qn - z) ** 2).mean(), 1e-12)
    g = randn(2, 5, 3)
    (q * lucid.tensor(g)).sum().backward()
    close(lz.grad, g, 1e-12)                               # straight through
    assert lcb.grad is None or np.allclose(lcb.grad.numpy(), 0)
    lz.grad = None
    loss.backward()
    close(lz.grad, 0.3 * 2 * (z - qn) / z.size, 1e-12)       # commitment term only
    want_cb = np.zeros_like(cb)
    np.add.at(want_cb, d.argmin(-1).reshape(-1), (2 * (qn - z) / z.size).reshape(-1, 3))
    close(lcb.grad, want_cb, 1e-12)                        # codebook term only
    m = nn.VectorQuantizer(6, 3)
    assert list(m.state_dict()) == ["embedding.weight"]
    assert np.abs(m.embedding.weight.detach().numpy()).max() <= 1 / 6
    q, loss, idx = m(lucid.tensor(z, dtype=lucid.float32))
    assert tuple(q.shape) == (2, 5, 3) and tuple(idx.shape) == (2, 5) and loss.dim() == 0
    with pytest.raises(lucid.ShapeMismatch, match="codebook"):
        F.nearest_codebook(lucid.randn(2, 4), lucid.randn(5, 3))
    with pytest.raises(lucid.ShapeMismatch, match="empty"):
        F.nearest_codebook(lucid.randn(2, 3), lucid.randn(0, 3))


# ---- two-hot, straight-through, symlog / symexp

def two_hot_ref(x, bins):   # DreamerV3's formula
    below = (bins <= x[..., None]).sum(-1) - 1
    above = len(bins) - (bins > x[..., None]).sum(-1)
    below, above = np.clip(below, 0, len(bins) - 1), np.clip(above, 0, len(bins) - 1)
    equal = below == above
    db = np.where(equal, 1, np.abs(bins[below] - x))
    da = np.where(equal, 1, np.abs(bins[above] - x))
    tot = db + da
    eye = np.eye(len(bins))
    return eye[below] * (da / tot)[..., None] + eye[above] * (db / tot)[..., None]


def test_two_hot():
    bins = np.array([-3.0, -1.0, 0.0, 0.5, 2.0, 5.0])
    x = np.array([[-4.0, -3.0, -2.0, 0.0], [0.25, 1.0, 5.0, 9.0]])
    y = F.two_hot(lucid.tensor(x), lucid.tensor(bins))
    close(y, two_hot_ref(x, bins), 1e-12)
    close(y.sum(-1), np.ones((2, 4)), 1e-12)
    close((y.numpy() * bins).sum(-1), np.clip(x, -3, 5), 1e-12)   # the encoding's mean is the value
    xi = lucid.tensor([-2.5, 0.1, 1.2, 3.0], dtype=lucid.float64, requires_grad=True)
    bt = lucid.tensor(bins)
    assert gradcheck(lambda t: F.two_hot(t, bt), (xi,))
    close(F.two_hot(lucid.tensor([1.0, -2.0]), lucid.tensor([0.0])), np.ones((2, 1)), 0)
    with pytest.raises(lucid.ShapeMismatch):
        F.two_hot(lucid.tensor(x), lucid.ones(2, 2))
    with pytest.raises(lucid.DtypeMismatch):
        F.two_hot(lucid.tensor(x), lucid.arange(4))


def test_straight_through():
    x = lucid.tensor(randn(3, 4), requires_grad=True)
    hard = x.round()
    y = F.straight_through(x, hard)
    close(y, hard.numpy(), 0)
    g = randn(3, 4)
    y.backward(lucid.tensor(g))
    close(x.grad, g, 0)


def test_symlog_symexp():
    x = np.array([-50.0, -2.0, -1e-3, 0.0, 1e-3, 3.0, 40.0])
    close(F.symlog(lucid.tensor(x)), np.sign(x) * np.log1p(np.abs(x)), 1e-12)
    close(F.symexp(lucid.tensor(x)), np.sign(x) * np.expm1(np.abs(x)), 1e-12)
    close(F.symexp(F.symlog(lucid.tensor(x))), x, 1e-10)
    t = lucid.tensor(x, requires_grad=True)
    F.symlog(t).sum().backward()
    close(t.grad, 1 / (1 + np.abs(x)), 1e-12)                # 1 at 0
    t = lucid.tensor(x / 10, requires_grad=True)
    F.symexp(t).sum().backward()
    close(t.grad, np.exp(np.abs(x / 10)), 1e-12)
    xs = lucid.tensor([-1.5, -0.2, 0.3, 2.0], dtype=lucid.float64, requires_grad=True)
    assert gradcheck(F.symlog, (xs,)) and gradgradcheck(F.symlog, (xs,))
    assert gradcheck(F.symexp, (xs,)) and gradgradcheck(F.symexp, (xs,))


# ---- DropBlock

def keep_mask_ref(seeds, bs, shape):
    mask = np.ones(seeds.shape[:2] + shape)
    for idx in zip(*np.nonzero(seeds)):
        sl = tuple(slice(i, i + bs) for i in idx[2:])
        mask[idx[:2] + sl] = 0
    return mask


@pytest.mark.parametrize("nd,bs", [(2, 3), (2, 2), (3, 2), (2, 1)])
def test_drop_block_mask(nd, bs):
    from lucid.nn._functional_extra import _block_keep_mask
    shape = (7, 6) if nd == 2 else (4, 5, 3)
    seeds = (RNG.random((2, 3) + tuple(s - bs + 1 for s in shape)) < 0.1).astype(float)
    close(_block_keep_mask(lucid.tensor(seeds), bs, nd), keep_mask_ref(seeds, bs, shape), 0)


@pytest.mark.parametrize("fn,shape", [(F.drop_block2d, (4, 8, 16, 16)), (F.drop_block3d, (2, 8, 8, 8, 8))])
def test_drop_block(fn, shape):
    lucid.manual_seed(4)
    x = lucid.tensor(np.abs(randn(*shape)) + 1, requires_grad=True)
    y = fn(x, 0.2, 3)
    r = (y / x).detach().numpy()
    kept = r > 0
    scale = r[kept][0]
    close(r[kept], np.full(kept.sum(), scale), 1e-10)
    close(scale, kept.size / (1e-6 + kept.sum()), 1e-10)
    assert 0.08 < 1 - kept.mean() < 0.3
    y.sum().backward()
    close(x.grad, r, 1e-10)
    close(fn(x, 0.2, 3, training=False), x.detach().numpy(), 0)
    close(fn(x, 0.0, 3), x.detach().numpy(), 0)
    m = (nn.DropBlock2d if fn is F.drop_block2d else nn.DropBlock3d)(0.2, 3)
    m.eval()
    close(m(x), x.detach().numpy(), 0)
    with pytest.raises(ValueError, match="between 0 and 1"):
        fn(x, 1.5, 3)
    with pytest.raises(lucid.ShapeMismatch, match="dimensional"):
        fn(lucid.randn(2, 3, 4), 0.1, 3)


# ---- accuracy

def test_accuracy():
    s = randn(10, 4)
    t = RNG.integers(0, 4, 10)
    n = F.correct_count(lucid.tensor(s), lucid.tensor(t))
    assert n.dtype == lucid.int64 and n.item() == int((s.argmax(1) == t).sum())
    assert math.isclose(F.accuracy(lucid.tensor(s), lucid.tensor(t)).item(), (s.argmax(1) == t).mean(), rel_tol=1e-6)
    top2 = np.argsort(-s, 1)[:, :2]
    assert F.correct_count(lucid.tensor(s), lucid.tensor(t), k=2).item() == int((top2 == t[:, None]).any(1).sum())
    s3, t3 = randn(2, 4, 3), RNG.integers(0, 4, (2, 3))       # (N, C, d) scores
    assert F.correct_count(lucid.tensor(s3), lucid.tensor(t3)).item() == int((s3.argmax(1) == t3).sum())
    labels = s.argmax(1)
    assert F.correct_count(lucid.tensor(labels), lucid.tensor(t)).item() == int((labels == t).sum())
    assert F.correct_count(lucid.tensor(s[0]), lucid.tensor(t[0])).item() == int(s[0].argmax() == t[0])
    with pytest.raises(lucid.ShapeMismatch):
        F.correct_count(lucid.tensor(s), lucid.tensor(t[:5]))
    with pytest.raises(lucid.DtypeMismatch):
        F.correct_count(lucid.tensor(s), lucid.tensor(t.astype(float)))
    with pytest.raises(ValueError):
        F.accuracy(lucid.tensor(s), lucid.tensor(t), k=5)


def test_exports():
    for n in ["apply_rotary_emb", "sinusoidal_embedding", "sinusoidal_embedding_2d", "timestep_embedding",
              "global_response_norm", "noisy_linear", "linear_relu", "linear_gelu", "nearest_codebook",
              "vector_quantize", "two_hot", "straight_through", "symlog", "symexp", "drop_block2d", "drop_block3d",
              "correct_count", "accuracy"]:
        assert n in F.__all__ and callable(getattr(F, n))
    for n in ["RotaryEmbedding", "SinusoidalEmbedding", "TimestepEmbedding", "GlobalResponseNorm", "GRN",
              "NoisyLinear", "LinearReLU", "LinearGELU", "VectorQuantizer", "DropBlock2d", "DropBlock3d"]:
        assert issubclass(getattr(nn, n), nn.Module)
