"""Tensor hooks and retain_grad (spec 000: the "•" rules under register_hook and the retain_grad
paragraph). PyTorch is the oracle where installed; every test also asserts hand-computed values."""
import gc
import weakref

import pytest

import lucid


@pytest.fixture(autouse=True)
def _grad_mode_is_restored():
    yield
    leaked = not lucid.is_grad_enabled()
    lucid._C._set_grad_enabled(True)
    assert not leaked, "a test leaked grad mode"


def T(m, values, requires_grad=False):
    return m.tensor(values, dtype=m.float64, requires_grad=requires_grad)


@pytest.fixture
def mods():
    """lucid, and torch when installed (the scenario runs in each; results are compared)."""
    try:
        import torch
    except ImportError:
        return (lucid,)
    return (lucid, torch)


def run_all(mods, scenario):
    """Runs scenario(m) for each module and checks that the results agree; returns lucid's."""
    results = [scenario(m) for m in mods]
    for other in results[1:]:
        assert other == results[0]
    return results[0]


# ---------------------------------------------------------------------------------------------
# non-leaf hooks

def test_non_leaf_hook_runs_once_after_all_consumers(mods):
    def scenario(m):
        x = T(m, [1.0, 2.0], requires_grad=True)
        a = x * 1.0
        events = []
        b = a * 2.0                      # consumer created before the hook
        a.register_hook(lambda g: events.append(("a", g.tolist())))
        c = a * 3.0                      # ... and after it
        d = a.reshape(2, 1).expand(2, 2).sum(1)
        x.register_hook(lambda g: events.append(("x", g.tolist())))
        (b + c + d * 4.0).sum().backward()
        return events, x.grad.tolist()

    events, xg = run_all(mods, scenario)
    assert events == [("a", [2.0 + 3.0 + 8.0] * 2), ("x", [13.0, 13.0])]
    assert xg == [13.0, 13.0]


def test_non_leaf_hook_runs_before_producer_backward(mods):
    """The hook's result is what the producer's backward receives."""
    def scenario(m):
        x = T(m, [1.0, 2.0], requires_grad=True)
        w = T(m, [3.0, 5.0], requires_grad=True)
        a = x * w
        a.register_hook(lambda g: g * 10.0)
        (a * a).sum().backward()
        return x.grad.tolist(), w.grad.tolist()

    xg, wg = run_all(mods, scenario)
    assert xg == [10 * 2 * 3.0 * 3.0, 10 * 2 * 10.0 * 5.0]       # 10 * 2a * w
    assert wg == [10 * 2 * 3.0 * 1.0, 10 * 2 * 10.0 * 2.0]       # 10 * 2a * x


def test_non_leaf_hook_chain_of_nodes(mods):
    def scenario(m):
        x = T(m, [1.0, 2.0], requires_grad=True)
        events = []
        a = x * 2.0
        b = a + 1.0
        c = b.reshape(1, 2)
        for name, t in (("a", a), ("b", b), ("c", c)):
            t.register_hook(lambda g, name=name: events.append((name, g.tolist())))
        (c * c).sum().backward()
        return events

    events = run_all(mods, scenario)
    assert events == [("c", [[6.0, 10.0]]), ("b", [6.0, 10.0]), ("a", [6.0, 10.0])]


def test_several_hooks_run_in_registration_order(mods):
    def scenario(m):
        x = T(m, [1.0, 2.0], requires_grad=True)
        a = x * 1.0
        seen = []
        a.register_hook(lambda g: seen.append(("h1", g.tolist())) or g * 10.0)
        a.register_hook(lambda g: seen.append(("h2", g.tolist())))          # None: keeps
        a.register_hook(lambda g: seen.append(("h3", g.tolist())) or g + 1.0)
        a.register_hook(lambda g: seen.append(("h4", g.tolist())) or None)
        (a * 2.0).sum().backward()
        return seen, x.grad.tolist()

    seen, xg = run_all(mods, scenario)
    assert seen == [("h1", [2.0, 2.0]), ("h2", [20.0, 20.0]), ("h3", [20.0, 20.0]), ("h4", [21.0, 21.0])]
    assert xg == [21.0, 21.0]


def test_non_leaf_hook_remove(mods):
    def scenario(m):
        x = T(m, [1.0, 2.0], requires_grad=True)
        a = x * 1.0
        seen = []
        h1 = a.register_hook(lambda g: seen.append("h1") or g * 2.0)
        a.register_hook(lambda g: seen.append("h2") or g * 3.0)
        h1.remove()
        h1.remove()  # twice is harmless
        (a * 1.0).sum().backward()
        return seen, x.grad.tolist()

    seen, xg = run_all(mods, scenario)
    assert seen == ["h2"] and xg == [3.0, 3.0]


def test_hooks_run_with_grad_mode_off(mods):
    def scenario(m):
        x = T(m, [1.0, 2.0], requires_grad=True)
        a = x * 1.0
        modes = []
        a.register_hook(lambda g: modes.append((m.is_grad_enabled(), g.requires_grad)))
        x.register_hook(lambda g: modes.append((m.is_grad_enabled(), g.requires_grad)))
        (a * x).sum().backward()
        return modes

    assert run_all(mods, scenario) == [(False, False), (False, False)]
    assert lucid.is_grad_enabled()


@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True")
def test_hooks_run_with_grad_mode_on_under_create_graph(mods):
    """Under create_graph the hook runs with grad mode on, and its result stays in the graph."""
    def scenario(m):
        x = T(m, [1.0, 2.0], requires_grad=True)
        a = x * 1.0
        modes = []
        a.register_hook(lambda g: modes.append(m.is_grad_enabled()) or g * x)  # d(a.sum())/dx becomes x
        (a * 1.0).sum().backward(create_graph=True)
        gx = x.grad
        assert gx.grad_fn is not None
        x.grad = None
        (gx * gx).sum().backward()  # d/dx sum(x^2)
        return modes, gx.tolist(), x.grad.tolist()

    modes, gx, g2 = run_all(mods, scenario)
    assert modes == [True]
    assert gx == [1.0, 2.0] and g2 == [2.0, 4.0]


def test_hook_in_autograd_grad_create_graph(mods):
    def scenario(m):
        x = T(m, [1.0, 3.0], requires_grad=True)
        a = x * x
        a.register_hook(lambda g: g * a)   # grad of (a.sum()) w.r.t. a becomes a = x^2
        (gx,) = m.autograd.grad(a.sum(), x, create_graph=True)  # 2x * x^2 = 2x^3
        # gx = 2x * (1 * a): the second pass goes through a's node again, so the hook runs again:
        # d/da = 2x -> hook -> 2x * a = 2x^3 -> through a = x*x: 4x^4; plus 2a = 2x^2 from the 2x factor
        (gxx,) = m.autograd.grad(gx.sum(), x)
        return gx.tolist(), gxx.tolist()

    gx, gxx = run_all(mods, scenario)
    assert gx == [2.0, 54.0] and gxx == [4.0 + 2.0, 4 * 81.0 + 2 * 9.0]


def test_autograd_grad_runs_non_leaf_hook_on_path_only(mods):
    def scenario(m):
        x = T(m, [1.0, 2.0], requires_grad=True)
        w = T(m, [3.0, 4.0], requires_grad=True)
        seen = []
        a = x * 1.0
        a.register_hook(lambda g: seen.append(("a", g.tolist())) or g * 2.0)
        b = w * 1.0
        b.register_hook(lambda g: seen.append(("b", g.tolist())))
        y = (a * 5.0 + b * 7.0).sum()
        (gx,) = m.autograd.grad(y, x, retain_graph=True)
        first = list(seen)
        seen.clear()
        (gw,) = m.autograd.grad(y, w)
        return first, gx.tolist(), seen, gw.tolist(), x.grad, w.grad

    first, gx, second, gw, xg, wg = run_all(mods, scenario)
    assert first == [("a", [5.0, 5.0])] and gx == [10.0, 10.0]
    assert second == [("b", [7.0, 7.0])] and gw == [7.0, 7.0]
    assert xg is None and wg is None


def test_autograd_grad_runs_leaf_hook_of_input(mods):
    def scenario(m):
        x = T(m, [1.0, 2.0], requires_grad=True)
        seen = []
        x.register_hook(lambda g: seen.append(g.tolist()) or g * 2.0)
        (gx,) = m.autograd.grad((x * 3.0).sum(), x)
        return seen, gx.tolist(), x.grad

    seen, gx, xg = run_all(mods, scenario)
    assert seen == [[3.0, 3.0]] and gx == [6.0, 6.0] and xg is None


def test_hook_on_output_root(mods):
    def scenario(m):
        x = T(m, [1.0, 2.0], requires_grad=True)
        y = (x * 2.0).sum()
        seen = []
        y.register_hook(lambda g: seen.append(g.item()) or g * 3.0)
        y.backward()
        return seen, x.grad.tolist()

    assert run_all(mods, scenario) == ([1.0], [6.0, 6.0])


def test_hook_after_inplace_sees_gradient_of_value_before_write(mods):
    """Spec 000: after an in-place op on self, a hook registered earlier still sees the gradient of
    the value before the write; one registered after sees the new value's."""
    def scenario(m):
        x = T(m, [1.0, 2.0], requires_grad=True)
        a = x * 1.0
        seen = []
        a.register_hook(lambda g: seen.append(("before", g.tolist())))
        a.mul_(2.0)
        a.register_hook(lambda g: seen.append(("after", g.tolist())))
        (a * T(m, [1.0, 10.0])).sum().backward()
        return seen, x.grad.tolist()

    seen, xg = run_all(mods, scenario)
    assert seen == [("after", [1.0, 10.0]), ("before", [2.0, 20.0])]
    assert xg == [2.0, 20.0]


def test_retain_grad_moves_to_value_after_inplace(mods):
    def scenario(m):
        x = T(m, [1.0, 2.0], requires_grad=True)
        a = x * 1.0
        a.retain_grad()
        a.mul_(2.0)
        (a * T(m, [1.0, 10.0])).sum().backward()
        return a.grad.tolist(), x.grad.tolist()

    assert run_all(mods, scenario) == ([1.0, 10.0], [2.0, 20.0])


# ---------------------------------------------------------------------------------------------
# leaf hooks

def test_leaf_hook_sees_each_pass_alone(mods):
    def scenario(m):
        x = T(m, [1.0, 2.0], requires_grad=True)
        seen = []
        x.register_hook(lambda g: seen.append(g.tolist()))
        (x * 2.0).sum().backward()
        (x * x).sum().backward()
        return seen, x.grad.tolist()

    seen, xg = run_all(mods, scenario)
    assert seen == [[2.0, 2.0], [2.0, 4.0]]
    assert xg == [4.0, 6.0]


def test_leaf_hook_sees_sum_of_consumers_once(mods):
    def scenario(m):
        x = T(m, [1.0, 2.0], requires_grad=True)
        seen = []
        x.register_hook(lambda g: seen.append(g.tolist()))
        (x * 2.0 + x * 3.0 + x.reshape(1, 2).sum(0)).sum().backward()
        return seen

    assert run_all(mods, scenario) == [[6.0, 6.0]]


def test_unrelated_backward_never_runs_leaf_hook(mods):
    def scenario(m):
        x = T(m, [1.0, 2.0], requires_grad=True)
        z = T(m, [3.0], requires_grad=True)
        seen = []
        x.register_hook(lambda g: seen.append(g.tolist()))
        (z * 2.0).sum().backward()
        w = T(m, [1.0, 1.0], requires_grad=True)
        (x * w).sum().backward(inputs=[w])   # x is in the graph but not wanted
        return seen, x.grad

    assert run_all(mods, scenario) == ([], None)


def test_leaf_hook_result_is_accumulated(mods):
    def scenario(m):
        x = T(m, [1.0, 2.0], requires_grad=True)
        x.register_hook(lambda g: g * 3.0)
        x.register_hook(lambda g: g + 1.0)
        (x * 2.0).sum().backward()
        (x * 2.0).sum().backward()
        return x.grad.tolist()

    assert run_all(mods, scenario) == [14.0, 14.0]


def test_leaf_hook_remove(mods):
    def scenario(m):
        x = T(m, [1.0, 2.0], requires_grad=True)
        seen = []
        h = x.register_hook(lambda g: seen.append("h") or g * 100.0)
        h.remove()
        (x * 2.0).sum().backward()
        return seen, x.grad.tolist()

    assert run_all(mods, scenario) == ([], [2.0, 2.0])


def test_leaf_hook_returned_tensor_is_not_aliased_by_grad(mods):
    def scenario(m):
        x = T(m, [1.0, 2.0], requires_grad=True)
        keep = T(m, [7.0, 7.0])
        x.register_hook(lambda g: keep)
        (x * 2.0).sum().backward()
        (x * 2.0).sum().backward()
        return x.grad.tolist(), keep.tolist()

    assert run_all(mods, scenario) == ([14.0, 14.0], [7.0, 7.0])


# ---------------------------------------------------------------------------------------------
# errors, lifetime

def test_register_hook_requires_grad():
    with pytest.raises(lucid.LucidError, match="doesn't require gradient"):
        T(lucid, [1.0]).register_hook(lambda g: g)
    x = T(lucid, [1.0], requires_grad=True)
    with lucid.no_grad():
        y = x * 2.0
    with pytest.raises(lucid.LucidError):
        y.register_hook(lambda g: g)
    with pytest.raises(lucid.LucidError):
        x.detach().register_hook(lambda g: g)


def test_register_hook_requires_grad_matches_torch(torch):
    with pytest.raises(RuntimeError):
        torch.tensor([1.0]).register_hook(lambda g: g)
    with pytest.raises(RuntimeError):
        lucid.tensor([1.0]).register_hook(lambda g: g)


def test_hook_exception_propagates_and_restores_grad_mode():
    x = T(lucid, [1.0, 2.0], requires_grad=True)
    a = x * 1.0

    def bad(g):
        raise ValueError("boom")

    a.register_hook(bad)
    with pytest.raises(ValueError, match="boom"):
        (a * 2.0).sum().backward(retain_graph=True)
    assert lucid.is_grad_enabled()
    assert x.grad is None


def test_hook_returning_wrong_shape_raises():
    x = T(lucid, [1.0, 2.0], requires_grad=True)
    a = x * 1.0
    a.register_hook(lambda g: lucid.ones(3, dtype=lucid.float64))
    with pytest.raises(lucid.ShapeMismatch):
        (a * 2.0).sum().backward()
    y = T(lucid, [1.0, 2.0], requires_grad=True)
    y.register_hook(lambda g: lucid.ones(1, 2, dtype=lucid.float64))
    with pytest.raises(lucid.ShapeMismatch):
        (y * 2.0).sum().backward()


class CountingHook:
    def __init__(self, log=None):
        self.log = [] if log is None else log

    @property
    def calls(self):
        return len(self.log)

    def __call__(self, g):
        self.log.append(g.tolist())


def test_hook_released_with_saved_state_after_backward():
    x = T(lucid, [1.0, 2.0], requires_grad=True)
    w = T(lucid, [3.0, 4.0], requires_grad=True)
    log = []
    h = CountingHook(log)
    ref = weakref.ref(h)
    a = x * w                        # MulBackward0 saves x and w
    a.register_hook(h)
    del h
    y = (a + 1.0).sum()
    assert ref() is not None         # the graph keeps it
    y.backward()
    assert log == [[1.0, 1.0]]
    gc.collect()
    assert ref() is None             # released with the node's saved tensors
    assert a.grad_fn is not None


def test_hook_kept_with_retain_graph():
    x = T(lucid, [1.0, 2.0], requires_grad=True)
    w = T(lucid, [3.0, 4.0], requires_grad=True)
    h = CountingHook()
    a = x * w
    a.register_hook(h)
    y = (a + 1.0).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert h.calls == 2
    assert x.grad.tolist() == [6.0, 8.0]


def test_hook_on_output_of_op_saving_nothing_lives_with_graph():
    x = T(lucid, [1.0, 2.0], requires_grad=True)
    h = CountingHook()
    ref = weakref.ref(h)
    a = x + 1.0                      # AddBackward0 saves nothing
    a.register_hook(h)
    del h
    y = (a + a).sum()
    y.backward()
    y.backward()
    assert ref() is not None and ref().calls == 2
    del a, y
    gc.collect()
    assert ref() is None             # ... and goes with the graph


def test_hook_on_output_of_op_saving_nothing_matches_torch(torch):
    def scenario(m):
        x = T(m, [1.0, 2.0], requires_grad=True)
        calls = []
        a = x + 1.0
        a.register_hook(lambda g: calls.append(g.tolist()))
        y = (a + a).sum()
        y.backward()
        y.backward()
        return calls, x.grad.tolist()

    assert scenario(lucid) == scenario(torch) == ([[2.0, 2.0]] * 2, [4.0, 4.0])


# ---------------------------------------------------------------------------------------------
# retain_grad

def test_retain_grad_before_backward(mods):
    def scenario(m):
        x = T(m, [1.0, 2.0], requires_grad=True)
        a = x * 3.0
        a.retain_grad()
        (a * a).sum().backward()
        return a.grad.tolist(), x.grad.tolist(), a.retains_grad

    assert run_all(mods, scenario) == ([6.0, 12.0], [18.0, 36.0], True)


def test_retain_grad_after_consumers_created(mods):
    def scenario(m):
        x = T(m, [1.0, 2.0], requires_grad=True)
        a = x * 3.0
        b = a * a
        c = a.sum()
        a.retain_grad()
        (b.sum() + c).backward()
        return a.grad.tolist()

    assert run_all(mods, scenario) == [7.0, 13.0]


def test_retain_grad_after_backward_affects_only_later_passes(mods):
    def scenario(m):
        x = T(m, [1.0, 2.0], requires_grad=True)
        a = x * 3.0
        y = (a * 2.0).sum()
        y.backward(retain_graph=True)
        a.retain_grad()
        first = a.grad
        y.backward()
        return first, a.grad.tolist()

    assert run_all(mods, scenario) == (None, [2.0, 2.0])


def test_retain_grad_after_backward_has_no_effect_on_that_pass():
    x = T(lucid, [1.0, 2.0], requires_grad=True)
    a = x * 3.0
    (a * 2.0).sum().backward()
    a.retain_grad()
    assert a.grad is None and a.retains_grad


@pytest.mark.parametrize("retain_first", [True, False], ids=["retain_then_hook", "hook_then_retain"])
def test_retained_grad_is_after_all_hooks(mods, retain_first):
    def scenario(m):
        x = T(m, [1.0, 2.0], requires_grad=True)
        a = x * 1.0
        if retain_first:
            a.retain_grad()
        a.register_hook(lambda g: g * 10.0)
        if not retain_first:
            a.retain_grad()
        a.register_hook(lambda g: g + 1.0)
        (a * 2.0).sum().backward()
        return a.grad.tolist(), x.grad.tolist()

    assert run_all(mods, scenario) == ([21.0, 21.0], [21.0, 21.0])


def test_retained_grad_accumulates_across_passes(mods):
    def scenario(m):
        x = T(m, [1.0, 2.0], requires_grad=True)
        a = x * 3.0
        a.retain_grad()
        y = (a * a).sum()
        y.backward(retain_graph=True)
        y.backward(retain_graph=True)
        g = a.grad.tolist()
        a.grad = None
        (a * 5.0).sum().backward()
        return g, a.grad.tolist()

    assert run_all(mods, scenario) == ([12.0, 24.0], [5.0, 5.0])


@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True")
def test_retained_grad_under_create_graph(mods):
    def scenario(m):
        x = T(m, [1.0, 2.0], requires_grad=True)
        a = x * 3.0
        a.retain_grad()
        (a * a).sum().backward(create_graph=True)
        assert a.grad.grad_fn is not None
        first = a.grad.tolist()
        (gx,) = m.autograd.grad(a.grad.sum(), x)  # d/dx sum(2a) = 6
        # this pass runs through a's node too: its gradient there (2) is retained as well (as PyTorch)
        return first, gx.tolist(), a.grad.tolist()

    assert run_all(mods, scenario) == ([6.0, 12.0], [6.0, 6.0], [8.0, 14.0])


def test_retain_grad_on_leaf_is_noop(mods):
    def scenario(m):
        x = T(m, [1.0, 2.0], requires_grad=True)
        x.retain_grad()
        (x * 2.0).sum().backward()
        (x * 2.0).sum().backward()
        return x.retains_grad, x.grad.tolist()

    assert run_all(mods, scenario) == (False, [4.0, 4.0])


def test_retains_grad_property(mods):
    def scenario(m):
        x = T(m, [1.0, 2.0], requires_grad=True)
        a = x * 3.0
        before = a.retains_grad
        a.retain_grad()
        a.retain_grad()  # twice is harmless
        return before, a.retains_grad, x.retains_grad

    assert run_all(mods, scenario) == (False, True, False)


def test_retain_grad_requires_grad():
    with pytest.raises(lucid.LucidError, match="requires_grad=False"):
        T(lucid, [1.0]).retain_grad()


def test_backward_inputs_non_leaf_gets_grad(mods):
    """backward(inputs=[non-leaf]) gives the non-leaf its gradient (the other way to get one)."""
    def scenario(m):
        x = T(m, [1.0, 2.0], requires_grad=True)
        a = x * 3.0
        a.register_hook(lambda g: g * 2.0)
        y = (a * a).sum()
        y.backward(inputs=[a], retain_graph=True)
        first = a.grad.tolist()
        y.backward(inputs=[a])
        return first, a.grad.tolist(), x.grad

    assert run_all(mods, scenario) == ([12.0, 24.0], [24.0, 48.0], None)
