"""The behaviour behind the API-parity fixes (test_api_parity.py finds the gaps; this checks what was added does
what torch's does): *_with_indices return conventions, nn.Fold/Unfold/Softmax2d, norm layers' bias=False,
Hardtanh's deprecated aliases, Module.modules(remove_duplicate), vector_norm's ord=0 gradient, and the fused
embedding_bag engine op (sum/mean/max, offsets, include_last_offset, per_sample_weights, padding_idx)."""
import numpy as np
import pytest

import lucid
import lucid.nn as nn
import lucid.nn.functional as F

RNG = np.random.default_rng(5)


def close(a, b, tol=1e-10):
    a = a.detach().numpy() if isinstance(a, lucid.Tensor) else np.asarray(a)
    b = b.detach().numpy() if hasattr(b, "detach") else np.asarray(b)
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


# ---- pooling's *_with_indices: a tuple whatever return_indices says (torch's convention)

@pytest.mark.parametrize("name,shape,args", [
    ("max_pool1d", (2, 3, 9), (3,)), ("max_pool2d", (2, 3, 6, 7), (2,)), ("max_pool3d", (1, 2, 4, 5, 6), (2,)),
    ("adaptive_max_pool1d", (2, 3, 9), (4,)), ("adaptive_max_pool2d", (2, 3, 6, 7), ((3, 2),)),
    ("adaptive_max_pool3d", (1, 2, 4, 5, 6), (2,)),
])
def test_with_indices_always_tuple(torch, name, shape, args):
    x = RNG.standard_normal(shape)
    for ri in (False, True):
        out, idx = getattr(F, name + "_with_indices")(lucid.tensor(x), *args, return_indices=ri)
        tout, tidx = getattr(torch.nn.functional, name + "_with_indices")(torch.tensor(x), *args, return_indices=ri)
        close(out, tout)
        np.testing.assert_array_equal(idx.numpy(), tidx.numpy())
    plain = getattr(F, name)(lucid.tensor(x), *args)
    assert isinstance(plain, lucid.Tensor)
    out, idx = getattr(F, name)(lucid.tensor(x), *args, return_indices=True)
    close(out, plain)


def test_fractional_with_indices_tuple():
    x = lucid.tensor(RNG.standard_normal((1, 2, 8, 8)))
    s = lucid.rand(1, 2, 2, dtype=x.dtype)
    out, idx = F.fractional_max_pool2d_with_indices(x, 2, output_size=4, _random_samples=s)
    assert F.fractional_max_pool2d(x, 2, output_size=4, _random_samples=s).shape == out.shape == (1, 2, 4, 4)


# ---- Fold / Unfold / Softmax2d layers

def test_fold_unfold_layers(torch):
    x = RNG.standard_normal((2, 3, 5, 6))
    for kw in ({"kernel_size": 2}, {"kernel_size": (2, 3), "dilation": (1, 2), "padding": 1, "stride": (2, 1)}):
        lu, tu = nn.Unfold(**kw), torch.nn.Unfold(**kw)
        assert repr(lu) == repr(tu)
        lx, tx = lucid.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
        ly, ty = lu(lx), tu(tx)
        close(ly, ty)
        lf, tf = nn.Fold((5, 6), **kw), torch.nn.Fold((5, 6), **kw)
        assert repr(lf) == repr(tf)
        lz, tz = lf(ly), tf(ty)
        close(lz, tz)
        lz.sum().backward()
        tz.sum().backward()
        close(lx.grad, tx.grad)
        assert lu.state_dict() == {} and lf.state_dict() == {}


def test_softmax2d(torch):
    for shape in ((2, 4, 3, 5), (4, 3, 5)):
        x = RNG.standard_normal(shape)
        lx, tx = lucid.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
        ly, ty = nn.Softmax2d()(lx), torch.nn.Softmax2d()(tx)
        close(ly, ty)
        w = RNG.standard_normal(shape)
        (ly * lucid.tensor(w)).sum().backward()
        (ty * torch.tensor(w)).sum().backward()
        close(lx.grad, tx.grad)
    with pytest.raises(ValueError, match="Softmax2d"):
        nn.Softmax2d()(lucid.randn(2, 3))


# ---- norm layers' bias keyword, RMSNorm's forward(x), Hardtanh's aliases, Module.modules

@pytest.mark.parametrize("cls,args,shape", [
    ("BatchNorm1d", (4,), (3, 4, 5)), ("BatchNorm2d", (4,), (3, 4, 2, 2)), ("BatchNorm3d", (4,), (2, 4, 2, 2, 2)),
    ("InstanceNorm1d", (4,), (3, 4, 5)), ("InstanceNorm2d", (4,), (3, 4, 3, 2)), ("GroupNorm", (2, 4), (3, 4, 5)),
])
def test_norm_bias_false(torch, cls, args, shape):
    kw = {"affine": True} if cls.startswith("Instance") else {}
    lm, tm = getattr(nn, cls)(*args, bias=False, **kw), getattr(torch.nn, cls)(*args, bias=False, **kw)
    assert list(lm.state_dict()) == list(tm.state_dict())
    assert lm.bias is None and tm.bias is None
    x = RNG.standard_normal(shape)
    w = RNG.standard_normal(args[-1])
    with torch.no_grad():
        tm.weight.copy_(torch.tensor(w))
    lm.weight.data = lucid.tensor(w, dtype=lucid.float32)
    close(lm(lucid.tensor(x, dtype=lucid.float32)), tm(torch.tensor(x, dtype=torch.float32)), 1e-5)


def test_rmsnorm_forward_x():
    m = nn.RMSNorm(4)
    x = lucid.randn(2, 4)
    close(m(x=x), m(x))


def test_hardtanh_deprecated_aliases():
    with pytest.warns(FutureWarning, match="min_value"):
        m = nn.Hardtanh(min_value=-2.0)
    assert m.min_val == -2.0 and m.max_val == 1.0
    with pytest.warns(FutureWarning, match="max_value"):
        m = nn.Hardtanh(max_value=3.0)
    assert m.max_val == 3.0
    close(m(lucid.tensor([-5.0, 0.5, 5.0])), np.array([-1.0, 0.5, 3.0], dtype=np.float32))


def test_modules_remove_duplicate(torch):
    def build(lib):
        shared = lib.nn.Linear(2, 2)
        return lib.nn.Sequential(shared, lib.nn.ReLU(), shared)
    lm, tm = build(lucid), build(torch)
    for rd in (True, False):
        assert [type(m).__name__ for m in lm.modules(remove_duplicate=rd)] == \
            [type(m).__name__ for m in tm.modules(remove_duplicate=rd)]
    assert len(list(lm.modules())) == 3


def test_random_split_default_generator():
    lucid.manual_seed(3)
    a = [list(s.indices) for s in lucid.utils.data.random_split(range(10), [4, 6])]
    lucid.manual_seed(3)
    b = [list(s.indices) for s in lucid.utils.data.random_split(range(10), [4, 6], generator=None)]
    assert a == b and sorted(a[0] + a[1]) == list(range(10))
