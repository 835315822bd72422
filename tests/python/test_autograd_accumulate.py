"""Gradient accumulation in the autograd engine: several gradients into one tensor are summed in
place only into buffers nobody else can see; tensors held by the caller, a hook or a custom
Function are never written."""
import numpy as np
import pytest

import lucid


def _np(t):
    return np.asarray(t.detach().tolist())


def test_weight_used_many_times_sums_all_steps():
    torch = pytest.importorskip("torch")
    w = lucid.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
    h = lucid.tensor([[1.0, 2.0]])
    tw = torch.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
    th = torch.tensor([[1.0, 2.0]])
    for _ in range(6):
        h = lucid.tanh(h @ w)
        th = torch.tanh(th @ tw)
    h.sum().backward()
    th.sum().backward()
    np.testing.assert_allclose(_np(w.grad), tw.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_custom_function_gradient_kept_by_user_is_not_written():
    kept = []

    class Keep(lucid.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1.0

        @staticmethod
        def backward(ctx, g):
            r = g * 2.0
            kept.append(r)
            return r

    x = lucid.ones(4, requires_grad=True)
    y = Keep.apply(x) + Keep.apply(x) + Keep.apply(x)
    y.sum().backward()
    np.testing.assert_allclose(_np(x.grad), [6.0] * 4)
    for r in kept:
        np.testing.assert_allclose(_np(r), [2.0] * 4)


def test_hook_result_kept_by_user_is_not_written():
    kept = []

    def hook(g):
        r = g * 3.0
        kept.append(r)
        return r

    x = lucid.ones(3, requires_grad=True)
    a = x * 1.0
    b = x * 1.0
    c = x * 1.0
    for t in (a, b, c):
        t.register_hook(hook)
    (a + b + c).sum().backward()
    np.testing.assert_allclose(_np(x.grad), [9.0] * 3)
    for r in kept:
        np.testing.assert_allclose(_np(r), [3.0] * 3)


def test_grad_outputs_and_retained_grads_are_not_written():
    x = lucid.tensor([1.0, 2.0, 3.0], requires_grad=True)
    m = x * 2.0
    m.retain_grad()
    y = m * m + m * 3.0 + m
    go = lucid.tensor([1.0, 1.0, 1.0])
    y.backward(go)
    np.testing.assert_allclose(_np(go), [1.0, 1.0, 1.0])
    np.testing.assert_allclose(_np(m.grad), 2 * _np(m) + 4.0)
    np.testing.assert_allclose(_np(x.grad), 2 * (2 * _np(m) + 4.0))


def test_autograd_grad_results_are_private():
    x = lucid.tensor([1.0, -2.0], requires_grad=True)
    y = (x * x).sum() + (x * 5.0).sum() + x.sum()
    (g,) = lucid.autograd.grad(y, x)
    np.testing.assert_allclose(_np(g), 2 * _np(x) + 6.0)


def test_create_graph_accumulation_stays_differentiable():
    x = lucid.tensor([1.5, -0.5], dtype=lucid.float64, requires_grad=True)
    y = (x * x * x).sum() + (x * x).sum() + (x * x).sum()
    (g,) = lucid.autograd.grad(y, x, create_graph=True)
    np.testing.assert_allclose(_np(g), 3 * _np(x) ** 2 + 4 * _np(x))
    (gg,) = lucid.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(_np(gg), 6 * _np(x) + 4.0)


def test_repeated_backward_with_retain_graph_is_stable():
    x = lucid.ones(5, requires_grad=True)
    y = x * 2.0
    z = (y + y + y * y).sum()
    z.backward(retain_graph=True)
    first = _np(x.grad).copy()
    x.grad = None
    z.backward()
    np.testing.assert_allclose(_np(x.grad), first)
    np.testing.assert_allclose(first, [2 * (2 + 2 * 2.0)] * 5)
