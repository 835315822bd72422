"""The kernels of the demo CNN's step against PyTorch: max_pool2d with indices (the 2x2 stride-2 fast path,
the general contiguous path and strided inputs; NaN windows; a backward that writes its whole gradient)
and ReLU's fused backward (torch's threshold_backward: a select, so an inf/NaN gradient stays out of the
zeros) with its double backward."""
import numpy as np
import pytest

import lucid
import lucid.nn.functional as F
from lucid.autograd import gradcheck, gradgradcheck
from helpers import close

RNG = np.random.default_rng(5)


@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch")


TOL = {"float32": 1e-6, "float64": 1e-12}

POOL_CASES = [
    ((2, 3, 8, 8), dict(kernel_size=2)),                                    # the 2x2 stride-2 fast path
    ((2, 3, 9, 7), dict(kernel_size=2)),                                    # odd sizes: a row / column left out
    ((2, 3, 9, 7), dict(kernel_size=2, ceil_mode=True)),                    # the last window half outside
    ((3, 6, 6), dict(kernel_size=2)),                                       # unbatched
    ((2, 3, 9, 10), dict(kernel_size=3, stride=2, padding=1)),              # overlapping windows, padding
    ((2, 2, 11, 9), dict(kernel_size=(3, 2), stride=(2, 3), padding=(1, 1), dilation=(2, 1))),
    ((1, 2, 7, 7), dict(kernel_size=3, stride=2, padding=1, dilation=2, ceil_mode=True)),
    ((2, 2, 5, 6), dict(kernel_size=(1, 3), stride=1)),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,kw", POOL_CASES)
@pytest.mark.parametrize("layout", ["contiguous", "permuted", "sliced"])
def test_max_pool2d_matches_torch(torch, shape, kw, dtype, layout):
    x = RNG.standard_normal(shape).astype(dtype)
    lx = lucid.tensor(x, requires_grad=True)
    tx = torch.tensor(x, requires_grad=True)
    li, ti = lx, tx
    if layout == "permuted":  # the same values, in a channels-last memory order
        nd = len(shape)
        perm = list(range(nd - 3)) + [nd - 2, nd - 1, nd - 3]
        back = list(range(nd - 3)) + [nd - 1, nd - 3, nd - 2]
        li = lx.permute(*perm).contiguous().permute(*back)
        ti = tx.permute(*perm).contiguous().permute(*back)
        assert not li.is_contiguous()
    elif layout == "sliced":  # every other column: a row stride of twice the width
        li = lucid.cat([lx, lx], -1)[..., ::2]
        ti = torch.cat([tx, tx], -1)[..., ::2]
    y, i = F.max_pool2d(li, return_indices=True, **kw)
    ty, tii = torch.nn.functional.max_pool2d(ti, return_indices=True, **kw)
    np.testing.assert_array_equal(i.numpy(), tii.numpy())
    close(y, ty, TOL[dtype])
    g = RNG.standard_normal(tuple(ty.shape)).astype(dtype)
    y.backward(lucid.tensor(g))
    ty.backward(torch.tensor(g))
    close(lx.grad, tx.grad, TOL[dtype])


@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1)])
def test_max_pool2d_nan_windows_match_torch(torch, kw):
    x = RNG.standard_normal((2, 2, 6, 6)).astype(np.float32)
    x[0, 0, 0, 0] = x[0, 0, 1, 1] = np.nan        # two NaNs in one window: torch's index is the last one
    x[0, 1, 2, 3] = np.nan
    x[1, 0, 5, 5] = np.nan
    y, i = F.max_pool2d(lucid.tensor(x), return_indices=True, **kw)
    ty, ti = torch.nn.functional.max_pool2d(torch.tensor(x), return_indices=True, **kw)
    np.testing.assert_array_equal(y.numpy(), ty.numpy())  # NaN == NaN for assert_array_equal
    np.testing.assert_array_equal(i.numpy(), ti.numpy())


def test_max_pool2d_backward_writes_every_element(torch):
    # the backward clears each plane itself: run it over reused (dirty) memory and compare again
    x = RNG.standard_normal((4, 8, 14, 13)).astype(np.float32)
    tx = torch.tensor(x, requires_grad=True)
    torch.nn.functional.max_pool2d(tx, 2).sum().backward()
    for _ in range(3):
        junk = lucid.full((4, 8, 14, 13), 7.0)  # noqa: F841 (fills memory the allocator may hand back)
        del junk
        lx = lucid.tensor(x, requires_grad=True)
        F.max_pool2d(lx, 2).sum().backward()
        close(lx.grad, tx.grad, 0)


def test_max_pool2d_gradcheck():
    x = lucid.tensor(RNG.standard_normal((1, 2, 5, 6)), requires_grad=True)
    assert gradcheck(lambda t: F.max_pool2d(t, 2), (x,))
    assert gradgradcheck(lambda t: F.max_pool2d(t, 2), (x,))
    assert gradcheck(lambda t: F.max_pool2d(t, 3, 2, 1, ceil_mode=True), (x,))


def test_relu_backward_is_a_select(torch):
    x = np.array([-2.0, -0.0, 0.0, 1.5, 4.0, 3.0, -1.0], dtype=np.float32)
    g = np.array([np.inf, np.nan, 1.0, 2.0, 3.0, np.nan, -np.inf], dtype=np.float32)
    lx, tx = lucid.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    F.relu(lx).backward(lucid.tensor(g))
    torch.nn.functional.relu(tx).backward(torch.tensor(g))
    np.testing.assert_array_equal(lx.grad.numpy(), tx.grad.numpy())
    np.testing.assert_array_equal(lx.grad.numpy(), np.array([0, 0, 0, 2, 3, np.nan, 0], dtype=np.float32))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_relu_grad_matches_torch_on_views(torch, dtype):
    x = RNG.standard_normal((6, 5)).astype(dtype)
    g = RNG.standard_normal((5, 6)).astype(dtype)
    lx, tx = lucid.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    (lucid.relu(lx.t()) * lucid.tensor(g)).sum().backward()
    (torch.relu(tx.t()) * torch.tensor(g)).sum().backward()
    close(lx.grad, tx.grad, TOL[dtype])
    lx.grad = None
    lx.relu().sum().backward()  # a broadcast (expanded) incoming gradient
    close(lx.grad, (x > 0).astype(dtype), 0)


def test_relu_double_backward(torch):
    x = RNG.standard_normal((3, 4))
    x[np.abs(x) < 0.1] = 0.5  # away from the kink for the finite differences
    lx = lucid.tensor(x, requires_grad=True)
    assert gradcheck(F.relu, (lx,))
    assert gradgradcheck(F.relu, (lx,))
    # d/dg of relu's vjp, and of a function of the first gradient, as torch's
    tx = torch.tensor(x, requires_grad=True)
    w = RNG.standard_normal((3, 4))
    (lg,) = lucid.autograd.grad((F.relu(lx) ** 2 * lucid.tensor(w)).sum(), lx, create_graph=True)
    (tg,) = torch.autograd.grad((torch.relu(tx) ** 2 * torch.tensor(w)).sum(), tx, create_graph=True)
    close(lg, tg, 1e-12)
    (lgg,) = lucid.autograd.grad(lg.sum(), lx)
    (tgg,) = torch.autograd.grad(tg.sum(), tx)
    close(lgg, tgg, 1e-12)
    gy = lucid.tensor(RNG.standard_normal((3, 4)), requires_grad=True)
    (lvjp,) = lucid.autograd.grad(F.relu(lx), lx, gy, create_graph=True)
    (dgy,) = lucid.autograd.grad(lvjp.sum(), gy)
    close(dgy, (x > 0).astype(np.float64), 0)


def test_relu_half_and_integer(torch):
    x = RNG.standard_normal(8).astype(np.float32)
    for dt in (lucid.float16, lucid.bfloat16):
        lx = lucid.tensor(x, requires_grad=True).to(dt).detach().requires_grad_()
        lucid.relu(lx).sum().backward()
        assert lx.grad.dtype == dt
        np.testing.assert_array_equal(lx.grad.float().numpy(), (lx.float().numpy() > 0).astype(np.float32))
    xi = lucid.tensor([-2, 0, 3])
    np.testing.assert_array_equal(lucid.relu(xi).numpy(), [0, 0, 3])
