"""The audit's additions (lucid/_more_ops.py) against PyTorch: values, gradients (float64) and errors."""
import numpy as np
import pytest

import lucid

RNG = np.random.default_rng(7)
A34 = RNG.standard_normal((3, 4))
B34 = RNG.standard_normal((3, 4))
S4 = RNG.standard_normal(4)
SQ = RNG.standard_normal((3, 3)) / 2
C3 = RNG.standard_normal(3) + 1j * RNG.standard_normal(3)
POS = np.abs(A34) + 2.0


def _np(t):
    if hasattr(t, "resolve_conj"):
        t = t.resolve_conj()
    return np.array(t.detach().numpy(), copy=True)


# (name, fn(m, *tensors), inputs (arrays), differentiable)
CASES = [
    # (torch's gradient of ldexp uses an integer 2**other: 0 for negative exponents; lucid's is 2**other)
    ("ldexp", lambda m, a: m.ldexp(a, m.tensor([1, 2, 0, 3])), [A34], True),
    ("ldexp_neg_values", lambda m, a: m.ldexp(a, m.tensor([1, -2, 0, 3])), [A34], False),
    ("mvlgamma", lambda m, a: m.mvlgamma(a, 3), [POS], True),
    ("select_scatter", lambda m, a, b: m.select_scatter(a, b[0], 0, 1), [A34, B34], True),
    ("slice_scatter", lambda m, a, b: m.slice_scatter(a, b[:, :2], 1, 1, 4, 2), [A34, B34], True),
    ("diagonal_scatter", lambda m, a, b: m.diagonal_scatter(a, b[0, :3], 1), [A34, B34], True),
    # (values only: torch's gradient of as_strided_scatter for input flows into the scattered region,
    # the opposite of the values' dependence; lucid's is gradchecked below)
    ("as_strided_scatter", lambda m, a, b: m.as_strided_scatter(a, b[:2, :2], (2, 2), (1, 2), 1), [A34, B34], False),
    ("select_copy", lambda m, a: m.select_copy(a, 1, 2), [A34], True),
    ("slice_copy", lambda m, a: m.slice_copy(a, 1, 1, 3), [A34], True),
    ("diagonal_copy", lambda m, a: m.diagonal_copy(a), [A34], True),
    ("permute_copy", lambda m, a: m.permute_copy(a, (1, 0)), [A34], True),
    ("t_copy", lambda m, a: m.t_copy(a), [A34], True),
    ("unsqueeze_copy", lambda m, a: m.unsqueeze_copy(a, 1), [A34], True),
    ("view_copy", lambda m, a: m.view_copy(a, (4, 3)), [A34], True),
    ("expand_copy", lambda m, a: m.expand_copy(a[:1], (2, 4)), [A34], True),
    ("narrow_copy", lambda m, a: m.narrow_copy(a, 1, 1, 2), [A34], True),
    ("split_copy", lambda m, a: m.split_copy(a, 2, 1), [A34], True),
    ("unbind_copy", lambda m, a: m.unbind_copy(a, 0), [A34], True),
    ("split_with_sizes", lambda m, a: m.split_with_sizes(a, [1, 3], 1), [A34], True),
    ("unsafe_chunk", lambda m, a: m.unsafe_chunk(a, 2, 1), [A34], True),
    ("t", lambda m, a: m.t(a), [A34], True),
    ("adjoint", lambda m, a: m.adjoint(a), [A34], True),
    ("cov", lambda m, a: m.cov(a), [A34], True),
    ("cov_weights", lambda m, a: m.cov(a, correction=0, fweights=m.tensor([1, 2, 1, 3]),
                                       aweights=m.tensor([0.5, 1.0, 2.0, 1.5], dtype=m.float64)), [A34], True),
    ("cov_1d", lambda m, a: m.cov(a), [S4], True),
    ("corrcoef", lambda m, a: m.corrcoef(a), [A34], True),
    ("dist", lambda m, a, b: m.dist(a, b), [A34, B34], True),
    ("dist_p3", lambda m, a, b: m.dist(a, b, 3), [A34, B34], True),
    ("trapezoid", lambda m, a: m.trapezoid(a), [A34], True),
    ("trapezoid_x", lambda m, a, x: m.trapezoid(a, x), [A34, np.sort(S4)], True),
    ("trapezoid_dx_dim0", lambda m, a: m.trapezoid(a, dx=0.5, dim=0), [A34], True),
    ("trapz", lambda m, a: m.trapz(a, dim=0), [A34], True),
    ("cumulative_trapezoid", lambda m, a: m.cumulative_trapezoid(a), [A34], True),
    ("cumulative_trapezoid_x", lambda m, a, x: m.cumulative_trapezoid(a, x), [A34, np.sort(S4)], True),
    ("renorm", lambda m, a: m.renorm(a, 2, 0, 1.5), [A34], True),
    ("index_reduce_prod", lambda m, a, b: m.index_reduce(a, 0, m.tensor([0, 2, 0]), b, "prod"), [A34, B34], True),
    ("index_reduce_mean_noself", lambda m, a, b: m.index_reduce(a, 1, m.tensor([3, 0, 3, 1]), b, "mean",
                                                                include_self=False), [A34, B34], True),
    ("index_reduce_amax", lambda m, a, b: m.index_reduce(a, 0, m.tensor([1, 1, 2]), b, "amax"), [A34, B34], True),
    ("matrix_power_0", lambda m, a: m.matrix_power(a, 0), [SQ], False),
    ("matrix_power_5", lambda m, a: m.matrix_power(a, 5), [SQ], True),
    ("linalg_matrix_power", lambda m, a: m.linalg.matrix_power(a, 2), [SQ], True),
    # (values only: torch.vander's own backward fails on an in-place write; lucid's is gradchecked below)
    ("vander", lambda m, x: m.vander(x), [S4], False),
    ("vander_inc_N", lambda m, x: m.vander(x, 3, increasing=True), [S4], False),
    ("linalg_vander", lambda m, x: m.linalg.vander(x), [S4], True),
    ("sum_to_size", lambda m, a: a.sum_to_size(1, 4), [A34], True),
    ("mH", lambda m, z: z.reshape(1, 3).mH, [C3], True),
    ("H", lambda m, z: z.reshape(3, 1).H, [C3], True),
]


def _outs(r):
    return list(r) if isinstance(r, (tuple, list)) else [r]


@pytest.mark.parametrize("name,fn,arrays,diff", CASES, ids=[c[0] for c in CASES])
def test_vs_torch(torch, name, fn, arrays, diff):
    res = {}
    for m in (torch, lucid):
        ins = [m.tensor(a, dtype=m.complex128 if np.iscomplexobj(a) else m.float64, requires_grad=diff)
               for a in arrays]
        outs = _outs(fn(m, *ins))
        grads = None
        if diff:
            loss = sum((o * o.conj()).real.sum() * 0.5 + o.real.sum() for o in outs)
            grads = m.autograd.grad(loss, ins, allow_unused=True)
        res[m.__name__] = ([_np(o) for o in outs], grads)
    (lo, lg), (to, tg) = res["lucid"], res["torch"]
    assert len(lo) == len(to)
    for a, b in zip(lo, to):
        assert a.shape == b.shape, name
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12, err_msg=name)
    if diff:
        for a, b in zip(lg, tg):
            if b is None:
                assert a is None or np.allclose(_np(a), 0)
            else:
                np.testing.assert_allclose(_np(a), _np(b), rtol=1e-9, atol=1e-12, err_msg=name)


def test_gradgrad_of_composites():
    x = lucid.tensor(A34, dtype=lucid.float64, requires_grad=True)
    y = lucid.tensor(B34, dtype=lucid.float64, requires_grad=True)
    for f in (lambda a, b: lucid.select_scatter(a, b[0], 0, 1), lambda a, b: lucid.cov(a * b),
              lambda a, b: lucid.as_strided_scatter(a, b[:2, :2], (2, 2), (1, 2), 1),
              lambda a, b: lucid.renorm(a, 2, 1, 1.0) * b, lambda a, b: lucid.trapezoid(a * b)):
        assert lucid.autograd.gradcheck(f, (x, y))
        assert lucid.autograd.gradgradcheck(f, (x, y))
    v = lucid.tensor(S4, dtype=lucid.float64, requires_grad=True)
    assert lucid.autograd.gradcheck(lambda t: lucid.vander(t, 3), (v,))
    assert lucid.autograd.gradgradcheck(lambda t: lucid.vander(t, 3), (v,))


def test_integer_and_special_ops_vs_torch(torch):
    a, b = [12, -18, 0, 7, 9], [8, 12, 0, 0, -6]
    for name in ("gcd", "lcm"):
        got = getattr(lucid, name)(lucid.tensor(a), lucid.tensor(b))
        want = getattr(torch, name)(torch.tensor(a), torch.tensor(b))
        assert got.tolist() == want.tolist() and got.dtype.name == str(want.dtype).split(".")[1]
        assert getattr(lucid.tensor(a), name)(lucid.tensor(b)).tolist() == want.tolist()
    with pytest.raises(RuntimeError, match="gcd_cpu"):
        lucid.gcd(lucid.ones(2), lucid.ones(2))
    x = [0.0, 1.0, -3.0, float("inf"), float("nan"), 0.75, 1e-40, -1e30, 5e-324]
    for dt in ("float32", "float64"):
        m, e = lucid.frexp(lucid.tensor(x, dtype=getattr(lucid, dt)))
        tm, te = torch.frexp(torch.tensor(x, dtype=getattr(torch, dt)))
        np.testing.assert_array_equal(_np(m), tm.numpy())
        np.testing.assert_array_equal(_np(e), te.numpy())
        assert e.dtype is lucid.int32
    assert lucid.ldexp(lucid.tensor([1, 2]), lucid.tensor([3, -1])).tolist() == [8.0, 1.0]


def test_module_inplace_spellings(torch):
    for name in ("exp_", "sqrt_", "neg_", "clamp_", "round_", "sigmoid_", "zero_"):
        lx = lucid.tensor(np.abs(A34))
        tx = torch.tensor(np.abs(A34))
        args = (0.5, 1.5) if name == "clamp_" else ()
        r = getattr(lucid, name)(lx, *args)
        getattr(torch, name)(tx, *args)
        assert r is lx
        np.testing.assert_allclose(_np(lx), tx.numpy(), rtol=1e-12)
    lx, tx = lucid.zeros(3), torch.zeros(3)
    lucid.fill_(lx, 2.5)
    torch.fill_(tx, 2.5)
    assert lx.tolist() == tx.tolist()


def test_predicates_and_fill_diagonal(torch):
    for v in ([1.0], [0], [1 + 0j], [True]):
        lt, tt = lucid.tensor(v), torch.tensor(v)
        for name in ("is_complex", "is_floating_point", "is_signed", "is_nonzero"):
            assert getattr(lucid, name)(lt) == getattr(torch, name)(tt), (name, v)
            assert getattr(lt, name)() == getattr(tt, name)(), (name, v)
    assert lucid.is_same_size(lucid.ones(2, 3), lucid.zeros(2, 3)) and not lucid.is_same_size(lucid.ones(2), lucid.ones(3))
    assert lucid.is_tensor(lucid.ones(1)) and not lucid.is_tensor([1])
    with pytest.raises(RuntimeError, match="ambiguous"):
        lucid.is_nonzero(lucid.ones(2))
    for shape, wrap in [((3, 4), False), ((7, 3), False), ((7, 3), True), ((3, 3, 3), False)]:
        lt, tt = lucid.zeros(*shape), torch.zeros(*shape)
        assert lt.fill_diagonal_(2.0, wrap=wrap) is lt
        tt.fill_diagonal_(2.0, wrap=wrap)
        np.testing.assert_array_equal(_np(lt), tt.numpy(), err_msg=f"{shape} wrap={wrap}")


def test_errors():
    with pytest.raises(RuntimeError, match="not expandable"):
        lucid.ones(3, 4).sum_to_size(2, 4)
    with pytest.raises(RuntimeError, match="expected input to have two or fewer dimensions"):
        lucid.cov(lucid.ones(2, 2, 2))
    with pytest.raises(RuntimeError, match="Expected reduce to be one of"):
        lucid.index_reduce(lucid.ones(3), 0, lucid.tensor([0]), lucid.ones(1), "sum")
    with pytest.raises(RuntimeError, match="square matrices"):
        lucid.matrix_power(lucid.ones(2, 3), 2)
    with pytest.raises(NotImplementedError, match="negative"):
        lucid.matrix_power(lucid.eye(2), -1)
    with pytest.raises(RuntimeError, match="one-dimensional"):
        lucid.vander(lucid.ones(2, 2))


def test_out_on_additions(torch):
    o = lucid.empty(0, dtype=lucid.float64)
    assert lucid.cov(lucid.tensor(A34), out=o) is o
    np.testing.assert_allclose(_np(o), torch.cov(torch.tensor(A34)).numpy(), rtol=1e-12)
    o = lucid.empty(0, dtype=lucid.float64)
    lucid.select_copy(lucid.tensor(A34), 0, 1, out=o)
    np.testing.assert_array_equal(_np(o), A34[1])


def test_small_additions_vs_torch(torch):
    for idx, shape in (([4, 1, 7], (2, 4)), (5, (2, 3)), ([0, 11], (3, 2, 2))):
        got = lucid.unravel_index(lucid.tensor(idx), shape)
        want = torch.unravel_index(torch.tensor(idx), shape)
        assert [g.tolist() for g in got] == [w.tolist() for w in want]
    assert lucid.fill(lucid.ones(2), 3.0).tolist() == torch.fill(torch.ones(2), 3.0).tolist()
    v = lucid.tensor(2.0, requires_grad=True)
    f = lucid.fill(lucid.ones(3), v)
    assert f.tolist() == [2.0] * 3 and lucid.autograd.grad(f.sum(), [v])[0].item() == 3.0
    a = lucid.tensor(A34)
    assert lucid.linalg.diagonal(a.reshape(1, 3, 4), offset=1).tolist() == \
        torch.linalg.diagonal(torch.tensor(A34).reshape(1, 3, 4), offset=1).tolist()
    x, y = lucid.tensor([12, 18]), lucid.tensor([8, 12])
    assert lucid.gcd_(x, y) is x and x.tolist() == [4, 6]
    assert not lucid.detach(lucid.ones(1, requires_grad=True)).requires_grad


def test_nextafter_and_frobenius_vs_torch(torch):
    x = [0.0, 1.0, -1.0, 2.5, float("inf"), float("nan"), 1e-45, -0.0, 3.0]
    y = [1.0, 0.0, 5.0, 2.5, 0.0, 1.0, 0.0, -1.0, float("inf")]
    for dt in ("float32", "float64"):
        got = lucid.nextafter(lucid.tensor(x, dtype=getattr(lucid, dt)), lucid.tensor(y, dtype=getattr(lucid, dt)))
        want = torch.nextafter(torch.tensor(x, dtype=getattr(torch, dt)), torch.tensor(y, dtype=getattr(torch, dt)))
        np.testing.assert_array_equal(_np(got), want.numpy())
    a = lucid.tensor(A34)
    for kw in (dict(dim=(0, 1)), dict(dim=1), dict(dim=(0, 1), keepdim=True)):
        np.testing.assert_allclose(_np(lucid.frobenius_norm(a, **kw)),
                                   torch.frobenius_norm(torch.tensor(A34), **kw).numpy(), rtol=1e-12)


INPLACE_VIEWS = [
    ("t_", lambda y: y.t_()), ("transpose_", lambda y: y.transpose_(0, 1)), ("swapaxes_", lambda y: y.swapaxes_(1, 0)),
    ("swapdims_", lambda y: y.swapdims_(0, 1)), ("unsqueeze_", lambda y: y.unsqueeze_(1)),
    ("squeeze_", lambda y: y.unsqueeze_(0).squeeze_()), ("squeeze_dim", lambda y: y.unsqueeze_(2).squeeze_(2)),
    ("as_strided_", lambda y: y.as_strided_((2, 3), (1, 2), 1)),
]


@pytest.mark.parametrize("name,fn", INPLACE_VIEWS, ids=[c[0] for c in INPLACE_VIEWS])
def test_inplace_view_ops_vs_torch(torch, name, fn):
    res = {}
    for m in (torch, lucid):
        x = m.tensor(A34, dtype=m.float64, requires_grad=True)
        y = x * 2
        v = y._version
        r = fn(y)
        assert r is y and y._version > v
        w = m.tensor(np.arange(y.numel(), dtype=np.float64).reshape(tuple(y.shape)))
        g = m.autograd.grad((y * w).sum() + (y * y).sum(), [x])[0]
        res[m.__name__] = (tuple(y.shape), tuple(y.stride()), _np(y), _np(g))
    for a, b in zip(res["lucid"], res["torch"]):
        if isinstance(a, tuple):
            assert a == b, name
        else:
            np.testing.assert_allclose(a, b, rtol=1e-12, err_msg=name)


def test_inplace_view_ops_on_leaf_and_resize(torch):
    with pytest.raises(RuntimeError, match="leaf"):
        lucid.ones(2, 3, requires_grad=True).t_()
    for shape in ((2, 2), (5,), (0,), (2, 3)):
        lr, tr = lucid.arange(6.0), torch.arange(6.0)
        assert lr.resize_(*shape) is lr
        tr.resize_(*shape)
        k = min(6, int(np.prod(shape)))
        assert tuple(lr.shape) == tuple(tr.shape)
        np.testing.assert_array_equal(_np(lr).reshape(-1)[:k], tr.numpy().reshape(-1)[:k])
    lr = lucid.zeros(3)
    lr.resize_as_(lucid.ones(2, 2))
    assert tuple(lr.shape) == (2, 2)
    with pytest.raises(RuntimeError, match="cannot resize variables that require grad"):
        lucid.ones(2, requires_grad=True).resize_(3)


GRAD_CASES = [dict(), dict(dim=1), dict(spacing=0.5), dict(spacing=[2.0, 0.25]), dict(edge_order=2),
              dict(dim=0, edge_order=2, spacing=3.0), dict(dim=(1,), spacing=(np.array([0.0, 0.5, 1.5, 3.5, 4.0]),)),
              dict(dim=1, edge_order=2, spacing=(np.array([0.0, 0.5, 1.5, 3.5, 4.0]),))]


@pytest.mark.parametrize("kw", GRAD_CASES, ids=[str(i) for i in range(len(GRAD_CASES))])
def test_gradient_vs_torch(torch, kw):
    f = RNG.standard_normal((4, 5))
    res = {}
    for m in (torch, lucid):
        k = dict(kw)
        if "spacing" in k and isinstance(k["spacing"], tuple):
            k["spacing"] = tuple(m.tensor(v, dtype=m.float64) for v in k["spacing"])
        x = m.tensor(f, dtype=m.float64, requires_grad=True)
        outs = m.gradient(x, **k)
        g = m.autograd.grad(sum((o * o).sum() for o in outs), [x])[0]
        res[m.__name__] = ([_np(o) for o in outs], _np(g))
    (lo, lg), (to, tg) = res["lucid"], res["torch"]
    assert len(lo) == len(to)
    for a, b in zip(lo, to):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(lg, tg, rtol=1e-10, atol=1e-12)
    with pytest.raises(RuntimeError, match="edge_order"):
        lucid.gradient(lucid.ones(2, 3), edge_order=2)
