"""Pooling and embeddings of lucid.nn.functional (average / max / adaptive / LP pooling over 1-3 spatial
dims, max unpooling, embedding, embedding_bag) and their layers, against PyTorch: values, indices,
gradients, float64 gradcheck / gradgradcheck, module defaults and typed errors."""
import numpy as np
import pytest

import lucid
import lucid.nn as nn
import lucid.nn.functional as F
from lucid.autograd import gradcheck, gradgradcheck
from helpers import close

RNG = np.random.default_rng(11)


def arr(*shape):
    return RNG.standard_normal(shape)


TOL = {"float32": 1e-5, "float64": 1e-10}


def compare(torch, name, shape, kw, dtype="float64", torch_name=None, multi=False):
    """F.<name>(x, **kw) against torch's: values (and indices), and the gradient of a random cotangent."""
    x = arr(*shape).astype(dtype)
    lx = lucid.tensor(x, requires_grad=True)
    tx = torch.tensor(x, requires_grad=True)
    y = getattr(F, name)(lx, **kw)
    ty = getattr(torch.nn.functional, torch_name or name)(tx, **kw)
    if multi:
        (y, i), (ty, ti) = y, ty
        assert i.dtype == lucid.int64
        np.testing.assert_array_equal(i.numpy(), ti.numpy())
    close(y, ty, TOL[dtype])
    g = arr(*ty.shape).astype(dtype)
    y.backward(lucid.tensor(g))
    ty.backward(torch.tensor(g))
    close(lx.grad, tx.grad, TOL[dtype])


AVG_CASES = [
    ("avg_pool1d", (2, 3, 9), dict(kernel_size=3)),
    ("avg_pool1d", (2, 3, 9), dict(kernel_size=3, stride=2, padding=1)),
    ("avg_pool1d", (2, 3, 8), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False)),
    ("avg_pool1d", (3, 10), dict(kernel_size=4, stride=3, ceil_mode=True)),  # unbatched
    ("avg_pool2d", (2, 3, 7, 8), dict(kernel_size=3)),
    ("avg_pool2d", (2, 3, 7, 8), dict(kernel_size=(3, 2), stride=(2, 1), padding=(1, 1))),
    ("avg_pool2d", (2, 3, 7, 8), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)),
    ("avg_pool2d", (2, 3, 7, 8), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False)),
    ("avg_pool2d", (2, 3, 6, 6), dict(kernel_size=3, stride=2, padding=1, divisor_override=5)),
    ("avg_pool2d", (2, 3, 5, 5), dict(kernel_size=2, stride=2, ceil_mode=True)),  # last window starts in bounds
    ("avg_pool2d", (3, 6, 5), dict(kernel_size=2)),  # unbatched
    ("avg_pool3d", (2, 2, 5, 6, 7), dict(kernel_size=2)),
    ("avg_pool3d", (2, 2, 5, 6, 7), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)),
    ("avg_pool3d", (1, 2, 5, 6, 7), dict(kernel_size=(3, 2, 3), stride=(2, 1, 2), padding=(1, 0, 1),
                                         count_include_pad=False)),
    ("avg_pool3d", (2, 5, 6, 7), dict(kernel_size=2, divisor_override=3)),  # unbatched
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,shape,kw", AVG_CASES)
def test_avg_pool_matches_torch(torch, name, shape, kw, dtype):
    compare(torch, name, shape, kw, dtype)


MAX_CASES = [
    ((2, 2, 5, 6, 7), dict(kernel_size=2)),
    ((2, 2, 5, 6, 7), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)),
    ((1, 2, 7, 6, 7), dict(kernel_size=(3, 2, 2), stride=(2, 1, 2), padding=(1, 1, 0), dilation=(2, 1, 2))),
    ((2, 5, 6, 7), dict(kernel_size=2, stride=1)),  # unbatched
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,kw", MAX_CASES)
def test_max_pool3d_matches_torch(torch, shape, kw, dtype):
    compare(torch, "max_pool3d", shape, dict(kw, return_indices=True), dtype, multi=True)
    compare(torch, "max_pool3d", shape, kw, dtype)


ADAPTIVE_CASES = [
    (1, (2, 3, 10), 4), (1, (3, 7), 7), (1, (2, 3, 5), 8),
    (2, (2, 3, 7, 9), (3, 4)), (2, (2, 3, 7, 9), 5), (2, (3, 6, 6), (None, 2)), (2, (2, 3, 5, 5), 1),
    (3, (2, 2, 5, 6, 7), (2, 3, 4)), (3, (2, 5, 6, 7), 3), (3, (1, 2, 4, 5, 6), (None, 2, None)),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("nd,shape,out", ADAPTIVE_CASES)
def test_adaptive_pools_match_torch(torch, nd, shape, out, dtype):
    compare(torch, f"adaptive_avg_pool{nd}d", shape, dict(output_size=out), dtype)
    compare(torch, f"adaptive_max_pool{nd}d", shape, dict(output_size=out, return_indices=True), dtype, multi=True)
    compare(torch, f"adaptive_max_pool{nd}d", shape, dict(output_size=out), dtype)


LP_CASES = [
    ("lp_pool1d", (2, 3, 9), dict(norm_type=2, kernel_size=3)),
    ("lp_pool1d", (2, 3, 9), dict(norm_type=3.0, kernel_size=2, stride=3, ceil_mode=True)),
    ("lp_pool2d", (2, 3, 6, 7), dict(norm_type=2, kernel_size=2)),
    ("lp_pool2d", (3, 6, 7), dict(norm_type=1.5, kernel_size=(2, 3), stride=(1, 2))),
    ("lp_pool3d", (1, 2, 4, 5, 6), dict(norm_type=2, kernel_size=2)),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,shape,kw", LP_CASES)
def test_lp_pool_matches_torch(torch, name, shape, kw, dtype):
    if kw["norm_type"] != 2:  # fractional powers need positive inputs (torch gives NaN too)
        x = np.abs(arr(*shape)).astype(dtype) + 0.1
        lx, tx = lucid.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
        y, ty = getattr(F, name)(lx, **kw), getattr(torch.nn.functional, name)(tx, **kw)
        close(y, ty, TOL[dtype])
        y.sum().backward()
        ty.sum().backward()
        close(lx.grad, tx.grad, 10 * TOL[dtype])
    else:
        compare(torch, name, shape, kw, dtype)


UNPOOL_CASES = [
    (1, (2, 3, 9), dict(kernel_size=2), {}),
    (1, (3, 10), dict(kernel_size=3, stride=2, padding=1), dict(output_size=(10,))),
    (2, (2, 3, 6, 7), dict(kernel_size=2), dict(output_size=(6, 7))),
    (2, (2, 3, 7, 7), dict(kernel_size=3, stride=2, padding=1), dict(output_size=(7, 7))),
    (2, (2, 3, 8, 8), dict(kernel_size=3, stride=2, padding=1), dict(output_size=(8, 8))),
    (2, (3, 6, 6), dict(kernel_size=2), dict(output_size=(1, 3, 7, 6))),
    (3, (2, 2, 4, 6, 5), dict(kernel_size=2), dict(output_size=(4, 6, 5))),
    (3, (2, 5, 6, 7), dict(kernel_size=2, stride=1), {}),
    (3, (1, 2, 5, 6, 7), dict(kernel_size=2, stride=2), dict(output_size=(5, 6, 7))),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("nd,shape,kw,extra", UNPOOL_CASES)
def test_max_unpool_matches_torch(torch, nd, shape, kw, extra, dtype):
    x = arr(*shape).astype(dtype)
    tp, ti = getattr(torch.nn.functional, f"max_pool{nd}d")(torch.tensor(x), return_indices=True, **kw)
    y0 = tp.numpy()
    lx = lucid.tensor(y0, requires_grad=True)
    tx = torch.tensor(y0, requires_grad=True)
    y = getattr(F, f"max_unpool{nd}d")(lx, lucid.tensor(ti.numpy()), **kw, **extra)
    ty = getattr(torch.nn.functional, f"max_unpool{nd}d")(tx, ti, **kw, **extra)
    close(y, ty, TOL[dtype])
    g = arr(*ty.shape).astype(dtype)
    y.backward(lucid.tensor(g))
    ty.backward(torch.tensor(g))
    close(lx.grad, tx.grad, TOL[dtype])


def test_pool_and_unpool_roundtrip_layers(torch):
    x = lucid.tensor(arr(2, 3, 6, 8))
    pool, unpool = nn.MaxPool2d(2, return_indices=True), nn.MaxUnpool2d(2)
    out, idx = pool(x)
    y = unpool(out, idx)
    t = torch.nn.functional.max_unpool2d(*torch.nn.functional.max_pool2d(torch.tensor(x.numpy()), 2,
                                                                          return_indices=True), 2)
    close(y, t)
    x3 = lucid.tensor(arr(1, 2, 4, 4, 4))
    o3, i3 = nn.MaxPool3d(2, return_indices=True)(x3)
    close(nn.MaxUnpool3d(2)(o3, i3, output_size=x3.shape), torch.nn.functional.max_unpool3d(
        *torch.nn.functional.max_pool3d(torch.tensor(x3.numpy()), 2, return_indices=True), 2))


# ---- gradcheck / gradgradcheck (float64)

GRAD_FNS = [
    lambda t: F.avg_pool1d(t.reshape(2, 3, 8), 3, 2, 1, ceil_mode=True, count_include_pad=False),
    lambda t: F.avg_pool2d(t.reshape(2, 3, 4, 2), 2, 1, 1, divisor_override=3),
    lambda t: F.avg_pool3d(t.reshape(1, 3, 2, 4, 2), 2, 1, 1, ceil_mode=True),
    lambda t: F.max_pool3d(t.reshape(1, 3, 2, 4, 2), 2, 1, 1),
    lambda t: F.adaptive_avg_pool2d(t.reshape(2, 3, 4, 2), (3, 2)),
    lambda t: F.adaptive_avg_pool3d(t.reshape(1, 3, 2, 4, 2), 3),
    lambda t: F.adaptive_max_pool1d(t.reshape(2, 3, 8), 3),
    lambda t: F.adaptive_max_pool2d(t.reshape(2, 3, 4, 2), (3, 1)),
    lambda t: F.lp_pool2d(t.reshape(2, 3, 4, 2), 2, 2),
    lambda t: F.lp_pool1d(t.reshape(2, 3, 8) * t.reshape(2, 3, 8) + 0.5, 3, 2),
]


@pytest.mark.parametrize("i", range(len(GRAD_FNS)))
def test_pool_gradcheck(i):
    x = lucid.tensor(RNG.permutation(48).astype(np.float64) / 7 - 3, requires_grad=True)  # distinct values
    assert gradcheck(GRAD_FNS[i], (x,))
    assert gradgradcheck(GRAD_FNS[i], (x,))


def test_max_unpool_gradcheck():
    x = lucid.tensor(arr(2, 3, 3, 3), requires_grad=True)
    _, idx = F.max_pool2d(lucid.tensor(arr(2, 3, 6, 6)), 2, return_indices=True)
    f = lambda t: F.max_unpool2d(t, idx, 2)  # noqa: E731
    assert gradcheck(f, (x,))
    assert gradgradcheck(f, (x,))


# ---- embedding

def test_embedding_matches_torch(torch):
    w = arr(10, 4)
    idx = np.array([[1, 3, 3], [0, 9, 1]])
    for kw in [{}, dict(padding_idx=3), dict(scale_grad_by_freq=True), dict(padding_idx=-1, scale_grad_by_freq=True)]:
        lw, tw = lucid.tensor(w, requires_grad=True), torch.tensor(w, requires_grad=True)
        if kw.get("padding_idx") == -1:
            idx = np.array([[1, 9, 3], [9, 9, 1]])
        y = F.embedding(lucid.tensor(idx), lw, **kw)
        ty = torch.nn.functional.embedding(torch.tensor(idx), tw, **kw)
        close(y, ty)
        g = arr(*ty.shape)
        y.backward(lucid.tensor(g))
        ty.backward(torch.tensor(g))
        close(lw.grad, tw.grad)


def test_embedding_int32_float32_and_scalar_index(torch):
    w = arr(6, 3).astype(np.float32)
    y = F.embedding(lucid.tensor(np.array([2, 5], dtype=np.int32)), lucid.tensor(w))
    close(y, w[[2, 5]], 0)
    assert y.dtype == lucid.float32
    close(F.embedding(lucid.tensor(4), lucid.tensor(w)), w[4], 0)


def test_embedding_max_norm_renormalises_in_place(torch):
    w = arr(8, 5) * 3
    idx = np.array([[0, 2, 2], [7, 4, 0]])
    lw, tw = lucid.tensor(w, requires_grad=True), torch.tensor(w, requires_grad=True)
    for p in (2.0, 1.0):
        lw2, tw2 = lucid.tensor(w, requires_grad=True), torch.tensor(w, requires_grad=True)
        with lucid.no_grad():
            pass
        y = F.embedding(lucid.tensor(idx), lw2, max_norm=1.5, norm_type=p)
        ty = torch.nn.functional.embedding(torch.tensor(idx), tw2, max_norm=1.5, norm_type=p)
        close(y, ty)
        close(lw2, tw2)  # looked-up rows renormalised in place, the others untouched
        y.sum().backward()
        ty.sum().backward()
        close(lw2.grad, tw2.grad)
    del lw, tw


def test_embedding_gradcheck():
    idx = lucid.tensor(np.array([[1, 3, 3], [0, 4, 1]]))
    for kw in [{}]:  # padding_idx's and scale_grad_by_freq's gradients are deliberately not the true ones
        f = lambda w: F.embedding(idx, w, **kw) ** 2  # noqa: E731
        w = lucid.tensor(arr(5, 3), requires_grad=True)
        assert gradcheck(f, (w,))
        assert gradgradcheck(f, (w,))


def test_embedding_errors():
    w = lucid.tensor(arr(5, 3))
    with pytest.raises(IndexError, match="5"):
        F.embedding(lucid.tensor(np.array([0, 5])), w)
    with pytest.raises(IndexError):
        F.embedding(lucid.tensor(np.array([-1])), w)
    with pytest.raises(lucid.DtypeMismatch):
        F.embedding(lucid.tensor(np.array([0.0, 1.0])), w)
    with pytest.raises(lucid.ShapeMismatch):
        F.embedding(lucid.tensor(np.array([0])), lucid.tensor(arr(5)))
    with pytest.raises(AssertionError):
        F.embedding(lucid.tensor(np.array([0])), w, padding_idx=5)


def test_embedding_module(torch):
    lucid.manual_seed(0)
    e = nn.Embedding(100, 16, padding_idx=2)
    assert e.weight.shape == (100, 16) and e.weight.requires_grad
    wn = e.weight.detach().numpy()
    assert np.all(wn[2] == 0)
    assert abs(wn.std() - 1) < 0.1 and abs(wn.mean()) < 0.1  # N(0, 1)
    assert repr(e) == repr(torch.nn.Embedding(100, 16, padding_idx=2))
    y = e(lucid.tensor(np.array([[2, 5]])))
    y.sum().backward()
    assert np.all(e.weight.grad.numpy()[2] == 0) and np.all(e.weight.grad.numpy()[5] == 1)
    pre = lucid.tensor(arr(4, 3))
    f = nn.Embedding.from_pretrained(pre)
    assert not f.weight.requires_grad
    close(f(lucid.tensor(np.array([3]))), pre.numpy()[[3]], 0)
    assert nn.Embedding.from_pretrained(pre, freeze=False).weight.requires_grad
    assert nn.Embedding(5, 2, padding_idx=-1).padding_idx == 4


# ---- embedding_bag

BAG_CASES = [
    dict(mode="sum"), dict(mode="mean"), dict(mode="max"),
    dict(mode="sum", per_sample_weights=True), dict(mode="mean", padding_idx=2), dict(mode="sum", padding_idx=2),
    dict(mode="max", padding_idx=2), dict(mode="mean", include_last_offset=True),
    dict(mode="sum", include_last_offset=True, per_sample_weights=True),
]


@pytest.mark.parametrize("mode", ["sum", "mean"])
def test_embedding_bag_scale_grad_by_freq(mode):
    # PyTorch 2.x's dense CPU backward divides by a miscounted frequency for indices that share a bag with a
    # repeated index; lucid scales each index's gradient by 1 / (its count in the mini-batch), as documented.
    idx = np.array([1, 2, 4, 5, 4, 3, 2, 9, 2, 2])
    off = np.array([0, 3, 3, 7, 8])
    w = lucid.tensor(np.zeros((10, 1)), requires_grad=True)
    g = np.array([[1.0], [10.0], [100.0], [1000.0], [10000.0]])
    F.embedding_bag(lucid.tensor(idx), w, lucid.tensor(off), mode=mode, scale_grad_by_freq=True).backward(
        lucid.tensor(g))
    bags = [(0, 3), (3, 3), (3, 7), (7, 8), (8, 10)]
    want = np.zeros(10)
    counts = np.bincount(idx, minlength=10)
    for b, (s, e) in enumerate(bags):
        for i in idx[s:e]:
            want[i] += g[b, 0] / (e - s if mode == "mean" else 1) / counts[i]
    close(w.grad.numpy().reshape(-1), want)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("kw", BAG_CASES)
@pytest.mark.parametrize("two_d", [False, True])
def test_embedding_bag_matches_torch(torch, kw, two_d, dtype):
    kw = dict(kw)
    w = arr(10, 4).astype(dtype)
    if two_d:
        if kw.get("include_last_offset"):
            return
        idx, offsets = np.array([[1, 2, 4], [2, 2, 2], [9, 0, 1]]), None
    else:
        idx = np.array([1, 2, 4, 5, 4, 3, 2, 9, 2, 2])
        offsets = np.array([0, 3, 3, 7, 8]) if not kw.get("include_last_offset") else np.array([0, 3, 3, 7, 8, 10])
    psw = arr(*idx.shape).astype(dtype) if kw.pop("per_sample_weights", False) else None
    lw, tw = lucid.tensor(w, requires_grad=True), torch.tensor(w, requires_grad=True)
    lp = lucid.tensor(psw, requires_grad=True) if psw is not None else None
    tp = torch.tensor(psw, requires_grad=True) if psw is not None else None
    y = F.embedding_bag(lucid.tensor(idx), lw, None if offsets is None else lucid.tensor(offsets),
                        per_sample_weights=lp, **kw)
    ty = torch.nn.functional.embedding_bag(torch.tensor(idx), tw, None if offsets is None else torch.tensor(offsets),
                                           per_sample_weights=tp, **kw)
    close(y, ty, TOL[dtype])
    g = arr(*ty.shape).astype(dtype)
    y.backward(lucid.tensor(g))
    ty.backward(torch.tensor(g))
    close(lw.grad, tw.grad, TOL[dtype])
    if psw is not None:
        close(lp.grad, tp.grad, TOL[dtype])


def test_embedding_bag_gradcheck():
    idx, off = lucid.tensor(np.array([1, 2, 4, 3, 0])), lucid.tensor(np.array([0, 2, 2]))
    for mode in ("sum", "mean", "max"):
        f = lambda w: F.embedding_bag(idx, w, off, mode=mode) ** 2  # noqa: E731
        w = lucid.tensor(arr(5, 3), requires_grad=True)
        assert gradcheck(f, (w,))
        assert gradgradcheck(f, (w,))
    psw = lucid.tensor(arr(5), requires_grad=True)
    w = lucid.tensor(arr(5, 3), requires_grad=True)
    f = lambda w, p: F.embedding_bag(idx, w, off, mode="sum", per_sample_weights=p) ** 2  # noqa: E731
    assert gradcheck(f, (w, psw))
    assert gradgradcheck(f, (w, psw))


def test_embedding_bag_errors_and_module(torch):
    w = lucid.tensor(arr(5, 3))
    with pytest.raises(ValueError):
        F.embedding_bag(lucid.tensor(np.array([0, 1])), w)  # 1-D input without offsets
    with pytest.raises(ValueError):
        F.embedding_bag(lucid.tensor(np.array([[0, 1]])), w, lucid.tensor(np.array([0])))
    with pytest.raises(NotImplementedError):
        F.embedding_bag(lucid.tensor(np.array([[0, 1]])), w, mode="mean", per_sample_weights=lucid.tensor(arr(1, 2)))
    with pytest.raises(ValueError):
        F.embedding_bag(lucid.tensor(np.array([[0, 1]])), w, mode="median")
    with pytest.raises(IndexError):
        F.embedding_bag(lucid.tensor(np.array([[0, 7]])), w)
    lucid.manual_seed(0)
    m = nn.EmbeddingBag(10, 3, mode="sum")
    assert repr(m) == repr(torch.nn.EmbeddingBag(10, 3, mode="sum"))
    assert m(lucid.tensor(np.array([[1, 2], [3, 4]]))).shape == (2, 3)
    pre = lucid.tensor(arr(4, 3))
    b = nn.EmbeddingBag.from_pretrained(pre, mode="max")
    assert not b.weight.requires_grad
    close(b(lucid.tensor(np.array([[0, 3]]))), pre.numpy()[[0, 3]].max(0, keepdims=True), 0)


# ---- layers and errors

def test_pool_modules_match_torch(torch):
    x = arr(2, 3, 6, 7, 8)
    pairs = [
        (nn.AvgPool1d(3, 2, 1), torch.nn.AvgPool1d(3, 2, 1), x[:, :, 0, 0]),
        (nn.AvgPool2d(3, ceil_mode=True, count_include_pad=False), torch.nn.AvgPool2d(3, ceil_mode=True,
                                                                                        count_include_pad=False), x[:, :, 0]),
        (nn.AvgPool3d(2, divisor_override=2), torch.nn.AvgPool3d(2, divisor_override=2), x),
        (nn.MaxPool3d(3, 2, 1), torch.nn.MaxPool3d(3, 2, 1), x),
        (nn.AdaptiveAvgPool1d(4), torch.nn.AdaptiveAvgPool1d(4), x[:, :, 0, 0]),
        (nn.AdaptiveAvgPool2d((2, None)), torch.nn.AdaptiveAvgPool2d((2, None)), x[:, :, 0]),
        (nn.AdaptiveAvgPool3d(1), torch.nn.AdaptiveAvgPool3d(1), x),
        (nn.AdaptiveMaxPool1d(3), torch.nn.AdaptiveMaxPool1d(3), x[:, :, 0, 0]),
        (nn.AdaptiveMaxPool2d(3), torch.nn.AdaptiveMaxPool2d(3), x[:, :, 0]),
        (nn.AdaptiveMaxPool3d((1, 2, 3)), torch.nn.AdaptiveMaxPool3d((1, 2, 3)), x),
        (nn.LPPool1d(2, 3), torch.nn.LPPool1d(2, 3), x[:, :, 0, 0]),
        (nn.LPPool2d(2, 2, 1), torch.nn.LPPool2d(2, 2, 1), x[:, :, 0]),
    ]
    for m, t, xi in pairs:
        close(m(lucid.tensor(xi)), t(torch.tensor(xi)))
        assert repr(m) == repr(t), (repr(m), repr(t))
    o, i = nn.AdaptiveMaxPool2d(2, return_indices=True)(lucid.tensor(x[:, :, 0]))
    to, ti = torch.nn.AdaptiveMaxPool2d(2, return_indices=True)(torch.tensor(x[:, :, 0]))
    np.testing.assert_array_equal(i.numpy(), ti.numpy())


def test_unpool_module_reprs(torch):
    for m, t in [(nn.MaxUnpool1d(2), torch.nn.MaxUnpool1d(2)), (nn.MaxUnpool2d(3, 2, 1), torch.nn.MaxUnpool2d(3, 2, 1)),
                 (nn.MaxUnpool3d(2), torch.nn.MaxUnpool3d(2))]:
        assert repr(m) == repr(t)


def test_pool_nan_propagates(torch):
    x = arr(1, 1, 2, 4, 4)
    x[0, 0, 1, 2, 3] = np.nan
    y, i = F.max_pool3d(lucid.tensor(x), 2, return_indices=True)
    ty, ti = torch.nn.functional.max_pool3d(torch.tensor(x), 2, return_indices=True)
    np.testing.assert_array_equal(y.numpy(), ty.numpy())
    np.testing.assert_array_equal(i.numpy(), ti.numpy())


def test_pool_errors():
    x = lucid.tensor(arr(2, 3, 6, 6))
    with pytest.raises(lucid.ShapeMismatch):
        F.avg_pool2d(lucid.tensor(arr(6, 6)), 2)
    with pytest.raises(lucid.ShapeMismatch):
        F.avg_pool3d(lucid.tensor(arr(3, 6, 6)), 2)
    with pytest.raises(ValueError, match="pad should be at most half"):
        F.avg_pool2d(x, 2, padding=2)
    with pytest.raises(ValueError):
        F.avg_pool2d(x, 0)
    with pytest.raises(ValueError):
        F.avg_pool2d(x, 2, divisor_override=0)
    with pytest.raises(ValueError):
        F.avg_pool2d(x, (2, 2, 2))
    with pytest.raises(lucid.ShapeMismatch, match="too small"):
        F.avg_pool2d(x, 7)
    with pytest.raises(lucid.ShapeMismatch):
        F.max_pool3d(lucid.tensor(arr(2, 3, 1, 1, 1)), 2)
    with pytest.raises(NotImplementedError):
        F.avg_pool1d(lucid.tensor(np.ones((2, 3, 4), dtype=np.bool_)), 2)
    with pytest.raises(NotImplementedError):
        F.adaptive_max_pool1d(lucid.tensor(np.ones((2, 3, 4), dtype=np.complex64)), 2)
    with pytest.raises(lucid.ShapeMismatch):
        F.adaptive_avg_pool2d(lucid.tensor(arr(2, 3, 0, 4)), 2)
    with pytest.raises(TypeError):
        F.adaptive_avg_pool2d(x, "a")
    with pytest.raises(ValueError):
        F.adaptive_avg_pool2d(x, (-1, 2))
    with pytest.raises(lucid.ShapeMismatch):
        F.adaptive_max_pool2d(x, 0)
    y, idx = F.max_pool2d(x, 2, return_indices=True)
    with pytest.raises(IndexError, match="invalid max index"):
        F.max_unpool2d(y, idx * 10, 2)
    with pytest.raises(lucid.DtypeMismatch):
        F.max_unpool2d(y, idx.float(), 2)
    with pytest.raises(ValueError):
        F.max_unpool2d(y, idx, 2, output_size=(20, 20))


def test_empty_batch_and_noncontiguous(torch):
    y = F.avg_pool2d(lucid.tensor(arr(0, 3, 6, 6)), 2)
    assert y.shape == (0, 3, 3, 3)
    x = arr(2, 6, 5, 3)
    lx = lucid.tensor(x).permute(0, 3, 1, 2)
    tx = torch.tensor(x).permute(0, 3, 1, 2)
    close(F.avg_pool2d(lx, 2, 1), torch.nn.functional.avg_pool2d(tx, 2, 1))
    close(F.adaptive_max_pool2d(lx, 2), torch.nn.functional.adaptive_max_pool2d(tx, 2))


# ---- fractional max pooling

FRAC_CASES = [(2, (2, 3, 9, 11), 2, (4, 5)), (2, (3, 9, 11), (3, 2), (5, 6)), (2, (1, 2, 6, 6), 2, (5, 5)),
              (3, (2, 2, 7, 8, 9), 2, (3, 4, 5)), (3, (2, 7, 8, 9), (2, 3, 2), (4, 4, 5))]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("nd,shape,k,o", FRAC_CASES)
def test_fractional_max_pool_matches_torch(torch, nd, shape, k, o, dtype):
    x = arr(*shape).astype(dtype)
    n = 1 if len(shape) == nd + 1 else shape[0]
    s = RNG.random((n, shape[-nd - 1], nd)).astype(dtype)
    lx, tx = lucid.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    y, i = getattr(F, f"fractional_max_pool{nd}d")(lx, k, output_size=o, return_indices=True,
                                                    _random_samples=lucid.tensor(s))
    ty, ti = getattr(torch.nn.functional, f"fractional_max_pool{nd}d")(tx, k, output_size=o, return_indices=True,
                                                                        _random_samples=torch.tensor(s))
    close(y, ty, 0)
    np.testing.assert_array_equal(i.numpy(), ti.numpy())
    g = arr(*ty.shape).astype(dtype)
    y.backward(lucid.tensor(g))
    ty.backward(torch.tensor(g))
    close(lx.grad, tx.grad, TOL[dtype])


def test_fractional_max_pool_ratio_module_and_errors(torch):
    x = lucid.tensor(arr(2, 3, 10, 12))
    s = lucid.tensor(RNG.random((2, 3, 2)))
    m = nn.FractionalMaxPool2d(2, output_ratio=0.5, _random_samples=s)
    t = torch.nn.FractionalMaxPool2d(2, output_ratio=0.5, _random_samples=torch.tensor(s.numpy()))
    close(m(x), t(torch.tensor(x.numpy())), 0)
    assert nn.FractionalMaxPool3d(2, output_size=2)(lucid.tensor(arr(1, 2, 5, 5, 5))).shape == (1, 2, 2, 2, 2)
    y = F.fractional_max_pool2d(x, 3, output_size=4)  # random samples drawn internally
    assert y.shape == (2, 3, 4, 4)
    with pytest.raises(ValueError):
        nn.FractionalMaxPool2d(2)
    with pytest.raises(ValueError):
        nn.FractionalMaxPool2d(2, output_ratio=1.5)
    with pytest.raises(lucid.ShapeMismatch):
        F.fractional_max_pool2d(x, 3, output_size=9)
    with pytest.raises(lucid.ShapeMismatch):
        F.fractional_max_pool2d(x, 2, output_size=4, _random_samples=lucid.tensor(RNG.random((1, 3, 2))))
    xg = lucid.tensor(RNG.permutation(2 * 36).reshape(1, 2, 6, 6).astype(np.float64), requires_grad=True)
    f = lambda t: F.fractional_max_pool2d(t, 2, output_size=3, _random_samples=s[:1, :2])  # noqa: E731
    assert gradcheck(f, (xg,))
    assert gradgradcheck(f, (xg,))


# ---- half precision (computed in float32)

@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
def test_half_precision_pools(torch, dt):
    x = arr(2, 3, 6, 7)
    tdt = getattr(torch, dt)
    lx = lucid.tensor(x).to(getattr(lucid, dt))
    tx = torch.tensor(x).to(tdt)
    for name, kw in [("avg_pool2d", dict(kernel_size=2)), ("adaptive_avg_pool2d", dict(output_size=3)),
                     ("max_pool3d", dict(kernel_size=2)), ("adaptive_max_pool2d", dict(output_size=(2, 3)))]:
        y = getattr(F, name)(lx, **kw)
        ty = getattr(torch.nn.functional, name)(tx, **kw)
        assert y.dtype == getattr(lucid, dt)
        close(y.float(), ty.float(), 1e-2)


def test_embedding_bag_max_first_of_ties(torch):
    w = np.array([[1.0, 5.0], [1.0, 2.0], [3.0, 5.0]])
    idx = np.array([[0, 1, 2], [1, 1, 0]])
    lw, tw = lucid.tensor(w, requires_grad=True), torch.tensor(w, requires_grad=True)
    y = F.embedding_bag(lucid.tensor(idx), lw, mode="max")
    ty = torch.nn.functional.embedding_bag(torch.tensor(idx), tw, mode="max")
    close(y, ty)
    y.sum().backward()
    ty.sum().backward()
    close(lw.grad.sum(0), tw.grad.sum(0))  # one gradient per (bag, column), whichever tied row gets it


@pytest.mark.parametrize("dt", ["int64", "int32", "int16", "int8", "uint8"])
def test_integer_avg_and_max_pools(torch, dt):
    x = RNG.integers(0 if dt == "uint8" else -50, 50, (2, 3, 7, 8)).astype(dt)
    for kw in [dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
               dict(kernel_size=2, count_include_pad=False, padding=1), dict(kernel_size=3, divisor_override=4)]:
        y = F.avg_pool2d(lucid.tensor(x), **kw)
        assert y.dtype == getattr(lucid, dt)
        ref = torch.nn.functional.avg_pool2d(torch.tensor(x.astype(np.int64)), **kw).numpy()  # torch: int64 only
        np.testing.assert_array_equal(y.numpy(), ref.astype(dt))
    y, i = F.max_pool3d(lucid.tensor(x), 2, return_indices=True)
    ty, ti = torch.nn.functional.max_pool3d(torch.tensor(x), 2, return_indices=True)
    np.testing.assert_array_equal(y.numpy(), ty.numpy())
    np.testing.assert_array_equal(i.numpy(), ti.numpy())
    with pytest.raises(NotImplementedError):
        F.adaptive_avg_pool2d(lucid.tensor(x), 2)


@pytest.mark.parametrize("kw", [dict(padding_idx=3), dict(scale_grad_by_freq=True),
                                dict(padding_idx=1, scale_grad_by_freq=True)])
def test_embedding_double_backward_matches_torch(torch, kw):
    # padding_idx / scale_grad_by_freq gradients are not true derivatives, so gradgradcheck can't judge them;
    # the gradient of the (linear) weight gradient with respect to the incoming gradient is checked instead.
    w, idx, g, v = arr(6, 3), np.array([[1, 3, 3], [0, 5, 1]]), arr(2, 3, 3), arr(6, 3)
    lw, tw = lucid.tensor(w, requires_grad=True), torch.tensor(w, requires_grad=True)
    lg, tg = lucid.tensor(g, requires_grad=True), torch.tensor(g, requires_grad=True)
    (gw,) = lucid.autograd.grad(F.embedding(lucid.tensor(idx), lw, **kw), (lw,), lg, create_graph=True)
    (tgw,) = torch.autograd.grad(torch.nn.functional.embedding(torch.tensor(idx), tw, **kw), (tw,), tg,
                                 create_graph=True)
    close(gw, tgw)
    (gw * lucid.tensor(v)).sum().backward()
    (tgw * torch.tensor(v)).sum().backward()
    if not kw.get("scale_grad_by_freq"):
        close(lg.grad, tg.grad)
    else:  # lucid's is the exact adjoint: v's rows, scaled by 1/count, 0 at padding_idx (PyTorch drops the scale)
        flat = idx.reshape(-1)
        counts = np.bincount(flat, minlength=6)
        want = v[flat] / counts[flat][:, None]
        if "padding_idx" in kw:
            want[flat == kw["padding_idx"]] = 0
        close(lg.grad, want.reshape(2, 3, 3))
