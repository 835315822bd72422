"""F.scaled_dot_product_attention (the fused flash-style engine op) against PyTorch: values and
gradients for every mask kind, causal, L != S, Ev != E, grouped heads, broadcast batch dims, fully
masked rows; float64 gradcheck and double backward; dropout (p = 0 exact, statistics, the backward
seeing the forward's mask); typed errors."""
import numpy as np
import pytest

import lucid
import lucid.nn.functional as F
from lucid.autograd import gradcheck, gradgradcheck
from helpers import close

RNG = np.random.default_rng(5)


def arr(*shape):
    return RNG.standard_normal(shape)


def make_mask(kind, shape):
    if kind is None:
        return None
    if kind == "bool":
        m = RNG.random(shape) > 0.3
        m[..., 0] = True  # every row sees a key (fully masked rows: their own test)
        return m
    return arr(*shape)


def run_both(torch, qs, ks, vs, mask=None, dtype="float64", tol=1e-10, **kw):
    q, k, v = arr(*qs), arr(*ks), arr(*vs)
    td = getattr(torch, dtype)
    lq, lk, lv = (lucid.tensor(x.astype(dtype), requires_grad=True) for x in (q, k, v))
    tq, tk, tv = (torch.tensor(x.astype(dtype), requires_grad=True) for x in (q, k, v))
    lm = tm = None
    if mask is not None:
        lm = lucid.tensor(mask if mask.dtype == bool else mask.astype(dtype))
        tm = torch.tensor(mask if mask.dtype == bool else mask.astype(dtype))
    y = F.scaled_dot_product_attention(lq, lk, lv, attn_mask=lm, **kw)
    ty = torch.nn.functional.scaled_dot_product_attention(tq, tk, tv, attn_mask=tm, **kw)
    close(y, ty, tol)
    g = arr(*ty.shape).astype(dtype)
    y.backward(lucid.tensor(g))
    ty.backward(torch.tensor(g, dtype=td))
    for a, b in ((lq, tq), (lk, tk), (lv, tv)):
        close(a.grad, b.grad, tol)
    return y


@pytest.mark.parametrize("mask", [None, "bool", "float"])
@pytest.mark.parametrize("shapes", [
    ((2, 3, 5, 4), (2, 3, 7, 4), (2, 3, 7, 6)),        # L != S, Ev != E
    ((1, 2, 70, 8), (1, 2, 150, 8), (1, 2, 150, 5)),   # several query and key blocks
    ((6, 4), (9, 4), (9, 3)),                          # no batch dims
])
def test_sdpa_matches_torch(torch, mask, shapes):
    qs, ks, vs = shapes
    m = make_mask(mask, qs[:-1] + (ks[-2],))
    run_both(torch, qs, ks, vs, m)


@pytest.mark.parametrize("mshape", [(5, 7), (1, 5, 7), (2, 1, 5, 7), (2, 3, 1, 7)])
@pytest.mark.parametrize("kind", ["bool", "float"])
def test_sdpa_broadcast_masks(torch, mshape, kind):
    run_both(torch, (2, 3, 5, 4), (2, 3, 7, 4), (2, 3, 7, 4), make_mask(kind, mshape))


@pytest.mark.parametrize("L,S", [(6, 6), (9, 4), (4, 9), (130, 140)])
def test_sdpa_causal_top_left(torch, L, S):
    run_both(torch, (2, 2, L, 8), (2, 2, S, 8), (2, 2, S, 8), is_causal=True)


def test_sdpa_scale_and_float32(torch):
    run_both(torch, (2, 2, 33, 16), (2, 2, 47, 16), (2, 2, 47, 16), make_mask("float", (33, 47)), dtype="float32",
             tol=2e-5, scale=0.3)
    run_both(torch, (2, 2, 70, 16), (2, 2, 70, 16), (2, 2, 70, 8), dtype="float32", tol=2e-5, is_causal=True)


def test_sdpa_broadcast_batch_dims(torch):
    run_both(torch, (2, 1, 4, 3), (3, 5, 3), (1, 5, 2))
    run_both(torch, (2, 3, 4, 3), (2, 1, 5, 3), (1, 1, 5, 2), make_mask("bool", (3, 4, 5)))


@pytest.mark.parametrize("hk", [1, 2, 6])
def test_sdpa_gqa(torch, hk):
    run_both(torch, (2, 6, 5, 4), (2, hk, 7, 4), (2, hk, 7, 3), enable_gqa=True)
    run_both(torch, (2, 6, 9, 4), (2, hk, 9, 4), (2, hk, 9, 4), enable_gqa=True, is_causal=True)


def test_sdpa_fully_masked_rows_give_zeros(torch):
    m = RNG.random((5, 7)) > 0.5
    m[1] = False
    m[3] = False
    y = run_both(torch, (2, 5, 4), (2, 7, 4), (2, 7, 4), m)
    assert np.all(y.detach().numpy()[:, [1, 3]] == 0)
    f = arr(5, 7)
    f[2] = -np.inf
    y = run_both(torch, (2, 5, 4), (2, 7, 4), (2, 7, 4), f)
    assert np.all(y.detach().numpy()[:, 2] == 0)


def test_sdpa_float_mask_gradient(torch):
    q, k, v, m = arr(2, 4, 3), arr(2, 6, 3), arr(2, 6, 3), arr(4, 6)
    lm, tm = lucid.tensor(m, requires_grad=True), torch.tensor(m, requires_grad=True)
    y = F.scaled_dot_product_attention(lucid.tensor(q), lucid.tensor(k), lucid.tensor(v), attn_mask=lm)
    ty = torch.nn.functional.scaled_dot_product_attention(torch.tensor(q), torch.tensor(k), torch.tensor(v),
                                                          attn_mask=tm)
    g = arr(2, 4, 3)
    y.backward(lucid.tensor(g))
    ty.backward(torch.tensor(g))
    close(lm.grad, tm.grad, 1e-10)


@pytest.mark.parametrize("kw", [{}, {"is_causal": True}, {"mask": "bool"}, {"mask": "float"}, {"gqa": True}])
def test_sdpa_gradcheck_float64(kw):
    h = 2 if kw.get("gqa") else 1
    q = lucid.tensor(arr(1, 2, 4, 3), requires_grad=True)
    k = lucid.tensor(arr(1, h, 5, 3), requires_grad=True)
    v = lucid.tensor(arr(1, h, 5, 2), requires_grad=True)
    inputs = [q, k, v]
    mask = None
    if kw.get("mask") == "bool":
        mask = lucid.tensor(make_mask("bool", (4, 5)))
    elif kw.get("mask") == "float":
        mask = lucid.tensor(arr(4, 5), requires_grad=True)
        inputs.append(mask)

    def f(q, k, v, *m):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=m[0] if m else mask,
                                              is_causal=kw.get("is_causal", False), enable_gqa=kw.get("gqa", False))

    assert gradcheck(f, tuple(inputs))
    assert gradgradcheck(f, tuple(inputs))


def test_sdpa_double_backward_matches_torch(torch):
    q, k, v = arr(2, 5, 3), arr(2, 6, 3), arr(2, 6, 4)
    m = make_mask("bool", (5, 6))
    m[2] = False
    ls = [lucid.tensor(x, requires_grad=True) for x in (q, k, v)]
    ts = [torch.tensor(x, requires_grad=True) for x in (q, k, v)]
    y = F.scaled_dot_product_attention(*ls, attn_mask=lucid.tensor(m))
    ty = torch.nn.functional.scaled_dot_product_attention(*ts, attn_mask=torch.tensor(m))
    gs = lucid.autograd.grad((y * y).sum(), ls, create_graph=True)
    tgs = torch.autograd.grad((ty * ty).sum(), ts, create_graph=True)
    s = sum((g * g).sum() for g in gs)
    ts_ = sum((g * g).sum() for g in tgs)
    close(s, ts_, 1e-10)
    s.backward()
    ts_.backward()
    for a, b in zip(ls, ts):
        close(a.grad, b.grad, 1e-9)


def test_sdpa_dropout_zero_is_exact():
    q, k, v = (lucid.tensor(arr(2, 3, 9, 4).astype("float32")) for _ in range(3))
    a = F.scaled_dot_product_attention(q, k, v, dropout_p=0.0)
    b = F.scaled_dot_product_attention(q, k, v)
    assert np.array_equal(a.numpy(), b.numpy())


def test_sdpa_dropout_statistics():
    # q = k = 0: every weight is 1/S; v = 1: each output is (kept count / S) / (1 - p).
    p, S = 0.3, 64
    q = lucid.zeros(4, 8, 16, 2)
    k = lucid.zeros(4, 8, S, 2)
    v = lucid.ones(4, 8, S, 1)
    lucid.manual_seed(3)
    y = F.scaled_dot_product_attention(q, k, v, dropout_p=p).numpy().ravel()
    kept = y * (1 - p) * S  # whole numbers of kept keys
    np.testing.assert_allclose(kept, np.round(kept), atol=1e-3)
    frac = kept / S
    assert abs(frac.mean() - (1 - p)) < 0.01          # 512 rows x 64 draws
    assert abs(frac.std() - np.sqrt(p * (1 - p) / S)) < 0.01
    assert abs(y.mean() - 1.0) < 0.02                 # unbiased
    lucid.manual_seed(3)
    y2 = F.scaled_dot_product_attention(q, k, v, dropout_p=p).numpy().ravel()
    assert np.array_equal(y, y2)                      # lucid's generator drives it
    y3 = F.scaled_dot_product_attention(q, k, v, dropout_p=p).numpy().ravel()
    assert not np.array_equal(y, y3)
    assert np.all(F.scaled_dot_product_attention(q, k, v, dropout_p=1.0).numpy() == 0)


def test_sdpa_dropout_backward_uses_forward_mask():
    # The fused backward and the create_graph path (lucid ops with the regenerated mask) agree, and
    # gradcheck holds for a fixed seed.
    q, k, v = (arr(2, 2, 6, 3) for _ in range(3))

    def f(q, k, v):
        lucid.manual_seed(7)
        return F.scaled_dot_product_attention(q, k, v, dropout_p=0.4, is_causal=True)

    ls = [lucid.tensor(x, requires_grad=True) for x in (q, k, v)]
    g = lucid.tensor(arr(2, 2, 6, 3))
    fused = lucid.autograd.grad(f(*ls), ls, g)
    graph = lucid.autograd.grad(f(*ls), ls, g, create_graph=True)
    for a, b in zip(fused, graph):
        close(a, b, 1e-12)
    assert gradcheck(f, tuple(ls))


def test_sdpa_half_precision_computes_in_float32(torch):
    q = arr(2, 5, 8).astype("float32")
    y = F.scaled_dot_product_attention(*(lucid.tensor(q).to(lucid.bfloat16) for _ in range(3)))
    assert y.dtype == lucid.bfloat16
    ty = torch.nn.functional.scaled_dot_product_attention(*(torch.tensor(q).to(torch.bfloat16) for _ in range(3)))
    close(y.float(), ty.float(), 3e-2)


def test_sdpa_errors():
    q = lucid.randn(2, 3, 4)
    with pytest.raises(lucid.DtypeMismatch, match="same dtype"):
        F.scaled_dot_product_attention(q, q.double(), q)
    with pytest.raises(lucid.ShapeMismatch, match="last dimension"):
        F.scaled_dot_product_attention(q, lucid.randn(2, 3, 5), q)
    with pytest.raises(lucid.ShapeMismatch, match="sequence length"):
        F.scaled_dot_product_attention(q, q, lucid.randn(2, 4, 4))
    with pytest.raises(lucid.ShapeMismatch):
        F.scaled_dot_product_attention(q, lucid.randn(3, 3, 4), q)
    with pytest.raises(lucid.ShapeMismatch):
        F.scaled_dot_product_attention(q, q, q, attn_mask=lucid.ones(4, 3, dtype=lucid.bool))
    with pytest.raises(lucid.ShapeMismatch):
        F.scaled_dot_product_attention(lucid.randn(4), q, q)
    with pytest.raises(ValueError, match="dropout"):
        F.scaled_dot_product_attention(q, q, q, dropout_p=1.5)
    with pytest.raises(ValueError, match="is_causal"):
        F.scaled_dot_product_attention(q, q, q, attn_mask=lucid.ones(3, 3, dtype=lucid.bool), is_causal=True)
    with pytest.raises(lucid.DtypeMismatch, match="attn_mask"):
        F.scaled_dot_product_attention(q, q, q, attn_mask=lucid.ones(3, 3, dtype=lucid.int64))
    with pytest.raises(lucid.DtypeMismatch, match="floating"):
        i = lucid.ones(2, 3, 4, dtype=lucid.int64)
        F.scaled_dot_product_attention(i, i, i)
    with pytest.raises(lucid.ShapeMismatch, match="divide"):
        F.scaled_dot_product_attention(lucid.randn(1, 4, 3, 4), lucid.randn(1, 3, 3, 4), lucid.randn(1, 3, 3, 4),
                                       enable_gqa=True)


def test_sdpa_cuda_is_not_implemented():
    if not lucid.cuda.is_available():
        pytest.skip("no CUDA device")
    q = lucid.randn(2, 3, 4, device="cuda")
    with pytest.raises(NotImplementedError):
        F.scaled_dot_product_attention(q, q, q)


@pytest.fixture
def each_isa():
    """Runs the test body under every ISA path the CPU has (baseline, AVX2, AVX-512)."""
    old = lucid._C._cpu_isa()
    paths = []
    for name in ("baseline", "avx2", "avx512"):
        if lucid._C._set_cpu_isa(name) == name:
            paths.append(name)
    yield paths
    lucid._C._set_cpu_isa(old)


@pytest.mark.parametrize("dtype,tol", [("float32", 2e-6), ("float64", 1e-12)])
def test_sdpa_and_softmax_backward_every_isa(torch, each_isa, dtype, tol):
    # The vectorised exp / fused softmax backward rows, including row tails (D = 37) and -inf inputs.
    x = arr(3, 5, 37).astype(dtype)
    x[0, 1, :5] = -np.inf
    g = arr(3, 5, 37).astype(dtype)
    for isa in each_isa:
        lucid._C._set_cpu_isa(isa)
        for fn in ("softmax", "log_softmax"):
            for dim in (-1, 1):
                lx, tx = lucid.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
                getattr(F, fn)(lx, dim).backward(lucid.tensor(g))
                getattr(torch.nn.functional, fn)(tx, dim).backward(torch.tensor(g))
                close(lx.grad, tx.grad, tol * 10)
        run_both(torch, (2, 2, 37, 8), (2, 2, 45, 8), (2, 2, 45, 8), dtype=dtype, tol=tol * 10, is_causal=True)


@pytest.mark.parametrize("dtype,tol", [("float32", 2e-5), ("float64", 1e-11)])
@pytest.mark.parametrize("affine", [False, True])
def test_fused_layer_norm_backward(torch, dtype, tol, affine):
    # nn_norm.cpp's vjp runs backend/kernels/attention.h's layer_norm_backward_kernel when no graph is recorded.
    x, g = arr(4, 7, 6, 5).astype(dtype), arr(4, 7, 6, 5).astype(dtype)
    w, b = arr(6, 5).astype(dtype), arr(6, 5).astype(dtype)
    lx, tx = lucid.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    lw, tw = (lucid.tensor(w, requires_grad=True), torch.tensor(w, requires_grad=True)) if affine else (None, None)
    lb, tb = (lucid.tensor(b, requires_grad=True), torch.tensor(b, requires_grad=True)) if affine else (None, None)
    F.layer_norm(lx, (6, 5), lw, lb).backward(lucid.tensor(g))
    torch.nn.functional.layer_norm(tx, (6, 5), tw, tb).backward(torch.tensor(g))
    close(lx.grad, tx.grad, tol)
    if affine:
        close(lw.grad, tw.grad, tol * 10)
        close(lb.grad, tb.grad, tol * 10)


@pytest.mark.parametrize("layout", ["heads_view", "inner_strided", "expanded_rows", "expanded_batch"])
def test_sdpa_strided_inputs(torch, layout):
    # Views are read in place (row offsets per head) or copied when their rows are not usable; the
    # gradients come back in the input's layout and match torch's.
    B, T, H, D = 2, 7, 3, 4
    base = {n: arr(B, T, H, 2 * D) for n in "qkv"}
    g = arr(B, H, T, D)

    def views(mod, n):
        t = mod.tensor(base[n], requires_grad=True)
        if layout == "heads_view":
            x = t[..., :D].transpose(1, 2)
        elif layout == "inner_strided":
            x = t[..., ::2].transpose(1, 2)
        elif layout == "expanded_rows":
            x = t[:, :1, :, :D].transpose(1, 2).expand(B, H, T, D)
        else:
            x = t[:1, :, :, :D].transpose(1, 2).expand(B, H, T, D)
        return t, x

    ls = [views(lucid, n) for n in "qkv"]
    ts = [views(torch, n) for n in "qkv"]
    y = F.scaled_dot_product_attention(*(x for _, x in ls), is_causal=True)
    ty = torch.nn.functional.scaled_dot_product_attention(*(x for _, x in ts), is_causal=True)
    close(y, ty, 1e-10)
    y.backward(lucid.tensor(g))
    ty.backward(torch.tensor(g))
    for (a, _), (b, _) in zip(ls, ts):
        close(a.grad, b.grad, 1e-10)
