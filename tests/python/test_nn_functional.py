"""lucid.nn.functional's engine ops (convolution, unfold/fold, max pooling, softmax, NLL and cross
entropy) against PyTorch: values, gradients (float64 finite differences, first and second order),
argument spellings and typed errors."""
import numpy as np
import pytest

import lucid
import lucid.nn as nn
import lucid.nn.functional as F
from lucid.autograd import gradcheck, gradgradcheck
from helpers import close

RNG = np.random.default_rng(7)


def arr(*shape):
    return RNG.standard_normal(shape)


CONV_CASES = [
    ((2, 3, 7, 6), (4, 3, 3, 2), {}),
    ((2, 3, 7, 6), (4, 3, 3, 3), dict(stride=2, padding=1)),
    ((1, 4, 9, 8), (6, 2, 3, 3), dict(groups=2, dilation=2, padding=(2, 1))),
    ((2, 3, 5, 5), (2, 3, 2, 2), dict(padding="same")),
    ((2, 3, 5, 5), (2, 3, 3, 3), dict(padding="valid", stride=(2, 1))),
    ((3, 6, 6), (2, 3, 3, 3), {}),                       # unbatched
    ((0, 3, 6, 6), (2, 3, 3, 3), {}),                    # empty batch
]


@pytest.mark.parametrize("xs,ws,kw", CONV_CASES)
@pytest.mark.parametrize("bias", [False, True])
def test_conv2d_matches_torch(torch, xs, ws, kw, bias):
    x, w, b = arr(*xs), arr(*ws), arr(ws[0])
    lb, tb = (lucid.tensor(b), torch.tensor(b)) if bias else (None, None)
    lx, lw = lucid.tensor(x, requires_grad=True), lucid.tensor(w, requires_grad=True)
    tx, tw = torch.tensor(x, requires_grad=True), torch.tensor(w, requires_grad=True)
    y = F.conv2d(lx, lw, lb, **kw)
    ty = torch.nn.functional.conv2d(tx, tw, tb, **kw)
    close(y, ty)
    assert y.is_contiguous()
    g = arr(*ty.shape)
    y.backward(lucid.tensor(g))
    ty.backward(torch.tensor(g))
    close(lx.grad, tx.grad)
    close(lw.grad, tw.grad)


def test_conv2d_float32_and_module(torch):
    lucid.manual_seed(0)
    m = nn.Conv2d(3, 5, 3, padding=1)
    t = torch.nn.Conv2d(3, 5, 3, padding=1)
    with torch.no_grad():
        t.weight.copy_(torch.from_numpy(m.weight.detach().numpy()))
        t.bias.copy_(torch.from_numpy(m.bias.detach().numpy()))
    x = arr(2, 3, 8, 8).astype(np.float32)
    close(m(lucid.tensor(x)), t(torch.tensor(x)), tol=1e-5)
    assert m.weight.shape == (5, 3, 3, 3) and m.bias.shape == (5,)
    bound = 1 / np.sqrt(27)
    assert np.abs(m.weight.detach().numpy()).max() <= bound + 1e-7     # kaiming_uniform_(a=sqrt(5))
    assert "Conv2d(3, 5, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1))" in repr(m)


def test_conv1d_matches_torch(torch):
    x, w, b = arr(2, 3, 11), arr(4, 3, 3), arr(4)
    for kw in [{}, dict(stride=2, padding=1), dict(dilation=2), dict(padding="same")]:
        close(F.conv1d(lucid.tensor(x), lucid.tensor(w), lucid.tensor(b), **kw),
              torch.nn.functional.conv1d(torch.tensor(x), torch.tensor(w), torch.tensor(b), **kw))
    m = nn.Conv1d(3, 4, 3)
    assert m(lucid.randn(2, 3, 10)).shape == (2, 4, 8)


def test_conv2d_gradcheck():
    x = lucid.tensor(arr(1, 2, 5, 4), requires_grad=True)
    w = lucid.tensor(arr(3, 2, 2, 3), requires_grad=True)
    b = lucid.tensor(arr(3), requires_grad=True)
    f = lambda x, w, b: F.conv2d(x, w, b, stride=(2, 1), padding=1)  # noqa: E731
    assert gradcheck(f, (x, w, b))
    assert gradgradcheck(f, (x, w, b))
    g = lambda x, w: F.conv2d(x, w, None, groups=2, dilation=2)  # noqa: E731
    assert gradcheck(g, (lucid.tensor(arr(1, 4, 6, 6), requires_grad=True),
                         lucid.tensor(arr(2, 2, 2, 2), requires_grad=True)))


def test_unfold_fold(torch):
    x = arr(2, 3, 6, 5)
    kw = dict(kernel_size=(2, 3), dilation=(1, 2), padding=1, stride=(2, 1))
    u = F.unfold(lucid.tensor(x), **kw)
    tu = torch.nn.functional.unfold(torch.tensor(x), **kw)
    close(u, tu)
    assert u.is_contiguous()
    f = F.fold(u, (6, 5), **kw)
    close(f, torch.nn.functional.fold(tu, (6, 5), **kw))
    xl = lucid.tensor(arr(1, 2, 4, 4), requires_grad=True)
    assert gradcheck(lambda t: F.unfold(t, 2, padding=1), (xl,))
    assert gradgradcheck(lambda t: F.unfold(t, 2, padding=1), (xl,))
    cl = lucid.tensor(arr(1, 8, 9), requires_grad=True)
    assert gradcheck(lambda t: F.fold(t, (4, 4), 2, stride=1), (cl,))
    with pytest.raises(lucid.ShapeMismatch, match="fold"):
        F.fold(lucid.zeros(1, 8, 7), (4, 4), 2)


@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1),
                                dict(kernel_size=(2, 3), stride=1, dilation=(2, 1)),
                                dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)])
def test_max_pool2d_matches_torch(torch, kw):
    x = arr(2, 3, 7, 8)
    lx, tx = lucid.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    o, i = F.max_pool2d(lx, return_indices=True, **kw)
    to, ti = torch.nn.functional.max_pool2d(tx, return_indices=True, **kw)
    close(o, to)
    np.testing.assert_array_equal(i.numpy(), ti.numpy())
    assert i.dtype is lucid.int64
    g = arr(*to.shape)
    o.backward(lucid.tensor(g))
    to.backward(torch.tensor(g))
    close(lx.grad, tx.grad)


def test_max_pool_nan_unbatched_module_and_1d(torch):
    x = np.array([[[1.0, np.nan], [3.0, 2.0]]])
    o = F.max_pool2d(lucid.tensor(x), 2)
    assert np.isnan(o.item())
    m = nn.MaxPool2d(2)
    assert m(lucid.randn(3, 4, 4)).shape == (3, 2, 2)
    x1 = arr(2, 3, 9)
    close(F.max_pool1d(lucid.tensor(x1), 3, 2, 1), torch.nn.functional.max_pool1d(torch.tensor(x1), 3, 2, 1))
    xl = lucid.tensor(arr(1, 2, 4, 4), requires_grad=True)
    assert gradcheck(lambda t: F.max_pool2d(t, 2), (xl,))
    assert gradgradcheck(lambda t: F.max_pool2d(t, 3, 1, 1), (xl,))


def test_max_pool_errors():
    with pytest.raises(ValueError, match="pad should be at most half"):
        F.max_pool2d(lucid.zeros(1, 1, 4, 4), 2, padding=2)
    with pytest.raises(lucid.ShapeMismatch, match="max_pool2d"):
        F.max_pool2d(lucid.zeros(4, 4), 2)
    with pytest.raises(lucid.ShapeMismatch, match="too small"):
        F.max_pool2d(lucid.zeros(1, 1, 2, 2), 3)


@pytest.mark.parametrize("shape,dim", [((4, 5), 1), ((4, 5), 0), ((2, 3, 4), 1), ((2, 3, 4), -1), ((5,), 0),
                                       ((), 0), ((0, 3), 1)])
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_matches_torch(torch, shape, dim, name):
    x = arr(*shape) * 3
    y = getattr(F, name)(lucid.tensor(x), dim)
    ty = getattr(torch.nn.functional, name)(torch.tensor(x), dim)
    close(y, ty, tol=1e-12)
    assert getattr(lucid.tensor(x), name)(dim).tolist() == y.tolist()
    if 0 < np.prod(shape) < 30:
        xl = lucid.tensor(x, requires_grad=True)
        assert gradcheck(lambda t: getattr(F, name)(t, dim), (xl,))
        assert gradgradcheck(lambda t: getattr(F, name)(t, dim), (xl,))


def test_softmax_dtypes_and_extremes(torch):
    x = np.array([[1000.0, 0.0, -1000.0], [-np.inf, 0.0, 1.0]], dtype=np.float32)
    close(F.softmax(lucid.tensor(x), 1), torch.softmax(torch.tensor(x), 1), tol=1e-6)
    close(F.log_softmax(lucid.tensor(x), 1), torch.log_softmax(torch.tensor(x), 1), tol=1e-5)
    h = F.softmax(lucid.tensor(x).to(lucid.float16), 1)
    assert h.dtype is lucid.float16
    d = F.softmax(lucid.tensor(x), 1, dtype=lucid.float64)
    assert d.dtype is lucid.float64
    nan = F.softmax(lucid.tensor([[1.0, np.nan, 2.0]]), 1)
    assert np.isnan(nan.numpy()).all()
    with pytest.raises(NotImplementedError, match="softmax"):
        F.softmax(lucid.tensor([1, 2]), 0)
    with pytest.raises(IndexError):
        F.softmax(lucid.zeros(2, 3), 2)
    assert isinstance(nn.Softmax(dim=1)(lucid.zeros(2, 3)), lucid.Tensor)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
def test_nll_and_cross_entropy_match_torch(torch, reduction, weighted):
    logits, t = arr(6, 4), np.array([0, 3, 1, -100, 2, 1])
    w = np.array([0.5, 1.0, 2.0, 1.5])
    lw, tw = (lucid.tensor(w), torch.tensor(w)) if weighted else (None, None)
    for ls in [0.0, 0.1]:
        lx, tx = lucid.tensor(logits, requires_grad=True), torch.tensor(logits, requires_grad=True)
        y = F.cross_entropy(lx, lucid.tensor(t), weight=lw, reduction=reduction, label_smoothing=ls)
        ty = torch.nn.functional.cross_entropy(tx, torch.tensor(t), weight=tw, reduction=reduction, label_smoothing=ls)
        close(y, ty)
        g = arr(*ty.shape)
        y.backward(lucid.tensor(g))
        ty.backward(torch.tensor(g))
        close(lx.grad, tx.grad)
    logp = torch.log_softmax(torch.tensor(logits), 1)
    close(F.nll_loss(lucid.tensor(logp.numpy()), lucid.tensor(t), weight=lw, reduction=reduction),
          torch.nn.functional.nll_loss(logp, torch.tensor(t), weight=tw, reduction=reduction))


def test_cross_entropy_nd_unbatched_and_probabilities(torch):
    x, t = arr(2, 3, 4, 5), RNG.integers(0, 3, (2, 4, 5))
    close(F.cross_entropy(lucid.tensor(x), lucid.tensor(t)),
          torch.nn.functional.cross_entropy(torch.tensor(x), torch.tensor(t)))
    close(F.cross_entropy(lucid.tensor(x[0, :, 0, 0]), lucid.tensor(t[0, 0, 0])),
          torch.nn.functional.cross_entropy(torch.tensor(x[0, :, 0, 0]), torch.tensor(t[0, 0, 0])))
    p = np.abs(arr(3, 4))
    p /= p.sum(1, keepdims=True)
    xs = arr(3, 4)
    for ls in [0.0, 0.2]:
        close(F.cross_entropy(lucid.tensor(xs), lucid.tensor(p), label_smoothing=ls),
              torch.nn.functional.cross_entropy(torch.tensor(xs), torch.tensor(p), label_smoothing=ls))
    loss = nn.CrossEntropyLoss(ignore_index=1)
    close(loss(lucid.tensor(xs), lucid.tensor([1, 2, 0])),
          torch.nn.CrossEntropyLoss(ignore_index=1)(torch.tensor(xs), torch.tensor([1, 2, 0])))


def test_nll_double_backward_and_gradcheck():
    x = lucid.tensor(arr(4, 3), requires_grad=True)
    t = lucid.tensor([0, 2, 1, 2])
    assert gradcheck(lambda a: F.cross_entropy(a, t), (x,))
    assert gradgradcheck(lambda a: F.cross_entropy(a, t), (x,))
    assert gradgradcheck(lambda a: F.nll_loss(a, t, reduction="none"), (x,))


def test_loss_errors():
    with pytest.raises(IndexError, match="out of bounds"):
        F.nll_loss(lucid.zeros(2, 3), lucid.tensor([0, 3]))
    with pytest.raises(lucid.DtypeMismatch, match="int64"):
        F.nll_loss(lucid.zeros(2, 3), lucid.tensor([0, 1], dtype=lucid.int32))
    with pytest.raises(lucid.ShapeMismatch, match="target"):
        F.nll_loss(lucid.zeros(2, 3), lucid.tensor([0, 1, 2]))
    with pytest.raises(ValueError, match="reduction"):
        F.nll_loss(lucid.zeros(2, 3), lucid.tensor([0, 1]), reduction="avg")
    with pytest.raises(ValueError, match="label_smoothing"):
        F.cross_entropy(lucid.zeros(2, 3), lucid.tensor([0, 1]), label_smoothing=1.5)


def test_conv_errors():
    x = lucid.zeros(1, 3, 5, 5)
    with pytest.raises(lucid.ShapeMismatch, match="channels"):
        F.conv2d(x, lucid.zeros(2, 2, 3, 3))
    with pytest.raises(lucid.ShapeMismatch, match="smaller than the dilated kernel"):
        F.conv2d(x, lucid.zeros(2, 3, 7, 7))
    with pytest.raises(lucid.DtypeMismatch, match="same dtype"):
        F.conv2d(x, lucid.zeros(2, 3, 3, 3, dtype=lucid.float64))
    with pytest.raises(NotImplementedError, match="float32 and float64"):
        F.conv2d(x.to(lucid.int64), lucid.zeros(2, 3, 3, 3, dtype=lucid.int64))
    with pytest.raises(ValueError, match="strided"):
        F.conv2d(x, lucid.zeros(2, 3, 3, 3), stride=2, padding="same")
    with pytest.raises(TypeError, match="stride"):
        F.conv2d(x, lucid.zeros(2, 3, 3, 3), stride=(1, 2, 3))
    with pytest.raises(ValueError, match="in_channels must be divisible"):
        nn.Conv2d(3, 4, 3, groups=2)


def test_dropout():
    lucid.manual_seed(1)
    x = lucid.ones(10000)
    y = F.dropout(x, 0.25)
    v = y.numpy()
    assert set(np.unique(v)) <= {0.0, np.float32(1 / 0.75)}
    assert abs((v == 0).mean() - 0.25) < 0.03
    assert F.dropout(x, 0.5, training=False) is x
    m = nn.Dropout(0.5)
    m.eval()
    assert m(x) is x
    with pytest.raises(ValueError):
        F.dropout(x, 1.5)


# ---- F.linear: one GEMM + fused bias, one autograd node (the composed path for the rest)

@pytest.mark.parametrize("xshape", [(5,), (4, 5), (2, 3, 5), (3, 5, 4)])
@pytest.mark.parametrize("bias", [True, False])
def test_linear_matches_torch_with_gradients(torch, xshape, bias):
    x = RNG.standard_normal(xshape)
    if xshape == (3, 5, 4):
        x = x.transpose(0, 2, 1)  # a non-contiguous input
    w, b = RNG.standard_normal((6, 5)), RNG.standard_normal(6)
    lx, lw, lb = (lucid.tensor(v, requires_grad=True) for v in (x, w, b))
    tx, tw, tb = (torch.tensor(v, requires_grad=True) for v in (x, w, b))
    ly = F.linear(lx, lw, lb if bias else None)
    ty = torch.nn.functional.linear(tx, tw, tb if bias else None)
    close(ly, ty)
    g = RNG.standard_normal(ty.shape)
    ly.backward(lucid.tensor(g))
    ty.backward(torch.tensor(g))
    close(lx.grad, tx.grad)
    close(lw.grad, tw.grad)
    if bias:
        close(lb.grad, tb.grad)
    else:
        assert lb.grad is None
    assert gradcheck(lambda x, w, b: F.linear(x, w, b if bias else None), (lx, lw, lb))
    assert gradgradcheck(lambda x, w, b: F.linear(x, w, b if bias else None), (lx, lw, lb))


def test_linear_float32_integer_and_errors(torch):
    x, w, b = RNG.standard_normal((7, 3)), RNG.standard_normal((2, 3)), RNG.standard_normal(2)
    close(F.linear(lucid.tensor(x, dtype=lucid.float32), lucid.tensor(w, dtype=lucid.float32),
                   lucid.tensor(b, dtype=lucid.float32)), x @ w.T + b, 1e-5)
    xi, wi = lucid.tensor([[1, 2, 3]]), lucid.tensor([[1, 0, 1], [2, 2, 2]])  # integers: the composed path
    assert F.linear(xi, wi).tolist() == [[4, 12]]
    with pytest.raises(lucid.ShapeMismatch):
        F.linear(lucid.ones(2, 4), lucid.ones(3, 5))
    with pytest.raises(lucid.ShapeMismatch):
        F.linear(lucid.ones(2, 5), lucid.ones(3, 5), lucid.ones(4))
    with pytest.raises(lucid.LucidError):
        F.linear(lucid.ones(2, 5), lucid.ones(3, 5, dtype=lucid.float64))
