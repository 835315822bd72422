"""Normalisation (layer, batch, group, instance, RMS) against PyTorch: values, gradients (first and
second order), running statistics, module defaults and typed errors."""
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


@pytest.mark.parametrize("xs,ns", [((4, 6), (6,)), ((2, 3, 5, 6), (5, 6)), ((3, 4), (3, 4)), ((0, 5), (5,))])
@pytest.mark.parametrize("affine", [False, True])
def test_layer_norm_matches_torch(torch, xs, ns, affine):
    x = arr(*xs)
    w, b = (arr(*ns), arr(*ns)) if affine else (None, None)
    lx, tx = lucid.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    lw = lucid.tensor(w, requires_grad=True) if affine else None
    tw = torch.tensor(w, requires_grad=True) if affine else None
    lb = lucid.tensor(b, requires_grad=True) if affine else None
    tb = torch.tensor(b, requires_grad=True) if affine else None
    y, ty = F.layer_norm(lx, ns, lw, lb), torch.nn.functional.layer_norm(tx, ns, tw, tb)
    close(y, ty)
    g = arr(*xs)
    y.backward(lucid.tensor(g))
    ty.backward(torch.tensor(g))
    close(lx.grad, tx.grad)
    if affine:
        close(lw.grad, tw.grad)
        close(lb.grad, tb.grad)


def test_layer_norm_gradcheck_second_order():
    x = lucid.tensor(arr(3, 4), requires_grad=True)
    w = lucid.tensor(arr(4), requires_grad=True)
    b = lucid.tensor(arr(4), requires_grad=True)
    f = lambda x, w, b: F.layer_norm(x, (4,), w, b)  # noqa: E731
    assert gradcheck(f, (x, w, b))
    assert gradgradcheck(f, (x, w, b))


@pytest.mark.parametrize("xs", [(5, 3), (4, 3, 5), (2, 3, 4, 4)])
def test_batch_norm_training_and_eval(torch, xs):
    x, w, b = arr(*xs), arr(3), arr(3)
    rm, rv = lucid.zeros(3, dtype=lucid.float64), lucid.ones(3, dtype=lucid.float64)
    trm, trv = torch.zeros(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64)
    lx, tx = lucid.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    lw, tw = lucid.tensor(w, requires_grad=True), torch.tensor(w, requires_grad=True)
    lb, tb = lucid.tensor(b, requires_grad=True), torch.tensor(b, requires_grad=True)
    y = F.batch_norm(lx, rm, rv, lw, lb, True, 0.3)
    ty = torch.nn.functional.batch_norm(tx, trm, trv, tw, tb, True, 0.3)
    close(y, ty)
    close(rm, trm)
    close(rv, trv)
    g = arr(*xs)
    y.backward(lucid.tensor(g))
    ty.backward(torch.tensor(g))
    for a, t in [(lx, tx), (lw, tw), (lb, tb)]:
        close(a.grad, t.grad)
    close(F.batch_norm(lucid.tensor(x), rm, rv, lucid.tensor(w), None, False),
          torch.nn.functional.batch_norm(torch.tensor(x), trm, trv, torch.tensor(w), None, False))


def test_batch_norm_gradcheck_second_order():
    x = lucid.tensor(arr(4, 2, 3), requires_grad=True)
    w = lucid.tensor(arr(2), requires_grad=True)
    f = lambda x, w: F.batch_norm(x, None, None, w, None, True)  # noqa: E731
    assert gradcheck(f, (x, w))
    assert gradgradcheck(f, (x, w))
    rm, rv = lucid.tensor(arr(2)), lucid.tensor(np.abs(arr(2)) + 0.5)
    assert gradcheck(lambda x, w: F.batch_norm(x, rm, rv, w, None, False), (x, w))


def test_batchnorm_module_matches_torch_over_steps(torch):
    m, t = nn.BatchNorm2d(3), torch.nn.BatchNorm2d(3)
    m2, t2 = nn.BatchNorm1d(3, momentum=None), torch.nn.BatchNorm1d(3, momentum=None)
    for _ in range(3):
        x = arr(4, 3, 2, 2).astype(np.float32)
        close(m(lucid.tensor(x)), t(torch.tensor(x)), tol=1e-5)
        x1 = arr(6, 3).astype(np.float32)
        close(m2(lucid.tensor(x1)), t2(torch.tensor(x1)), tol=1e-5)
    for name in ("running_mean", "running_var"):
        close(getattr(m, name), getattr(t, name), tol=1e-5)
        close(getattr(m2, name), getattr(t2, name), tol=1e-5)
    assert m.num_batches_tracked.item() == 3
    m.eval()
    t.eval()
    x = arr(2, 3, 2, 2).astype(np.float32)
    close(m(lucid.tensor(x)), t(torch.tensor(x)), tol=1e-5)
    assert set(m.state_dict()) == set(t.state_dict())
    with pytest.raises(ValueError, match="expected 4D"):
        m(lucid.zeros(2, 3))


def test_group_instance_rms(torch):
    x = arr(2, 6, 4, 3)
    w, b = arr(6), arr(6)
    close(F.group_norm(lucid.tensor(x), 3, lucid.tensor(w), lucid.tensor(b)),
          torch.nn.functional.group_norm(torch.tensor(x), 3, torch.tensor(w), torch.tensor(b)))
    close(F.instance_norm(lucid.tensor(x)), torch.nn.functional.instance_norm(torch.tensor(x)))
    close(F.rms_norm(lucid.tensor(x), (4, 3), lucid.tensor(arr(4, 3) * 0 + 2)),
          torch.nn.functional.rms_norm(torch.tensor(x), (4, 3), torch.full((4, 3), 2.0, dtype=torch.float64)))
    gn, tgn = nn.GroupNorm(2, 6), torch.nn.GroupNorm(2, 6)
    close(gn(lucid.tensor(x.astype(np.float32))), tgn(torch.tensor(x.astype(np.float32))), tol=1e-5)
    ln = nn.LayerNorm(3)
    assert ln.weight.tolist() == [1.0] * 3 and ln.bias.tolist() == [0.0] * 3
    inorm, tinorm = nn.InstanceNorm2d(6, track_running_stats=True), torch.nn.InstanceNorm2d(6, track_running_stats=True)
    xf = x.astype(np.float32)
    close(inorm(lucid.tensor(xf)), tinorm(torch.tensor(xf)), tol=1e-5)
    close(inorm.running_mean, tinorm.running_mean, tol=1e-5)
    xl = lucid.tensor(arr(2, 4, 3), requires_grad=True)
    assert gradcheck(lambda t: F.group_norm(t, 2), (xl,))
    assert gradcheck(lambda t: F.rms_norm(t, (3,)), (xl,))


def test_half_inputs_and_errors():
    h = lucid.randn(4, 8).to(lucid.float16)
    y = F.layer_norm(h, (8,))
    assert y.dtype is lucid.float16
    np.testing.assert_allclose(y.float().numpy().mean(1), 0, atol=2e-2)
    with pytest.raises(lucid.ShapeMismatch, match="normalized_shape"):
        F.layer_norm(lucid.zeros(4, 8), (7,))
    with pytest.raises(lucid.ShapeMismatch, match="weight and bias"):
        F.layer_norm(lucid.zeros(4, 8), (8,), lucid.ones(7))
    with pytest.raises(ValueError, match="more than 1 value per channel"):
        F.batch_norm(lucid.zeros(1, 3), None, None, training=True)
    with pytest.raises(ValueError, match="running_mean"):
        F.batch_norm(lucid.zeros(4, 3), None, None, training=False)
    with pytest.raises(lucid.ShapeMismatch, match="running"):
        F.batch_norm(lucid.zeros(4, 3), lucid.zeros(2), lucid.ones(2))
    with pytest.raises(RuntimeError, match="divisible"):  # torch: RuntimeError (lucid: ShapeMismatch)
        F.group_norm(lucid.zeros(2, 6, 3), 4)
    with pytest.raises(NotImplementedError, match="layer_norm"):
        F.layer_norm(lucid.zeros(2, 3, dtype=lucid.int64), (3,))
