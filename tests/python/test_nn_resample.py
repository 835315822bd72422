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

RNG = np.random.default_rng(5)


def arr(*shape):
    return RNG.standard_normal(shape)


def close(a, b, tol=1e-10):
    a = a.detach().numpy() if isinstance(a, lucid.Tensor) else np.asarray(a)
    b = b.detach().numpy() if hasattr(b, "detach") else np.asarray(b)
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


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
    ((2, 3, 5, 5), dict(scale_factor=1.1)),  # output == input size with a scale: no identity shortcut
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


@pytest.mark.parametrize("shape,kw", [
    ((1, 2, 4), dict(size=7, mode="linear")),
    ((1, 2, 3, 4), dict(size=(5, 3), mode="bilinear")),
    ((1, 2, 3, 4), dict(scale_factor=1.5, mode="bilinear", align_corners=True)),
    ((1, 2, 3, 4), dict(size=(5, 6), mode="bicubic")),
    ((1, 2, 3, 4), dict(size=(5, 3), mode="nearest")),
    ((1, 2, 3, 4), dict(size=(5, 3), mode="nearest-exact")),
    ((1, 1, 2, 3, 3), dict(size=(3, 2, 4), mode="trilinear")),
    ((1, 2, 5, 4), dict(size=(2, 3), mode="area")),
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
    (dict(size=(3, 3), mode="bilinear", antialias=True), NotImplementedError, "antialias"),
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
    with pytest.raises(exc if exc is not NotImplementedError or "antialias" not in match else Exception):
        if "antialias" in match and exc is NotImplementedError:
            raise Exception  # PyTorch implements antialias; lucid raises a typed NotImplementedError
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
