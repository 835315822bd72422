"""Convolutions of every rank against PyTorch: F.conv1d/2d/3d (numeric and 'same'/'valid' padding),
F.conv_transpose1d/2d/3d, their gradients (float64: against torch, finite differences, second order),
the modules (Conv*, ConvTranspose*, Lazy*, padding modes, output_size, init, parameter names, repr)
and typed errors. (2-d basics and unfold/fold are in test_nn_functional.py.)"""
import math

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


def compare(torch, name, xs, ws, kw, bias=True, tol=1e-10):
    """Forward and all three gradients of F.<name> against torch in float64."""
    x, w = arr(*xs), arr(*ws)
    oc = ws[0] if not name.startswith("conv_transpose") else ws[1] * kw.get("groups", 1)
    b = arr(oc)
    lx, lw, lb = (lucid.tensor(v, requires_grad=True) for v in (x, w, b))
    tx, tw, tb = (torch.tensor(v, requires_grad=True) for v in (x, w, b))
    y = getattr(F, name)(lx, lw, lb if bias else None, **kw)
    ty = getattr(torch.nn.functional, name)(tx, tw, tb if bias else None, **kw)
    close(y, ty, tol)
    assert y.is_contiguous()
    if ty.numel() == 0:
        return
    g = arr(*ty.shape)
    y.backward(lucid.tensor(g))
    ty.backward(torch.tensor(g))
    close(lx.grad, tx.grad, tol)
    close(lw.grad, tw.grad, tol)
    if bias:
        close(lb.grad, tb.grad, tol)


CONV_CASES = [
    ("conv1d", (2, 3, 11), (4, 3, 3), {}),
    ("conv1d", (2, 4, 12), (6, 2, 3), dict(stride=2, padding=1, dilation=2, groups=2)),
    ("conv1d", (3, 9), (2, 3, 4), dict(padding="same")),                     # unbatched, even kernel
    ("conv1d", (2, 3, 9), (2, 3, 4), dict(padding="valid", stride=(3,))),
    ("conv2d", (2, 4, 7, 6), (4, 2, 3, 2), dict(stride=(2, 1), padding=(1, 0), dilation=(1, 2), groups=2)),
    ("conv2d", (1, 3, 6, 6), (5, 3, 1, 1), {}),                              # 1x1: no im2col
    ("conv2d", (2, 3, 6, 5), (2, 3, 4, 3), dict(padding="same", dilation=(1, 2))),
    ("conv3d", (2, 3, 5, 6, 4), (4, 3, 3, 2, 3), {}),
    ("conv3d", (1, 4, 6, 5, 7), (6, 2, 3, 3, 2), dict(stride=(2, 1, 3), padding=(1, 2, 0), dilation=(1, 2, 1),
                                                      groups=2)),
    ("conv3d", (3, 4, 5, 4), (2, 3, 2, 3, 2), dict(padding="same")),          # unbatched
    ("conv3d", (2, 2, 4, 4, 4), (3, 2, 3, 3, 3), dict(padding="valid")),
    ("conv3d", (0, 2, 4, 4, 4), (3, 2, 3, 3, 3), {}),                         # empty batch
]


@pytest.mark.parametrize("name,xs,ws,kw", CONV_CASES)
@pytest.mark.parametrize("bias", [False, True])
def test_conv_matches_torch(torch, name, xs, ws, kw, bias):
    compare(torch, name, xs, ws, kw, bias)


TRANSPOSE_CASES = [
    ("conv_transpose1d", (2, 3, 7), (3, 4, 3), {}),
    ("conv_transpose1d", (2, 4, 6), (4, 3, 4), dict(stride=3, padding=2, output_padding=1, groups=2, dilation=2)),
    ("conv_transpose1d", (3, 5), (3, 2, 2), dict(stride=2)),                             # unbatched
    ("conv_transpose2d", (2, 3, 5, 4), (3, 2, 3, 3), dict(stride=2, padding=1, output_padding=1)),
    ("conv_transpose2d", (1, 4, 4, 5), (4, 3, 2, 3), dict(stride=(1, 2), padding=(0, 1), output_padding=(0, 1),
                                                          groups=2, dilation=(2, 1))),
    ("conv_transpose2d", (2, 4, 3, 3), (4, 2, 3, 3), dict(stride=1, output_padding=1, dilation=2)),  # op < dilation
    ("conv_transpose2d", (2, 3, 4, 4), (3, 5, 1, 1), {}),                                # 1x1
    ("conv_transpose3d", (2, 3, 3, 4, 2), (3, 2, 2, 3, 2), dict(stride=2, padding=(0, 1, 0), output_padding=1)),
    ("conv_transpose3d", (1, 4, 3, 3, 3), (4, 1, 3, 2, 2), dict(groups=4, dilation=(1, 2, 1), stride=(1, 1, 2))),
    ("conv_transpose3d", (2, 3, 3, 2), (2, 3, 2, 2, 2), {}),                             # unbatched
]


@pytest.mark.parametrize("name,xs,ws,kw", TRANSPOSE_CASES)
@pytest.mark.parametrize("bias", [False, True])
def test_conv_transpose_matches_torch(torch, name, xs, ws, kw, bias):
    compare(torch, name, xs, ws, kw, bias)


def test_float32_and_noncontiguous(torch):
    x = arr(2, 6, 5, 7).astype(np.float32)
    w = arr(4, 3, 3, 3).astype(np.float32)
    lx = lucid.tensor(x).permute(0, 1, 3, 2)            # non-contiguous input
    tx = torch.tensor(x).permute(0, 1, 3, 2)
    lw = lucid.tensor(w)
    close(F.conv2d(lx, lw, stride=2, groups=2), torch.nn.functional.conv2d(tx, torch.tensor(w), stride=2, groups=2),
          1e-4)
    wt = arr(6, 2, 2, 3).astype(np.float32)
    close(F.conv_transpose2d(lx, lucid.tensor(wt), stride=2, groups=3),
          torch.nn.functional.conv_transpose2d(tx, torch.tensor(wt), stride=2, groups=3), 1e-4)
    x3 = arr(2, 3, 6, 5, 4).astype(np.float32)
    w3 = arr(4, 3, 2, 2, 2).astype(np.float32)
    close(F.conv3d(lucid.tensor(x3), lucid.tensor(w3), padding=1),
          torch.nn.functional.conv3d(torch.tensor(x3), torch.tensor(w3), padding=1), 1e-4)


def test_transpose_is_the_adjoint_of_conv():
    # <conv(x, w), y> == <x, conv_transpose(y, w)> for the same stride/padding/dilation/groups
    kw = dict(stride=(2, 1, 2), padding=(1, 0, 1), dilation=(1, 2, 1), groups=2)
    x, w = lucid.tensor(arr(2, 4, 7, 6, 5)), lucid.tensor(arr(6, 2, 3, 2, 3))
    y = F.conv3d(x, w, **kw)
    z = lucid.tensor(arr(*y.shape))
    xt = F.conv_transpose3d(z, w, output_padding=(0, 0, 0), **kw)
    assert xt.shape == x.shape
    assert math.isclose((y * z).sum().item(), (x * xt).sum().item(), rel_tol=1e-10)


@pytest.mark.parametrize("name,xs,ws,kw", [
    ("conv1d", (2, 2, 6), (4, 1, 3), dict(stride=2, padding=1, groups=2)),
    ("conv2d", (1, 2, 5, 4), (2, 2, 2, 3), dict(stride=(2, 1), padding=(0, 1), dilation=(1, 2))),
    ("conv3d", (1, 2, 4, 3, 4), (2, 1, 2, 2, 2), dict(groups=2, padding=(1, 0, 1), stride=(1, 2, 1))),
    ("conv_transpose1d", (2, 2, 4), (2, 3, 3), dict(stride=2, padding=1, output_padding=1)),
    ("conv_transpose2d", (1, 2, 3, 3), (2, 1, 2, 3), dict(stride=2, groups=2, dilation=(2, 1))),
    ("conv_transpose3d", (1, 2, 2, 3, 2), (2, 2, 2, 2, 2), dict(stride=(2, 1, 2), padding=(0, 1, 0))),
])
def test_gradcheck_first_and_second_order(name, xs, ws, kw):
    oc = ws[0] if not name.startswith("conv_transpose") else ws[1] * kw.get("groups", 1)
    x, w, b = (lucid.tensor(arr(*s), requires_grad=True) for s in (xs, ws, (oc,)))
    f = lambda x, w, b: getattr(F, name)(x, w, b, **kw)  # noqa: E731
    assert gradcheck(f, (x, w, b))
    assert gradgradcheck(f, (x, w, b))


def test_double_backward_matches_torch(torch):
    x, w = arr(2, 3, 6, 5), arr(4, 3, 3, 2)
    lx, lw = lucid.tensor(x, requires_grad=True), lucid.tensor(w, requires_grad=True)
    tx, tw = torch.tensor(x, requires_grad=True), torch.tensor(w, requires_grad=True)
    ly = F.conv2d(lx, lw, stride=2, padding=1)
    ty = torch.nn.functional.conv2d(tx, tw, stride=2, padding=1)
    lgx, lgw = lucid.autograd.grad((ly ** 2).sum(), (lx, lw), create_graph=True)
    tgx, tgw = torch.autograd.grad((ty ** 2).sum(), (tx, tw), create_graph=True)
    close(lgx, tgx)
    close(lgw, tgw)
    lh = lucid.autograd.grad((lgx ** 2).sum() + (lgw * lgw).sum(), (lx, lw))
    th = torch.autograd.grad((tgx ** 2).sum() + (tgw * tgw).sum(), (tx, tw))
    close(lh[0], th[0], 1e-9)
    close(lh[1], th[1], 1e-9)


# ---- modules

def _copy(lm, tm, torch):
    with torch.no_grad():
        for (ln, lp), (tn, tp) in zip(lm.named_parameters(), tm.named_parameters()):
            assert ln == tn and tuple(lp.shape) == tuple(tp.shape)
            tp.copy_(torch.from_numpy(lp.detach().numpy().copy()))


@pytest.mark.parametrize("cls,args,kw,xs", [
    ("Conv1d", (4, 6, 3), dict(stride=2, padding=2, groups=2, padding_mode="reflect"), (2, 4, 9)),
    ("Conv1d", (3, 2, 4), dict(padding="same", padding_mode="circular"), (2, 3, 8)),
    ("Conv2d", (3, 4, (3, 2)), dict(padding=(1, 2), padding_mode="replicate"), (2, 3, 6, 5)),
    ("Conv2d", (3, 4, 3), dict(padding=1, padding_mode="circular", dilation=2, bias=False), (3, 6, 6)),
    ("Conv2d", (2, 4, 2), dict(padding="same", padding_mode="reflect"), (1, 2, 5, 5)),
    ("Conv3d", (2, 4, 3), dict(stride=(1, 2, 1), padding=1), (2, 2, 5, 6, 4)),
    ("Conv3d", (2, 3, (2, 3, 2)), dict(padding=(1, 1, 0), padding_mode="reflect"), (1, 2, 4, 5, 4)),
    ("ConvTranspose1d", (4, 6, 3), dict(stride=2, padding=1, output_padding=1, groups=2), (2, 4, 5)),
    ("ConvTranspose2d", (3, 4, (3, 2)), dict(stride=2, dilation=(1, 2), bias=False), (2, 3, 4, 3)),
    ("ConvTranspose3d", (2, 3, 2), dict(stride=(2, 1, 2), padding=(1, 0, 0)), (2, 2, 3, 3, 2)),
])
def test_modules_match_torch(torch, cls, args, kw, xs):
    lucid.manual_seed(0)
    lm, tm = getattr(nn, cls)(*args, **kw), getattr(torch.nn, cls)(*args, **kw)
    assert [n for n, _ in lm.named_parameters()] == [n for n, _ in tm.named_parameters()]
    assert list(lm.state_dict().keys()) == list(tm.state_dict().keys())
    assert repr(lm) == repr(tm)
    _copy(lm, tm, torch)
    x = arr(*xs).astype(np.float32)
    lx, tx = lucid.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ly, ty = lm(lx), tm(tx)
    close(ly, ty, 1e-4)
    g = arr(*ty.shape).astype(np.float32)
    ly.backward(lucid.tensor(g))
    ty.backward(torch.tensor(g))
    close(lx.grad, tx.grad, 1e-4)
    close(lm.weight.grad, tm.weight.grad, 1e-3)


@pytest.mark.parametrize("cls,args", [("Conv1d", (4, 6, 3)), ("Conv3d", (4, 6, (3, 2, 2))),
                                      ("ConvTranspose2d", (4, 6, 3)), ("ConvTranspose3d", (6, 4, 2))])
def test_default_init(cls, args):
    lucid.manual_seed(0)
    m = getattr(nn, cls)(*args, groups=2)
    w = m.weight.detach().numpy()
    fan_in = w.shape[1] * int(np.prod(w.shape[2:]))     # PyTorch's fan_in, also for the transposed layout
    bound = 1 / math.sqrt(fan_in)                        # kaiming_uniform_(a=sqrt(5)) and the bias bound agree
    assert np.abs(w).max() <= bound + 1e-7 and np.abs(w).max() > 0.5 * bound
    assert np.abs(m.bias.detach().numpy()).max() <= bound + 1e-7
    t = cls.startswith("ConvTranspose")
    assert m.weight.shape == ((args[0], args[1] // 2) if t else (args[1], args[0] // 2)) + m.kernel_size
    assert m.transposed is t


def test_conv_transpose_output_size(torch):
    lucid.manual_seed(0)
    lm, tm = nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1), torch.nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1)
    _copy(lm, tm, torch)
    x = arr(1, 3, 4, 5).astype(np.float32)
    for size in [(8, 10), (7, 9), [1, 2, 8, 9]]:
        close(lm(lucid.tensor(x), output_size=size), tm(torch.tensor(x), output_size=size), 1e-5)
    close(lm(lucid.tensor(x[0]), output_size=(8, 9)), tm(torch.tensor(x[0]), output_size=(8, 9)), 1e-5)
    with pytest.raises(ValueError, match="valid sizes range"):
        lm(lucid.tensor(x), output_size=(9, 9))
    with pytest.raises(ValueError, match="output_size must have"):
        lm(lucid.tensor(x), output_size=(8,))


@pytest.mark.parametrize("lazy,eager,xs", [("LazyConv1d", "Conv1d", (2, 3, 8)), ("LazyConv2d", "Conv2d", (3, 6, 6)),
                                           ("LazyConv3d", "Conv3d", (1, 3, 4, 4, 4)),
                                           ("LazyConvTranspose1d", "ConvTranspose1d", (2, 3, 5)),
                                           ("LazyConvTranspose2d", "ConvTranspose2d", (2, 3, 4, 4)),
                                           ("LazyConvTranspose3d", "ConvTranspose3d", (3, 2, 3, 2))])
def test_lazy(torch, lazy, eager, xs):
    with pytest.warns(UserWarning, match="Lazy modules"):
        m = getattr(nn, lazy)(4, 3, stride=1, padding=1)
    assert m.has_uninitialized_params()
    y = m(lucid.randn(*xs))
    assert type(m) is getattr(nn, eager)
    assert m.in_channels == 3
    t = getattr(torch.nn, eager)(3, 4, 3, stride=1, padding=1)
    assert m.weight.shape == tuple(t.weight.shape) and m.bias.shape == tuple(t.bias.shape)
    assert y.shape == tuple(t(torch.randn(*xs)).shape)
    assert repr(m) == repr(t)


def test_padding_mode_validation():
    with pytest.raises(ValueError, match="padding_mode must be one of"):
        nn.Conv2d(2, 2, 3, padding_mode="mirror")
    with pytest.raises(ValueError, match='Only "zeros" padding mode'):
        nn.ConvTranspose2d(2, 2, 3, padding_mode="reflect")
    with pytest.raises(ValueError, match="strided"):
        nn.Conv3d(2, 2, 3, stride=2, padding="same")
    with pytest.raises(ValueError, match="Invalid padding string"):
        nn.Conv1d(2, 2, 3, padding="full")
    with pytest.raises(ValueError, match="out_channels must be divisible"):
        nn.ConvTranspose1d(2, 3, 3, groups=2)


# ---- typed errors

def test_conv_errors():
    x = lucid.zeros(1, 4, 5, 5, 5)
    with pytest.raises(lucid.ShapeMismatch, match=r"conv3d.*\(1, 4, 5, 5, 5\).*channels"):
        F.conv3d(x, lucid.zeros(2, 3, 3, 3, 3))
    with pytest.raises(lucid.ShapeMismatch, match=r"conv3d.*groups"):
        F.conv3d(x, lucid.zeros(3, 2, 3, 3, 3), groups=2)
    with pytest.raises(lucid.ShapeMismatch, match=r"conv3d.*5-D weight"):
        F.conv3d(x, lucid.zeros(2, 4, 3, 3))
    with pytest.raises(lucid.ShapeMismatch, match=r"conv1d.*2-D \(unbatched\) or 3-D"):
        F.conv1d(lucid.zeros(1, 2, 3, 4), lucid.zeros(2, 2, 3))
    with pytest.raises(lucid.ShapeMismatch, match="smaller than the dilated kernel"):
        F.conv3d(x, lucid.zeros(2, 4, 3, 3, 3), dilation=3)
    with pytest.raises(lucid.ShapeMismatch, match="bias"):
        F.conv3d(x, lucid.zeros(2, 4, 3, 3, 3), lucid.zeros(3))
    with pytest.raises(ValueError, match="groups must be positive"):
        F.conv1d(lucid.zeros(1, 2, 5), lucid.zeros(2, 2, 3), groups=0)
    with pytest.raises(ValueError, match="stride must be positive"):
        F.conv3d(x, lucid.zeros(2, 4, 3, 3, 3), stride=0)
    with pytest.raises(ValueError, match="padding must be non-negative"):
        F.conv1d(lucid.zeros(1, 2, 5), lucid.zeros(2, 2, 3), padding=-1)
    with pytest.raises(ValueError, match="'same', 'valid'"):
        F.conv3d(x, lucid.zeros(2, 4, 3, 3, 3), padding="full")
    with pytest.raises(TypeError, match="stride"):
        F.conv3d(x, lucid.zeros(2, 4, 3, 3, 3), stride=(1, 2))
    with pytest.raises(lucid.DtypeMismatch, match="conv1d"):
        F.conv1d(lucid.zeros(1, 2, 5), lucid.zeros(2, 2, 3, dtype=lucid.float64))
    with pytest.raises(NotImplementedError, match="float32 and float64"):
        F.conv3d(x.to(lucid.int32), lucid.zeros(2, 4, 3, 3, 3, dtype=lucid.int32))


def test_conv_transpose_errors():
    x = lucid.zeros(1, 4, 5, 5)
    with pytest.raises(lucid.ShapeMismatch, match=r"conv_transpose2d.*\(1, 4, 5, 5\).*channels"):
        F.conv_transpose2d(x, lucid.zeros(3, 2, 3, 3))
    with pytest.raises(lucid.ShapeMismatch, match="conv_transpose2d"):
        F.conv_transpose2d(x, lucid.zeros(4, 2, 3, 3), groups=3)
    with pytest.raises(ValueError, match="output padding must be"):
        F.conv_transpose2d(x, lucid.zeros(4, 2, 3, 3), stride=2, output_padding=2)
    with pytest.raises(lucid.ShapeMismatch, match="non-positive output size"):
        F.conv_transpose1d(lucid.zeros(1, 2, 1), lucid.zeros(2, 2, 1), padding=1)
    with pytest.raises(lucid.ShapeMismatch, match="bias"):
        F.conv_transpose2d(x, lucid.zeros(4, 2, 3, 3), lucid.zeros(3), groups=2)
    with pytest.raises(lucid.ShapeMismatch, match="4-D weight"):
        F.conv_transpose2d(x, lucid.zeros(4, 2, 3))
    with pytest.raises(TypeError):
        F.conv_transpose2d(x, lucid.zeros(4, 2, 3, 3), padding="same")


@pytest.mark.skipif(not lucid.cuda.is_available(), reason="no CUDA device")
def test_cuda_is_a_typed_error():
    x = lucid.zeros(1, 2, 5, 5, 5, device="cuda")
    with pytest.raises(NotImplementedError):
        F.conv3d(x, lucid.zeros(2, 2, 3, 3, 3, device="cuda"))


@pytest.mark.parametrize("name,xs,ws,kw", [
    ("conv2d", (3, 64, 7, 70), (13, 64, 3, 3), dict(padding=1)),                  # several tiles, row/column tails
    ("conv2d", (2, 48, 9, 37), (20, 24, 3, 2), dict(stride=(2, 1), groups=2, dilation=(1, 2))),
    ("conv2d", (3, 40, 33, 64), (9, 40, 1, 1), {}),                                # 1x1 over a 4 KB-strided sample
    ("conv_transpose2d", (2, 64, 6, 70), (64, 5, 3, 3), dict(padding=1, stride=(1, 2))),
    ("conv_transpose2d", (2, 16, 5, 30), (16, 6, 3, 3), dict(padding=1, dilation=(1, 2), groups=2)),  # as a conv
    ("conv_transpose2d", (1, 8, 6, 40), (8, 4, 3, 3), dict(padding=3)),            # padding > d(k-1)
    ("conv_transpose3d", (1, 8, 3, 4, 20), (8, 3, 2, 3, 3), dict(padding=(0, 1, 2), dilation=(1, 1, 2))),
    ("conv2d", (4, 16, 14, 14), (32, 16, 3, 3), dict(padding=1)),                # narrow rows, folded planes
    ("conv3d", (2, 8, 4, 6, 7), (6, 8, 3, 3, 3), dict(padding=1, dilation=(1, 2, 1))),
    ("conv_transpose2d", (3, 32, 14, 14), (32, 16, 3, 3), dict(padding=1)),
    ("conv3d", (2, 32, 5, 6, 40), (7, 32, 3, 3, 3), dict(padding=(1, 0, 1))),
])
@pytest.mark.parametrize("isa", ["avx512", "avx2"])
def test_large_float32_matches_torch(torch, name, xs, ws, kw, isa):
    """Shapes that take the tiled paths (float32; the AVX-512 GEMM, and BLAS below it), values and all gradients."""
    old = lucid._C._cpu_isa()
    lucid._C._set_cpu_isa(isa)
    try:
        _large(torch, name, xs, ws, kw)
    finally:
        lucid._C._set_cpu_isa(old)


def _large(torch, name, xs, ws, kw):
    x, w = arr(*xs).astype(np.float32), (arr(*ws) * 0.1).astype(np.float32)
    lx, lw = lucid.tensor(x, requires_grad=True), lucid.tensor(w, requires_grad=True)
    tx, tw = torch.tensor(x, requires_grad=True), torch.tensor(w, requires_grad=True)
    y = getattr(F, name)(lx, lw, None, **kw)
    ty = getattr(torch.nn.functional, name)(tx, tw, None, **kw)
    close(y, ty, 2e-4)
    g = arr(*ty.shape).astype(np.float32)
    y.backward(lucid.tensor(g))
    ty.backward(torch.tensor(g))
    close(lx.grad, tx.grad, 2e-4)
    np.testing.assert_allclose(lw.grad.numpy(), tw.grad.numpy(), rtol=1e-3, atol=2e-3)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("shape", [(5, 16, 9, 11), (1, 16, 9, 20), (1, 16, 9, 11)])  # over samples, lines, channels
def test_threads_agree(threads, shape):
    x = lucid.tensor(arr(*shape).astype(np.float32), requires_grad=True)
    w = lucid.tensor(arr(20, 16, 3, 3).astype(np.float32), requires_grad=True)
    old = lucid.get_num_threads()
    try:
        lucid.set_num_threads(1)
        y1 = F.conv2d(x, w, padding=1)
        g1 = lucid.autograd.grad((y1 * y1).sum(), (x, w))
        lucid.set_num_threads(threads)
        y2 = F.conv2d(x, w, padding=1)
        g2 = lucid.autograd.grad((y2 * y2).sum(), (x, w))
    finally:
        lucid.set_num_threads(old)
    close(y1, y2, 1e-5)
    close(g1[0], g2[0], 1e-4)
    np.testing.assert_allclose(g1[1].numpy(), g2[1].numpy(), rtol=1e-4, atol=1e-3)


def test_double_backward_float32_matches_torch(torch):
    """Second derivatives through the float32 kernels (direct paths, strided fallbacks)."""
    for kw, xs in [(dict(padding=1), (2, 8, 6, 20)), (dict(stride=2, padding=1), (2, 8, 9, 20))]:
        x, w = arr(*xs).astype(np.float32), (arr(4, 8, 3, 3) * 0.2).astype(np.float32)
        lx, lw = lucid.tensor(x, requires_grad=True), lucid.tensor(w, requires_grad=True)
        tx, tw = torch.tensor(x, requires_grad=True), torch.tensor(w, requires_grad=True)
        lgx, lgw = lucid.autograd.grad((F.conv2d(lx, lw, **kw) ** 2).sum(), (lx, lw), create_graph=True)
        tgx, tgw = torch.autograd.grad((torch.nn.functional.conv2d(tx, tw, **kw) ** 2).sum(), (tx, tw),
                                       create_graph=True)
        lh = lucid.autograd.grad((lgx ** 2).sum() + (lgw ** 2).sum(), (lx, lw))
        th = torch.autograd.grad((tgx ** 2).sum() + (tgw ** 2).sum(), (tx, tw))
        for a, b in zip(lh, th):
            scale = np.abs(b.numpy()).max()
            np.testing.assert_allclose(a.numpy() / scale, b.numpy() / scale, atol=2e-4)
