"""lucid.autograd.functional, activation checkpointing, anomaly mode and saved-tensor hooks."""
import os

import numpy as np
import pytest

import lucid
from lucid import autograd
from lucid.autograd import Function, GradcheckError, gradcheck, gradgradcheck, once_differentiable
from lucid.autograd import functional as F
from lucid.autograd.graph import save_on_cpu, saved_tensors_hooks
from lucid.utils.checkpoint import checkpoint, checkpoint_sequential
from autograd_extras_common import *  # noqa: F401,F403  (fixture and helpers)
from autograd_extras_common import _autograd_state_is_restored  # noqa: F401

THIS_FILE = os.path.basename(__file__)

# ---------------------------------------------------------------------------------------------
# 2. functional

def f_two(x, y):
    """x: (3, 2), y: (2,) -> ((3,), (3, 2))."""
    p = x @ y
    return p * p / (1 + y.sum() * y.sum()), x * x * y


def h_two(x, y):
    """Scalar of x (3, 2) and y (2,)."""
    p = x @ y
    return (p * p).sum() + (x * x * x).sum() * y.sum()


class TestFunctional:
    def test_vjp_hand(self):
        x = L(X3)
        v = L([1.0, -1.0, 0.5])
        out, g = F.vjp(lambda t: t * t, x, v)
        close(out, np.array(X3) ** 2)
        close(g, 2 * np.array(X3) * np.array([1.0, -1.0, 0.5]))
        assert not out.requires_grad and not g.requires_grad
        # v omitted for a one-element output
        out, g = F.vjp(lambda t: (t * t * t).sum(), x)
        close(out, np.sum(np.array(X3) ** 3))
        close(g, 3 * np.array(X3) ** 2)

    def test_jvp_hand(self):
        x = L(X3)
        v = L([1.0, -1.0, 0.5])
        out, jv = F.jvp(lambda t: t * t * t, x, v)
        close(out, np.array(X3) ** 3)
        close(jv, 3 * np.array(X3) ** 2 * np.array([1.0, -1.0, 0.5]))
        out, jv = F.jvp(lambda t: t * t * 3.0, L(2.0))
        close(jv, 12.0)

    def test_jacobian_hand(self):
        x = np.array(X3)
        J = F.jacobian(lambda t: t * t.sum(), L(X3))
        assert tuple(J.shape) == (3, 3)
        close(J, np.eye(3) * x.sum() + x[:, None])
        J = F.jacobian(lambda t: (t * t).sum(), L(A32))
        assert tuple(J.shape) == (3, 2)
        close(J, 2 * np.array(A32))

    def test_jacobian_shapes_tuple_in_out(self):
        x, y = L(A32), L(B2)
        J = F.jacobian(f_two, (x, y))
        assert isinstance(J, tuple) and len(J) == 2 and all(isinstance(r, tuple) and len(r) == 2 for r in J)
        assert [[tuple(J[i][j].shape) for j in range(2)] for i in range(2)] == \
               [[(3, 3, 2), (3, 2)], [(3, 2, 3, 2), (3, 2, 2)]]
        # single output, tuple input -> tuple over inputs; tuple output, single input -> tuple over outputs
        J1 = F.jacobian(lambda a, b: a @ b, (x, y))
        assert isinstance(J1, tuple) and [tuple(t.shape) for t in J1] == [(3, 3, 2), (3, 2)]
        close(J1[1], np.array(A32))
        J2 = F.jacobian(lambda a: (a * 2.0, a.sum()), x)
        assert isinstance(J2, tuple) and [tuple(t.shape) for t in J2] == [(3, 2, 3, 2), (3, 2)]
        close(J2[0], 2 * np.eye(6).reshape(3, 2, 3, 2))
        close(J2[1], np.ones((3, 2)))

    def test_jacobian_vs_torch(self, torch):
        TF = torch.autograd.functional
        J = F.jacobian(f_two, (L(A32), L(B2)))
        Jt = TF.jacobian(f_two, (T(torch, A32), T(torch, B2)))
        for i in range(2):
            for j in range(2):
                close(J[i][j], Jt[i][j])

    def test_vjp_jvp_vs_torch(self, torch):
        TF = torch.autograd.functional
        rng = np.random.default_rng(0)
        va, vb = rng.uniform(-1, 1, (3, 2)), rng.uniform(-1, 1, (2,))
        u1, u2 = rng.uniform(-1, 1, (3,)), rng.uniform(-1, 1, (3, 2))
        out, g = F.vjp(f_two, (L(A32), L(B2)), (L(u1), L(u2)))
        out_t, g_t = TF.vjp(f_two, (T(torch, A32), T(torch, B2)), (T(torch, u1), T(torch, u2)))
        for a, b in zip(out + g, out_t + g_t):
            close(a, b)
        out, jv = F.jvp(f_two, (L(A32), L(B2)), (L(va), L(vb)))
        out_t, jv_t = TF.jvp(f_two, (T(torch, A32), T(torch, B2)), (T(torch, va), T(torch, vb)))
        for a, b in zip(out + jv, out_t + jv_t):
            close(a, b)

    def test_hessian_one_input_hand(self):
        H = F.hessian(lambda t: (t * t * t).sum(), L(X3))
        assert tuple(H.shape) == (3, 3)
        close(H, np.diag(6 * np.array(X3)))
        H = F.hessian(lambda t: (t * t).sum() * t.sum(), L(A32))
        assert tuple(H.shape) == (3, 2, 3, 2)

    def test_hessian_two_inputs_hand(self):
        x, y = np.array([1.0, -2.0]), np.array([0.5, 3.0])
        H = F.hessian(lambda a, b: (a * a * b).sum(), (L(x), L(y)))
        close(H[0][0], np.diag(2 * y))
        close(H[0][1], np.diag(2 * x))
        close(H[1][0], np.diag(2 * x))
        close(H[1][1], np.zeros((2, 2)))

    def test_hessian_vs_torch(self, torch):
        TF = torch.autograd.functional
        H = F.hessian(h_two, (L(A32), L(B2)))
        Ht = TF.hessian(h_two, (T(torch, A32), T(torch, B2)))
        for i in range(2):
            for j in range(2):
                assert tuple(H[i][j].shape) == tuple(Ht[i][j].shape)
                close(H[i][j], Ht[i][j])
        fn = lambda t: (t * t).sum() * t.sum()  # noqa: E731
        close(F.hessian(fn, L(A32)), TF.hessian(fn, T(torch, A32)))

    def test_hvp_vhp_hand(self):
        v = np.array([1.0, -1.0, 0.5])
        for op in (F.hvp, F.vhp):
            out, hv = op(lambda t: (t * t * t).sum(), L(X3), L(v))
            close(out, np.sum(np.array(X3) ** 3))
            close(hv, 6 * np.array(X3) * v)
            assert not hv.requires_grad

    def test_hvp_vhp_vs_torch(self, torch):
        TF = torch.autograd.functional
        rng = np.random.default_rng(1)
        va, vb = rng.uniform(-1, 1, (3, 2)), rng.uniform(-1, 1, (2,))
        for op, op_t in ((F.hvp, TF.hvp), (F.vhp, TF.vhp)):
            out, hv = op(h_two, (L(A32), L(B2)), (L(va), L(vb)))
            out_t, hv_t = op_t(h_two, (T(torch, A32), T(torch, B2)), (T(torch, va), T(torch, vb)))
            close(out, out_t)
            for a, b in zip(hv, hv_t):
                close(a, b)

    def test_jacobian_create_graph(self):
        x = np.array(B2 + [2.0])
        n, s = x.size, x.sum()
        xl = L(x, True)
        J = F.jacobian(lambda t: t * t * t.sum(), xl, create_graph=True)
        assert J.requires_grad
        close(J, np.diag(2 * x * s) + (x ** 2)[:, None])
        J.sum().backward()
        # sum J = 2 s^2 + n sum x^2
        close(xl.grad, 4 * s + 2 * n * x)

    def test_create_graph_vs_torch(self, torch):
        TF = torch.autograd.functional
        fn = lambda t: t * t * t.sum()  # noqa: E731
        x, xt = L(B2, True), T(torch, B2, True)
        F.jacobian(fn, x, create_graph=True).sum().backward()
        TF.jacobian(fn, xt, create_graph=True).sum().backward()
        close(x.grad, xt.grad)
        # hessian / vjp / hvp with create_graph are differentiable too
        x, xt = L(A32, True), T(torch, A32, True)
        g2 = lambda t: (t * t * t).sum() * t.sum()  # noqa: E731
        h = F.hessian(g2, x, create_graph=True)
        ht = TF.hessian(g2, xt, create_graph=True)
        assert h.requires_grad
        (h * h).sum().backward()
        (ht * ht).sum().backward()
        close(x.grad, xt.grad)
        x, xt = L(B2, True), T(torch, B2, True)
        _, g = F.vjp(lambda t: t * t * t, x, L([1.0, 2.0]), create_graph=True)
        _, gt = TF.vjp(lambda t: t * t * t, xt, T(torch, [1.0, 2.0]), create_graph=True)
        _, hv = F.hvp(lambda t: (t * t * t).sum(), x, L([1.0, -1.0]), create_graph=True)
        _, hvt = TF.hvp(lambda t: (t * t * t).sum(), xt, T(torch, [1.0, -1.0]), create_graph=True)
        (g * g).sum().backward()
        (gt * gt).sum().backward()
        (hv * hv).sum().backward()
        (hvt * hvt).sum().backward()
        close(x.grad, xt.grad)

    def test_strict_raises_when_output_independent_of_input(self):
        b = L(B2)
        lin = lambda p, q: p * 2  # noqa: E731
        quad = lambda p, q: (p * p).sum()  # noqa: E731
        with pytest.raises(RuntimeError, match="independent"):
            F.jacobian(lin, (b, b), strict=True)
        with pytest.raises(RuntimeError, match="independent"):
            F.vjp(lin, (b, b), b, strict=True)
        with pytest.raises(RuntimeError, match="independent"):
            F.hessian(quad, (b, b), strict=True)
        with pytest.raises(RuntimeError, match="independent"):
            F.hvp(quad, (b, b), (b, b), strict=True)
        with pytest.raises(RuntimeError, match="independent"):
            F.vhp(quad, (b, b), (b, b), strict=True)
        # without strict: zeros
        J = F.jacobian(lin, (b, b))
        close(J[1], np.zeros((2, 2)))
        close(J[0], 2 * np.eye(2))

    def test_jvp_strict_raises(self):
        b = L(B2)
        with pytest.raises(RuntimeError, match="independent"):
            F.jvp(lambda p, q: p * 2, (b, b), (b, b), strict=True)


# ---------------------------------------------------------------------------------------------
# 3. checkpoint

def count_nodes(t, name):
    """Nodes called `name` in the graph of t (a tree here: no node is reached twice)."""
    stack, n = [t.grad_fn], 0
    while stack:
        node = stack.pop()
        if node is None:
            continue
        n += node.name() == name
        stack.extend(fn for fn, _ in node.next_functions)
    return n


X22 = [[0.5, -1.0], [2.0, 1.5]]
W22 = [[1.0, 2.0], [3.0, -1.0]]


# checkpoint_sequential splits as PyTorch: segments - 1 checkpointed chunks of n // segments.


class TestCheckpoint:
    def test_same_outputs_and_gradients_and_recompute(self):
        W = L(W22, True)
        calls = [0]

        def block(x, s):
            calls[0] += 1
            h = x @ W
            return h * h * s + x

        x = L(X22, True)
        y = checkpoint(block, x, 2.0)
        assert calls[0] == 1
        assert y.grad_fn is not None
        (y * y).sum().backward()
        assert calls[0] == 2  # recomputed in backward
        gx, gW = to_np(x.grad), to_np(W.grad)

        W.grad = None
        x2 = L(X22, True)
        y2 = block(x2, 2.0)
        close(y, y2)
        (y2 * y2).sum().backward()
        close(gx, x2.grad)
        close(gW, W.grad)
        # hand check of one entry of y: h = x @ W
        h = np.array(X22) @ np.array(W22)
        close(y, h * h * 2 + np.array(X22))

    def test_vs_torch(self, torch):
        Wl, Wt = L(W22, True), T(torch, W22, True)
        xl, xt = L(X22, True), T(torch, X22, True)
        from torch.utils.checkpoint import checkpoint as tcheckpoint
        yl = checkpoint(lambda x: (x @ Wl) * x, xl)
        yt = tcheckpoint(lambda x: (x @ Wt) * x, xt, use_reentrant=False)
        close(yl, yt)
        (yl * yl).sum().backward()
        (yt * yt).sum().backward()
        close(xl.grad, xt.grad)
        close(Wl.grad, Wt.grad)

    def test_tuple_outputs(self):
        x = L(X3, True)
        a, b = checkpoint(lambda t: (t * t, t * 3.0), x)
        (a + b).sum().backward()
        close(x.grad, 2 * np.array(X3) + 3)

    def test_preserve_rng_state(self):
        def noisy(x):
            return x * lucid.rand(x.shape, dtype=lucid.float64)

        lucid.manual_seed(3)
        x = L(X3, True)
        y = checkpoint(noisy, x)
        after_forward = to_np(lucid.rand(3, dtype=lucid.float64))  # the stream moves on between forward and backward
        (y * y).sum().backward()
        next_after_backward = to_np(lucid.rand(3, dtype=lucid.float64))

        lucid.manual_seed(3)
        x2 = L(X3, True)
        y2 = noisy(x2)
        close(after_forward, lucid.rand(3, dtype=lucid.float64))
        close(y, y2)
        (y2 * y2).sum().backward()
        close(x.grad, x2.grad)
        # the recomputation does not disturb the global stream
        close(next_after_backward, lucid.rand(3, dtype=lucid.float64))

    def test_without_preserve_rng_state_draws_new_numbers(self):
        def noisy(x):
            return x * lucid.rand(x.shape, dtype=lucid.float64)

        lucid.manual_seed(3)
        x = L(X3, True)
        y = checkpoint(noisy, x, preserve_rng_state=False)
        lucid.rand(3)
        (y * y).sum().backward()
        lucid.manual_seed(3)
        x2 = L(X3, True)
        y2 = noisy(x2)
        (y2 * y2).sum().backward()
        assert not np.allclose(to_np(x.grad), to_np(x2.grad))

    @pytest.mark.parametrize("segments", [1, 2, 3])
    def test_checkpoint_sequential(self, segments):
        W = L(W22, True)
        calls = [0, 0, 0, 0]

        def counted(i, fn):
            def g(t):
                calls[i] += 1
                return fn(t)
            return g

        fns = [counted(i, f) for i, f in enumerate((lambda t: t * 2.0, lambda t: t * t, lambda t: t @ W,
                                                    lambda t: t - 1.0))]
        x = L(X22, True)
        y = checkpoint_sequential(fns, segments, x)
        y.sum().backward()
        gx, gW = to_np(x.grad), to_np(W.grad)

        W.grad = None
        x2 = L(X22, True)
        y2 = x2
        for f in fns:
            y2 = f(y2)
        close(y, y2)
        y2.sum().backward()
        close(gx, x2.grad)
        close(gW, W.grad)
        # hand: y = (2x)^2 @ W - 1 -> dL/dx = 8 x * (1 @ W^T), dL/dW = (4 x^2)^T @ 1
        xn, Wn = np.array(X22), np.array(W22)
        close(gx, 8 * xn * (np.ones((2, 2)) @ Wn.T))
        close(gW, (4 * xn * xn).T @ np.ones((2, 2)))
        # the first two functions are recomputed (2 segments: [0, 1] + last; 3 segments: [0] [1] + last);
        # the direct run adds one more call each
        assert calls == ([2, 2, 2, 2] if segments == 1 else [3, 3, 2, 2])

    @pytest.mark.parametrize("n,segments", [
        (4, 1), (4, 2), (6, 2), (6, 3), (8, 4),
        (4, 3), (5, 2),
        (6, 4), (7, 3)])
    def test_checkpoint_sequential_segments_as_torch(self, n, segments):
        calls = [0] * n

        def counted(i):
            def g(t):
                calls[i] += 1
                return t * 2.0
            return g

        x = L(X3, True)
        y = checkpoint_sequential([counted(i) for i in range(n)], segments, x)
        y.sum().backward()
        close(x.grad, np.full(3, 2.0 ** n))
        # torch: segments - 1 checkpointed chunks of n // segments functions, then the rest run plainly
        size = n // segments
        recomputed = size * (segments - 1)
        assert count_nodes(y, "_CheckpointFunctionBackward") == segments - 1
        assert calls == [2] * recomputed + [1] * (n - recomputed)

    @pytest.mark.parametrize("n,segments", [(4, 2), (6, 3), (5, 2)])
    def test_checkpoint_sequential_recompute_counts_vs_torch(self, torch, n, segments):
        from torch.utils.checkpoint import checkpoint_sequential as tcs
        counts = {}
        for m, mk, cs in ((lucid, L, checkpoint_sequential),
                          (torch, lambda a, rg=False: T(torch, a, rg),
                           lambda f, s, x: tcs(f, s, x, use_reentrant=True))):
            calls = [0] * n

            def counted(i):
                def g(t):
                    calls[i] += 1
                    return t * 2.0
                return g

            x = mk(X3, True)
            cs([counted(i) for i in range(n)], segments, x).sum().backward()
            counts[m.__name__] = (calls, to_np(x.grad))
        assert counts["lucid"][0] == counts["torch"][0]
        close(counts["lucid"][1], counts["torch"][1])

    def test_autograd_checkpoint_is_the_same_callable(self):
        assert autograd.checkpoint is checkpoint
        assert autograd.checkpoint_sequential is checkpoint_sequential
        import lucid.utils.checkpoint as mod
        assert mod.checkpoint is checkpoint


# ---------------------------------------------------------------------------------------------
# 4. anomaly mode

def _nan_backward():
    x = L([0.0, 1.0], True)
    y = x / x          # d/d(denominator) = -x / x^2 = nan at 0
    y.sum().backward()
    return x


class TestAnomaly:
    def test_outside_no_error(self):
        assert not autograd.is_anomaly_enabled()
        x = _nan_backward()
        assert np.isnan(to_np(x.grad)[0])

    def test_context_manager_raises_with_node_and_traceback(self):
        with autograd.detect_anomaly():
            assert autograd.is_anomaly_enabled()
            with pytest.raises(lucid.LucidError) as info:
                _nan_backward()
        assert not autograd.is_anomaly_enabled()
        msg = str(info.value)
        assert "DivBackward0" in msg and "nan" in msg
        assert THIS_FILE in msg and "y = x / x" in msg

    def test_decorator(self):
        @autograd.detect_anomaly()
        def run():
            assert autograd.is_anomaly_enabled()
            return _nan_backward()

        with pytest.raises(lucid.LucidError, match="DivBackward0"):
            run()
        assert not autograd.is_anomaly_enabled()

    def test_zero_times_inf(self):
        x = L([0.0, 1.0], True)
        inf = L([np.inf, 1.0])
        with autograd.detect_anomaly():
            y = (x * inf) * 0.0   # MulBackward0 of x * inf gets 0 -> 0 * inf = nan
            with pytest.raises(lucid.LucidError) as info:
                y.sum().backward()
        assert "MulBackward0" in str(info.value)
        assert THIS_FILE in str(info.value)

    def test_custom_function_name(self):
        class NanGrad(Function):
            @staticmethod
            def forward(ctx, x):
                return x * 1

            @staticmethod
            def backward(ctx, g):
                return g * float("nan")

        x = L([1.0, 2.0], True)
        with autograd.detect_anomaly():
            with pytest.raises(lucid.LucidError, match="NanGradBackward"):
                NanGrad.apply(x).sum().backward()
        NanGrad.apply(x).sum().backward()  # no anomaly mode: nan, no error
        assert np.isnan(to_np(x.grad)).all()

    def test_check_nan_false(self):
        with autograd.detect_anomaly(check_nan=False):
            assert autograd.is_anomaly_enabled() and not autograd.is_anomaly_check_nan_enabled()
            x = _nan_backward()
        assert np.isnan(to_np(x.grad)[0])
        assert autograd.is_anomaly_check_nan_enabled()

    def test_vs_torch(self, torch):
        xt = T(torch, [0.0, 1.0], True)
        with pytest.warns(UserWarning):
            with torch.autograd.detect_anomaly():
                with pytest.raises(RuntimeError) as info_t:
                    (xt / xt).sum().backward()
        with autograd.detect_anomaly():
            with pytest.raises(lucid.LucidError) as info:
                _nan_backward()
        first = lambda s: s.splitlines()[0]  # noqa: E731
        assert first(str(info.value)) == first(str(info_t.value))

    def test_set_detect_anomaly_restores(self):
        assert not autograd.is_anomaly_enabled()
        with autograd.set_detect_anomaly(True):
            assert autograd.is_anomaly_enabled()
            with autograd.set_detect_anomaly(False):
                assert not autograd.is_anomaly_enabled()
                x = _nan_backward()  # off: no error
                assert np.isnan(to_np(x.grad)[0])
            assert autograd.is_anomaly_enabled()
            with pytest.raises(lucid.LucidError):
                _nan_backward()
        assert not autograd.is_anomaly_enabled()
        # called plainly, it just sets the mode
        autograd.set_detect_anomaly(True)
        try:
            assert autograd.is_anomaly_enabled()
        finally:
            autograd.set_detect_anomaly(False)
        assert not autograd.is_anomaly_enabled()

    def test_state_restored_after_exception(self):
        with pytest.raises(ValueError):
            with autograd.detect_anomaly():
                raise ValueError("boom")
        assert not autograd.is_anomaly_enabled()


# ---------------------------------------------------------------------------------------------
# 5. saved-tensor hooks

class TestSavedTensorHooks:
    def test_pack_unpack_counted(self):
        log = []

        def pack(t):
            log.append("pack")
            return ("box", t)

        def unpack(p):
            log.append("unpack")
            assert p[0] == "box"
            return p[1]

        a, b = L([1.0, 2.0], True), L([3.0, 4.0], True)
        with saved_tensors_hooks(pack, unpack):
            y = a * b
        assert log == ["pack", "pack"]
        y.sum().backward()
        assert log == ["pack", "pack", "unpack", "unpack"]
        close(a.grad, [3.0, 4.0])
        close(b.grad, [1.0, 2.0])

    def test_counts_vs_torch(self, torch):
        counts = {}
        for m, mk, H in ((lucid, L, saved_tensors_hooks),
                         (torch, lambda a, rg=False: T(torch, a, rg), torch.autograd.graph.saved_tensors_hooks)):
            c = {"pack": 0, "unpack": 0}

            def pack(t):
                c["pack"] += 1
                return t

            def unpack(t):
                c["unpack"] += 1
                return t

            a, b = mk([1.0, 2.0], True), mk([3.0, 4.0], True)
            with H(pack, unpack):
                y = (a * b) @ b
            y.backward()
            counts[m.__name__] = (c, to_np(a.grad), to_np(b.grad))
        assert counts["lucid"][0] == counts["torch"][0]
        close(counts["lucid"][1], counts["torch"][1])
        close(counts["lucid"][2], counts["torch"][2])

    def test_pack_to_numpy_and_back(self):
        a = L([1.0, 2.0], True)
        b = a * 3.0
        with saved_tensors_hooks(lambda t: np.array(t.numpy(), copy=True), lambda arr: lucid.tensor(arr)):
            y = b * b
        y.sum().backward()
        close(a.grad, 18 * np.array([1.0, 2.0]))

    def test_unpacked_value_is_used_for_non_leaf(self):
        a, b = L([1.0, 2.0], True), L([3.0, 4.0], True)
        with saved_tensors_hooks(lambda t: t.detach().clone(), lambda p: p * 10):
            y = (a + 0.0) * (b + 0.0)
        y.sum().backward()
        close(a.grad, [30.0, 40.0])
        close(b.grad, [10.0, 20.0])

    def test_unpacked_value_is_used_for_leaf(self):
        a, b = L([1.0, 2.0], True), L([3.0, 4.0], True)
        with saved_tensors_hooks(lambda t: t.detach().clone(), lambda p: p * 10):
            y = a * b
        y.sum().backward()
        close(a.grad, [30.0, 40.0])
        close(b.grad, [10.0, 20.0])

    def test_scalar_multiplication_saves_no_tensor(self):
        n = [0]

        def pack(t):
            n[0] += 1
            return t

        a = L([1.0, 2.0], True)
        with saved_tensors_hooks(pack, lambda t: t):
            a * 2.0
        assert n[0] == 0

    def test_function_save_for_backward_goes_through_hooks(self):
        log = []
        x = L(X3, True)
        with saved_tensors_hooks(lambda t: log.append("pack") or t, lambda t: log.append("unpack") or t):
            y = make_cube(lucid).apply(x)
        y.sum().backward()
        assert log == ["pack", "unpack"]

    def test_save_on_cpu_same_gradients(self):
        rng = np.random.default_rng(0)
        xa, wa = rng.uniform(-1, 1, (3, 2)), rng.uniform(-1, 1, (2, 2))

        def run(ctx):
            x, w = L(xa, True), L(wa, True)
            with ctx:
                h = x @ w
                y = (h * h / (w.sum() + 3.0)).sum()
            y.backward()
            return to_np(x.grad), to_np(w.grad)

        class Null:
            def __enter__(self):
                return self

            def __exit__(self, *e):
                return False

        ref = run(Null())
        got = run(save_on_cpu())
        got_pinned = run(save_on_cpu(pin_memory=True))  # CPU tensors: kept as they are
        for r, g, gp in zip(ref, got, got_pinned):
            close(g, r)
            close(gp, r)

    def test_nesting_innermost_applies_and_exit_removes(self):
        outer, inner = [], []
        a, b = L([1.0, 2.0], True), L([3.0, 4.0], True)
        with saved_tensors_hooks(lambda t: outer.append(1) or t, lambda t: t):
            with saved_tensors_hooks(lambda t: inner.append(1) or t, lambda t: t):
                y1 = a * b
            assert (len(outer), len(inner)) == (0, 2)
            y2 = a * b
            assert (len(outer), len(inner)) == (2, 2)
        y3 = a * b
        assert (len(outer), len(inner)) == (2, 2)
        (y1 + y2 + y3).sum().backward()
        close(a.grad, 3 * np.array([3.0, 4.0]))

    def test_removed_on_exception(self):
        n = [0]
        with pytest.raises(ValueError):
            with saved_tensors_hooks(lambda t: n.__setitem__(0, n[0] + 1) or t, lambda t: t):
                raise ValueError("boom")
        a = L([1.0, 2.0], True)
        a * a
        assert n[0] == 0
