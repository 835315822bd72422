"""out= (lucid/_out.py): the focused cases next to the generic op-table check (test_op_table.py::test_out):
the direct write of contiguous elementwise ops, aliasing outs, views as outs, casts, tuple outs,
errors, and PyTorch's behaviour on the same calls."""
import warnings

import numpy as np
import pytest

import lucid


def _np(t):
    return np.array(t.numpy(), copy=True)


def test_direct_write_keeps_the_buffer():
    a, b = lucid.randn(4, 3), lucid.randn(3)
    for fn, args, kw in [(lucid.add, (a, b), dict(alpha=2)), (lucid.mul, (a, 3.0), {}), (lucid.exp, (a,), {}),
                         (lucid.pow, (a.abs(), b), {}), (lucid.maximum, (a, b), {}), (lucid.sub, (2, a), {})]:
        o = lucid.empty(4, 3)
        ptr, v = o._storage_ptr(), o._version
        assert fn(*args, **kw, out=o) is o
        assert o._storage_ptr() == ptr and o._version == v + 1
        np.testing.assert_array_equal(_np(o), _np(fn(*args, **kw)))


def test_out_aliasing_an_input(torch):
    """out may be an input itself (an in-place write); a partial overlap is refused, as in PyTorch."""
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    la, ta = lucid.tensor(x), torch.tensor(x)
    assert lucid.add(la, lucid.ones(3), out=la) is la
    torch.add(ta, torch.ones(3), out=ta)
    np.testing.assert_array_equal(_np(la), ta.numpy())
    lucid.exp(la, out=la)
    torch.exp(ta, out=ta)
    np.testing.assert_allclose(_np(la), ta.numpy(), rtol=1e-6)
    msg = "some elements of the input tensor and the written-to tensor refer to a single memory location"
    for fn in (lambda m, t: m.add(t, t[0], out=t), lambda m, t: m.exp(t.T, out=t),
               lambda m, t: m.cat([t, t], out=t)):
        with pytest.raises(RuntimeError, match=msg):
            fn(lucid, lucid.tensor(x))
        with pytest.raises(RuntimeError, match=msg):
            fn(torch, torch.tensor(x))
    # disjoint parts of one buffer are fine
    lb, tb = lucid.tensor(x), torch.tensor(x)
    lucid.exp(lb[0], out=lb[1])
    torch.exp(tb[0], out=tb[1])
    np.testing.assert_allclose(_np(lb), tb.numpy(), rtol=1e-6)


def test_out_view_is_written_through():
    base = lucid.zeros(4, 6)
    view = base[:, ::2]                 # non-contiguous: the general path writes through copy_
    a = lucid.ones(4, 3)
    assert lucid.add(a, 1, out=view) is view
    assert base[:, ::2].tolist() == [[2.0] * 3] * 4 and base[:, 1::2].tolist() == [[0.0] * 3] * 4
    assert base._version == 1


def test_out_dtype_casts_like_torch(torch):
    i = [1, 2, 3]
    # integer result into a float out: fine; float result into an integer out: refused
    lo = lucid.empty(0)
    lucid.add(lucid.tensor(i), lucid.tensor(i), out=lo)
    to = torch.empty(0)
    torch.add(torch.tensor(i), torch.tensor(i), out=to)
    assert lo.dtype is lucid.float32 and lo.tolist() == to.tolist()
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        lucid.add(lucid.ones(3), 1, out=lucid.empty(3, dtype=lucid.int64))
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        torch.add(torch.ones(3), 1, out=torch.empty(3, dtype=torch.int64))
    # bool comparisons into a float out; float32 into float64
    lo = lucid.empty(3)
    lucid.lt(lucid.tensor([1, 5, 2]), 3, out=lo)
    assert lo.tolist() == [1.0, 0.0, 1.0]
    lo = lucid.empty(3, dtype=lucid.float64)
    lucid.sqrt(lucid.tensor([1.0, 4.0, 9.0]), out=lo)
    assert lo.dtype is lucid.float64 and lo.tolist() == [1.0, 2.0, 3.0]
    with pytest.raises(RuntimeError, match="ComplexFloat can't be cast to the desired output type Float"):
        lucid.mul(lucid.ones(2), 1j, out=lucid.empty(2))


def test_resize_rules(torch):
    a = lucid.ones(2, 3)
    o = lucid.empty(0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lucid.neg(a, out=o)
    assert tuple(o.shape) == (2, 3) and o.tolist() == [[-1.0] * 3] * 2
    o = lucid.empty(5)
    with pytest.warns(UserWarning, match=r"had shape \[5\], which does not match the required output shape \[2, 3\]"):
        lucid.neg(a, out=o)
    assert tuple(o.shape) == (2, 3)
    with pytest.warns(UserWarning, match=r"had shape \[5\], which does not match the required output shape \[2, 3\]"):
        torch.neg(torch.ones(2, 3), out=torch.empty(5))


def test_autograd_is_refused(torch):
    x = lucid.ones(3, requires_grad=True)
    for out in (lucid.empty(3), lucid.empty(3, requires_grad=True)):
        args = (x, lucid.ones(3)) if out.requires_grad is False else (lucid.ones(3), lucid.ones(3))
        with pytest.raises(RuntimeError, match=r"add\(\): functions with out=\.\.\. arguments don't support "
                                               r"automatic differentiation, but one of the arguments requires grad\."):
            lucid.add(*args, out=out)
        with pytest.raises(RuntimeError, match=r"exp\(\): functions with out=\.\.\. arguments don't support"):
            lucid.exp(args[0], out=out)  # the unary fast path refuses too
    with lucid.no_grad():
        o = lucid.add(x, 1, out=lucid.empty(3))
    assert not o.requires_grad and o.tolist() == [2.0] * 3
    with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
        lucid.cat([x, x], out=lucid.empty(0))
    with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
        torch.cat([torch.ones(3, requires_grad=True)] * 2, out=torch.empty(0))


def test_tuple_outs(torch):
    x = np.array([[3.0, 1.0, 2.0], [0.5, 4.0, -1.0]], dtype=np.float32)
    v, i = lucid.empty(0), lucid.empty(0, dtype=lucid.int64)
    r = lucid.max(lucid.tensor(x), 1, out=(v, i))
    assert type(r).__name__ == "max" and r.values is v and r.indices is i
    tv, ti = torch.max(torch.tensor(x), 1)
    assert v.tolist() == tv.tolist() and i.tolist() == ti.tolist()
    v, i = lucid.empty(0), lucid.empty(0, dtype=lucid.int64)
    r = lucid.sort(lucid.tensor(x), dim=1, descending=True, out=(v, i))
    assert r[0] is v and v.tolist() == torch.sort(torch.tensor(x), dim=1, descending=True).values.tolist()
    r = lucid.topk(lucid.tensor(x), 2, out=(lucid.empty(0), lucid.empty(0, dtype=lucid.int64)))
    assert r.values.tolist() == torch.topk(torch.tensor(x), 2).values.tolist()
    with pytest.raises(TypeError, match="tuple of 2 Tensors"):
        lucid.max(lucid.tensor(x), 1, out=v)
    with pytest.raises(RuntimeError, match="result type Long can't be cast to the desired output type Bool"):
        lucid.max(lucid.tensor(x), 1, out=(lucid.empty(0), lucid.empty(0, dtype=lucid.bool_)))


def test_bad_out_argument():
    with pytest.raises(TypeError, match="argument 'out' must be Tensor, not list"):
        lucid.add(lucid.ones(2), 1, out=[1, 2])


def test_products_and_linalg(torch):
    rng = np.random.default_rng(0)
    a, b, c = (rng.standard_normal((3, 3)).astype(np.float32) for _ in range(3))
    cases = [("matmul", (a, b)), ("mm", (a, b)), ("addmm", (c, a, b)), ("outer", (a[0], b[0])),
             ("chain_matmul", (a, b, c))]
    for name, args in cases:
        lo = lucid.empty(0)
        r = getattr(lucid, name)(*map(lucid.tensor, args), out=lo)
        to = torch.empty(0)
        getattr(torch, name)(*map(torch.tensor, args), out=to)
        assert r is lo
        np.testing.assert_allclose(_np(lo), to.numpy(), rtol=1e-5, atol=1e-6)
    for name, args, kw in [("norm", (a,), {}), ("vector_norm", (a,), dict(ord=3)), ("matrix_norm", (a,), {}),
                           ("multi_dot", ([a, b, c],), {}), ("vecdot", (a, b), {}), ("cross", (a, b), {})]:
        lo = lucid.empty(0)
        largs = [[lucid.tensor(x) for x in y] if isinstance(y, list) else lucid.tensor(y) for y in args]
        targs = [[torch.tensor(x) for x in y] if isinstance(y, list) else torch.tensor(y) for y in args]
        assert getattr(lucid.linalg, name)(*largs, **kw, out=lo) is lo
        to = getattr(torch.linalg, name)(*targs, **kw)
        np.testing.assert_allclose(_np(lo), to.numpy(), rtol=1e-5, atol=1e-6)
    lo = lucid.empty(0)
    assert lucid.norm(lucid.tensor(a), out=lo) is lo
    np.testing.assert_allclose(lo.item(), torch.norm(torch.tensor(a)).item(), rtol=1e-6)


def test_methods_take_no_out(torch):
    """As in PyTorch, Tensor methods have no out= (only the module functions)."""
    with pytest.raises(TypeError):
        lucid.ones(2).add(1, out=lucid.empty(2))
    with pytest.raises(TypeError):
        torch.ones(2).add(1, out=torch.empty(2))


def test_reductions_and_shapes(torch):
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    for name, args, kw in [("sum", (x, 1), {}), ("mean", (x, 0), dict(keepdim=True)), ("cumsum", (x, 1), {}),
                           ("logsumexp", (x, 1), {}), ("amax", (x, 0), {}), ("std", (x, 1), {}),
                           ("cat", ([x, x], 1), {}), ("stack", ([x, x],), {}), ("tril", (x,), {}),
                           ("where", (x > 4, x, -x), {}), ("clamp", (x, 2, 6), {})]:
        la = [([lucid.tensor(v) for v in a] if isinstance(a, list) else lucid.tensor(a) if isinstance(a, np.ndarray)
               else a) for a in args]
        ta = [([torch.tensor(v) for v in a] if isinstance(a, list) else torch.tensor(a) if isinstance(a, np.ndarray)
               else a) for a in args]
        lo, to = lucid.empty(0), torch.empty(0)
        assert getattr(lucid, name)(*la, **kw, out=lo) is lo
        getattr(torch, name)(*ta, **kw, out=to)
        assert tuple(lo.shape) == tuple(to.shape), name
        np.testing.assert_allclose(_np(lo), to.numpy(), rtol=1e-6, err_msg=name)
