"""Complex inputs of logsumexp, logcumsumexp, logaddexp and pow, and the gradient of scatter with
reduce='multiply': values, gradients and second-order gradients against PyTorch (conjugate Wirtinger
convention: the gradient of a real loss L is dL/d(conj z))."""
import numpy as np
import pytest

import lucid


def _pair(torch, *shapes, scale=1.0, seed=0):
    rng = np.random.default_rng(seed)
    arrs = [(rng.standard_normal(s) + 1j * rng.standard_normal(s)) * scale for s in shapes]
    ts = [torch.tensor(a, dtype=torch.complex128, requires_grad=True) for a in arrs]
    ls = [lucid.tensor(a, dtype=lucid.complex128).requires_grad_() for a in arrs]
    return ts, ls


def _np(t):
    if hasattr(t, "resolve_conj"):
        t = t.detach().resolve_conj()
    return t.detach().numpy()


def _loss(r):
    # a real loss that mixes real and imaginary parts (so the conjugate convention matters)
    return (r * r.conj() + 0.5 * r).real.sum() + r.imag.sum()


CASES = [
    ("logsumexp_dim", lambda m, z, w: m.logsumexp(z, 1)),
    ("logsumexp_all_keepdim", lambda m, z, w: m.logsumexp(z, (0, 1), keepdim=True)),
    ("logcumsumexp_1", lambda m, z, w: m.logcumsumexp(z, 1)),
    ("logcumsumexp_0", lambda m, z, w: m.logcumsumexp(z, 0)),
    ("logaddexp", lambda m, z, w: m.logaddexp(z, w)),
    ("logaddexp_broadcast", lambda m, z, w: m.logaddexp(z, w[:1])),
    ("pow_tensor", lambda m, z, w: m.pow(z, w)),
    ("pow_scalar_exp", lambda m, z, w: m.pow(z, 2.5)),
    ("pow_complex_exp", lambda m, z, w: m.pow(z, 1 - 2j)),
    ("pow_scalar_base", lambda m, z, w: m.pow(2.5, w)),
    ("pow_real_exp_tensor", lambda m, z, w: m.pow(z, w.real)),
]


@pytest.mark.parametrize("name,fn", CASES, ids=[c[0] for c in CASES])
def test_complex_values_and_grads_vs_torch(torch, name, fn):
    (tz, tw), (lz, lw) = _pair(torch, (3, 4), (3, 4), scale=2.0)
    rt, rl = fn(torch, tz, tw), fn(lucid, lz, lw)
    assert rl.dtype is lucid.complex128
    np.testing.assert_allclose(_np(rl), _np(rt), rtol=1e-10, atol=1e-10)
    gt = torch.autograd.grad(_loss(rt), [tz, tw], allow_unused=True, create_graph=True)
    gl = lucid.autograd.grad(_loss(rl), [lz, lw], allow_unused=True, create_graph=True)
    for a, b in zip(gl, gt):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(_np(a), _np(b), rtol=1e-9, atol=1e-9)
    # second order: the gradient of a real function of the first gradients
    used_t = [g for g in gt if g is not None]
    used_l = [g for g in gl if g is not None]
    g2t = torch.autograd.grad(sum((g * g.conj()).real.sum() for g in used_t), [tz, tw], allow_unused=True)
    g2l = lucid.autograd.grad(sum((g * g.conj()).real.sum() for g in used_l), [lz, lw], allow_unused=True)
    for a, b in zip(g2l, g2t):
        if b is None:
            assert a is None or np.allclose(_np(a), 0)
        else:
            np.testing.assert_allclose(_np(a), _np(b), rtol=1e-8, atol=1e-8)


def test_complex_logsumexp_edge_values_vs_torch(torch):
    inf, nan = float("inf"), float("nan")
    pairs = [(complex(-inf, 1), complex(-inf, 2)), (complex(inf, 1), complex(inf, 2)), (complex(inf, 1), 3 + 2j),
             (complex(-inf, 1), 3 + 2j), (complex(nan, 1), 3 + 2j), (complex(1, nan), 3 + 2j), (1 + 1j, 1000 + 2j)]
    for a, b in pairs:
        ta, la = torch.tensor([a, b]), lucid.tensor([a, b])
        for name in ("logsumexp", "logcumsumexp"):
            np.testing.assert_allclose(_np(getattr(lucid, name)(la, 0)), _np(getattr(torch, name)(ta, 0)),
                                       equal_nan=True, err_msg=f"{name} {a} {b}")
        np.testing.assert_allclose(_np(lucid.logaddexp(la[:1], la[1:])), _np(torch.logaddexp(ta[:1], ta[1:])),
                                   equal_nan=True, err_msg=f"logaddexp {a} {b}")


def test_complex_logcumsumexp_large_range_is_stable(torch):
    z = np.array([-800 + 1j, 0.5 - 2j, 700 + 0.25j, -3 + 3j, 710 - 1j])
    got = lucid.logcumsumexp(lucid.tensor(z), 0)
    want = torch.logcumsumexp(torch.tensor(z), 0)
    np.testing.assert_allclose(_np(got), _np(want), rtol=1e-12)
    assert np.isfinite(_np(got)).all()


def test_complex_lse_float32_and_empty(torch):
    z = (np.arange(6).reshape(2, 3) * (0.3 - 0.7j)).astype(np.complex64)
    got = lucid.logsumexp(lucid.tensor(z), 1)
    assert got.dtype is lucid.complex64
    np.testing.assert_allclose(_np(got), _np(torch.logsumexp(torch.tensor(z), 1)), rtol=1e-5)
    e = lucid.logsumexp(lucid.zeros(0, 3, dtype=lucid.complex64), 0)
    assert e.dtype is lucid.complex64 and np.isneginf(_np(e).real).all()


def test_logaddexp2_complex_is_refused_like_torch(torch):
    z = lucid.tensor([1 + 1j])
    with pytest.raises(NotImplementedError, match="logaddexp2"):
        lucid.logaddexp2(z, z)
    with pytest.raises(NotImplementedError):
        torch.logaddexp2(torch.tensor([1 + 1j]), torch.tensor([1 + 1j]))


def test_pow_grad_at_zero_base_vs_torch(torch):
    """d/dw 0**w: 0 where w is real and >= 0 (PyTorch's mask), NaN otherwise."""
    base = np.array([0j, 0j, 0j, 0j, 2 + 1j])
    ex = np.array([2 + 0j, 1 + 1j, -1 + 0j, 0j, 0.5 - 1j])
    tb, te = torch.tensor(base, requires_grad=True), torch.tensor(ex, requires_grad=True)
    lb, le = lucid.tensor(base).requires_grad_(), lucid.tensor(ex).requires_grad_()
    gt = torch.autograd.grad(torch.pow(tb, te).real.sum(), [te])[0]
    gl = lucid.autograd.grad(lucid.pow(lb, le).real.sum(), [le])[0]
    np.testing.assert_allclose(_np(gl), _np(gt), equal_nan=True)


# ---- scatter with reduce='multiply': the gradient of scatter_reduce(reduce='prod', include_self=True)

def _scatter_inputs(torch, dtype_t, dtype_l, with_zeros):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((3, 4)) + (0.4 if not with_zeros else 0)
    s = rng.standard_normal((2, 4))
    if with_zeros:
        x[1, 2] = 0.0
        s[0, 1] = 0.0
        s[1, 3] = 0.0
    idx = np.array([[0, 1, 2, 0], [1, 1, 0, 1]])
    tx = torch.tensor(x, dtype=dtype_t, requires_grad=True)
    ts = torch.tensor(s, dtype=dtype_t, requires_grad=True)
    lx = lucid.tensor(x, dtype=dtype_l).requires_grad_()
    ls = lucid.tensor(s, dtype=dtype_l).requires_grad_()
    return tx, ts, torch.tensor(idx), lx, ls, lucid.tensor(idx)


@pytest.mark.parametrize("with_zeros", [False, True])
def test_scatter_multiply_grad_matches_scatter_reduce_prod(torch, with_zeros):
    tx, ts, ti, lx, ls, li = _scatter_inputs(torch, torch.float64, lucid.float64, with_zeros)
    w = np.linspace(-1, 2, 12).reshape(3, 4)
    want = torch.scatter_reduce(tx, 0, ti, ts, "prod", include_self=True)
    got = lucid.scatter(lx, 0, li, ls, reduce="multiply")
    np.testing.assert_allclose(_np(got), _np(want))
    gt = torch.autograd.grad((want * torch.tensor(w)).sum(), [tx, ts])
    gl = lucid.autograd.grad((got * lucid.tensor(w)).sum(), [lx, ls])
    for a, b in zip(gl, gt):
        np.testing.assert_allclose(_np(a), _np(b), rtol=1e-12, atol=1e-12)
    # the in-place spelling records the same gradient
    y = lx * 1
    y.scatter_(0, li, ls, reduce="multiply")
    gi = lucid.autograd.grad((y * lucid.tensor(w)).sum(), [lx, ls])
    for a, b in zip(gi, gt):
        np.testing.assert_allclose(_np(a), _np(b), rtol=1e-12, atol=1e-12)


def test_scatter_multiply_gradcheck():
    rng = np.random.default_rng(5)
    x = lucid.tensor(rng.standard_normal((3, 4)), dtype=lucid.float64).requires_grad_()
    s = lucid.tensor(rng.standard_normal((2, 4)), dtype=lucid.float64).requires_grad_()
    idx = lucid.tensor([[0, 1, 2, 0], [1, 1, 0, 1]])
    f = lambda a, b: lucid.scatter(a, 0, idx, b, reduce="multiply")  # noqa: E731
    assert lucid.autograd.gradcheck(f, (x, s))
    assert lucid.autograd.gradgradcheck(f, (x, s))
    g = lambda a: lucid.scatter(a, 1, idx, 1.5, reduce="multiply")  # noqa: E731
    assert lucid.autograd.gradcheck(g, (x,))
    assert lucid.autograd.gradgradcheck(g, (x,))


def test_scatter_value_multiply_grad_complex():
    """out = x * v**hits where indexed: the gradient is g * conj(v)**hits."""
    x = lucid.tensor([[1 + 1j, 2 - 1j, 0.5j]], dtype=lucid.complex128).requires_grad_()
    idx = lucid.tensor([[0, 2, 2]])
    v = 0.5 + 2j
    out = lucid.scatter(x, 1, idx, v, reduce="multiply")
    np.testing.assert_allclose(_np(out), _np(x) * np.array([[v, 1, v * v]]))
    g = lucid.autograd.grad(out.real.sum(), [x])[0]
    np.testing.assert_allclose(_np(g), np.conj(np.array([[v, 1, v * v]])))


def test_scatter_add_grad_still_flows():
    """reduce='add' (torch has no derivative for the legacy reduce): lucid's is the identity / gather."""
    x = lucid.ones(3, 4, dtype=lucid.float64).requires_grad_()
    s = lucid.ones(2, 4, dtype=lucid.float64).requires_grad_()
    idx = lucid.tensor([[0, 1, 2, 0], [1, 2, 0, 1]])
    gx, gs = lucid.autograd.grad(lucid.scatter(x, 0, idx, s, reduce="add").sum(), [x, s])
    assert gx.tolist() == [[1.0] * 4] * 3 and gs.tolist() == [[1.0] * 4] * 2


# ---- in-place writes through .real / .imag rewrite the complex base's history (as PyTorch's CopySlices)

def _scenario_inputs(m, seed=1):
    rng = np.random.default_rng(seed)
    z = rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))
    w = rng.standard_normal((3, 4))
    return (m.tensor(z, dtype=m.complex128, requires_grad=True), m.tensor(w, dtype=m.float64, requires_grad=True))


SCENARIOS = {
    "real_mul_": lambda m, z0, w: (lambda z: (z.real.mul_(w), z)[1])(z0 * 1),
    "imag_add_": lambda m, z0, w: (lambda z: (z.imag.add_(w * w), z)[1])(z0 * 1),
    "real_copy_": lambda m, z0, w: (lambda z: (z.real.copy_(w.exp()), z)[1])(z0 * 1),
    "imag_setitem_row": lambda m, z0, w: (lambda z: (z.imag.__setitem__(1, w[0] * 2), z)[1])(z0 * 1),
    "real_setitem_mask": lambda m, z0, w: (lambda z: (z.real.__setitem__(w > 0, 0.5), z)[1])(z0 * 1),
    "real_of_view": lambda m, z0, w: (lambda z: (z[1:, ::2].real.mul_(w[:2, :2]), z)[1])(z0 * 1),
    "imag_of_transpose": lambda m, z0, w: (lambda z: (z.T.imag.sub_(w.T), z)[1])(z0 * 1),
    "both_parts": lambda m, z0, w: (lambda z: (z.real.mul_(w), z.imag.div_(w.abs() + 1), z)[2])(z0 * 1),
}


def _stale_view(m, z0, w):
    z = z0 * 1
    r = z.real            # taken before the base changes
    z.mul_(1 + 2j)        # r is now stale: its history is regenerated from z's new history
    return r * w


def _view_of_part(m, z0, w):
    z = z0 * 1
    r = z.imag
    r[0].mul_(w[0])       # a view of the part view
    return z


@pytest.mark.parametrize("name", list(SCENARIOS) + ["stale_view", "view_of_part"])
def test_inplace_through_real_imag_vs_torch(torch, name):
    fn = SCENARIOS.get(name) or {"stale_view": _stale_view, "view_of_part": _view_of_part}[name]
    res = {}
    for m in (torch, lucid):
        z0, w = _scenario_inputs(m)
        out = fn(m, z0, w)
        loss = (out * out.conj()).real.sum() + (out * 0.5).imag.sum() if out.dtype.is_complex else (out * out).sum()
        g = [x for x in m.autograd.grad(loss, [z0, w], create_graph=True, allow_unused=True) if x is not None]
        g2 = m.autograd.grad(sum((x * x.conj()).real.sum() if x.dtype.is_complex else (x * x).sum() for x in g),
                             [z0, w], allow_unused=True)
        res[m.__name__] = (_np(out), [_np(x) for x in g], [None if x is None else _np(x) for x in g2])
    (ov, gl, g2l), (tv, gt, g2t) = res["lucid"], res["torch"]
    np.testing.assert_allclose(ov, tv, rtol=1e-12)
    assert len(gl) == len(gt)
    for a, b in zip(gl, gt):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    for a, b in zip(g2l, g2t):
        if b is None:
            assert a is None or np.allclose(a, 0)
        else:
            np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_real_view_write_bumps_base_version_and_grad_fn(torch):
    z0, w = _scenario_inputs(lucid)
    z = z0 * 1
    v = z._version
    z.real.mul_(w)
    assert z._version == v + 1
    assert "CopySlices" in repr(z.grad_fn)
    with pytest.raises(RuntimeError, match="leaf"):
        z0.real.mul_(2)


# ---- view_as_real / view_as_complex: views with gradients

def test_view_as_real_complex_vs_torch(torch):
    rng = np.random.default_rng(11)
    z = rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))
    res = {}
    for m in (torch, lucid):
        tz = m.tensor(z, dtype=m.complex128, requires_grad=True)
        r = m.view_as_real(tz)
        c = m.view_as_complex(r * 2 + 1)
        loss = (r ** 3).sum() + (c * c.conj()).real.sum() + c.imag.sum()
        g = m.autograd.grad(loss, [tz], create_graph=True)[0]
        g2 = m.autograd.grad((g * g.conj()).real.sum(), [tz])[0]
        res[m.__name__] = (_np(r), _np(c), _np(g), _np(g2), tuple(r.shape), tuple(r.stride()))
    for a, b in zip(res["lucid"], res["torch"]):
        if isinstance(a, tuple):
            assert a == b
        else:
            np.testing.assert_allclose(a, b, rtol=1e-12)
    zl = lucid.tensor(z)
    assert lucid.view_as_real(zl)._is_view_of(zl)
    assert lucid.view_as_complex(lucid.view_as_real(zl))._is_view_of(zl)
    np.testing.assert_array_equal(_np(lucid.view_as_real_copy(zl)), _np(lucid.view_as_real(zl)))


def test_view_as_complex_errors_like_torch(torch):
    cases = [lambda m: m.view_as_complex(m.ones(3, 3)), lambda m: m.view_as_complex(m.ones(2, 3).t()),
             lambda m: m.view_as_real(m.ones(3)), lambda m: m.view_as_complex(m.ones(3, 2, dtype=m.int64))]
    for f in cases:
        with pytest.raises(RuntimeError) as te:
            f(torch)
        with pytest.raises(RuntimeError, match=str(te.value).split(",")[0].split(" but")[0][:36]):
            f(lucid)
