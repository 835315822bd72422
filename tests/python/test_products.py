"""Focused tests of the products family (the op table covers values, dtypes, layouts and gradients):
typed errors naming the op and shapes, in-place forms, beta=0, einsum's forms and views, BLAS
operands reached without copies, cdist's zero distances, and gradients against PyTorch."""
import numpy as np
import pytest

import lucid
from helpers import to_numpy

torch = pytest.importorskip("torch")


def T(x):
    return torch.tensor(to_numpy(x))


def _r(*shape, dtype=lucid.float64, seed=0):
    rng = np.random.default_rng([seed, *shape])
    return lucid.tensor(rng.standard_normal(shape), dtype=dtype)


# ---------------------------------------------------------------------------------------------
# errors

@pytest.mark.parametrize("expr,err,match", [
    ("lucid.mm(lucid.ones(3), lucid.ones(3, 2))", lucid.ShapeMismatch, r"\[mm\].*\(3,\)"),
    ("lucid.mm(lucid.ones(2, 3), lucid.ones(2, 2))", lucid.ShapeMismatch, r"\[mm\].*2x3 and 2x2"),
    ("lucid.mm(lucid.ones(2, 2), lucid.ones(2, 2, dtype=lucid.float64))", lucid.DtypeMismatch, r"\[mm\].*float32.*float64"),
    ("lucid.bmm(lucid.ones(2, 2), lucid.ones(2, 2))", lucid.ShapeMismatch, r"\[bmm\].*\(2, 2\)"),
    ("lucid.bmm(lucid.ones(2, 2, 3), lucid.ones(3, 3, 2))", lucid.ShapeMismatch, r"\[bmm\].*\(2, 2, 3\).*\(3, 3, 2\)"),
    ("lucid.mv(lucid.ones(2, 3), lucid.ones(4))", lucid.ShapeMismatch, r"\[mv\].*2x3.*4"),
    ("lucid.mv(lucid.ones(3), lucid.ones(3))", lucid.ShapeMismatch, r"\[mv\]"),
    ("lucid.dot(lucid.ones(2, 2), lucid.ones(2, 2))", lucid.ShapeMismatch, r"\[dot\] 1D tensors expected.*\(2, 2\)"),
    ("lucid.dot(lucid.ones(3), lucid.ones(4))", lucid.ShapeMismatch, r"\[dot\].*\(3,\).*\(4,\)"),
    ("lucid.dot(lucid.ones(3), lucid.ones(3, dtype=lucid.float64))", lucid.DtypeMismatch, r"\[dot\]"),
    ("lucid.vdot(lucid.ones(3), lucid.ones(3, dtype=lucid.int64))", lucid.DtypeMismatch, r"\[vdot\]"),
    ("lucid.inner(lucid.ones(2, 3), lucid.ones(2, 4))", lucid.ShapeMismatch, r"\[inner\].*\(2, 3\).*\(2, 4\)"),
    ("lucid.inner(lucid.ones(3), lucid.ones(3, dtype=lucid.int32))", lucid.DtypeMismatch, r"\[inner\]"),
    ("lucid.outer(lucid.ones(2, 2), lucid.ones(3))", lucid.ShapeMismatch, r"\[outer\].*\(2, 2\)"),
    ("lucid.tensordot(lucid.ones(2, 3), lucid.ones(4, 2), dims=1)", lucid.ShapeMismatch, r"\[tensordot\].*size 3.*size 4"),
    ("lucid.tensordot(lucid.ones(2, 3), lucid.ones(3, 2), dims=3)", lucid.ShapeMismatch, r"\[tensordot\]"),
    ("lucid.tensordot(lucid.ones(2, 3), lucid.ones(3, 2), dims=-1)", ValueError, r"\[tensordot\]"),
    ("lucid.tensordot(lucid.ones(3, 3), lucid.ones(3, 3), dims=([0, 0], [0, 1]))", ValueError, r"multiple times"),
    ("lucid.tensordot(lucid.ones(3, 3), lucid.ones(3, 3), dims=([0], [0, 1]))", lucid.ShapeMismatch, r"same length"),
    ("lucid.tensordot(lucid.ones(3), lucid.ones(3), dims=([5], [0]))", IndexError, r"tensordot"),
    ("lucid.einsum('ij,jk', lucid.ones(2, 3))", ValueError, r"\[einsum\].*2 operand term"),
    ("lucid.einsum('ij', lucid.ones(2, 3, 4))", lucid.ShapeMismatch, r"\[einsum\].*\(2, 3, 4\)"),
    ("lucid.einsum('i1', lucid.ones(2, 3))", ValueError, r"invalid subscript '1'"),
    ("lucid.einsum('ij->k', lucid.ones(2, 3))", ValueError, r"output subscript k"),
    ("lucid.einsum('ij->ii', lucid.ones(2, 3))", ValueError, r"more than once"),
    ("lucid.einsum('i..j', lucid.ones(2, 3))", ValueError, r"ellipsis"),
    ("lucid.einsum('...i...', lucid.ones(2, 3))", ValueError, r"more than one ellipsis"),
    ("lucid.einsum('ij,j->i', lucid.ones(2, 3), lucid.ones(4))", lucid.ShapeMismatch, r"subscript j has size 4"),
    ("lucid.einsum('ii', lucid.ones(2, 3))", lucid.ShapeMismatch, r"repeated.*2 != 3"),
    ("lucid.einsum('i,i', lucid.ones(2), lucid.ones(2, dtype=lucid.float64))", lucid.DtypeMismatch, r"\[einsum\]"),
    ("lucid.cross(lucid.ones(2, 4), lucid.ones(2, 4), dim=1)", lucid.ShapeMismatch, r"\[cross\].*length 3.*\(2, 4\)"),
    ("lucid.cross(lucid.ones(2, 4), lucid.ones(2, 4))", lucid.ShapeMismatch, r"no dimension of size 3"),
    ("lucid.cross(lucid.ones(4, 1, 3), lucid.ones(2, 3), dim=-1)", lucid.ShapeMismatch, r"same number of dimensions"),
    ("lucid.cross(lucid.ones(3), lucid.ones(3, dtype=lucid.float64), dim=0)", lucid.DtypeMismatch, r"\[cross\]"),
    ("lucid.cross(lucid.ones(3, dtype=lucid.bool_), lucid.ones(3, dtype=lucid.bool_), dim=0)", lucid.DtypeMismatch, r"bool"),
    ("lucid.cross(lucid.ones(3), lucid.ones(3), dim=2)", IndexError, r"cross"),
    ("lucid.linalg.cross(lucid.ones(3, 4), lucid.ones(3, 4))", lucid.ShapeMismatch, r"\[linalg.cross\].*-1"),
    ("lucid.addmm(lucid.ones(3), lucid.ones(3, 3), lucid.ones(3, 2))", lucid.ShapeMismatch, r"\[addmm\].*\(3,\).*\(3, 2\)"),
    ("lucid.addmm(lucid.ones(2, 2, dtype=lucid.float64), lucid.ones(2, 3), lucid.ones(3, 2))", lucid.DtypeMismatch,
     r"\[addmm\]"),
    ("lucid.addmv(lucid.ones(3), lucid.ones(2, 3), lucid.ones(3))", lucid.ShapeMismatch, r"\[addmv\]"),
    ("lucid.addr(lucid.ones(2, 3, dtype=lucid.int64), lucid.ones(2, dtype=lucid.int64), "
     "lucid.ones(3, dtype=lucid.int64), alpha=2.5)", lucid.DtypeMismatch, r"\[addr\].*integral"),
    ("lucid.addbmm(lucid.ones(2, 2), lucid.ones(3, 2, 3), lucid.ones(2, 3, 2))", lucid.ShapeMismatch, r"\[addbmm\]"),
    ("lucid.baddbmm(lucid.ones(4, 2, 2), lucid.ones(3, 2, 3), lucid.ones(3, 3, 2))", lucid.ShapeMismatch,
     r"\[baddbmm\]"),
    ("lucid.linalg.multi_dot([lucid.ones(3, 4)])", ValueError, r"\[multi_dot\] expected at least 2"),
    ("lucid.linalg.multi_dot([lucid.ones(3, 4), lucid.ones(2, 4, 5), lucid.ones(5)])", lucid.ShapeMismatch,
     r"tensor 1 must be 2D"),
    ("lucid.linalg.multi_dot([lucid.ones(3, 4), lucid.ones(5, 2)])", lucid.ShapeMismatch, r"\(3, 4\) and \(5, 2\)"),
    ("lucid.linalg.multi_dot([lucid.ones(3, 4), lucid.ones(4, 2, dtype=lucid.float64)])", lucid.DtypeMismatch,
     r"multi_dot"),
    ("lucid.chain_matmul(lucid.ones(3), lucid.ones(3, 2))", lucid.ShapeMismatch, r"\[chain_matmul\]"),
    ("lucid.cdist(lucid.ones(2, 3, dtype=lucid.int64), lucid.ones(2, 3, dtype=lucid.int64))", lucid.DtypeMismatch,
     r"\[cdist\].*int64"),
    ("lucid.cdist(lucid.ones(3), lucid.ones(3))", lucid.ShapeMismatch, r"\[cdist\].*2D"),
    ("lucid.cdist(lucid.ones(2, 3), lucid.ones(2, 4))", lucid.ShapeMismatch, r"\[cdist\].*columns"),
    ("lucid.cdist(lucid.ones(2, 3), lucid.ones(2, 3), p=-1)", ValueError, r"non-negative"),
    ("lucid.cdist(lucid.ones(2, 3), lucid.ones(2, 3), compute_mode='fast')", ValueError, r"compute_mode"),
    ("lucid.cdist(lucid.ones(2, 3), lucid.ones(2, 3, dtype=lucid.float64))", lucid.DtypeMismatch, r"\[cdist\]"),
    ("lucid.linalg.vecdot(lucid.ones(3, dtype=lucid.int64), lucid.ones(3, dtype=lucid.int64))", lucid.DtypeMismatch,
     r"vecdot"),
    ("lucid.linalg.vecdot(lucid.ones(3), lucid.ones(3, dtype=lucid.float64))", lucid.DtypeMismatch, r"vecdot"),
    ("lucid.ones(2, 3).addmm_(lucid.ones(3, 3), lucid.ones(3, 3))", lucid.ShapeMismatch, r"addmm.*\(2, 3\)"),
    ("lucid.ones(3, 1).addmm_(lucid.ones(3, 3), lucid.ones(3, 3))", lucid.ShapeMismatch, r"addmm_.*\(3, 1\)"),
    ("lucid.ones(3, dtype=lucid.int64).addr_(lucid.ones(3), lucid.ones(3))", lucid.ShapeMismatch, r"addr_"),
    ("lucid.ones(3, 3, dtype=lucid.int64).addr_(lucid.ones(3), lucid.ones(3))", lucid.DtypeMismatch, r"addr_"),
])
def test_errors(expr, err, match):
    with pytest.raises(err, match=match):
        eval(expr)


def test_errors_agree_with_torch():
    """Every input we refuse above, PyTorch refuses too (spot checks of the strict forms)."""
    for fn in [lambda: torch.mm(torch.ones(2, 2), torch.ones(2, 2, dtype=torch.float64)),
               lambda: torch.dot(torch.ones(3), torch.ones(4)),
               lambda: torch.bmm(torch.ones(2, 2, 3), torch.ones(3, 3, 2)),
               lambda: torch.cross(torch.ones(2, 4), torch.ones(2, 4), dim=1)]:
        with pytest.raises(RuntimeError):
            fn()


# ---------------------------------------------------------------------------------------------
# the add-product family

ADD_CASES = {
    "addmm": lambda: (_r(3, 5), _r(3, 4, seed=1), _r(4, 5, seed=2)),
    "addmv": lambda: (_r(3), _r(3, 4, seed=1), _r(4, seed=2)),
    "addr": lambda: (_r(3, 4), _r(3, seed=1), _r(4, seed=2)),
    "addbmm": lambda: (_r(3, 5), _r(2, 3, 4, seed=1), _r(2, 4, 5, seed=2)),
    "baddbmm": lambda: (_r(2, 3, 5), _r(2, 3, 4, seed=1), _r(2, 4, 5, seed=2)),
}


@pytest.mark.parametrize("name", list(ADD_CASES))
def test_beta_zero_ignores_nan_in_input(name):
    inp, a, b = ADD_CASES[name]()
    nan = lucid.full(tuple(inp.shape), float("nan"), dtype=lucid.float64)
    got = getattr(lucid, name)(nan, a, b, beta=0, alpha=2)
    want = getattr(torch, name)(T(nan), T(a), T(b), beta=0, alpha=2)
    assert not np.isnan(to_numpy(got)).any()
    np.testing.assert_allclose(to_numpy(got), want.numpy(), rtol=1e-12, atol=1e-12)
    # beta != 0 propagates the NaN, as PyTorch
    assert np.isnan(to_numpy(getattr(lucid, name)(nan, a, b, beta=1))).all()


@pytest.mark.parametrize("name", list(ADD_CASES))
def test_inplace_forms(name):
    inp, a, b = ADD_CASES[name]()
    want = getattr(lucid, name)(inp, a, b, beta=0.5, alpha=-2)
    x = inp.clone()
    v, ptr = x._version, x.data_ptr()
    y = getattr(x, name + "_")(a, b, beta=0.5, alpha=-2)
    assert y is x and x.data_ptr() == ptr and x._version > v
    np.testing.assert_allclose(to_numpy(x), to_numpy(want), rtol=1e-12, atol=1e-12)
    tx = T(inp)
    getattr(tx, name + "_")(T(a), T(b), beta=0.5, alpha=-2)
    np.testing.assert_allclose(to_numpy(x), tx.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", list(ADD_CASES))
def test_inplace_forms_backward(name):
    inp, a, b = ADD_CASES[name]()
    leaves = [t.detach().requires_grad_() for t in (inp, a, b)]
    x = leaves[0] * 1.0
    getattr(x, name + "_")(leaves[1], leaves[2], beta=0.5, alpha=3)
    (x * x).sum().backward()
    tl = [T(t).requires_grad_() for t in (inp, a, b)]
    tx = tl[0] * 1.0
    getattr(tx, name + "_")(tl[1], tl[2], beta=0.5, alpha=3)
    (tx * tx).sum().backward()
    for l, t in zip(leaves, tl):
        np.testing.assert_allclose(to_numpy(l.grad), t.grad.numpy(), rtol=1e-10, atol=1e-10)


def test_integer_scales_truncate_as_torch():
    i = lucid.ones(2, 2, dtype=lucid.int64)
    ti = torch.ones(2, 2, dtype=torch.int64)
    got = lucid.addmm(i, i, i, alpha=2.5, beta=1.5)
    assert got.dtype is lucid.int64
    assert got.tolist() == torch.addmm(ti, ti, ti, alpha=2.5, beta=1.5).tolist()


def test_addr_promotes_as_torch():
    got = lucid.addr(lucid.ones(2, 3, dtype=lucid.int64), lucid.ones(2), lucid.ones(3), alpha=2)
    assert got.dtype is lucid.float32 and got.tolist() == [[3.0] * 3] * 2
    assert lucid.outer(lucid.ones(2, dtype=lucid.int64), lucid.ones(2, dtype=lucid.bool_)).dtype is lucid.int64
    assert lucid.kron(lucid.ones(2, dtype=lucid.int32), lucid.ones(2, dtype=lucid.float64)).dtype is lucid.float64


# ---------------------------------------------------------------------------------------------
# einsum

def test_einsum_views_and_implicit_output():
    a = _r(3, 3)
    d = lucid.einsum("ii->i", a)          # a diagonal view, as PyTorch
    assert d._is_view_of(a)
    np.testing.assert_array_equal(to_numpy(d), np.diag(to_numpy(a)))
    t = lucid.einsum("ij->ji", _r(2, 3))
    assert tuple(t.shape) == (3, 2)
    assert lucid.einsum("ii", a).item() == pytest.approx(np.trace(to_numpy(a)))
    # implicit output: letters seen once, uppercase before lowercase (ASCII), ellipsis dims first
    x, y = _r(2, 3), _r(3, 4, seed=1)
    got = lucid.einsum("bA,Ac", x, y)
    np.testing.assert_allclose(to_numpy(got), torch.einsum("bA,Ac", T(x), T(y)).numpy(), rtol=1e-12)
    got = lucid.einsum("cB,bc", _r(4, 2), _r(5, 4, seed=2))
    want = torch.einsum("cB,bc", T(_r(4, 2)), T(_r(5, 4, seed=2)))
    assert tuple(got.shape) == tuple(want.shape) == (2, 5)
    np.testing.assert_allclose(to_numpy(got), want.numpy(), rtol=1e-12)
    e = _r(2, 5, 3, seed=3)
    got = lucid.einsum("i...j", e)
    assert tuple(got.shape) == tuple(torch.einsum("i...j", T(e)).shape) == (5, 2, 3)


def test_einsum_argument_forms():
    a, b = _r(2, 3), _r(3, 4, seed=1)
    want = to_numpy(a) @ to_numpy(b)
    for got in [lucid.einsum("ij,jk->ik", a, b), lucid.einsum("ij,jk->ik", [a, b]), lucid.einsum("ij,jk->ik", (a, b)),
                lucid.einsum(" i j , j k -> i k ", a, b), lucid.einsum(a, [0, 1], b, [1, 2], [0, 2]),
                lucid.einsum(a, [0, 1], b, [1, 2]), lucid.einsum(a, [Ellipsis, 1], b, [1, 2], [Ellipsis, 2])]:
        np.testing.assert_allclose(to_numpy(got), want, rtol=1e-12)
    with pytest.raises(ValueError):
        lucid.einsum(a, [0, 60])


def test_einsum_ellipsis_summed_when_absent_from_output():
    a, b = _r(2, 3, 4), _r(4, seed=1)
    got = lucid.einsum("a...,...->a", a, b)
    np.testing.assert_allclose(to_numpy(got), torch.einsum("a...,...->a", T(a), T(b)).numpy(), rtol=1e-12)


def test_einsum_many_operands_and_gradients():
    shapes = {"ab": (3, 4), "bcd": (4, 5, 2), "dc": (2, 5), "ae": (3, 6), "e": (6,)}
    eq = "ab,bcd,dc,ae,e->a"
    xs = [_r(*s, seed=i) for i, s in enumerate(shapes.values())]
    leaves = [x.detach().requires_grad_() for x in xs]
    out = lucid.einsum(eq, *leaves)
    tl = [T(x).requires_grad_() for x in xs]
    tout = torch.einsum(eq, *tl)
    np.testing.assert_allclose(to_numpy(out), tout.detach().numpy(), rtol=1e-10)
    out.sum().backward()
    tout.sum().backward()
    for l, t in zip(leaves, tl):
        np.testing.assert_allclose(to_numpy(l.grad), t.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_einsum_diagonal_gradient():
    x = _r(3, 3, 2).requires_grad_()
    y = _r(2, 3, seed=1).requires_grad_()
    lucid.einsum("iij,jk->ik", x, y).sum().backward()
    tx, ty = T(x).requires_grad_(), T(y).requires_grad_()
    torch.einsum("iij,jk->ik", tx, ty).sum().backward()
    np.testing.assert_allclose(to_numpy(x.grad), tx.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(to_numpy(y.grad), ty.grad.numpy(), rtol=1e-12)
    assert lucid.autograd.gradcheck(lambda a: lucid.einsum("iij->ij", a), (x.detach().requires_grad_(),))


def test_einsum_batched_dot_avoids_tiny_gemms():
    a, b = _r(500, 3), _r(500, 3, seed=1)
    with lucid.profiler.profile() as p:
        r = lucid.einsum("bi,bi->b", a, b)
    assert "gemm" not in [e.name for e in p.events()]
    np.testing.assert_allclose(to_numpy(r), (to_numpy(a) * to_numpy(b)).sum(1), rtol=1e-12)


# ---------------------------------------------------------------------------------------------
# transposed operands reach BLAS as flags, not copies

@pytest.mark.parametrize("expr", [
    "lucid.mm(a.T, b)", "lucid.mm(b.T, a)", "a.T @ b", "lucid.bmm(x.mT, y)", "lucid.mv(a.T, v)",
    "lucid.tensordot(a, b, dims=([0], [0]))", "lucid.einsum('ki,kj->ij', a, b)", "lucid.einsum('ik,jk->ij', c, c)",
    "lucid.addmm(lucid.zeros(3, dtype=lucid.float64), a.T, b)",
    "lucid.baddbmm(lucid.zeros(1, dtype=lucid.float64), x.mT, y)", "lucid.inner(c, c)",
    "lucid.linalg.multi_dot([a.T, b, b.T])",
])
def test_transposed_operands_are_not_copied(expr):
    a, b, v, c = _r(5, 4), _r(5, 3, seed=1), _r(5, seed=2), _r(4, 6, seed=3)  # noqa: F841
    x, y = _r(2, 5, 4, seed=4), _r(2, 5, 3, seed=5)  # noqa: F841
    with lucid.profiler.profile() as p:
        got = eval(expr)
    names = [e.name for e in p.events()]
    assert "gemm" in names
    assert "copy" not in names, f"{expr}: {names}"
    tenv = {k: T(val) for k, val in dict(a=a, b=b, v=v, c=c, x=x, y=y).items()}
    tenv["torch"] = torch
    want = eval(expr.replace("lucid.", "torch."), tenv)
    np.testing.assert_allclose(to_numpy(got), want.numpy(), rtol=1e-12, atol=1e-12)


def test_matmul_folds_batch_into_rows():
    """(B, M, K) @ (K, N) is one GEMM (and its weight gradient one GEMM, no (B, K, N) temporary)."""
    x = _r(4, 3, 5).requires_grad_()
    w = _r(5, 2, seed=1).requires_grad_()
    with lucid.profiler.profile() as p:
        (x @ w).sum().backward()
    gemms = [e for e in p.events() if e.name == "gemm"]
    assert len(gemms) == 3
    tx, tw = T(x).requires_grad_(), T(w).requires_grad_()
    (tx @ tw).sum().backward()
    np.testing.assert_allclose(to_numpy(w.grad), tw.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(to_numpy(x.grad), tx.grad.numpy(), rtol=1e-12)


# ---------------------------------------------------------------------------------------------
# tensordot, chains, vecdot, cross

def test_tensordot_dims_forms():
    a, b = _r(2, 3, 4), _r(4, 3, 5, seed=1)
    want = torch.tensordot(T(a), T(b), dims=([1, 2], [1, 0])).numpy()
    for dims in [([1, 2], [1, 0]), ((1, 2), (1, 0)), [[1, 2], [1, 0]]]:
        np.testing.assert_allclose(to_numpy(lucid.tensordot(a, b, dims=dims)), want, rtol=1e-12)
    np.testing.assert_allclose(to_numpy(lucid.tensordot(a, b, dims=(2, 0))),
                               torch.tensordot(T(a), T(b), dims=([2], [0])).numpy(), rtol=1e-12)
    np.testing.assert_allclose(to_numpy(lucid.tensordot(a, b, lucid.tensor(1))),
                               torch.tensordot(T(a), T(b), dims=1).numpy(), rtol=1e-12)
    # a contracted size of 1 broadcasts against the other side, as PyTorch
    c, d = _r(2, 1), _r(3, 4, seed=2)
    np.testing.assert_allclose(to_numpy(lucid.tensordot(c, d, dims=([1], [0]))),
                               torch.tensordot(T(c), T(d), dims=([1], [0])).numpy(), rtol=1e-12)


def test_multi_dot_order_and_vectors():
    # (10x100)(100x5)(5x50): ((AB)C) costs 7500 multiplications, (A(BC)) 75000; both give the product
    ms = [_r(10, 100), _r(100, 5, seed=1), _r(5, 50, seed=2)]
    with lucid.profiler.profile() as p:
        got = lucid.linalg.multi_dot(ms)
    gemm_shapes = [e.input_shapes for e in p.events() if e.name == "gemm"]
    assert gemm_shapes[0][1:] == [[1, 10, 100], [1, 100, 5]]     # A @ B first
    np.testing.assert_allclose(to_numpy(got), np.linalg.multi_dot([to_numpy(m) for m in ms]), rtol=1e-10)
    v = lucid.linalg.multi_dot([_r(4), _r(4, 3, seed=1), _r(3, seed=2)])
    assert tuple(v.shape) == ()
    assert tuple(lucid.linalg.multi_dot([_r(4), _r(4, 3, seed=1)]).shape) == (3,)
    one = _r(3, 4)
    c = lucid.chain_matmul(one)
    assert not c._is_view_of(one)
    np.testing.assert_array_equal(to_numpy(c), to_numpy(one))


def test_vecdot_conjugates_x():
    x = lucid.tensor([1 + 2j, 3 - 1j])
    y = lucid.tensor([2 - 1j, 1 + 1j])
    assert lucid.linalg.vecdot(x, y).item() == pytest.approx(complex(torch.linalg.vecdot(T(x), T(y))))
    assert lucid.vdot(x, y).item() == pytest.approx(complex(torch.vdot(T(x), T(y))))
    assert lucid.dot(x, y).item() == pytest.approx(complex(torch.dot(T(x), T(y))))


def test_cross_default_dim_and_gradients():
    a, b = _r(3, 4, 3), _r(3, 4, 3, seed=1)
    np.testing.assert_allclose(to_numpy(lucid.cross(a, b)), torch.cross(T(a), T(b), dim=0).numpy(), rtol=1e-12)
    np.testing.assert_allclose(to_numpy(lucid.linalg.cross(a, b)), torch.linalg.cross(T(a), T(b)).numpy(), rtol=1e-12)
    c = lucid.tensor([[1 + 1j, 2, 3j]])
    d = lucid.tensor([[2j, 1 - 1j, 1]])
    np.testing.assert_allclose(to_numpy(lucid.linalg.cross(c, d)), torch.linalg.cross(T(c), T(d)).numpy(), rtol=1e-12)
    la, lb = _r(2, 1, 3).requires_grad_(), _r(1, 4, 3, seed=1).requires_grad_()
    lucid.linalg.cross(la, lb).sum().backward()
    ta, tb = T(la).requires_grad_(), T(lb).requires_grad_()
    torch.linalg.cross(ta, tb).sum().backward()
    np.testing.assert_allclose(to_numpy(la.grad), ta.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(to_numpy(lb.grad), tb.grad.numpy(), rtol=1e-12)


# ---------------------------------------------------------------------------------------------
# cdist

@pytest.mark.parametrize("mode", ["use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist"])
def test_cdist_zero_distance_has_zero_gradient(mode):
    x = _r(4, 3).requires_grad_()
    d = lucid.cdist(x, x, compute_mode=mode)
    d.sum().backward()
    assert np.isfinite(to_numpy(x.grad)).all()
    tx = T(x).requires_grad_()
    torch.cdist(tx, tx, compute_mode=mode).sum().backward()
    np.testing.assert_allclose(to_numpy(x.grad), tx.grad.numpy(), rtol=1e-8, atol=1e-8)


@pytest.mark.parametrize("p", [0.0, 0.5, 1.0, 2.0, 3.0, float("inf")])
def test_cdist_gradients_match_torch(p):
    x1, x2 = _r(2, 4, 3).requires_grad_(), _r(5, 3, seed=1).requires_grad_()
    lucid.cdist(x1, x2, p=p).sum().backward()
    t1, t2 = T(x1).requires_grad_(), T(x2).requires_grad_()
    torch.cdist(t1, t2, p=p).sum().backward()
    np.testing.assert_allclose(to_numpy(x1.grad), t1.grad.numpy(), rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(to_numpy(x2.grad), t2.grad.numpy(), rtol=1e-8, atol=1e-10)


def test_cdist_large_uses_the_gemm_path():
    x1, x2 = _r(40, 8), _r(30, 8, seed=1)
    with lucid.profiler.profile() as p:
        d = lucid.cdist(x1, x2)
    assert "gemm" in [e.name for e in p.events()]
    with lucid.profiler.profile() as p:
        e = lucid.cdist(x1, x2, compute_mode="donot_use_mm_for_euclid_dist")
    assert "gemm" not in [ev.name for ev in p.events()]
    np.testing.assert_allclose(to_numpy(d), to_numpy(e), rtol=1e-10)
    np.testing.assert_allclose(to_numpy(d), torch.cdist(T(x1), T(x2)).numpy(), rtol=1e-10)


def test_linalg_module():
    assert lucid.linalg.matmul is lucid.matmul  # (both take out=)
    a = _r(2, 3)
    np.testing.assert_allclose(to_numpy(lucid.linalg.matmul(a, a.T)), to_numpy(a) @ to_numpy(a).T, rtol=1e-12)


# ---------------------------------------------------------------------------------------------
# norms

@pytest.mark.parametrize("expr,err,match", [
    ("lucid.linalg.vector_norm(lucid.ones(3, dtype=lucid.int64))", lucid.DtypeMismatch, r"vector_norm.*int64"),
    ("lucid.linalg.vector_norm(lucid.ones(3), dtype=lucid.int32)", lucid.DtypeMismatch, r"vector_norm"),
    ("lucid.linalg.vector_norm(lucid.zeros(0, 3), float('inf'), dim=0)", IndexError, r"inf norm on an empty"),
    ("lucid.linalg.vector_norm(lucid.ones(2, 3), dim=(0, 0))", ValueError, r"multiple times"),
    ("lucid.linalg.vector_norm(lucid.ones(2, 3), dim=2)", IndexError, r"vector_norm"),
    ("lucid.linalg.matrix_norm(lucid.ones(3))", lucid.ShapeMismatch, r"matrix_norm.*at least 2"),
    ("lucid.linalg.matrix_norm(lucid.ones(3, 3), 'nuc')", NotImplementedError, r"svd"),
    ("lucid.linalg.matrix_norm(lucid.ones(3, 3), 2)", NotImplementedError, r"svd"),
    ("lucid.linalg.matrix_norm(lucid.ones(3, 3), 3)", ValueError, r"order 3"),
    ("lucid.linalg.matrix_norm(lucid.ones(3, 3), dim=(0, 0))", ValueError, r"different"),
    ("lucid.linalg.norm(lucid.ones(2, 3, 4), 2)", RuntimeError, r"1-D or 2-D"),
])
def test_norm_errors(expr, err, match):
    with pytest.raises(err, match=match):
        eval(expr)


@pytest.mark.parametrize("ord", [2, 1, 3, 0.5, float("inf")])
def test_vector_norm_of_zero_vector_has_zero_gradient(ord):
    x = lucid.zeros(2, 3, dtype=lucid.float64).requires_grad_()
    lucid.linalg.vector_norm(x, ord, dim=1).sum().backward()
    tx = torch.zeros(2, 3, dtype=torch.float64, requires_grad=True)
    torch.linalg.vector_norm(tx, ord, dim=1).sum().backward()
    np.testing.assert_array_equal(to_numpy(x.grad), tx.grad.numpy())


def test_norm_spellings_and_dtypes():
    x = _r(3, 4)
    tx = T(x)
    for got, want in [(lucid.norm(x), torch.norm(tx)), (x.norm(), tx.norm()), (x.norm(1, dim=1), tx.norm(1, dim=1)),
                      (x.norm(p="fro", dim=(0, 1), keepdim=True), tx.norm(p="fro", dim=(0, 1), keepdim=True)),
                      (lucid.linalg.norm(x, float("inf")), torch.linalg.norm(tx, float("inf"))),
                      (lucid.linalg.norm(x, dim=(1, 0)), torch.linalg.norm(tx, dim=(1, 0))),
                      (lucid.linalg.norm(x[0], 3), torch.linalg.norm(tx[0], 3))]:
        assert tuple(got.shape) == tuple(want.shape)
        np.testing.assert_allclose(to_numpy(got), want.numpy(), rtol=1e-12)
    c = lucid.tensor([[3 + 4j, 0], [1j, 1]])
    assert lucid.linalg.vector_norm(c).dtype is lucid.float32
    assert lucid.linalg.vector_norm(c, 1).item() == pytest.approx(7.0)
    assert lucid.linalg.vector_norm(lucid.ones(3), dtype=lucid.float64).dtype is lucid.float64
    assert lucid.linalg.vector_norm(lucid.tensor([0.0, 2.0, 0.0, -1.0]), 0).item() == 2.0


def _c(*shape, seed=0):
    rng = np.random.default_rng([seed, *shape])
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


@pytest.mark.parametrize("name,fn", [
    ("einsum", lambda m, a, b, c: m.einsum("ij,jk,k->i", a, b, c)),
    ("einsum_diag", lambda m, a, b, c: m.einsum("ii,ij->j", a[:, :3], b[:3])),
    ("addmv", lambda m, a, b, c: m.addmv(m.mv(a, m.mv(b, c)), a, m.mv(b, c), beta=0.5, alpha=2)),
    ("vdot", lambda m, a, b, c: m.vdot(m.mv(b, c), a[0]).reshape(1)),
    ("cross", lambda m, a, b, c: m.linalg.cross(a[:, :3], b[:3, :3])),
    ("vecdot", lambda m, a, b, c: m.linalg.vecdot(a, b.T[:3])),
    ("kron", lambda m, a, b, c: m.kron(a, c)),
    ("tensordot", lambda m, a, b, c: m.tensordot(a, b, dims=([1], [0]))),
    ("matrix_norm_1", lambda m, a, b, c: m.linalg.matrix_norm(a, 1).reshape(1)),
    ("matrix_norm_inf", lambda m, a, b, c: m.linalg.matrix_norm(a, float("inf")).reshape(1)),
    ("vector_norm_3", lambda m, a, b, c: m.linalg.vector_norm(a, 3, dim=1)),
])
def test_complex_gradients_match_torch(name, fn):
    """Complex inputs through a real loss (a vector norm): PyTorch's conjugate-gradient convention."""
    arrs = [_c(3, 4), _c(4, 5, seed=1), _c(5, seed=2)]
    ls = [lucid.tensor(x).requires_grad_() for x in arrs]
    ts = [torch.tensor(x, requires_grad=True) for x in arrs]
    lo, to = fn(lucid, *ls), fn(torch, *ts)
    np.testing.assert_allclose(to_numpy(lo), to.detach().numpy(), rtol=1e-10, atol=1e-12)
    lucid.linalg.vector_norm(lo, 1.5).backward()
    torch.linalg.vector_norm(to, 1.5).backward()
    for l, t in zip(ls, ts):
        if t.grad is None:
            assert l.grad is None or not to_numpy(l.grad).any()
        else:
            np.testing.assert_allclose(to_numpy(l.grad), t.grad.numpy(), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("sa,sb", [((2, 3, 0), (0, 4)), ((0, 3, 2), (2, 4)), ((2, 0, 3), (3,)), ((2, 3, 0), (0,)),
                                   ((2, 1, 1, 0), (3, 0, 2)), ((0,), (0,))])
def test_matmul_empty_operands(sa, sb):
    """Empty inputs (an empty inner dimension gives zeros), through the folded and batched paths."""
    got = lucid.ones(*sa) @ lucid.ones(*sb)
    want = torch.ones(*sa) @ torch.ones(*sb)
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_array_equal(to_numpy(got), want.numpy())
