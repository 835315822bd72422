"""Gradients of every differentiable op against PyTorch and central differences (float32/float64,
contiguous and non-contiguous inputs), and second order through create_graph."""
import numpy as np
import pytest

import lucid
from lucid import autograd
from autograd_common import *  # noqa: F401,F403  (fixture and helpers)
from autograd_common import _grad_mode_is_restored  # noqa: F401

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
