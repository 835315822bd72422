"""Resampling in lucid.nn.functional and its layers against PyTorch: interpolate (nearest, nearest-exact,
linear, bilinear, bicubic, trilinear, area) with size / scale_factor / align_corners /
recompute_scale_factor, the deprecated upsample_* forms, nn.Upsample*, values, gradients, float64
gradcheck / gradgradcheck and typed errors."""
import warnings

import numpy as np
import pytest

import lucid
import lucid.nn as nn
import lucid.nn.functional as F
from lucid.autograd import gradcheck, gradgradcheck
from helpers import close

RNG = np.random.default_rng(5)


def arr(*shape):
    return RNG.standard_normal(shape)


TOL = {"float32": 1e-5, "float64": 1e-10}


def compare(torch, fn, shape, kw, dtype="float64", grads=True):
    """F.<fn>(x, **kw) against torch's: values and the gradient of a random cotangent."""
    x = arr(*shape).astype(dtype)
    lx = lucid.tensor(x, requires_grad=True)
    tx = torch.tensor(x, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = getattr(F, fn)(lx, **kw)
        ty = getattr(torch.nn.functional, fn)(tx, **kw)
    close(y, ty, TOL[dtype])
    if not grads:
        return
    g = arr(*ty.shape).astype(dtype)
    y.backward(lucid.tensor(g))
    ty.backward(torch.tensor(g))
    close(lx.grad, tx.grad, TOL[dtype])


INTERP = [
    ((2, 3, 5), dict(size=9)),
    ((2, 3, 5), dict(size=3, mode="linear")),
    ((2, 3, 5), dict(scale_factor=2.5, mode="linear", align_corners=True)),
    ((2, 3, 5), dict(scale_factor=1.7, mode="nearest-exact")),
    ((2, 3, 6), dict(size=4, mode="area")),
    ((2, 3, 4, 5), dict(size=(7, 9))),
    ((2, 3, 4, 5), dict(size=(3, 2))),
    ((2, 3, 4, 5), dict(scale_factor=2)),
    ((2, 3, 5, 5), dict(scale_factor=1.1)),  # 2-d nearest: out == in keeps the identity shortcut
    ((2, 3, 3, 6), dict(scale_factor=(2.6, 1.52))),  # 2-d nearest: otherwise the step is 1 / scale
    ((2, 3, 4, 5), dict(scale_factor=(2.2, 2.0), mode="nearest-exact")),
    ((2, 3, 4, 5), dict(scale_factor=(1.3, 0.6))),
    ((1, 2, 5), dict(scale_factor=1.1, mode="nearest-exact")),
    ((1, 2, 5, 5), dict(scale_factor=2.05, mode="nearest-exact")),
    ((2, 3, 4, 5), dict(scale_factor=(1.3, 0.6), recompute_scale_factor=True)),
    ((2, 3, 4, 5), dict(size=(7, 3), mode="nearest-exact")),
    ((2, 3, 4, 5), dict(scale_factor=1.5, mode="nearest-exact")),
    ((2, 3, 4, 5), dict(size=(7, 9), mode="bilinear")),
    ((2, 3, 4, 5), dict(size=(7, 9), mode="bilinear", align_corners=True)),
    ((2, 3, 4, 5), dict(size=(4, 5), mode="bilinear")),  # same size
    ((2, 3, 4, 5), dict(size=(1, 1), mode="bilinear", align_corners=True)),
    ((2, 3, 6, 7), dict(size=(3, 4), mode="bilinear")),
    ((2, 3, 4, 5), dict(scale_factor=1.7, mode="bilinear")),
    ((2, 3, 4, 5), dict(scale_factor=(2.3, 0.7), mode="bilinear", recompute_scale_factor=True)),
    ((2, 3, 4, 5), dict(size=(7, 9), mode="bicubic")),
    ((2, 3, 4, 5), dict(size=(7, 9), mode="bicubic", align_corners=True)),
    ((2, 3, 6, 7), dict(size=(3, 2), mode="bicubic")),
    ((2, 3, 4, 5), dict(scale_factor=2.5, mode="bicubic")),
    ((2, 3, 6, 7), dict(size=(4, 3), mode="area")),
    ((2, 3, 6, 7), dict(scale_factor=0.5, mode="area")),
    ((1, 2, 3, 4, 5), dict(size=(4, 6, 3))),
    ((1, 2, 3, 4, 5), dict(scale_factor=(2, 1.5, 0.5), mode="nearest-exact")),
    ((1, 2, 3, 4, 5), dict(size=(4, 6, 3), mode="trilinear")),
    ((1, 2, 3, 4, 5), dict(scale_factor=1.5, mode="trilinear", align_corners=True)),
    ((1, 2, 4, 4, 6), dict(size=(2, 3, 4), mode="area")),
    ((0, 3, 4, 5), dict(size=(3, 3), mode="bilinear")),  # empty batch
    # antialiased 4-d modes (PyTorch's separable filters: triangle, Keys a = -0.5, lanczos a = 3)
    ((2, 3, 9, 11), dict(size=(4, 5), mode="bilinear", antialias=True)),
    ((2, 3, 9, 11), dict(size=(13, 4), mode="bilinear", antialias=True, align_corners=True)),
    ((2, 3, 9, 11), dict(scale_factor=0.37, mode="bicubic", antialias=True)),
    ((1, 2, 20, 7), dict(size=(3, 9), mode="bicubic", antialias=True, align_corners=True)),
    ((2, 3, 9, 11), dict(size=(4, 15), mode="lanczos", antialias=True)),
    ((1, 1, 5, 5), dict(size=(1, 1), mode="lanczos", antialias=True)),
]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape,kw", INTERP)
def test_interpolate_matches_torch(torch, shape, kw, dtype):
    compare(torch, "interpolate", shape, kw, dtype)


def test_nearest_scale_with_shortcut_sizes(torch):
    # 1-d / 3-d nearest take their step from the scale, also when out == in or out == 2 * in. PyTorch's
    # backward then uses its identity / halving shortcut, which is not the adjoint of its forward; lucid's
    # gradient is the forward's true adjoint (checked by gradcheck), so only values are compared here.
    for shape, kw in [((1, 2, 5), dict(scale_factor=2.05)), ((1, 1, 5, 5, 5), dict(scale_factor=1.1))]:
        compare(torch, "interpolate", shape, kw, grads=False)
        assert gradcheck(lambda t: F.interpolate(t, **kw), (lucid.tensor(arr(*shape), requires_grad=True),))


def test_interpolate_float32_indices_match_torch(torch):
    # nearest indices are computed in float32 (as PyTorch) even for float64 inputs: a scale where the
    # float32 and float64 products floor differently
    for n, sf in [(10, 0.3), (7, 3.3), (33, 0.7), (9, 1.9)]:
        compare(torch, "interpolate", (1, 1, n), dict(scale_factor=sf))
        compare(torch, "interpolate", (1, 1, n), dict(scale_factor=sf, mode="nearest-exact"))


def test_interpolate_half_dtypes(torch):
    x = arr(1, 2, 4, 5).astype(np.float32)
    for name in ["float16", "bfloat16"]:
        lx, tx = lucid.tensor(x).to(getattr(lucid, name)), torch.tensor(x).to(getattr(torch, name))
        y = F.interpolate(lx, size=(6, 7), mode="bilinear")
        ty = torch.nn.functional.interpolate(tx, size=(6, 7), mode="bilinear")
        assert y.dtype == getattr(lucid, name)
        close(y.float(), ty.float(), 1e-2)


def test_interpolate_nearest_uint8(torch):
    x = RNG.integers(0, 256, (2, 3, 4, 5)).astype(np.uint8)
    for kw in [dict(size=(7, 3)), dict(scale_factor=1.5, mode="nearest-exact")]:
        y = F.interpolate(lucid.tensor(x), **kw)
        assert y.dtype == lucid.uint8
        np.testing.assert_array_equal(y.numpy(), torch.nn.functional.interpolate(torch.tensor(x), **kw).numpy())
    with pytest.raises(NotImplementedError, match="uint8"):  # PyTorch has a uint8 bilinear path; lucid does not
        F.interpolate(lucid.tensor(x), size=(3, 3), mode="bilinear")


@pytest.mark.parametrize("shape,kw", [
    ((1, 2, 4), dict(size=7, mode="linear")),
    ((1, 2, 3, 4), dict(size=(5, 3), mode="bilinear")),
    ((1, 2, 3, 4), dict(scale_factor=1.5, mode="bilinear", align_corners=True)),
    ((1, 2, 3, 4), dict(size=(5, 6), mode="bicubic")),
    ((1, 2, 3, 4), dict(size=(5, 3), mode="nearest")),
    ((1, 2, 3, 4), dict(size=(5, 3), mode="nearest-exact")),
    ((1, 1, 2, 3, 3), dict(size=(3, 2, 4), mode="trilinear")),
    ((1, 2, 5, 4), dict(size=(2, 3), mode="area")),
    ((1, 2, 7, 5), dict(size=(3, 6), mode="bilinear", antialias=True)),
    ((1, 2, 7, 5), dict(size=(3, 2), mode="bicubic", antialias=True)),
    ((1, 1, 7, 5), dict(size=(3, 2), mode="lanczos", antialias=True)),
])
def test_interpolate_gradcheck(shape, kw):
    x = lucid.tensor(arr(*shape), requires_grad=True)
    f = lambda t: F.interpolate(t, **kw)
    assert gradcheck(f, (x,))
    assert gradgradcheck(f, (x,))


def test_interpolate_double_backward_graph():
    x = lucid.tensor(arr(1, 1, 3, 3), requires_grad=True)
    y = F.interpolate(x, size=(5, 4), mode="bicubic")
    (g,) = lucid.autograd.grad((y * y).sum(), (x,), create_graph=True)
    assert g.grad_fn is not None
    (h,) = lucid.autograd.grad(g.sum(), (x,))
    assert h.shape == x.shape and np.abs(h.numpy()).sum() > 0


def test_upsample_aliases_warn_and_match(torch):
    x = arr(1, 2, 3, 4)
    for name, kw in [("upsample", dict(size=(5, 6), mode="bilinear")), ("upsample_nearest", dict(scale_factor=2)),
                     ("upsample_bilinear", dict(size=(5, 6)))]:
        with pytest.warns(UserWarning, match="deprecated"):
            y = getattr(F, name)(lucid.tensor(x), **kw)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ty = getattr(torch.nn.functional, name)(torch.tensor(x), **kw)
        close(y, ty)


def test_upsample_modules(torch):
    x = arr(2, 3, 4, 5)
    cases = [(nn.Upsample(scale_factor=2), torch.nn.Upsample(scale_factor=2)),
             (nn.Upsample(size=(3, 7), mode="bicubic", align_corners=True),
              torch.nn.Upsample(size=(3, 7), mode="bicubic", align_corners=True)),
             (nn.Upsample(scale_factor=(1.5, 2.0), mode="bilinear", recompute_scale_factor=True),
              torch.nn.Upsample(scale_factor=(1.5, 2.0), mode="bilinear", recompute_scale_factor=True)),
             (nn.UpsamplingNearest2d(size=(6, 6)), torch.nn.UpsamplingNearest2d(size=(6, 6))),
             (nn.UpsamplingBilinear2d(scale_factor=2), torch.nn.UpsamplingBilinear2d(scale_factor=2))]
    for m, tm in cases:
        assert repr(m) == repr(tm)
        assert m.scale_factor == tm.scale_factor and m.align_corners == tm.align_corners
        close(m(lucid.tensor(x)), tm(torch.tensor(x)))
        assert dict(m.state_dict()) == {}


ERRORS = [
    (dict(size=(3, 3), mode="nearest", align_corners=False), ValueError, "align_corners option"),
    (dict(size=(3, 3), mode="area", align_corners=True), ValueError, "align_corners option"),
    (dict(size=3, scale_factor=2), ValueError, "only one of size or scale_factor"),
    (dict(), ValueError, "either size or scale_factor"),
    (dict(size=(3, 3), recompute_scale_factor=True), ValueError, "recompute_scale_factor is not meaningful"),
    (dict(size=(3, 3, 3)), ValueError, "same number of spatial dimensions"),
    (dict(scale_factor=(2, 2, 2)), ValueError, "same number of spatial dimensions"),
    (dict(size=(3.0, 3)), TypeError, "expected size to be one of int"),
    (dict(size=(3, 3), mode="nearest", antialias=True), ValueError, "Anti-alias option"),
    (dict(size=(3, 3), mode="lanczos", antialias=True, align_corners=True), ValueError, "does not support align_corn"),
    (dict(size=(3, 3), mode="lanczos"), ValueError, "Lanczos mode requires antialias"),
    (dict(size=(3, 3), mode="foo"), NotImplementedError, "Only 3D, 4D and 5D"),
    (dict(size=(3, 3), mode="linear"), NotImplementedError, "linear mode needs 3D input"),
    (dict(size=(3, 3), mode="trilinear"), NotImplementedError, "trilinear mode needs 5D input"),
    (dict(size=(0, 3)), RuntimeError, "Input and output sizes should be greater than 0"),
    (dict(size=(-1, 3), mode="bilinear"), RuntimeError, "Input and output sizes should be greater than 0"),
    (dict(scale_factor=0.1, mode="bicubic"), RuntimeError, "Input and output sizes should be greater than 0"),
]


@pytest.mark.parametrize("kw,exc,match", ERRORS)
def test_interpolate_errors(torch, kw, exc, match):
    x = arr(2, 3, 4, 5)
    with pytest.raises(exc, match=match):
        F.interpolate(lucid.tensor(x), **kw)
    with pytest.raises(exc):
        torch.nn.functional.interpolate(torch.tensor(x), **kw)


def test_interpolate_input_errors():
    with pytest.raises(NotImplementedError, match="Only 3D, 4D and 5D"):
        F.interpolate(lucid.randn(2, 3, 4, 5, 6, 7), size=(2, 2, 2, 2), mode="bilinear")
    with pytest.raises(NotImplementedError, match="bicubic"):
        F.interpolate(lucid.randn(1, 2, 3, 4, 5), size=(3, 3, 3), mode="bicubic")
    with pytest.raises(RuntimeError, match=r"input \(H: 0, W: 5\)"):
        F.interpolate(lucid.randn(2, 3, 0, 5), size=(3, 3))
    with pytest.raises(NotImplementedError, match="int32"):
        F.interpolate(lucid.zeros(1, 1, 2, 2, dtype=lucid.int32), size=(3, 3))


# ---- pixel_shuffle / pixel_unshuffle / channel_shuffle

SHUFFLE = [
    ("pixel_shuffle", (2, 8, 3, 4), 2),
    ("pixel_shuffle", (8, 3, 4), 2),
    ("pixel_shuffle", (2, 2, 9, 2, 3), 3),
    ("pixel_unshuffle", (2, 2, 6, 4), 2),
    ("pixel_unshuffle", (3, 6, 9), 3),
    ("pixel_unshuffle", (2, 1, 2, 4, 4), 2),
    ("channel_shuffle", (2, 6, 3, 4), 3),
    ("channel_shuffle", (2, 6, 5), 2),
    ("channel_shuffle", (6, 3, 4), 3),
    ("native_channel_shuffle", (2, 6, 3, 4), 2),
]


@pytest.mark.parametrize("name,shape,factor", SHUFFLE)
def test_shuffles_match_torch(torch, name, shape, factor):
    x = arr(*shape)
    lx, tx = lucid.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    y, ty = getattr(F, name)(lx, factor), getattr(torch.nn.functional, name)(tx, factor)
    close(y, ty, 0)
    if name == "native_channel_shuffle":  # PyTorch has no derivative for it; lucid's alias has one
        return
    g = arr(*ty.shape)
    y.backward(lucid.tensor(g))
    ty.backward(torch.tensor(g))
    close(lx.grad, tx.grad, 0)


def test_shuffle_roundtrip_and_modules(torch):
    x = lucid.tensor(arr(2, 8, 4, 6))
    close(F.pixel_unshuffle(F.pixel_shuffle(x, 2), 2), x, 0)
    for m, tm in [(nn.PixelShuffle(2), torch.nn.PixelShuffle(2)), (nn.PixelUnshuffle(2), torch.nn.PixelUnshuffle(2)),
                  (nn.ChannelShuffle(4), torch.nn.ChannelShuffle(4))]:
        assert repr(m) == repr(tm)
        close(m(x), tm(torch.tensor(x.numpy())), 0)


@pytest.mark.parametrize("fn,shape,factor,exc,match", [
    ("pixel_shuffle", (2, 7, 3, 4), 2, lucid.errors.ShapeMismatch, "divisible by the square"),
    ("pixel_shuffle", (3, 4), 2, lucid.errors.ShapeMismatch, "at least 3 dimensions"),
    ("pixel_shuffle", (2, 8, 3, 4), 0, RuntimeError, "positive upscale_factor"),
    ("pixel_shuffle", (2, 8, 3, 4), 2.0, TypeError, "must be int"),
    ("pixel_unshuffle", (2, 2, 5, 4), 2, lucid.errors.ShapeMismatch, "height to be divisible"),
    ("pixel_unshuffle", (2, 2, 6, 5), 2, lucid.errors.ShapeMismatch, "width to be divisible"),
    ("pixel_unshuffle", (2, 2, 6, 4), -1, RuntimeError, "positive downscale_factor"),
    ("channel_shuffle", (2, 6), 3, lucid.errors.ShapeMismatch, "> 2 dims"),
    ("channel_shuffle", (2, 6, 3), 4, lucid.errors.ShapeMismatch, "divisible by groups"),
    ("channel_shuffle", (2, 6, 3), 0, RuntimeError, "must be positive"),
])
def test_shuffle_errors(fn, shape, factor, exc, match):
    with pytest.raises(exc, match=match):
        getattr(F, fn)(lucid.tensor(arr(*shape)), factor)


# ---- grid_sample / affine_grid

GRID = [((2, 3, 4, 5), (2, 3, 4, 2), m) for m in ("bilinear", "nearest", "bicubic")] + \
       [((2, 2, 3, 4, 5), (2, 2, 3, 4, 3), m) for m in ("bilinear", "nearest")]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("xs,gs,mode", GRID)
def test_grid_sample_matches_torch(torch, xs, gs, mode, padding_mode, align_corners, dtype):
    x, g = arr(*xs).astype(dtype), RNG.uniform(-1.4, 1.4, gs).astype(dtype)
    lx, lg = lucid.tensor(x, requires_grad=True), lucid.tensor(g, requires_grad=True)
    tx, tg = torch.tensor(x, requires_grad=True), torch.tensor(g, requires_grad=True)
    kw = dict(mode=mode, padding_mode=padding_mode, align_corners=align_corners)
    y, ty = F.grid_sample(lx, lg, **kw), torch.nn.functional.grid_sample(tx, tg, **kw)
    close(y, ty, TOL[dtype])
    go = arr(*ty.shape).astype(dtype)
    y.backward(lucid.tensor(go))
    ty.backward(torch.tensor(go))
    close(lx.grad, tx.grad, TOL[dtype])
    close(lg.grad, tg.grad, 1e-4 if dtype == "float32" else 1e-9)


EDGE = [-1.0, 1.0, 0.0, -3.0, 3.0, -5.0, 5.0, -1 / 3, 1 / 3, -0.5, 0.5, -1.25, 1.25, -1.5, 1.5, -7 / 3, 7 / 3, 2.0,
        -2.0, 0.75, -0.75, -0.25, 0.25]
ODD = [1e30, -1e30, np.nan, np.inf, -np.inf]


def _edge_grid(vals, nd):
    if nd == 2:
        pts = [[a, b] for a in vals for b in (0.3, -1.0, 1.0)] + [[0.2, a] for a in vals]
        return np.array(pts).reshape(1, 1, -1, 2)
    pts = [[a, 0.3, -0.2] for a in vals] + [[0.1, a, 0.4] for a in vals] + [[0.1, -0.3, a] for a in vals]
    return np.array(pts).reshape(1, 1, 1, -1, 3)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("nd,mode", [(2, "bilinear"), (2, "nearest"), (2, "bicubic"), (3, "bilinear"), (3, "nearest")])
def test_grid_sample_edge_points(torch, nd, mode, dtype):
    # points on pixel centres and edges, exact ties of nearest rounding, on the clip borders and the reflection
    # folds (values and gradients, where PyTorch counts borders as out of bounds), and far outside / NaN / inf
    # (values only: PyTorch's backward is not defined there)
    x = arr(*((1, 2, 3, 4) if nd == 2 else (1, 2, 3, 4, 5))).astype(dtype)
    for pad in ("zeros", "border", "reflection"):
        for ac in (False, True):
            kw = dict(mode=mode, padding_mode=pad, align_corners=ac)
            odd = _edge_grid(EDGE + ODD, nd).astype(dtype)
            close(F.grid_sample(lucid.tensor(x), lucid.tensor(odd), **kw),
                  torch.nn.functional.grid_sample(torch.tensor(x), torch.tensor(odd), **kw), TOL[dtype])
            g = _edge_grid(EDGE, nd).astype(dtype)
            lx, lg = lucid.tensor(x, requires_grad=True), lucid.tensor(g, requires_grad=True)
            tx, tg = torch.tensor(x, requires_grad=True), torch.tensor(g, requires_grad=True)
            y, ty = F.grid_sample(lx, lg, **kw), torch.nn.functional.grid_sample(tx, tg, **kw)
            go = arr(*ty.shape).astype(dtype)
            y.backward(lucid.tensor(go))
            ty.backward(torch.tensor(go))
            close(lx.grad, tx.grad, 1e-4 if dtype == "float32" else 1e-9)
            close(lg.grad, tg.grad, 1e-4 if dtype == "float32" else 1e-9)


@pytest.mark.parametrize("xs,gs,mode", GRID)
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
def test_grid_sample_gradcheck(xs, gs, mode, padding_mode):
    x = lucid.tensor(arr(*[min(v, 3) for v in xs]), requires_grad=True)
    gshape = (x.shape[0],) + tuple(min(v, 2) for v in gs[1:-1]) + (gs[-1],)
    # keep points away from pixel boundaries, where the sampling weights have kinks
    g = lucid.tensor(RNG.uniform(-0.9, 0.9, gshape) * 0.97 + 0.013, requires_grad=True)
    f = lambda a, b: F.grid_sample(a, b, mode=mode, padding_mode=padding_mode, align_corners=False)
    assert gradcheck(f, (x, g), atol=1e-6)


@pytest.mark.parametrize("xs,gs,mode", [((1, 2, 3, 4), (1, 2, 2, 2), m) for m in ("bilinear", "nearest", "bicubic")]
                         + [((1, 2, 2, 3, 3), (1, 2, 2, 1, 3), m) for m in ("bilinear", "nearest")])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
def test_grid_sample_double_backward(torch, xs, gs, mode, padding_mode):
    x = arr(*xs)
    g = RNG.uniform(-0.9, 0.9, gs) * 0.97 + 0.013
    lx, lg = lucid.tensor(x, requires_grad=True), lucid.tensor(g, requires_grad=True)
    f = lambda a, b: F.grid_sample(a, b, mode=mode, padding_mode=padding_mode, align_corners=False)
    assert gradgradcheck(f, (lx, lg), atol=1e-5)
    # second derivatives against PyTorch's (which has them for both input and grid)
    tx, tg = torch.tensor(x, requires_grad=True), torch.tensor(g, requires_grad=True)
    ty = torch.nn.functional.grid_sample(tx, tg, mode=mode, padding_mode=padding_mode, align_corners=False)
    go, u, v = arr(*ty.shape), arr(*x.shape), arr(*g.shape)
    ta, tb = torch.autograd.grad(ty, (tx, tg), torch.tensor(go), create_graph=True)
    t2 = torch.autograd.grad((ta * torch.tensor(u)).sum() + (tb * torch.tensor(v)).sum(), (tx, tg), allow_unused=True)
    la, lb = lucid.autograd.grad(f(lx, lg), (lx, lg), lucid.tensor(go), create_graph=True)
    l2 = lucid.autograd.grad((la * lucid.tensor(u)).sum() + (lb * lucid.tensor(v)).sum(), (lx, lg), allow_unused=True)
    for a, b in zip(l2, t2):
        close(a if a is not None else np.zeros(b.shape), b if b is not None else np.zeros(a.shape), 1e-9)


def test_grid_sample_third_order_raises():
    x = lucid.tensor(arr(1, 1, 3, 3), requires_grad=True)
    g = lucid.tensor(RNG.uniform(-0.8, 0.8, (1, 2, 2, 2)), requires_grad=True)
    (a,) = lucid.autograd.grad((F.grid_sample(x, g, align_corners=True) ** 2).sum(), (g,), create_graph=True)
    (b,) = lucid.autograd.grad((a ** 2).sum(), (g,), create_graph=True)
    with pytest.raises(NotImplementedError, match="above the second"):
        b.sum().backward()


def test_grid_sample_empty_and_half(torch):
    assert F.grid_sample(lucid.zeros(0, 3, 4, 5), lucid.zeros(0, 3, 4, 2), align_corners=False).shape == (0, 3, 3, 4)
    assert F.grid_sample(lucid.zeros(2, 0, 4, 5), lucid.zeros(2, 3, 4, 2), align_corners=False).shape == (2, 0, 3, 4)
    x, g = arr(1, 2, 4, 5).astype(np.float32), RNG.uniform(-1, 1, (1, 3, 3, 2)).astype(np.float32)
    y = F.grid_sample(lucid.tensor(x).half(), lucid.tensor(g).half(), align_corners=True)
    ty = torch.nn.functional.grid_sample(torch.tensor(x).half(), torch.tensor(g).half(), align_corners=True)
    assert y.dtype == lucid.float16
    close(y.float(), ty.float(), 1e-2)


def test_grid_sample_errors():
    x, g = lucid.randn(2, 3, 4, 5), lucid.rand(2, 3, 4, 2)
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        F.grid_sample(x, g)
    with pytest.raises(ValueError, match="expected mode"):
        F.grid_sample(x, g, mode="foo", align_corners=False)
    with pytest.raises(ValueError, match="expected padding_mode"):
        F.grid_sample(x, g, padding_mode="foo", align_corners=False)
    with pytest.raises(lucid.errors.ShapeMismatch, match="same batch size"):
        F.grid_sample(x, lucid.rand(3, 3, 4, 2), align_corners=False)
    with pytest.raises(lucid.errors.ShapeMismatch, match="size 2 in last dimension"):
        F.grid_sample(x, lucid.rand(2, 3, 4, 3), align_corners=False)
    with pytest.raises(lucid.errors.ShapeMismatch, match="same number of dimensions"):
        F.grid_sample(x, lucid.rand(2, 3, 2), align_corners=False)
    with pytest.raises(lucid.errors.ShapeMismatch, match="non-empty spatial"):
        F.grid_sample(lucid.randn(2, 3, 0, 5), g, align_corners=False)
    with pytest.raises(NotImplementedError, match="bicubic"):
        F.grid_sample(lucid.randn(1, 1, 2, 2, 2), lucid.rand(1, 2, 2, 2, 3), mode="bicubic", align_corners=False)
    with pytest.raises(lucid.errors.DtypeMismatch, match="same dtype"):
        F.grid_sample(x, g.double(), align_corners=False)
    with pytest.raises(NotImplementedError, match="int32"):
        F.grid_sample(x.int(), g.int(), align_corners=False)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("size", [(2, 3, 4, 5), (2, 1, 1, 3), (2, 3, 3, 4, 5)])
def test_affine_grid_matches_torch(torch, size, align_corners, dtype):
    th = arr(size[0], len(size) - 2, len(size) - 1).astype(dtype)
    lt, tt = lucid.tensor(th, requires_grad=True), torch.tensor(th, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = F.affine_grid(lt, size, align_corners=align_corners)
        ty = torch.nn.functional.affine_grid(tt, size, align_corners=align_corners)
    close(y, ty, TOL[dtype])
    go = arr(*ty.shape).astype(dtype)
    y.backward(lucid.tensor(go))
    ty.backward(torch.tensor(go))
    close(lt.grad, tt.grad, 1e-4 if dtype == "float32" else 1e-10)


def test_affine_grid_gradcheck_and_errors():
    th = lucid.tensor(arr(2, 2, 3), requires_grad=True)
    assert gradcheck(lambda t: F.affine_grid(t, (2, 1, 3, 4), align_corners=False), (th,))
    assert gradgradcheck(lambda t: F.affine_grid(t, (2, 1, 3, 4), align_corners=False) ** 2, (th,))
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        F.affine_grid(th, (2, 1, 3, 4))
    with pytest.warns(UserWarning, match="unit-size grids"):
        F.affine_grid(th, (2, 1, 1, 4), align_corners=True)
    with pytest.raises(ValueError, match="Nx2x3"):
        F.affine_grid(lucid.randn(2, 3, 4), (2, 1, 3, 4), align_corners=False)
    with pytest.raises(ValueError, match="Nx3x4"):
        F.affine_grid(th, (2, 1, 3, 4, 5), align_corners=False)
    with pytest.raises(NotImplementedError, match="only supports 4D and 5D"):
        F.affine_grid(th, (2, 1, 3), align_corners=False)
    with pytest.raises(ValueError, match="floating point"):
        F.affine_grid(lucid.zeros(2, 2, 3, dtype=lucid.int64), (2, 1, 3, 4), align_corners=False)
    with pytest.raises(ValueError, match="non-zero, positive"):
        F.affine_grid(th, (2, 1, 0, 4), align_corners=False)


def test_affine_grid_sample_pipeline_matches_torch(torch):
    th, x = arr(2, 2, 3) * 0.5, arr(2, 3, 5, 6)
    lt, lx = lucid.tensor(th, requires_grad=True), lucid.tensor(x, requires_grad=True)
    tt, tx = torch.tensor(th, requires_grad=True), torch.tensor(x, requires_grad=True)
    y = F.grid_sample(lx, F.affine_grid(lt, (2, 3, 4, 4), align_corners=False), align_corners=False)
    ty = torch.nn.functional.grid_sample(tx, torch.nn.functional.affine_grid(tt, (2, 3, 4, 4), align_corners=False),
                                         align_corners=False)
    close(y, ty)
    y.sum().backward()
    ty.sum().backward()
    close(lx.grad, tx.grad)
    close(lt.grad, tt.grad, 1e-9)


# ---- rotate (lucid's own)

def test_rotate_quarter_turns_are_rot90(torch):
    for shape in [(2, 3, 5, 5), (1, 2, 4, 4)]:
        x = arr(*shape)
        for k in (1, 2, 3, -1):
            close(F.rotate(lucid.tensor(x), 90 * k), torch.rot90(torch.tensor(x), k, (2, 3)), 1e-9)
        close(F.rotate(lucid.tensor(x), 0.0), x, 1e-12)
    x = arr(3, 4, 6)  # unbatched, non-square half turn
    close(F.rotate(lucid.tensor(x), 180), x[:, ::-1, ::-1], 1e-9)


def test_rotate_matches_affine_grid_sample(torch):
    x, ang, cx, cy = arr(2, 2, 5, 7), 33.0, 2.0, 1.5
    h, w = 5, 7
    a = np.deg2rad(ang)
    # pixel map src = c + R(-angle) (p - c) in normalized (align_corners=False) coordinates
    m = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    s = np.diag([w / 2.0, h / 2.0])
    c = np.array([cx, cy])
    off = np.array([(w - 1) / 2.0, (h - 1) / 2.0])  # pixel p = s u + off
    lin = np.linalg.inv(s) @ m @ s
    t = np.linalg.inv(s) @ (m @ (off - c) + c - off)
    th = np.concatenate([lin, t[:, None]], 1)[None].repeat(2, 0)
    tg = torch.nn.functional.affine_grid(torch.tensor(th), (2, 2, h, w), align_corners=False)
    ty = torch.nn.functional.grid_sample(torch.tensor(x), tg, align_corners=False)
    close(F.rotate(lucid.tensor(x), ang, center=(cx, cy)), ty, 1e-9)


def test_rotate_gradients():
    x = lucid.tensor(arr(1, 2, 4, 5), requires_grad=True)
    ang = lucid.tensor(np.array([27.0]), requires_grad=True)
    assert gradcheck(lambda a, t: F.rotate(a, t), (x, ang))
    y = F.rotate(x, 90.0)
    y.backward(lucid.ones(*y.shape))
    assert x.grad.shape == x.shape
    with pytest.raises(lucid.errors.ShapeMismatch, match="rotate"):
        F.rotate(lucid.randn(2, 3), 10)
    with pytest.raises(lucid.errors.ShapeMismatch, match="angles"):
        F.rotate(lucid.randn(2, 1, 3, 3), lucid.tensor([1.0, 2.0, 3.0]))
    with pytest.raises(lucid.errors.DtypeMismatch, match="floating"):
        F.rotate(lucid.zeros(1, 1, 3, 3, dtype=lucid.int64), 10)


def test_strided_inputs(torch):
    x = arr(2, 5, 4, 3)  # a permuted (non-contiguous) view as input
    lx, tx = lucid.tensor(x).permute(0, 3, 2, 1), torch.tensor(x).permute(0, 3, 2, 1)
    close(F.interpolate(lx, size=(6, 7), mode="bilinear"),
          torch.nn.functional.interpolate(tx, size=(6, 7), mode="bilinear"))
    g = RNG.uniform(-1, 1, (2, 3, 2, 4))  # viewed as a (2, 3, 4, 2) grid through a permute
    lg, tg = lucid.tensor(g).permute(0, 1, 3, 2), torch.tensor(g).permute(0, 1, 3, 2)
    close(F.grid_sample(lx, lg, align_corners=False), torch.nn.functional.grid_sample(tx, tg, align_corners=False))
    p = arr(2, 8, 3, 4)
    close(F.pixel_shuffle(lucid.tensor(p).transpose(2, 3), 2),
          torch.nn.functional.pixel_shuffle(torch.tensor(p).transpose(2, 3), 2), 0)


def test_cuda_tensors_raise_typed_errors(cuda_device):
    x = lucid.randn(1, 2, 4, 4).to(cuda_device)
    with pytest.raises(NotImplementedError, match="CPU only"):
        F.interpolate(x, size=(5, 5), mode="bilinear")
    with pytest.raises(NotImplementedError, match="CPU only"):
        F.grid_sample(x, lucid.rand(1, 3, 3, 2).to(cuda_device), align_corners=False)
    with pytest.raises(NotImplementedError, match="CPU only"):
        F.rotate(x, 30.0)


def test_interpolate_single_plane_split_across_threads(torch):
    # fewer planes than threads: the kernels split one plane by rows / columns
    prev = lucid.get_num_threads()
    lucid.set_num_threads(2)
    try:
        for shape, kw in [((1, 1, 120, 160), dict(size=(200, 250), mode="bilinear")),
                          ((1, 1, 120, 160), dict(size=(90, 310), mode="bicubic", align_corners=True)),
                          ((1, 1, 20, 30, 40), dict(size=(33, 17, 50), mode="trilinear"))]:
            compare(torch, "interpolate", shape, kw, "float64")
    finally:
        lucid.set_num_threads(prev)
