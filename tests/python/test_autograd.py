"""Autograd engine (spec 000/001): backward, gradients of every differentiable op, finite differences,
higher order, accumulation, retain_graph, lucid.autograd.grad, versions, grad mode, detach, graph
structure and memory.

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


@pytest.fixture(autouse=True)
def _grad_mode_is_restored():
    """Every test must leave grad mode on and inference mode off."""
    yield
    leaked = (not lucid.is_grad_enabled(), lucid.is_inference_mode_enabled())
    lucid._C._set_grad_enabled(True)
    lucid._C._set_inference_mode(False)
    assert leaked == (False, False), "a test leaked grad mode / inference mode"


# ---------------------------------------------------------------------------------------------
# helpers

def to_np(t):
    return None if t is None else np.array(t.detach().numpy(), copy=True)


def L(arr, dtype=lucid.float64, requires_grad=False):
    return lucid.tensor(np.asarray(arr), dtype=dtype, requires_grad=requires_grad)


def tol(dtype_name):
    return dict(rtol=1e-5, atol=1e-5) if dtype_name == "float32" else dict(rtol=1e-10, atol=1e-12)


def make_leaf(m, arr, dtype, layout):
    """(leaf, view): the leaf requires grad; `view(leaf)` is what the op sees (and view(leaf.grad) is the
    gradient with respect to it).

    contiguous: the op sees the leaf. transposed: the leaf holds the transposed data and the op sees a
    permuted (non-contiguous) view of it. strided: the op sees every other element of a longer leaf.
    leaf_nc: the leaf itself is a non-contiguous tensor (a transposed view made before requires_grad)."""
    arr = np.asarray(arr)
    nd = arr.ndim
    rev = tuple(range(nd))[::-1]
    ident = lambda t: t  # noqa: E731
    if layout == "contiguous" or nd == 0:
        return m.tensor(arr.copy(), dtype=dtype, requires_grad=True), ident
    if layout == "transposed":
        leaf = m.tensor(np.ascontiguousarray(arr.transpose(rev)), dtype=dtype, requires_grad=True)
        return leaf, lambda t: t.permute(*rev)
    if layout == "strided":
        big = np.zeros(arr.shape[:-1] + (2 * arr.shape[-1],), dtype=arr.dtype)
        big[..., ::2] = arr
        return m.tensor(big, dtype=dtype, requires_grad=True), lambda t: t[..., ::2]
    if layout == "leaf_nc":
        base = m.tensor(np.ascontiguousarray(arr.transpose(rev)), dtype=dtype)
        leaf = base.permute(*rev)
        leaf.requires_grad_(True)
        assert leaf.is_leaf
        return leaf, ident
    raise AssertionError(layout)


def inputs_for(shapes, seed=0):
    rng = np.random.default_rng(seed)
    # positive and away from 0 (div), not integers (exercise rounding)
    return [rng.uniform(0.5, 2.0, size=s) * rng.choice([1.0, 1.0, -1.0], size=s) if s != () else
            np.array(rng.uniform(0.5, 2.0)) for s in shapes]


def central_difference(f, arrays, grad_out, eps=1e-6):
    """d/d(arrays) of sum(f(arrays) * grad_out), by central differences in float64.

    f takes float64 numpy arrays and returns a numpy array (the forward computed with lucid)."""
    grads = []
    for i, a in enumerate(arrays):
        g = np.zeros_like(a, dtype=np.float64)
        flat = g.reshape(-1)
        for k in range(a.size):
            plus = [x.copy() for x in arrays]
            minus = [x.copy() for x in arrays]
            plus[i].reshape(-1)[k] += eps
            minus[i].reshape(-1)[k] -= eps
            fp = np.sum(np.asarray(f(plus)) * grad_out)
            fm = np.sum(np.asarray(f(minus)) * grad_out)
            flat[k] = (fp - fm) / (2 * eps)
        grads.append(g)
    return grads


# ---------------------------------------------------------------------------------------------
# The differentiable ops. Each entry: (id, input shapes, fn(module, *inputs), layouts that apply).
# fn works for lucid and torch alike (`m` is the module, for dtypes).

ALL_LAYOUTS = ("contiguous", "transposed", "strided", "leaf_nc")
CONTIG = ("contiguous",)

OPS = [
    # arithmetic, same shape
    ("add", [(2, 3), (2, 3)], lambda m, a, b: a + b, ALL_LAYOUTS),
    ("add_alpha", [(2, 3), (2, 3)], lambda m, a, b: a.add(b, alpha=2.5), ALL_LAYOUTS),
    ("sub", [(2, 3), (2, 3)], lambda m, a, b: a - b, ALL_LAYOUTS),
    ("sub_alpha", [(2, 3), (2, 3)], lambda m, a, b: a.sub(b, alpha=-1.5), ALL_LAYOUTS),
    ("mul", [(2, 3), (2, 3)], lambda m, a, b: a * b, ALL_LAYOUTS),
    ("mul_self", [(2, 3)], lambda m, a: a * a, ALL_LAYOUTS),
    ("div", [(2, 3), (2, 3)], lambda m, a, b: a / b, ALL_LAYOUTS),
    ("neg", [(2, 3)], lambda m, a: -a, ALL_LAYOUTS),
    # Python scalars on either side
    ("add_scalar", [(2, 3)], lambda m, a: a + 2.5, ALL_LAYOUTS),
    ("radd_scalar", [(2, 3)], lambda m, a: 2.5 + a, ALL_LAYOUTS),
    ("sub_scalar", [(2, 3)], lambda m, a: a - 2.5, ALL_LAYOUTS),
    ("rsub_scalar", [(2, 3)], lambda m, a: 2.5 - a, ALL_LAYOUTS),
    ("mul_scalar", [(2, 3)], lambda m, a: a * 2.5, ALL_LAYOUTS),
    ("rmul_int", [(2, 3)], lambda m, a: 3 * a, ALL_LAYOUTS),
    ("div_scalar", [(2, 3)], lambda m, a: a / 2.5, ALL_LAYOUTS),
    ("rdiv_scalar", [(2, 3)], lambda m, a: 2.5 / a, ALL_LAYOUTS),
    # broadcasting
    ("add_bcast", [(3, 1), (1, 4)], lambda m, a, b: a + b, ALL_LAYOUTS),
    ("sub_bcast", [(2, 3, 4), (4,)], lambda m, a, b: a - b, ALL_LAYOUTS),
    ("rsub_bcast", [(4,), (2, 3, 4)], lambda m, a, b: a - b, ALL_LAYOUTS),
    ("mul_bcast", [(2, 1, 3), (4, 1)], lambda m, a, b: a * b, ALL_LAYOUTS),
    ("div_bcast", [(3, 4), (1, 4)], lambda m, a, b: a / b, ALL_LAYOUTS),
    ("rdiv_bcast", [(4,), (3, 4)], lambda m, a, b: a / b, ALL_LAYOUTS),
    ("mul_0d", [(2, 3), ()], lambda m, a, s: a * s, ALL_LAYOUTS),
    ("div_0d_left", [(), (2, 3)], lambda m, s, a: s / a, ALL_LAYOUTS),
    # reductions
    ("sum_all", [(2, 3, 4)], lambda m, a: a.sum(), ALL_LAYOUTS),
    ("sum_dim", [(2, 3, 4)], lambda m, a: a.sum(1), ALL_LAYOUTS),
    ("sum_neg_keepdim", [(2, 3, 4)], lambda m, a: a.sum(-1, keepdim=True), ALL_LAYOUTS),
    ("sum_dims", [(2, 3, 4)], lambda m, a: a.sum((0, 2)), ALL_LAYOUTS),
    ("sum_fn", [(3, 4)], lambda m, a: m.sum(a, dim=0), ALL_LAYOUTS),
    # matmul
    ("mm", [(3, 4), (4, 5)], lambda m, a, b: a @ b, ALL_LAYOUTS),
    ("dot", [(4,), (4,)], lambda m, a, b: a @ b, ALL_LAYOUTS),
    ("vm", [(4,), (4, 5)], lambda m, a, b: m.matmul(a, b), ALL_LAYOUTS),
    ("mv", [(3, 4), (4,)], lambda m, a, b: a.matmul(b), ALL_LAYOUTS),
    ("bmm", [(2, 3, 4), (2, 4, 5)], lambda m, a, b: a @ b, ALL_LAYOUTS),
    ("bmm_bcast", [(2, 3, 4), (4, 5)], lambda m, a, b: a @ b, ALL_LAYOUTS),
    ("bmm_bcast1", [(1, 3, 4), (2, 4, 5)], lambda m, a, b: a @ b, ALL_LAYOUTS),
    ("vbmm", [(4,), (2, 4, 5)], lambda m, a, b: a @ b, ALL_LAYOUTS),
    # casts and copies
    ("to_float64", [(2, 3)], lambda m, a: a.to(m.float64) * 1.5, ALL_LAYOUTS),
    ("to_float32", [(2, 3)], lambda m, a: a.to(m.float32) * 1.5, ALL_LAYOUTS),
    ("double_float", [(2, 3)], lambda m, a: a.double().float() + a.float().double(), ALL_LAYOUTS),
    ("clone", [(2, 3)], lambda m, a: a.clone(), ALL_LAYOUTS),
    ("contiguous", [(2, 3)], lambda m, a: a.contiguous(), ALL_LAYOUTS),
    # views
    ("reshape", [(2, 3, 4)], lambda m, a: a.reshape(4, 6), ALL_LAYOUTS),
    ("reshape_infer", [(2, 3, 4)], lambda m, a: a.reshape(-1, 2), ALL_LAYOUTS),
    ("view", [(2, 3, 4)], lambda m, a: a.contiguous().view(6, 4), ALL_LAYOUTS),
    ("view_leaf", [(2, 3, 4)], lambda m, a: a.view(2, 12), CONTIG),
    ("flatten", [(2, 3, 4)], lambda m, a: a.flatten(1), ALL_LAYOUTS),
    ("permute", [(2, 3, 4)], lambda m, a: a.permute(2, 0, 1), ALL_LAYOUTS),
    ("transpose", [(2, 3, 4)], lambda m, a: a.transpose(0, 2), ALL_LAYOUTS),
    ("T", [(3, 4)], lambda m, a: a.T, ALL_LAYOUTS),
    ("t", [(3, 4)], lambda m, a: a.t(), ALL_LAYOUTS),
    ("mT", [(2, 3, 4)], lambda m, a: a.mT, ALL_LAYOUTS),
    ("squeeze", [(2, 1, 3, 1)], lambda m, a: a.squeeze(), ALL_LAYOUTS),
    ("squeeze_dim", [(2, 1, 3, 1)], lambda m, a: a.squeeze(1), ALL_LAYOUTS),
    ("unsqueeze", [(2, 3)], lambda m, a: a.unsqueeze(1), ALL_LAYOUTS),
    ("unsqueeze_neg", [(2, 3)], lambda m, a: a.unsqueeze(-1), ALL_LAYOUTS),
    ("expand", [(3, 1)], lambda m, a: a.expand(2, 3, 4), ALL_LAYOUTS),
    ("expand_minus1", [(1, 3)], lambda m, a: a.expand(4, -1), ALL_LAYOUTS),
    ("expand_as", [(1, 3)], lambda m, a: a.expand_as(m.zeros(2, 3, dtype=a.dtype)), ALL_LAYOUTS),
    ("broadcast_to", [(3,)], lambda m, a: m.broadcast_to(a, (2, 3)), ALL_LAYOUTS),
    ("narrow", [(3, 5)], lambda m, a: a.narrow(1, 1, 3), ALL_LAYOUTS),
    ("narrow_neg", [(4, 3)], lambda m, a: a.narrow(0, -3, 2), ALL_LAYOUTS),
    ("select", [(3, 4)], lambda m, a: a.select(1, 2), ALL_LAYOUTS),
    ("select_neg", [(3, 4)], lambda m, a: a.select(0, -1), ALL_LAYOUTS),
    ("diagonal", [(4, 4)], lambda m, a: a.diagonal(), ALL_LAYOUTS),
    ("diagonal_off", [(3, 5)], lambda m, a: a.diagonal(1), ALL_LAYOUTS),
    ("diagonal_negoff", [(5, 3)], lambda m, a: a.diagonal(-2), ALL_LAYOUTS),
    ("diagonal_dims", [(2, 3, 3)], lambda m, a: a.diagonal(0, 1, 2), ALL_LAYOUTS),
    ("unfold", [(2, 6)], lambda m, a: a.unfold(1, 2, 2), ALL_LAYOUTS),
    ("unfold_gap", [(7, 2)], lambda m, a: a.unfold(0, 2, 3), ALL_LAYOUTS),
    ("as_strided", [(3, 4)], lambda m, a: a.as_strided((2, 2), (4, 1), 1), CONTIG),
    ("as_strided_cols", [(3, 4)], lambda m, a: a.as_strided((4, 2), (1, 4)), CONTIG),
    # indexing
    ("index_int", [(3, 4)], lambda m, a: a[1], ALL_LAYOUTS),
    ("index_neg_int_slice", [(3, 4)], lambda m, a: a[-1, 1:3], ALL_LAYOUTS),
    ("index_slice_step", [(5, 4)], lambda m, a: a[::2, 1:], ALL_LAYOUTS),
    ("index_none_ellipsis", [(3, 4)], lambda m, a: a[None, ..., ::2], ALL_LAYOUTS),
    ("index_ellipsis_int", [(2, 3, 4)], lambda m, a: a[..., 0], ALL_LAYOUTS),
    ("index_mixed", [(2, 3, 4)], lambda m, a: a[:, None, 1, -2:], ALL_LAYOUTS),
    ("index_twice", [(4, 5)], lambda m, a: a[1:][:, 2], ALL_LAYOUTS),
    # compositions: a shared input with several consumers, views of views, view + arithmetic
    ("composite", [(3, 4), (4,)], lambda m, a, b: (a * b + a.T.sum(1).unsqueeze(0).expand(3, 4)
                                                     - a[1] / b).sum(0) @ b, ALL_LAYOUTS),
]
OP_IDS = [o[0] for o in OPS]
FIRST_ORDER_CASES = [pytest.param(o, lay, id=f"{o[0]}-{lay}") for o in OPS for lay in o[3]]


def _run(m, op, arrays, dtype, layout, grad_out_seed=99):
    """Runs op on leaves in `layout`; returns (output, gradients w.r.t. what the op saw)."""
    name, shapes, fn, _ = op
    pairs = [make_leaf(m, a, dtype, layout) for a in arrays]
    out = fn(m, *[view(leaf) for leaf, view in pairs])
    g = np.random.default_rng(grad_out_seed).standard_normal(tuple(out.shape))
    out.backward(m.tensor(g, dtype=out.dtype))
    grads = []
    for leaf, view in pairs:
        assert leaf.grad is not None
        assert tuple(leaf.grad.shape) == tuple(leaf.shape)
        if layout == "strided" and leaf.dim() > 0:  # the skipped elements got no gradient
            assert not to_np(leaf.grad)[..., 1::2].any()
        grads.append(to_np(view(leaf.grad)))
    return to_np(out), grads


@pytest.mark.parametrize("dtype_name", ["float32", "float64"])
@pytest.mark.parametrize("op,layout", FIRST_ORDER_CASES)
def test_op_gradients_match_torch(torch, op, layout, dtype_name):
    arrays = inputs_for(op[1])
    out_l, grads_l = _run(lucid, op, arrays, getattr(lucid, dtype_name), layout)
    out_t, grads_t = _run(torch, op, arrays, getattr(torch, dtype_name), layout)
    np.testing.assert_allclose(out_l, out_t, **tol(dtype_name))
    for gl, gt in zip(grads_l, grads_t):
        assert gl is not None
        assert gl.shape == gt.shape
        np.testing.assert_allclose(gl, gt, **tol(dtype_name))


@pytest.mark.parametrize("dtype_name", ["float32", "float64"])
@pytest.mark.parametrize("op", OPS, ids=OP_IDS)
def test_op_gradient_dtype_and_shape(op, dtype_name):
    """The gradient of a leaf has the leaf's shape and dtype (also through casts)."""
    arrays = inputs_for(op[1])
    dt = getattr(lucid, dtype_name)
    leaves = [lucid.tensor(a, dtype=dt, requires_grad=True) for a in arrays]
    out = op[2](lucid, *leaves)
    if op[0] != "contiguous":  # contiguous() of a contiguous tensor is the tensor itself
        assert out.requires_grad and out.grad_fn is not None and not out.is_leaf
    out.backward(lucid.ones(*out.shape, dtype=out.dtype))
    for leaf in leaves:
        assert leaf.grad is not None
        assert leaf.grad.dtype == dt
        assert tuple(leaf.grad.shape) == tuple(leaf.shape)
        assert leaf.grad.grad_fn is None and not leaf.grad.requires_grad


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "leaf_nc"])
@pytest.mark.parametrize("op", OPS, ids=OP_IDS)
def test_op_gradients_finite_difference(op, layout):
    if layout not in op[3]:
        pytest.skip("layout does not apply")
    if op[0] in ("to_float32", "double_float"):
        pytest.skip("a float32 round trip is not differentiable to float64 precision")
    name, shapes, fn, _ = op
    arrays = [np.asarray(a, dtype=np.float64) for a in inputs_for(shapes, seed=1)]

    def forward(arrs):
        with lucid.no_grad():
            ins = [L(a) for a in arrs]
            return to_np(fn(lucid, *ins))

    _, grads = _run(lucid, op, arrays, lucid.float64, layout, grad_out_seed=5)
    out_shape = forward(arrays).shape
    g_out = np.random.default_rng(5).standard_normal(out_shape)
    numeric = central_difference(forward, arrays, g_out, eps=1e-6)
    for analytic, num in zip(grads, numeric):
        np.testing.assert_allclose(analytic, num, rtol=1e-6, atol=1e-7)


# hand-computed values (meaningful without torch)

def test_hand_computed_arithmetic_and_broadcasting():
    a = L([[1.0], [2.0], [3.0]], requires_grad=True)       # (3, 1)
    b = L([[10.0, 20.0, 30.0, 40.0]], requires_grad=True)  # (1, 4)
    y = (a * b + 2.0 - a / 2.0 + 3.0 * b).sum()
    y.backward()
    # dy/da = sum_j b_j - 4/2 ; dy/db = sum_i a_i + 3*3
    np.testing.assert_allclose(to_np(a.grad), [[100.0 - 2.0]] * 3)
    np.testing.assert_allclose(to_np(b.grad), [[6.0 + 9.0] * 4])
    x = L([1.0, 2.0, 4.0], requires_grad=True)
    (2.0 / x).backward(L([1.0, 1.0, 1.0]))
    np.testing.assert_allclose(to_np(x.grad), [-2.0, -0.5, -0.125])
    x.grad = None
    (1.0 - x).sum().backward()
    np.testing.assert_allclose(to_np(x.grad), [-1.0] * 3)


def test_hand_computed_matmul_and_views():
    A = L(np.arange(6.0).reshape(2, 3), requires_grad=True)
    B = L(np.ones((3, 2)), requires_grad=True)
    (A @ B).sum().backward()
    np.testing.assert_allclose(to_np(A.grad), np.ones((2, 3)) * 2)
    np.testing.assert_allclose(to_np(B.grad), np.repeat(np.arange(6.0).reshape(2, 3).sum(0)[:, None], 2, 1))
    x = L(np.arange(12.0).reshape(3, 4), requires_grad=True)
    (x[1:, ::2].sum() + x.T[0].sum() * 10 + x.diagonal().sum() * 100).backward()
    expect = np.zeros((3, 4))
    expect[1:, ::2] += 1
    expect[:, 0] += 10
    expect[[0, 1, 2], [0, 1, 2]] += 100
    np.testing.assert_allclose(to_np(x.grad), expect)


def test_hand_computed_cast_gradient_dtype():
    x = lucid.tensor([1.0, 2.0], dtype=lucid.float32, requires_grad=True)
    w = lucid.tensor([3.0, 5.0], dtype=lucid.float64, requires_grad=True)
    y = x * w  # promotes x to float64 through a recorded cast
    assert y.dtype == lucid.float64
    assert y.grad_fn.next_functions[0][0].name() == "ToCopyBackward0"
    y.sum().backward()
    assert x.grad.dtype == lucid.float32 and w.grad.dtype == lucid.float64
    np.testing.assert_allclose(to_np(x.grad), [3.0, 5.0])
    np.testing.assert_allclose(to_np(w.grad), [1.0, 2.0])


def test_integer_results_carry_no_gradient():
    x = lucid.tensor([1.5, 2.5], requires_grad=True)
    i = x.int()
    assert not i.requires_grad and i.grad_fn is None
    y = x * lucid.tensor([2, 3])  # int tensor on the other side: promoted, no grad for it
    y.sum().backward()
    np.testing.assert_allclose(to_np(x.grad), [2.0, 3.0])


def test_overlapping_view_gradients_not_supported_yet():
    """Current behaviour (documented in engine/ops/view.cpp): the gradient of overlapping windows
    (unfold with step < size, overlapping as_strided) and of as_strided on a non-contiguous tensor
    raise lucid.errors.NotImplementedError; PyTorch supports them."""
    x = L(np.arange(6.0), requires_grad=True)
    with pytest.raises(lucid.errors.NotImplementedError):
        x.unfold(0, 3, 1).sum().backward()
    with pytest.raises(lucid.errors.NotImplementedError):
        x.as_strided((3, 2), (1, 1)).sum().backward()
    y = L(np.arange(6.0).reshape(3, 2)).T
    y.requires_grad_(True)
    with pytest.raises(lucid.errors.NotImplementedError):
        y.as_strided((2, 2), (1, 1)).sum().backward()


# ---------------------------------------------------------------------------------------------
# backward(): scalars, explicit gradient, errors

def test_backward_scalar_and_0d():
    x = L(3.0, requires_grad=True)
    y = x * x * 2.0
    assert y.shape == ()
    y.backward()
    assert x.grad.shape == ()
    assert x.grad.item() == pytest.approx(12.0)
    z = L([2.0], requires_grad=True)  # one element, shape (1,): implicit gradient allowed
    (z * 5.0).backward()
    assert z.grad.tolist() == [5.0]


def test_backward_explicit_gradient():
    x = L([1.0, 2.0, 3.0], requires_grad=True)
    y = x * L([2.0, 3.0, 4.0])
    y.backward(L([1.0, 10.0, 100.0]))
    assert x.grad.tolist() == [2.0, 30.0, 400.0]
    x.grad = None
    y2 = x.reshape(3, 1) * 2.0
    y2.backward(gradient=L([[1.0], [0.0], [-1.0]]))
    assert x.grad.tolist() == [2.0, 0.0, -2.0]


def test_backward_explicit_gradient_matches_torch(torch):
    a = np.random.default_rng(0).standard_normal((2, 3))
    g = np.random.default_rng(1).standard_normal((3, 2))
    xl = L(a, requires_grad=True)
    xt = torch.tensor(a, requires_grad=True)
    (xl.T * xl.T).backward(L(g))
    (xt.T * xt.T).backward(torch.tensor(g))
    np.testing.assert_allclose(to_np(xl.grad), to_np(xt.grad), rtol=1e-12)


def test_backward_non_scalar_without_gradient_raises():
    x = L([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="scalar"):
        (x * 2.0).backward()
    assert x.grad is None


def test_backward_errors():
    x = L([1.0, 2.0], requires_grad=True)
    with pytest.raises(lucid.LucidError, match="does not require grad"):
        L([1.0]).sum().backward()
    with pytest.raises(lucid.ShapeMismatch):
        (x * 2.0).backward(L([1.0, 2.0, 3.0]))
    with lucid.no_grad():
        y = (x * 2.0).sum()
    with pytest.raises(lucid.LucidError, match="does not require grad"):
        y.backward()


def test_backward_non_contiguous_gradient():
    x = L([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    G = L([[1.0, 2.0], [3.0, 4.0]])
    (x * 1.0).backward(G.T)
    assert x.grad.tolist() == [[1.0, 3.0], [2.0, 4.0]]
    x.grad = None
    (x * 2.0).backward(L([5.0, 7.0]).expand(2, 2))
    assert x.grad.tolist() == [[10.0, 14.0], [10.0, 14.0]]


def test_backward_several_roots(torch):
    res = []
    for m in (lucid, torch):
        x = m.tensor([1.0, 2.0], dtype=m.float64, requires_grad=True)
        w = m.tensor([3.0, 4.0], dtype=m.float64, requires_grad=True)
        y1 = x * 2.0
        y2 = (w * x).sum()
        m.autograd.backward([y1, y2], [m.tensor([1.0, 10.0], dtype=m.float64), m.tensor(1.0, dtype=m.float64)])
        res.append((x.grad.tolist(), w.grad.tolist()))
    assert res[0] == res[1] == ([5.0, 24.0], [1.0, 2.0])


@pytest.mark.parametrize("case", [
    ("sum", [(0, 3)], lambda m, a: a.sum()),
    ("sum_dim", [(0, 3)], lambda m, a: a.sum(0)),
    ("mm_inner0", [(3, 0), (0, 4)], lambda m, a, b: a @ b),
    ("mm_outer0", [(0, 3), (3, 4)], lambda m, a, b: a @ b),
    ("mul_bcast", [(0, 3), (1, 3)], lambda m, a, b: a * b),
    ("slice_empty", [(3, 2)], lambda m, a: a[1:1]),
    ("narrow_empty", [(3, 2)], lambda m, a: a.narrow(0, 1, 0)),
    ("reshape_copy", [(0, 3)], lambda m, a: a.T.reshape(-1)),
    ("expand0", [(1, 3)], lambda m, a: a.expand(0, 3)),
    ("diagonal_empty", [(3, 3)], lambda m, a: a.diagonal(5)),
], ids=lambda c: c[0])
def test_zero_size_gradients(case):
    _, shapes, fn = case
    xs = [lucid.zeros(*s, dtype=lucid.float64, requires_grad=True) for s in shapes]
    y = fn(lucid, *xs)
    y.backward(lucid.ones(*y.shape, dtype=y.dtype))
    for x in xs:
        assert tuple(x.grad.shape) == tuple(x.shape)
        assert not to_np(x.grad).any()


def test_backward_through_leaf_directly():
    x = L([1.0, 2.0], requires_grad=True)
    x.backward(L([3.0, 4.0]))
    assert x.grad.tolist() == [3.0, 4.0]


def test_backward_inputs_argument(torch):
    for m in (lucid, torch):
        x = m.tensor([1.0, 2.0], dtype=m.float64, requires_grad=True)
        w = m.tensor([3.0, 4.0], dtype=m.float64, requires_grad=True)
        (x * w).sum().backward(inputs=[w])
        assert x.grad is None
        assert w.grad.tolist() == [1.0, 2.0]


def test_backward_gradient_is_not_aliased_with_user_tensor():
    x = L([1.0, 2.0], requires_grad=True)
    gr = L([1.0, 1.0])
    x.clone().backward(gr)
    x.clone().backward(gr)
    assert x.grad.tolist() == [2.0, 2.0]
    assert gr.tolist() == [1.0, 1.0]
    x2 = L([1.0, 2.0], requires_grad=True)
    x2.backward(gr)
    x2.backward(gr)
    assert x2.grad.tolist() == [2.0, 2.0]
    assert gr.tolist() == [1.0, 1.0]


# ---------------------------------------------------------------------------------------------
# second order (create_graph)

def _second_order(m, fn, arrays, v_seed=3):
    xs = [m.tensor(a, dtype=m.float64, requires_grad=True) for a in arrays]
    out = fn(xs)
    gout = m.tensor(np.random.default_rng(v_seed).standard_normal(tuple(out.shape)), dtype=m.float64)
    firsts = m.autograd.grad(out, xs, grad_outputs=gout, create_graph=True)
    for f in firsts:
        assert f.requires_grad and f.grad_fn is not None
    vs = [m.tensor(np.random.default_rng(v_seed + 1 + i).standard_normal(a.shape), dtype=m.float64)
          for i, a in enumerate(arrays)]
    s = (firsts[0] * vs[0]).sum()
    for f, v in zip(firsts[1:], vs[1:]):
        s = s + (f * v).sum()
    seconds = m.autograd.grad(s, xs, allow_unused=True)
    return [to_np(f) for f in firsts], [None if g is None else to_np(g) for g in seconds], \
        to_np(gout), [to_np(v) for v in vs]


SECOND_ORDER = [
    ("mul", [(2, 3), (2, 3)], lambda xs: xs[0] * xs[1] * xs[0]),
    ("mul_bcast", [(2, 3), (3,)], lambda xs: xs[0] * xs[1]),
    ("div", [(2, 3), (2, 3)], lambda xs: xs[0] / xs[1]),
    ("div_bcast_scalar", [(3,), (2, 3)], lambda xs: 2.0 / (xs[1] / xs[0])),
    ("matmul", [(3, 4), (4, 2)], lambda xs: xs[0] @ xs[1]),
    ("matmul_sq", [(3, 3), (3, 3)], lambda xs: (xs[0] @ xs[1]) @ xs[0].T),
    ("bmm_views", [(2, 3, 4), (4, 3)], lambda xs: (xs[0] @ xs[1]) * xs[0][:, :, :3]),
]


@pytest.mark.parametrize("case", SECOND_ORDER, ids=[c[0] for c in SECOND_ORDER])
def test_second_order_matches_torch(torch, case):
    _, shapes, fn = case
    arrays = inputs_for(shapes, seed=7)
    f_l, s_l, _, _ = _second_order(lucid, fn, arrays)
    f_t, s_t, _, _ = _second_order(torch, fn, arrays)
    for a, b in zip(f_l, f_t):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    for a, b in zip(s_l, s_t):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("case", SECOND_ORDER, ids=[c[0] for c in SECOND_ORDER])
def test_second_order_finite_difference(case):
    """grad of (first-order grad . v), against central differences of lucid's own first-order grad."""
    _, shapes, fn = case
    arrays = [np.asarray(a, dtype=np.float64) for a in inputs_for(shapes, seed=7)]
    _, seconds, gout, vs = _second_order(lucid, fn, arrays)

    def first_dot_v(arrs):
        xs = [L(a, requires_grad=True) for a in arrs]
        firsts = autograd.grad(fn(xs), xs, grad_outputs=L(gout))
        return np.array(sum(float(np.sum(to_np(f) * v)) for f, v in zip(firsts, vs)))

    numeric = central_difference(first_dot_v, arrays, np.array(1.0), eps=1e-6)
    for a, n in zip(seconds, numeric):
        a = np.zeros_like(n) if a is None else a
        np.testing.assert_allclose(a, n, rtol=1e-6, atol=1e-6)


def test_cube_first_and_second_derivative():
    x = L([1.0, 2.0, -3.0], requires_grad=True)
    y = (x * x * x).sum()
    (d1,) = autograd.grad(y, x, create_graph=True)
    np.testing.assert_allclose(to_np(d1), 3 * np.array([1.0, 2.0, -3.0]) ** 2)
    assert d1.grad_fn is not None
    (d2,) = autograd.grad(d1.sum(), x, create_graph=True)
    np.testing.assert_allclose(to_np(d2), 6 * np.array([1.0, 2.0, -3.0]))
    (d3,) = autograd.grad(d2.sum(), x)
    np.testing.assert_allclose(to_np(d3), [6.0, 6.0, 6.0])
    assert x.grad is None


@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True")
def test_backward_create_graph_then_backward_of_grad(torch):
    res = []
    for m in (lucid, torch):
        x = m.tensor([1.0, 2.0, 3.0], dtype=m.float64, requires_grad=True)
        w = m.tensor([0.5, -1.0, 2.0], dtype=m.float64, requires_grad=True)
        y = (x * x * w).sum()
        y.backward(create_graph=True)
        gx = x.grad
        assert gx.grad_fn is not None
        x.grad = None
        w.grad = None
        (gx * gx).sum().backward()
        res.append((to_np(x.grad), to_np(w.grad)))
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=1e-12)


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
