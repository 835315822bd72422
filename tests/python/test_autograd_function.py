"""Custom differentiable functions (lucid.autograd.Function) and gradcheck / gradgradcheck."""
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
