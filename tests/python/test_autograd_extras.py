"""Autograd extras: custom Functions (lucid.autograd.Function), lucid.autograd.functional,
gradcheck / gradgradcheck, activation checkpointing, anomaly mode and saved-tensor hooks.

PyTorch is the oracle where installed (the `torch` fixture skips otherwise); every behaviour is also
checked against hand-computed values so the file means something without it.
"""
import os

import numpy as np
import pytest

import lucid
from lucid import autograd
from lucid.autograd import Function, GradcheckError, gradcheck, gradgradcheck, once_differentiable
from lucid.autograd import functional as F
from lucid.autograd.graph import save_on_cpu, saved_tensors_hooks
from lucid.utils.checkpoint import checkpoint, checkpoint_sequential

THIS_FILE = os.path.basename(__file__)


@pytest.fixture(autouse=True)
def _autograd_state_is_restored():
    """Every test must leave grad mode on, inference mode off and anomaly detection off."""
    yield
    leaked = (not lucid.is_grad_enabled(), lucid.is_inference_mode_enabled(), autograd.is_anomaly_enabled())
    lucid._C._set_grad_enabled(True)
    lucid._C._set_inference_mode(False)
    lucid._C._set_anomaly_enabled(False, True)
    assert leaked == (False, False, False), "a test leaked grad mode / inference mode / anomaly mode"


# ---------------------------------------------------------------------------------------------
# helpers

def to_np(t):
    return None if t is None else np.array(t.detach().numpy(), copy=True)


def L(arr, requires_grad=False):
    return lucid.tensor(np.asarray(arr, dtype=np.float64), dtype=lucid.float64, requires_grad=requires_grad)


def T(torch, arr, requires_grad=False):
    return torch.tensor(np.asarray(arr, dtype=np.float64), dtype=torch.float64, requires_grad=requires_grad)


def close(a, b, **kw):
    a, b = (np.asarray(to_np(t) if hasattr(t, "detach") else t, dtype=np.float64) for t in (a, b))
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12, **kw)


X3 = [1.0, 2.0, -3.0]
A32 = [[0.5, -1.0], [2.0, 1.5], [-0.25, 0.75]]
B2 = [1.5, -0.5]


# ---------------------------------------------------------------------------------------------
# Custom Functions, written once for lucid and torch (`m` is the module).

def make_cube(m, once=False):
    """y = x**3 with backward 3 x**2 g written in differentiable ops (so double backward works)."""

    def backward(ctx, g):
        x, = ctx.saved_tensors
        return g * 3 * x * x

    if once:
        backward = (autograd.once_differentiable if m is lucid else m.autograd.function.once_differentiable)(backward)

    class Cube(m.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x * x

    Cube.backward = staticmethod(backward)
    return Cube


def make_two_out(m, log):
    """(x * y * scale, x + y): tensors x, y; a Python scale; an ignored non-tensor flag."""

    class TwoOut(m.autograd.Function):
        @staticmethod
        def forward(ctx, x, y, scale, flag):
            log["forward_nig"] = tuple(ctx.needs_input_grad)
            ctx.scale = scale
            ctx.save_for_backward(x, y)
            return x * y * scale, x + y

        @staticmethod
        def backward(ctx, ga, gb):
            log["backward_nig"] = tuple(ctx.needs_input_grad)
            x, y = ctx.saved_tensors
            gx = ga * y * ctx.scale + gb if ctx.needs_input_grad[0] else None
            gy = ga * x * ctx.scale + gb if ctx.needs_input_grad[1] else None
            return gx, gy, None, None

    return TwoOut


def make_mul2_inplace(m):
    class Mul2Inplace(m.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 2

    return Mul2Inplace


# ---------------------------------------------------------------------------------------------
# 1. Function

class TestFunction:
    def test_save_for_backward_and_grad(self):
        Cube = make_cube(lucid)
        x = L(X3, True)
        y = Cube.apply(x)
        assert y.grad_fn is not None and y.grad_fn.name() == "CubeBackward"
        close(y, np.array(X3) ** 3)
        y.sum().backward()
        close(x.grad, 3 * np.array(X3) ** 2)

    def test_save_for_backward_vs_torch(self, torch):
        x, xt = L(X3, True), T(torch, X3, True)
        g = L([0.5, -2.0, 1.0])
        make_cube(lucid).apply(x).backward(g)
        make_cube(torch).apply(xt).backward(T(torch, [0.5, -2.0, 1.0]))
        close(x.grad, xt.grad)

    def test_no_graph_when_no_input_requires_grad_or_under_no_grad(self):
        Cube = make_cube(lucid)
        y = Cube.apply(L(X3))
        assert y.grad_fn is None and not y.requires_grad
        x = L(X3, True)
        with lucid.no_grad():
            y = Cube.apply(x)
        assert y.grad_fn is None and not y.requires_grad
        close(y, np.array(X3) ** 3)

    def test_multiple_inputs_and_outputs(self):
        log = {}
        TwoOut = make_two_out(lucid, log)
        x, y = L([1.0, 2.0], True), L([3.0, 5.0])
        a, b = TwoOut.apply(x, y, 2.0, "flag")
        assert log["forward_nig"] == (True, False, False, False)
        assert a.grad_fn is b.grad_fn and a.grad_fn.name() == "TwoOutBackward"
        assert (a.output_nr, b.output_nr) == (0, 1)
        close(a, [6.0, 20.0])
        close(b, [4.0, 7.0])
        (a.sum() + (b * b).sum()).backward()
        assert log["backward_nig"] == (True, False, False, False)
        # d/dx = 2 y + 2 (x + y)
        close(x.grad, [14.0, 24.0])
        assert y.grad is None

    def test_multiple_outputs_vs_torch(self, torch):
        out = {}
        for m, mk in ((lucid, L), (torch, lambda a, rg=False: T(torch, a, rg))):
            log = {}
            x, y = mk([1.0, 2.0], True), mk([3.0, -5.0], True)
            a, b = make_two_out(m, log).apply(x, y, -1.5, None)
            (a * b).sum().backward()
            out[m.__name__] = (x.grad, y.grad, log["forward_nig"])
        close(out["lucid"][0], out["torch"][0])
        close(out["lucid"][1], out["torch"][1])
        assert out["lucid"][2] == out["torch"][2] == (True, True, False, False)

    def test_only_one_output_used_gets_zeros_for_the_other(self):
        TwoOut = make_two_out(lucid, {})
        x = L([1.0, 2.0], True)
        a, b = TwoOut.apply(x, L([3.0, 5.0]), 2.0, "f")
        a.sum().backward()
        close(x.grad, [6.0, 10.0])  # 2 y + 0

    @pytest.mark.parametrize("materialize", [True, False])
    def test_mark_non_differentiable(self, materialize):
        seen = {}

        class NonDiff(Function):
            @staticmethod
            def forward(ctx, x, mat):
                ctx.set_materialize_grads(mat)
                m = x * 2
                idx = (x * 0).to(lucid.int64)
                ctx.mark_non_differentiable(m)
                return x * 3, m, idx

            @staticmethod
            def backward(ctx, g, gm, gi):
                seen["grads"] = (g, gm, gi)
                return g * 3, None

        x = L([1.0, 2.0], True)
        o, m, idx = NonDiff.apply(x, materialize)
        assert o.grad_fn is not None and o.requires_grad
        assert m.grad_fn is None and not m.requires_grad
        assert idx.grad_fn is None and not idx.requires_grad
        o.sum().backward()
        close(x.grad, [3.0, 3.0])
        g, gm, gi = seen["grads"]
        close(g, [1.0, 1.0])
        if materialize:
            close(gm, [0.0, 0.0])
            assert gi is not None and gi.tolist() == [0, 0]
        else:
            assert gm is None and gi is None

    def test_mark_non_differentiable_vs_torch(self, torch):
        res = {}
        for m, mk in ((lucid, L), (torch, lambda a, rg=False: T(torch, a, rg))):
            class NonDiff(m.autograd.Function):
                @staticmethod
                def forward(ctx, x):
                    m_ = x * 2
                    ctx.mark_non_differentiable(m_)
                    return x * 3, m_

                @staticmethod
                def backward(ctx, g, gm):
                    res[m.__name__ + "_gm"] = gm
                    return g * 3

            x = mk([1.0, 2.0], True)
            o, m_ = NonDiff.apply(x)
            res[m.__name__] = (m_.requires_grad, m_.grad_fn is None)
            o.sum().backward()
        assert res["lucid"] == res["torch"] == (False, True)
        close(res["lucid_gm"], res["torch_gm"])

    def test_set_materialize_grads_false_gives_none_for_unused_outputs(self):
        seen = {}

        class Two(Function):
            @staticmethod
            def forward(ctx, x):
                ctx.set_materialize_grads(False)
                return x * 2, x * 3

            @staticmethod
            def backward(ctx, g1, g2):
                seen["grads"] = (g1, g2)
                res = None
                if g1 is not None:
                    res = g1 * 2
                if g2 is not None:
                    res = g2 * 3 if res is None else res + g2 * 3
                return res

        x = L([1.0, 2.0], True)
        p, q = Two.apply(x)
        q.sum().backward()
        g1, g2 = seen["grads"]
        assert g1 is None
        close(g2, [1.0, 1.0])
        close(x.grad, [3.0, 3.0])

        # default (materialize): the unused output's gradient is zeros
        class TwoM(Two):
            @staticmethod
            def forward(ctx, x):
                return x * 2, x * 3

        x = L([1.0, 2.0], True)
        p, q = TwoM.apply(x)
        p.sum().backward()
        g1, g2 = seen["grads"]
        close(g1, [1.0, 1.0])
        close(g2, [0.0, 0.0])
        close(x.grad, [2.0, 2.0])

    def test_mark_dirty_on_non_leaf(self):
        Mul2 = make_mul2_inplace(lucid)
        a = L([1.0, 2.0], True)
        b = a * 3
        v0 = b._version
        c = Mul2.apply(b)
        assert c is b
        assert b._version == v0 + 1
        assert c.grad_fn is not None and c.grad_fn.name() == "Mul2InplaceBackward"
        close(c, [6.0, 12.0])
        (c * c).sum().backward()
        close(a.grad, 72 * np.array([1.0, 2.0]))  # c = 6a, d/da sum(36 a^2)

    def test_mark_dirty_vs_torch(self, torch):
        grads = {}
        for m, mk in ((lucid, L), (torch, lambda a, rg=False: T(torch, a, rg))):
            a = mk([1.0, -2.0, 0.5], True)
            b = a * a
            c = make_mul2_inplace(m).apply(b)
            assert c is b
            (c * a).sum().backward()
            grads[m.__name__] = a.grad
        close(grads["lucid"], grads["torch"])
        close(grads["lucid"], 6 * np.array([1.0, -2.0, 0.5]) ** 2)

    def test_mark_dirty_on_leaf_requiring_grad_raises(self):
        with pytest.raises(lucid.LucidError):
            make_mul2_inplace(lucid).apply(L([1.0, 2.0], True))

    def test_returned_input_shares_memory(self):
        class Ident(Function):
            @staticmethod
            def forward(ctx, x):
                return x

            @staticmethod
            def backward(ctx, g):
                return g * 2

        a = L([1.0, 2.0], True)
        o = Ident.apply(a)
        assert o is not a
        assert o.data_ptr() == a.data_ptr()
        assert o.grad_fn is not None and not o.is_leaf
        assert a.is_leaf and a.grad_fn is None
        o.sum().backward()
        close(a.grad, [2.0, 2.0])

    def test_returned_input_vs_torch(self, torch):
        for m, mk in ((lucid, L), (torch, lambda a, rg=False: T(torch, a, rg))):
            class Ident(m.autograd.Function):
                @staticmethod
                def forward(ctx, x):
                    return x

                @staticmethod
                def backward(ctx, g):
                    return g

            a = mk([1.0, 2.0], True)
            o = Ident.apply(a)
            assert o is not a and o.data_ptr() == a.data_ptr() and o.grad_fn is not None

    def test_too_few_gradients_raises(self):
        class Few(Function):
            @staticmethod
            def forward(ctx, x, y):
                return x * y

            @staticmethod
            def backward(ctx, g):
                return g

        x = L([1.0, 2.0], True)
        with pytest.raises(lucid.LucidError, match="incorrect number of gradients"):
            Few.apply(x, L([3.0, 4.0])).sum().backward()

    def test_too_many_gradients_raises(self):
        class Many(Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2, g

        x = L([1.0, 2.0], True)
        with pytest.raises(lucid.LucidError, match="incorrect number of gradients"):
            Many.apply(x).sum().backward()

    def test_extra_none_gradients_are_accepted(self):
        class ManyNone(Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2, None

        x = L([1.0, 2.0], True)
        ManyNone.apply(x).sum().backward()
        close(x.grad, [2.0, 2.0])

    def test_wrong_gradient_shape_raises(self):
        class WrongShape(Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g.sum()

        x = L([1.0, 2.0], True)
        with pytest.raises(lucid.LucidError, match="invalid gradient at index 0"):
            WrongShape.apply(x).sum().backward()

    def test_expandable_gradient_shape_is_summed(self):
        class Bcast(Function):
            @staticmethod
            def forward(ctx, x):
                return (x * 2).sum()

            @staticmethod
            def backward(ctx, g):
                return g * 2 * lucid.ones(3, 2, dtype=lucid.float64)

        x = L([1.0, 2.0], True)
        Bcast.apply(x).backward()
        close(x.grad, [6.0, 6.0])

    def test_saved_tensor_modified_in_place_raises(self):
        Cube = make_cube(lucid)
        a = L([1.0, 2.0], True)
        b = a * 1
        y = Cube.apply(b)
        b.mul_(2)
        with pytest.raises(lucid.VersionMismatch):
            y.sum().backward()

    def test_second_backward_needs_retain_graph(self):
        Cube = make_cube(lucid)
        a = L([1.0, 2.0], True)
        s = Cube.apply(a * 1).sum()
        s.backward()
        with pytest.raises(lucid.LucidError, match="second time"):
            s.backward()
        a.grad = None
        s = Cube.apply(a * 1).sum()
        s.backward(retain_graph=True)
        s.backward()
        close(a.grad, 2 * 3 * np.array([1.0, 2.0]) ** 2)

    def test_once_differentiable_first_order(self):
        x = L(X3, True)
        make_cube(lucid, once=True).apply(x).sum().backward()
        close(x.grad, 3 * np.array(X3) ** 2)

    def test_once_differentiable_blocks_double_backward(self):
        x = L(X3, True)
        g, = autograd.grad(make_cube(lucid, once=True).apply(x).sum(), x, create_graph=True)
        close(g, 3 * np.array(X3) ** 2)
        assert not g.requires_grad and g.grad_fn is None
        with pytest.raises(lucid.LucidError):
            autograd.grad(g.sum(), x)

    def test_once_differentiable_vs_torch(self, torch):
        res = {}
        for m, mk in ((lucid, L), (torch, lambda a, rg=False: T(torch, a, rg))):
            x = mk(X3, True)
            g, = m.autograd.grad(make_cube(m, once=True).apply(x).sum(), x, create_graph=True)
            solo = g.requires_grad
            # mixed with a differentiable term: the Function's part contributes nothing to the second order
            g, = m.autograd.grad(make_cube(m, once=True).apply(x).sum() + (x * x).sum(), x, create_graph=True)
            gg, = m.autograd.grad(g.sum(), x)
            res[m.__name__] = (solo, to_np(gg))
        assert res["lucid"][0] == res["torch"][0] is False
        close(res["lucid"][1], res["torch"][1])
        close(res["lucid"][1], [2.0, 2.0, 2.0])

    def test_create_graph_second_derivative(self):
        x = L(X3, True)
        g, = autograd.grad(make_cube(lucid).apply(x).sum(), x, create_graph=True)
        assert g.requires_grad
        close(g, 3 * np.array(X3) ** 2)
        gg, = autograd.grad(g.sum(), x)
        close(gg, 6 * np.array(X3))

    def test_create_graph_vs_torch(self, torch):
        res = {}
        for m, mk in ((lucid, L), (torch, lambda a, rg=False: T(torch, a, rg))):
            x, y = mk([1.0, -2.0], True), mk([0.5, 3.0], True)
            a, b = make_two_out(m, {}).apply(x, y, 1.5, 0)
            out = (make_cube(m).apply(a) * b).sum()
            gx, gy = m.autograd.grad(out, (x, y), create_graph=True)
            hx = m.autograd.grad((gx * gx).sum() + gy.sum(), (x, y))
            res[m.__name__] = [to_np(t) for t in (gx, gy) + tuple(hx)]
        for a, b in zip(res["lucid"], res["torch"]):
            close(a, b)

    def test_gradcheck_and_gradgradcheck_pass(self):
        class CubeMatmul(Function):
            @staticmethod
            def forward(ctx, x, w):
                ctx.save_for_backward(x, w)
                return (x * x * x) @ w

            @staticmethod
            def backward(ctx, g):
                x, w = ctx.saved_tensors
                return (g @ w.T) * 3 * x * x, (x * x * x).T @ g

        rng = np.random.default_rng(0)
        x = L(rng.uniform(-1, 1, (2, 3)), True)
        w = L(rng.uniform(-1, 1, (3, 2)), True)
        assert gradcheck(CubeMatmul.apply, (x, w))
        assert gradgradcheck(CubeMatmul.apply, (x, w))
        assert gradcheck(make_cube(lucid).apply, (L(X3, True),))

    def test_gradcheck_wrong_backward(self):
        class BadCube(Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x * x

            @staticmethod
            def backward(ctx, g):
                x, = ctx.saved_tensors
                return g * 2 * x * x  # should be 3 x^2

        x = L(X3, True)
        assert gradcheck(BadCube.apply, (x,), raise_exception=False) is False
        with pytest.raises(GradcheckError, match="Jacobian mismatch"):
            gradcheck(BadCube.apply, (x,))
        assert issubclass(GradcheckError, RuntimeError)
        close(x, X3)  # the finite differences restored the input

    def test_gradcheck_non_differentiable_output_that_depends_on_input_fails(self):
        class ND(Function):
            @staticmethod
            def forward(ctx, x):
                y = x * 2
                ctx.mark_non_differentiable(y)
                return y

            @staticmethod
            def backward(ctx, g):
                return g * 2

        assert gradcheck(ND.apply, (L([1.0, 2.0], True),), raise_exception=False) is False

    def test_gradgradcheck_once_differentiable_fails(self):
        x = L([1.0, 2.0], True)
        assert gradgradcheck(make_cube(lucid, once=True).apply, (x,), raise_exception=False) is False


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
