"""Autograd engine (spec 000/001): backward, accumulation, retain_graph, lucid.autograd.grad,
in-place writes and versions, grad mode, detach, graph structure and memory. The gradients of every
op are in test_autograd_ops.py.

PyTorch is the oracle where installed (the `torch` fixture skips otherwise); every behaviour is also
checked against hand-computed values or central differences so the suite means something without it.
Hooks and retain_grad live in test_autograd_hooks.py.
"""
import gc
import threading

import numpy as np
import pytest

import lucid
from lucid import autograd
from autograd_common import *  # noqa: F401,F403  (fixture and helpers)
from autograd_common import _grad_mode_is_restored  # noqa: F401

# ---------------------------------------------------------------------------------------------
# accumulation

def test_accumulation_and_reset():
    x = L([1.0, 2.0], requires_grad=True)
    (x * 3.0).sum().backward()
    (x * x).sum().backward()
    assert x.grad.tolist() == [3.0 + 2.0, 3.0 + 4.0]
    x.grad = None
    assert x.grad is None
    (x * 3.0).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]
    g = x.grad
    x.grad.zero_()
    assert x.grad.tolist() == [0.0, 0.0]
    (x * 3.0).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]
    assert g.tolist() == [3.0, 3.0]  # accumulated in place into the same buffer, as PyTorch


def test_accumulation_of_several_consumers_in_one_pass():
    x = L([1.0, 2.0], requires_grad=True)
    y = x * 2.0 + x * x + x.reshape(2, 1).expand(2, 3).sum(1)
    y.sum().backward()
    assert x.grad.tolist() == [2.0 + 2.0 + 3.0, 2.0 + 4.0 + 3.0]


def test_accumulation_matches_torch(torch):
    res = []
    for m in (lucid, torch):
        x = m.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=m.float64, requires_grad=True)
        for k in range(3):
            ((x @ x.T) * (k + 1)).sum().backward()
        res.append(to_np(x.grad))
    np.testing.assert_allclose(res[0], res[1])


def test_accumulation_under_create_graph_has_grad_fn():
    x = L([1.0, 2.0], requires_grad=True)
    (x * x).sum().backward(create_graph=True)
    assert x.grad.grad_fn is not None
    assert x.grad.tolist() == [2.0, 4.0]
    (x * x * x).sum().backward(create_graph=True)
    assert x.grad.grad_fn is not None and x.grad.grad_fn.name() == "AddBackward0"
    assert x.grad.tolist() == [2.0 + 3.0, 4.0 + 12.0]
    (d,) = autograd.grad(x.grad.sum(), x)  # d/dx (2x + 3x^2) = 2 + 6x
    assert d.tolist() == [8.0, 14.0]


# Under create_graph the first gradient is copied into .grad (recorded), never aliased, as in PyTorch.


@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True")
def test_create_graph_grad_of_sum_is_writable():
    x = L([1.0, 2.0, 3.0], requires_grad=True)
    x.sum().backward(create_graph=True)
    assert x.grad.tolist() == [1.0, 1.0, 1.0]
    x.sum().backward()  # plain pass: accumulates in place into .grad
    assert x.grad.tolist() == [2.0, 2.0, 2.0]
    x.grad.zero_()
    assert x.grad.tolist() == [0.0, 0.0, 0.0]


@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True")
def test_create_graph_grad_does_not_alias_the_gradient_argument():
    x = L([1.0, 2.0, 3.0], requires_grad=True)
    G = L([1.0, 1.0, 1.0])
    (x + 0.0).backward(G, create_graph=True)
    (x * 1.0).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0]
    assert G.tolist() == [1.0, 1.0, 1.0]
    y = L([1.0, 2.0], requires_grad=True)
    G2 = L([1.0, 1.0])
    y.backward(G2, create_graph=True)
    assert y.grad is not G2
    y.sum().backward()
    assert G2.tolist() == [1.0, 1.0]


@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True")
def test_create_graph_retained_grad_does_not_alias_the_gradient_argument():
    x = L([1.0, 2.0], requires_grad=True)
    a = x * 1.0
    a.retain_grad()
    G = L([1.0, 1.0])
    a.backward(G, create_graph=True)
    (a * 1.0).backward(G)
    assert a.grad.tolist() == [2.0, 2.0]
    assert G.tolist() == [1.0, 1.0]


def test_plain_backward_after_create_graph_accumulates():
    x = L([1.0, 2.0], requires_grad=True)
    (x * x).sum().backward(create_graph=True)
    (x * 5.0).sum().backward()
    assert x.grad.tolist() == [7.0, 9.0]


def test_grad_assignment_checks():
    x = L([1.0, 2.0], requires_grad=True)
    x.grad = L([5.0, 6.0])
    (x * 1.0).sum().backward()
    assert x.grad.tolist() == [6.0, 7.0]
    with pytest.raises(lucid.ShapeMismatch):
        x.grad = L([1.0, 2.0, 3.0])
    with pytest.raises(lucid.DtypeMismatch):
        x.grad = lucid.tensor([1.0, 2.0], dtype=lucid.float32)


# ---------------------------------------------------------------------------------------------
# retain_graph

def test_second_backward_through_freed_graph_raises():
    x = L([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward()
    with pytest.raises(lucid.LucidError, match="retain_graph"):
        y.backward()
    assert x.grad.tolist() == [2.0, 4.0]  # the failed pass added nothing


def test_second_backward_via_autograd_grad_raises():
    x = L([1.0, 2.0], requires_grad=True)
    w = L([3.0, 4.0], requires_grad=True)
    y = (x / w).sum()
    autograd.grad(y, x)
    with pytest.raises(lucid.LucidError, match="retain_graph"):
        autograd.grad(y, w)


def test_retain_graph_allows_second_backward():
    x = L([1.0, 2.0], requires_grad=True)
    y = (x * x @ x.reshape(2, 1)).sum()
    y.backward(retain_graph=True)
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_allclose(to_np(x.grad), 3 * 3 * np.array([1.0, 4.0]))
    with pytest.raises(lucid.LucidError, match="retain_graph"):
        y.backward()


def test_graph_without_saved_tensors_can_backward_twice(torch):
    for m in (lucid, torch):
        x = m.tensor([1.0, 2.0], dtype=m.float64, requires_grad=True)
        y = (x + x.reshape(2, 1).expand(2, 2).sum(0) - 1.0).sum()
        y.backward()
        y.backward()
        assert x.grad.tolist() == [6.0, 6.0], m.__name__


def test_graph_without_saved_tensors_twice_hand():
    x = L([1.0, 2.0], requires_grad=True)
    y = (x + x).sum()
    y.backward()
    y.backward()
    assert x.grad.tolist() == [4.0, 4.0]


# ---------------------------------------------------------------------------------------------
# lucid.autograd.grad

def test_grad_returns_tuple_and_leaves_grad_untouched():
    x = L([1.0, 2.0], requires_grad=True)
    w = L([3.0, 4.0], requires_grad=True)
    y = (x * w).sum()
    r = autograd.grad(y, x, retain_graph=True)
    assert isinstance(r, tuple) and len(r) == 1
    assert r[0].tolist() == [3.0, 4.0]
    r2 = autograd.grad(y, [x, w])
    assert isinstance(r2, tuple) and len(r2) == 2
    assert r2[1].tolist() == [1.0, 2.0]
    assert x.grad is None and w.grad is None
    assert not r2[0].requires_grad and r2[0].grad_fn is None


def test_grad_allow_unused():
    x = L([1.0, 2.0], requires_grad=True)
    u = L([5.0], requires_grad=True)
    with pytest.raises(lucid.LucidError, match="allow_unused"):
        autograd.grad((x * 2.0).sum(), [x, u])
    gx, gu = autograd.grad((x * 2.0).sum(), [x, u], allow_unused=True)
    assert gx.tolist() == [2.0, 2.0] and gu is None
    gx, gu = autograd.grad((x * 2.0).sum(), [x, u], materialize_grads=True)
    assert gu.tolist() == [0.0]


def test_grad_input_not_requiring_grad_raises():
    x = L([1.0, 2.0], requires_grad=True)
    with pytest.raises(lucid.LucidError, match="does not require grad"):
        autograd.grad((x * 2.0).sum(), [x, L([1.0])])


def test_grad_grad_outputs():
    x = L([1.0, 2.0, 3.0], requires_grad=True)
    y = x * x
    (g,) = autograd.grad(y, x, grad_outputs=L([1.0, 0.5, -1.0]))
    assert g.tolist() == [2.0, 2.0, -6.0]
    y1, y2 = x * 2.0, (x * 3.0).sum()
    g = autograd.grad([y1, y2], [x], grad_outputs=[L([1.0, 1.0, 1.0]), L(2.0)])
    assert g[0].tolist() == [8.0, 8.0, 8.0]


def test_grad_mixed_inputs_and_duplicates(torch):
    res = []
    for m in (lucid, torch):
        x = m.tensor([1.0, 2.0], dtype=m.float64, requires_grad=True)
        w = m.tensor([3.0, 4.0], dtype=m.float64, requires_grad=True)
        a = x * w
        y = (a * a + x).sum()
        res.append([t.tolist() for t in m.autograd.grad(y, [a, x, x, w])])
    assert res[0] == res[1]
    assert res[0] == [[6.0, 16.0], [19.0, 65.0], [19.0, 65.0], [6.0, 32.0]]


def test_grad_non_scalar_output_needs_grad_outputs():
    x = L([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="scalar"):
        autograd.grad(x * 2.0, x)
    z = x * 3.0
    assert autograd.grad(z.sum(), z)[0].tolist() == [1.0, 1.0]


def test_grad_non_leaf_inputs(torch):
    res = []
    for m in (lucid, torch):
        x = m.tensor([1.0, 2.0], dtype=m.float64, requires_grad=True)
        a = x * 3.0
        b = a.reshape(2, 1)
        y = (b * b).sum() + a.sum()
        ga, gb = m.autograd.grad(y, [a, b])
        res.append((to_np(ga), to_np(gb)))
        assert x.grad is None
    for l_, t_ in zip(*res):
        np.testing.assert_allclose(l_, t_)
    np.testing.assert_allclose(res[0][0], [1.0 + 2 * 3.0, 1.0 + 2 * 6.0])  # a.sum() and b = a.reshape
    np.testing.assert_allclose(res[0][1], [[6.0], [12.0]])


def test_grad_non_leaf_input_keeps_the_rest_of_the_graph():
    """autograd.grad(y, a) for a non-leaf a needs nothing below a: PyTorch does not run a's grad_fn,
    so a later backward through a still works."""
    x = L([1.0, 2.0], requires_grad=True)
    w = L([3.0, 4.0], requires_grad=True)
    a = x * w
    (ga,) = autograd.grad((a * a).sum(), a)
    assert ga.tolist() == [6.0, 16.0]
    (a * 3.0).sum().backward()
    assert x.grad.tolist() == [9.0, 12.0]


def test_grad_create_graph_higher_order_matches_torch(torch):
    res = []
    for m in (lucid, torch):
        x = m.tensor([0.5, -1.5, 2.0], dtype=m.float64, requires_grad=True)
        w = m.tensor([1.5, 2.0, -0.5], dtype=m.float64, requires_grad=True)
        y = (x * x * x * w / (w + 3.0)).sum()
        gx, gw = m.autograd.grad(y, [x, w], create_graph=True)
        hx, hw = m.autograd.grad((gx * gw).sum(), [x, w], create_graph=True)
        (tx,) = m.autograd.grad(hx.sum(), x)
        res.append([to_np(t) for t in (gx, gw, hx, hw, tx)])
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


# ---------------------------------------------------------------------------------------------
# versions and in-place

def test_version_bumps():
    t = lucid.zeros(4)
    v = t._version
    t.add_(1.0)
    assert t._version == v + 1
    t.mul_(2.0)
    t[0] = 5.0
    t.fill_(1.0)
    t.zero_()
    t.copy_(lucid.ones(4))
    assert t._version == v + 6
    view = t[1:]
    view.add_(1.0)  # a write through a view bumps the shared counter
    assert t._version == v + 7 and view._version == v + 7
    t += 1.0
    assert t._version == v + 8
    assert lucid.zeros(2)._version == 0 and (t * 2.0)._version == 0


def test_modified_saved_tensor_raises_version_mismatch():
    x = L([1.0, 2.0], requires_grad=True)
    a = x * 1.0
    b = L([3.0, 4.0])
    y = a * b          # saves b (for a's gradient); a is not saved, as in PyTorch
    with lucid.no_grad():
        b.add_(1.0)
    with pytest.raises(lucid.VersionMismatch) as ei:
        y.sum().backward()
    msg = str(ei.value)
    assert "MulBackward0" in msg
    assert "version 0" in msg and "version 1" in msg
    assert isinstance(ei.value, lucid.LucidError)


def test_modified_saved_tensor_through_detach_raises(torch):
    for m, exc in ((lucid, lucid.VersionMismatch), (torch, RuntimeError)):
        x = m.tensor([1.0, 2.0], dtype=m.float64, requires_grad=True)
        w = m.tensor([3.0, 4.0], dtype=m.float64, requires_grad=True)
        y = (x * w).sum()
        d = w.detach()
        d.add_(1.0)  # d does not require grad: allowed, and shares w's version counter
        assert w._version == 1 and d._version == 1
        with pytest.raises(exc, match="modified by an inplace operation"):
            y.backward()


def test_version_not_checked_for_tensors_not_saved():
    x = L([1.0, 2.0], requires_grad=True)
    b = L([3.0, 4.0])
    y = (x + b).sum()  # add saves nothing
    b.add_(1.0)
    y.backward()
    assert x.grad.tolist() == [1.0, 1.0]


def test_inplace_on_leaf_requiring_grad():
    x = L([1.0, 2.0], requires_grad=True)
    with pytest.raises(lucid.LucidError, match="leaf"):
        x.add_(1.0)
    with pytest.raises(lucid.LucidError, match="leaf"):
        x.mul_(2.0)
    assert x.tolist() == [1.0, 2.0] and x._version == 0
    with lucid.no_grad():
        x.add_(1.0)
        x.mul_(2.0)
        x[0] = 7.0
    assert x.tolist() == [7.0, 6.0]
    assert x._version == 3 and x.requires_grad and x.is_leaf and x.grad_fn is None
    (x * x).sum().backward()
    assert x.grad.tolist() == [14.0, 12.0]


def _view_chain(lib):
    """In-place writes through views and to bases with live views (CopySlices, stale views)."""
    x = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    w = lib.tensor([0.5, -2.0], requires_grad=True)
    a = x * 1.0
    v = a[0]
    v.add_(w)                 # through a view
    a.T.mul_(2.0)             # through a transposed view of the whole base
    a[1].fill_(0.5)           # fill through a view
    r = a[:, 1]               # a view made before the next write to the base ...
    a.mul_(w * 3.0)           # ... so r is stale after this
    buf = lib.zeros(2, 2)
    buf[0] = w                # setitem into a buffer that does not require grad
    out = (a * 3).sum() + (r * r).sum() + (buf * x).sum()
    out.backward()
    return [x.grad.tolist(), w.grad.tolist(), a.tolist(), r.tolist()]


def test_inplace_through_views_matches_pytorch():
    got = _view_chain(lucid)
    # hand check of x.grad[1] (row 1 was overwritten by fill_: only buf * x reaches it, and buf[1] = 0)
    assert got[0][1] == [0.0, 0.0]
    torch = pytest.importorskip("torch")
    assert got == _view_chain(torch)


def test_inplace_through_view_of_leaf_refused():
    x = L([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    for f in (lambda: x[0].add_(1.0), lambda: x.T.mul_(2.0), lambda: x.view(4).zero_()):
        with pytest.raises(lucid.LucidError, match="view of a leaf"):
            f()
    assert x.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    with lucid.no_grad():
        x[0].add_(1.0)
    assert x.tolist() == [[2.0, 3.0], [3.0, 4.0]]


INPLACE_ON_NON_LEAF = [
    ("add_", lambda a, o: a.add_(o), lambda a, o: a + o),
    ("add_scalar", lambda a, o: a.add_(2.0), lambda a, o: a + 2.0),
    ("sub_", lambda a, o: a.sub_(o, alpha=2.0), lambda a, o: a - 2.0 * o),
    ("mul_", lambda a, o: a.mul_(o), lambda a, o: a * o),
    ("div_", lambda a, o: a.div_(o), lambda a, o: a / o),
    ("iadd", lambda a, o: a.__iadd__(o), lambda a, o: a + o),
    ("imul_scalar", lambda a, o: a.__imul__(3.0), lambda a, o: a * 3.0),
    ("copy_", lambda a, o: a.copy_(o), lambda a, o: o + 0.0 * a),
    ("fill_", lambda a, o: a.fill_(3.0), lambda a, o: 0.0 * a + 3.0),
    ("zero_", lambda a, o: a.zero_(), lambda a, o: 0.0 * a),
]


def _dense(g, n=3):
    """A gradient that is all zeros may be left None by lucid (PyTorch materialises zeros)."""
    return np.zeros(n) if g is None else to_np(g)


@pytest.mark.parametrize("case", INPLACE_ON_NON_LEAF, ids=[c[0] for c in INPLACE_ON_NON_LEAF])
def test_inplace_on_non_leaf_is_recorded(case):
    """An in-place op on a non-leaf (not a view) is recorded (spec 001): gradients are those of the
    out-of-place computation. (Until commit 81c1d22 it raised lucid.errors.NotImplementedError.)"""
    _, inplace, outofplace = case
    xv, ov = [1.0, 2.0, 4.0], [0.5, -1.0, 2.0]
    x = L(xv, requires_grad=True)
    o = L(ov, requires_grad=True)
    a = x * 3.0
    r = inplace(a, o)
    assert r is a
    assert a._version == 1 and a.grad_fn is not None and not a.is_leaf
    (a * L([1.0, 10.0, 100.0])).sum().backward()
    x2 = L(xv, requires_grad=True)
    o2 = L(ov, requires_grad=True)
    ref = outofplace(x2 * 3.0, o2)
    np.testing.assert_allclose(to_np(a), to_np(ref))
    (ref * L([1.0, 10.0, 100.0])).sum().backward()
    np.testing.assert_allclose(_dense(x.grad), _dense(x2.grad))
    np.testing.assert_allclose(_dense(o.grad), _dense(o2.grad))


@pytest.mark.parametrize("case", INPLACE_ON_NON_LEAF, ids=[c[0] for c in INPLACE_ON_NON_LEAF])
def test_inplace_on_non_leaf_matches_torch(torch, case):
    _, inplace, _ = case
    res = []
    for m in (lucid, torch):
        x = m.tensor([1.0, 2.0, 4.0], dtype=m.float64, requires_grad=True)
        o = m.tensor([0.5, -1.0, 2.0], dtype=m.float64, requires_grad=True)
        a = x * 3.0
        inplace(a, o)
        (a * a).sum().backward()
        res.append((to_np(a), _dense(x.grad), _dense(o.grad)))
    for l_, t_ in zip(*res):
        np.testing.assert_allclose(l_, t_)


def test_inplace_write_into_plain_tensor_records(torch):
    for m in (lucid, torch):
        x = m.tensor([1.0, 2.0], dtype=m.float64, requires_grad=True)
        plain = m.zeros(2, dtype=m.float64)
        plain.add_(x * 2.0)
        assert plain.requires_grad and plain.grad_fn is not None and not plain.is_leaf
        (plain * plain).sum().backward()
        assert x.grad.tolist() == [8.0, 16.0], m.__name__


def test_inplace_on_non_leaf_saved_for_backward_raises():
    x = L([1.0, 2.0], requires_grad=True)
    a = x * 1.0
    y = a * a  # saves a
    a.mul_(2.0)
    with pytest.raises(lucid.VersionMismatch, match="MulBackward0"):
        y.sum().backward()


# ---------------------------------------------------------------------------------------------
# grad mode

def test_no_grad_context_and_results():
    x = L([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    assert lucid.is_grad_enabled()
    with lucid.no_grad():
        assert not lucid.is_grad_enabled()
        outs = [x + 1.0, x * x, x / 2.0, x - x, x @ x, x.sum(), x.T, x.reshape(4), x[0], x[:, 1:],
                x.unsqueeze(0), x.expand(3, 2, 2), x.diagonal(), x.clone(), x.to(lucid.float32),
                x.permute(1, 0), x.narrow(0, 0, 1), x.select(1, 0), x.unfold(0, 1, 1),
                x.as_strided((2,), (1,)), x.squeeze(), x[None, ..., 0]]
    assert lucid.is_grad_enabled()
    for o in outs:
        assert not o.requires_grad and o.grad_fn is None and o.is_leaf


def test_grad_mode_nesting_restores():
    with lucid.no_grad():
        with lucid.enable_grad():
            assert lucid.is_grad_enabled()
            with lucid.set_grad_enabled(False):
                assert not lucid.is_grad_enabled()
                with lucid.no_grad():
                    assert not lucid.is_grad_enabled()
                assert not lucid.is_grad_enabled()
            assert lucid.is_grad_enabled()
        assert not lucid.is_grad_enabled()
        with lucid.inference_mode():
            assert not lucid.is_grad_enabled() and lucid.is_inference_mode_enabled()
            with lucid.inference_mode(False):
                assert not lucid.is_inference_mode_enabled()
            assert lucid.is_inference_mode_enabled()
        assert not lucid.is_grad_enabled() and not lucid.is_inference_mode_enabled()
    assert lucid.is_grad_enabled()
    assert lucid.autograd.is_grad_enabled is not None and lucid.autograd.no_grad is lucid.no_grad


def test_grad_mode_restored_after_exception():
    with pytest.raises(ValueError):
        with lucid.no_grad():
            raise ValueError("x")
    assert lucid.is_grad_enabled()
    with pytest.raises(ValueError):
        with lucid.inference_mode():
            raise ValueError("x")
    assert lucid.is_grad_enabled() and not lucid.is_inference_mode_enabled()


def test_grad_mode_matches_torch_nesting(torch):
    def probe(m):
        out = []
        with m.no_grad():
            with m.inference_mode(False):
                out.append((m.is_grad_enabled(), m.is_inference_mode_enabled()))
            with m.inference_mode():
                out.append((m.is_grad_enabled(), m.is_inference_mode_enabled()))
            with m.enable_grad():
                out.append((m.is_grad_enabled(), m.is_inference_mode_enabled()))
            out.append((m.is_grad_enabled(), m.is_inference_mode_enabled()))
        return out
    assert probe(lucid) == probe(torch)


def test_grad_mode_decorators():
    @lucid.no_grad()
    def f_no(x):
        assert not lucid.is_grad_enabled()
        return x * 2.0

    @lucid.enable_grad()
    def f_en(x):
        assert lucid.is_grad_enabled()
        return x * 2.0

    @lucid.inference_mode()
    def f_inf(x):
        assert lucid.is_inference_mode_enabled() and not lucid.is_grad_enabled()
        return x * 2.0

    x = L([1.0], requires_grad=True)
    assert f_no.__name__ == "f_no"
    assert not f_no(x).requires_grad
    assert lucid.is_grad_enabled()
    with lucid.no_grad():
        y = f_en(x)
        assert not lucid.is_grad_enabled()
    assert y.requires_grad and y.grad_fn.name() == "MulBackward0"
    assert not f_inf(x).requires_grad
    assert lucid.is_grad_enabled() and not lucid.is_inference_mode_enabled()

    @lucid.set_grad_enabled(False)
    def f_off(x):
        assert not lucid.is_grad_enabled()
        return x * 2.0

    assert lucid.is_grad_enabled()  # decorating does not change the mode
    assert not f_off(x).requires_grad
    assert lucid.is_grad_enabled()
    # each call enters afresh (reentrant, recursive use)
    assert not f_no(f_no(x)).requires_grad


def test_grad_mode_bare_decorators():
    @lucid.no_grad
    def f():
        return lucid.is_grad_enabled()

    @lucid.inference_mode
    def g():
        return lucid.is_inference_mode_enabled()

    assert f() is False and g() is True


def test_set_grad_enabled_as_function():
    lucid.set_grad_enabled(False)
    try:
        assert not lucid.is_grad_enabled()
        x = L([1.0], requires_grad=True)
        assert not (x * 2.0).requires_grad
    finally:
        lucid.set_grad_enabled(True)
    assert lucid.is_grad_enabled()
    with lucid.set_grad_enabled(True):
        assert lucid.is_grad_enabled()


def test_grad_mode_is_thread_local():
    seen = {}

    def worker(key):
        seen[key] = lucid.is_grad_enabled()
        x = L([1.0], requires_grad=True)
        seen[key + "_rg"] = (x * 2.0).requires_grad

    with lucid.no_grad():
        t = threading.Thread(target=worker, args=("inside",))
        t.start()
        t.join()
        assert not lucid.is_grad_enabled()

    def disabler():
        lucid.set_grad_enabled(False)
        seen["disabler"] = lucid.is_grad_enabled()

    t = threading.Thread(target=disabler)
    t.start()
    t.join()
    assert seen == {"inside": True, "inside_rg": True, "disabler": False}
    assert lucid.is_grad_enabled()


def test_backward_inside_no_grad_still_computes_gradients(torch):
    for m in (lucid, torch):
        x = m.tensor([1.0, 2.0], dtype=m.float64, requires_grad=True)
        y = (x * x).sum()
        with m.no_grad():
            y.backward()
            assert not m.is_grad_enabled()
        assert x.grad.tolist() == [2.0, 4.0]


# ---------------------------------------------------------------------------------------------
# detach, requires_grad, is_leaf, graph structure

def test_detach_shares_storage_and_version():
    x = L([1.0, 2.0], requires_grad=True)
    a = x * 2.0
    d = a.detach()
    assert d.grad_fn is None and not d.requires_grad and d.is_leaf
    assert d._is_view_of(a) and d.data_ptr() == a.data_ptr()
    v = a._version
    d[0] = 10.0
    assert a.tolist() == [10.0, 4.0]
    assert a._version == v + 1 == d._version
    assert a.grad_fn is not None  # a itself untouched
    xd = x.detach()
    assert xd.is_leaf and not xd.requires_grad and x.requires_grad


def test_detach_inplace():
    x = L([1.0, 2.0], requires_grad=True)
    a = x * 2.0
    r = a.detach_()
    assert r is a or r.data_ptr() == a.data_ptr()
    assert a.grad_fn is None and not a.requires_grad and a.is_leaf
    assert a.tolist() == [2.0, 4.0]
    b = a * 3.0
    assert not b.requires_grad
    a.requires_grad_(True)  # a leaf now: may require grad again
    (a * 3.0).sum().backward()
    assert a.grad.tolist() == [3.0, 3.0] and x.grad is None


def test_requires_grad_flags():
    x = L([1.0, 2.0])
    assert not x.requires_grad and x.is_leaf and x.grad_fn is None
    x.requires_grad = True
    assert x.requires_grad_(False) is x and not x.requires_grad
    x.requires_grad_()
    a = x * 2.0
    assert a.requires_grad and not a.is_leaf
    with pytest.raises(lucid.LucidError, match="leaf"):
        a.requires_grad = False
    a.requires_grad = True  # allowed (no-op), as PyTorch
    with pytest.raises(lucid.LucidError, match="floating point"):
        lucid.tensor([1, 2]).requires_grad = True
    p = L([1.0])  # mixed: one input requires grad
    assert (p * x[:1]).requires_grad and not (p * p).requires_grad
    assert lucid.tensor([1.0], requires_grad=True).is_leaf


def test_grad_fn_names_and_next_functions():
    x = L([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    w = L([[0.5, 1.0], [1.5, 2.0]], requires_grad=True)
    c = L([[1.0, 1.0], [1.0, 1.0]])  # requires no grad
    y = (x * w + c).sum()
    assert y.grad_fn.name() == "SumBackward0"
    (add, n0), = y.grad_fn.next_functions
    assert add.name() == "AddBackward0" and n0 == 0
    (mul, _), (none_fn, _) = add.next_functions
    assert none_fn is None
    assert mul.name() == "MulBackward0"
    (acc_x, _), (acc_w, _) = mul.next_functions
    assert acc_x.name() == "AccumulateGrad" and acc_w.name() == "AccumulateGrad"
    assert acc_x.next_functions == ()
    assert repr(y.grad_fn) == "<SumBackward0>"
    # the same AccumulateGrad node for every use of a leaf while the graph lives
    z = x * 2.0
    assert z.grad_fn.next_functions[0][0] is acc_x
    assert y.grad_fn is y.grad_fn
    assert "grad_fn=<SumBackward0>" in repr(y)
    assert y.output_nr == 0


GRAPH_NAMES = {
    "add": lambda m, x: x + x, "add_scalar": lambda m, x: 2.0 + x, "sub": lambda m, x: x - 2.0,
    "mul": lambda m, x: x * x, "rmul": lambda m, x: 2.0 * x, "div": lambda m, x: x / x,
    "div_scalar": lambda m, x: x / 2.0, "sum": lambda m, x: x.sum(), "to": lambda m, x: x.to(m.float64),
    "clone": lambda m, x: x.clone(), "reshape": lambda m, x: x.reshape(3, 2), "view": lambda m, x: x.view(6),
    "flatten": lambda m, x: x.flatten(), "permute": lambda m, x: x.permute(1, 0), "T": lambda m, x: x.T,
    "transpose": lambda m, x: x.transpose(0, 1), "mT": lambda m, x: x.mT,
    "squeeze": lambda m, x: x[None].squeeze(), "unsqueeze": lambda m, x: x.unsqueeze(1),
    "expand": lambda m, x: x.expand(4, 2, 3), "select": lambda m, x: x.select(1, 1),
    "slice": lambda m, x: x[:, 1:], "int_index": lambda m, x: x[1], "none_index": lambda m, x: x[None],
    "ellipsis": lambda m, x: x[..., 1], "diagonal": lambda m, x: x.diagonal(),
    "unfold": lambda m, x: x.unfold(1, 2, 1), "as_strided": lambda m, x: x.as_strided((2, 2), (3, 1)),
}


@pytest.mark.parametrize("name", list(GRAPH_NAMES))
def test_grad_fn_names_match_torch(torch, name):
    fn = GRAPH_NAMES[name]
    a = np.arange(1.0, 7.0).reshape(2, 3).astype(np.float32)
    nl = fn(lucid, lucid.tensor(a, requires_grad=True)).grad_fn.name()
    nt = fn(torch, torch.tensor(a, requires_grad=True)).grad_fn.name()
    assert nl == nt


def test_small_graph_structure_matches_torch(torch):
    def names(fn, depth=0, out=None):
        out = [] if out is None else out
        out.append((depth, None if fn is None else fn.name().replace("torch::autograd::", "")))
        if fn is not None:
            for nxt, _ in fn.next_functions:
                names(nxt, depth + 1, out)
        return out

    res = []
    for m in (lucid, torch):
        x = m.tensor(np.ones((2, 3)), dtype=m.float32, requires_grad=True)
        w = m.tensor(np.ones((2, 3)), dtype=m.float32, requires_grad=True)
        y = ((x * w).view(6) + x.reshape(6) / 2.0).sum()
        res.append(names(y.grad_fn))
    assert res[0] == res[1]


# ---------------------------------------------------------------------------------------------
# memory

def test_no_growth_over_many_backward_passes():
    x = lucid.tensor(np.random.default_rng(0).standard_normal((16, 16)), requires_grad=True)
    w = lucid.tensor(np.random.default_rng(1).standard_normal((16, 16)))
    gc.collect()
    counts = {}
    for i in range(1, 1001):
        y = (x * w).sum()
        y.backward()
        x.grad = None
        del y
        if i in (10, 1000):
            gc.collect()
            counts[i] = (lucid._C.live_tensor_count(), lucid.memory_allocated("cpu"))
    assert counts[1000] == counts[10]


def test_no_growth_with_create_graph_hooks_and_views():
    x = lucid.tensor(np.random.default_rng(0).standard_normal((6, 6)), requires_grad=True)
    w = lucid.tensor(np.random.default_rng(1).standard_normal((6, 6)), requires_grad=True)
    gc.collect()
    counts = {}
    for i in range(1, 301):
        a = x @ w.T
        a.register_hook(lambda g: g * 2.0)
        y = (a[1:, ::2] * a[:-1, ::2] / 3.0).sum()
        gx, gw = autograd.grad(y, [x, w], create_graph=True)
        (gx.sum() + gw.sum()).backward()
        x.grad = None
        w.grad = None
        del a, y, gx, gw
        if i in (10, 300):
            gc.collect()
            counts[i] = (lucid._C.live_tensor_count(), lucid.memory_allocated("cpu"))
    assert counts[300] == counts[10]


def test_no_growth_with_retain_grad_and_inplace():
    x = lucid.tensor(np.random.default_rng(0).standard_normal((6, 6)), requires_grad=True)
    gc.collect()
    counts = {}
    for i in range(1, 301):
        a = x * 2.0
        a.retain_grad()
        a.mul_(3.0)
        a.register_hook(lambda g: g + 1.0)
        (a * a).sum().backward()
        x.grad = None
        del a
        if i in (10, 300):
            gc.collect()
            counts[i] = (lucid._C.live_tensor_count(), lucid.memory_allocated("cpu"))
    assert counts[300] == counts[10]


def test_graph_is_freed_when_output_dropped():
    x = lucid.tensor(np.ones((8, 8)), requires_grad=True)
    gc.collect()
    before = (lucid._C.live_tensor_count(), lucid.memory_allocated("cpu"))
    y = ((x * 2.0) @ x.T).sum()
    assert lucid._C.live_tensor_count() > before[0]
    del y
    gc.collect()
    assert (lucid._C.live_tensor_count(), lucid.memory_allocated("cpu")) == before


# Ops whose backward reads their own output save it before their node exists; the saved copy must
# not keep the node alive through the output's history (a cycle: the graph would outlive every use).
_SAVES_OUTPUT = {
    "softmax": lambda x: x.softmax(1),
    "log_softmax": lambda x: x.log_softmax(1),
    "pow": lambda x: lucid.pow(x.abs() + 1.0, x),
    "hypot": lambda x: lucid.hypot(x, x * 2.0),
    "cdist": lambda x: lucid.cdist(x, x + 1.0),
    "vector_norm": lambda x: lucid.linalg.vector_norm(x, dim=1),
    "exp": lambda x: x.exp(),
    "sqrt": lambda x: (x.abs() + 1.0).sqrt(),
    "cumprod": lambda x: x.cumprod(1),
}


@pytest.mark.parametrize("name", sorted(_SAVES_OUTPUT))
def test_ops_saving_their_output_free_the_graph(name):
    x = lucid.tensor(np.random.default_rng(0).standard_normal((4, 5)), requires_grad=True)
    f = _SAVES_OUTPUT[name]
    gc.collect()
    before = lucid._C.live_tensor_count()
    for _ in range(20):
        f(x)
    gc.collect()
    assert lucid._C.live_tensor_count() == before
    # and the saved output is still re-attached to its node: second derivatives through it are right
    assert autograd.gradgradcheck(f, (x,))


def _complex_chain(lib):
    rng = np.random.default_rng(7)
    A = rng.standard_normal((2, 3)) + 1j * rng.standard_normal((2, 3))
    B = rng.standard_normal((3, 2)) + 1j * rng.standard_normal((3, 2))
    C = rng.standard_normal((2, 3)) + 1j * rng.standard_normal((2, 3))
    a, b, c = (lib.tensor(v, requires_grad=True) for v in (A, B, C))
    y = ((a * c) @ b) / (c @ b + 3) - (2 - 1j) / (a.sum() + 4) * (0.5 + 2j)
    y.backward(lib.tensor(np.full((2, 2), 1 + 2j)))
    return [np.array(t.grad.tolist()) for t in (a, b, c)]


def test_complex_gradients_match_pytorch():
    """Complex gradients follow PyTorch's conjugate convention (mul, div, matmul, scalars)."""
    torch = pytest.importorskip("torch")
    for got, want in zip(_complex_chain(lucid), _complex_chain(torch)):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
