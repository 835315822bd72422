"""Focused tests of the reduce family: errors, edge cases and semantics the op table can't see."""
import numpy as np
import pytest

import lucid


def test_float32_mean_of_many_ones_is_exact():
    x = lucid.ones(10**7)
    assert x.sum().item() == 1e7
    assert x.mean().item() == 1.0
    assert lucid.nansum(x).item() == 1e7
    assert x.var().item() == 0.0


def test_half_mean_does_not_overflow():
    x = lucid.full((4096,), 60000.0, dtype=lucid.float16)
    assert x.mean().item() == 60000.0
    assert x.var().item() == 0.0


def test_max_dim_returns_named_tuple():
    x = lucid.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
    r = x.max(1)
    assert r.values.tolist() == [5.0, 6.0] and r.indices.tolist() == [1, 2]
    v, i = lucid.min(x, dim=0, keepdim=True)
    assert v.tolist() == [[1.0, 2.0, 3.0]] and i.tolist() == [[0, 1, 0]]
    assert type(r).__name__ == "max" and r[0] is r.values
    mm = x.aminmax()
    assert mm.min.item() == 1.0 and mm.max.item() == 6.0
    c = lucid.cummax(lucid.tensor([1, 3, 3, 2]), 0)
    assert c.values.tolist() == [1, 3, 3, 3] and c.indices.tolist() == [0, 1, 2, 2]


def test_nan_propagation_and_first_index():
    nan = float("nan")
    x = lucid.tensor([1.0, nan, 5.0, nan])
    assert np.isnan(x.max().item()) and np.isnan(x.amin().item())
    assert x.max(0).indices.item() == 1
    assert x.argmax().item() == 1
    assert lucid.tensor([2, 7, 7, 1]).argmax().item() == 1
    assert lucid.tensor([2, 0, 7, 0]).argmin().item() == 1
    c = x.cummax(0)
    assert c.indices.tolist() == [0, 1, 1, 3]


def test_nan_reductions():
    nan = float("nan")
    x = lucid.tensor([[1.0, nan], [nan, nan]])
    assert lucid.nansum(x).item() == 1.0
    assert x.nansum(1).tolist() == [1.0, 0.0]
    r = lucid.nanmean(x, 1).tolist()
    assert r[0] == 1.0 and np.isnan(r[1])


@pytest.mark.parametrize("expr,exc,msg", [
    ("lucid.zeros(0).max()", RuntimeError, "Expected reduction dim to be specified"),
    ("lucid.zeros(0, 3).max(0)", IndexError, "Expected reduction dim 0 to have non-zero size"),
    ("lucid.zeros(0, 3).amax(0)", IndexError, "Expected reduction dim 0 to have non-zero size"),
    ("lucid.zeros(0, 3).argmax(0)", IndexError, "Expected reduction dim 0 to have non-zero size"),
    ("lucid.zeros(0).argmin()", IndexError, "Expected reduction dim to be specified"),
    ("lucid.zeros(0, 3).min(dim=0)", IndexError, "non-zero size"),
    ("lucid.zeros(0).aminmax()", RuntimeError, "empty"),
    ("lucid.zeros(3).max(1)", IndexError, r"range of \[-1, 0\], but got 1"),
    ("lucid.zeros(2, 3).mean(2)", IndexError, r"range of \[-2, 1\], but got 2"),
    ("lucid.zeros(2, 3).cumsum(-3)", IndexError, "but got -3"),
    ("lucid.zeros(2, 3).argmax(5)", IndexError, "but got 5"),
    ("lucid.zeros(2, 3).var((0, 0))", ValueError, "multiple times"),
    ("lucid.tensor([1, 2]).mean()", RuntimeError, "floating point or complex"),
    ("lucid.tensor([1, 2]).var()", RuntimeError, "floating point and complex"),
    ("lucid.tensor([True]).argmax()", NotImplementedError, "bool"),
    ("lucid.tensor([1j]).max()", NotImplementedError, "complex"),
    ("lucid.zeros(3).trace()", RuntimeError, "expected a matrix"),
    ("lucid.tensor([1, 2]).logcumsumexp(0)", NotImplementedError, "logcumsumexp"),
])
def test_errors(expr, exc, msg):
    with pytest.raises(exc, match=msg):
        eval(expr)


def test_any_all_dtypes():
    u = lucid.tensor([1, 0, 2], dtype=lucid.uint8)
    assert u.any().dtype is lucid.uint8 and u.any().item() == 1 and u.all().item() == 0
    f = lucid.tensor([[0.5, 0.0], [1.0, 2.0]])
    assert f.all(1).dtype is lucid.bool_ and f.all(1).tolist() == [False, True]
    assert lucid.zeros(0).all().item() is True and lucid.zeros(0).any().item() is False
    assert lucid.tensor([0j, 1j]).any().item() is True


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "uint8", "complex64"])
def test_any_all_decided_anywhere_in_a_row(dtype):
    # Rows decided by one element placed in every chunk of the contiguous kernel (256 elements), at its
    # edges and in the last, partial chunk; -0.0 counts as zero and NaN as nonzero.
    n, pos = 1100, [0, 1, 255, 256, 257, 700, 1023, 1024, 1099]
    zeros, ones = np.zeros((len(pos), n), dtype), np.ones((len(pos), n), dtype)
    for r, p in enumerate(pos):
        zeros[r, p] = 1j if dtype == "complex64" else 3
        ones[r, p] = 0
    assert lucid.tensor(zeros).any(1).tolist() == [True] * len(pos)
    assert lucid.tensor(zeros).all(1).tolist() == [False] * len(pos)
    assert lucid.tensor(ones).all(1).tolist() == [False] * len(pos)
    assert lucid.tensor(ones).any(1).tolist() == [True] * len(pos)
    assert lucid.tensor(np.zeros((2, n), dtype)).any(1).tolist() == [False, False]
    assert lucid.tensor(np.ones((2, n), dtype)).all(1).tolist() == [True, True]
    if dtype.startswith("float"):
        x = np.full((2, n), -0.0, dtype)
        x[1, 900] = np.nan
        assert lucid.tensor(x).any(1).tolist() == [False, True]
        assert lucid.tensor(x).any(1).tolist() == np.any(x, 1).tolist()


def test_empty_reductions():
    assert np.isnan(lucid.zeros(0).mean().item())
    assert lucid.zeros(0).prod().item() == 1.0
    assert lucid.zeros(0).logsumexp(0).item() == float("-inf")
    assert lucid.zeros(0, 3).prod(0).tolist() == [1.0, 1.0, 1.0]


def test_var_corrections():
    x = lucid.tensor([1.0, 2.0, 3.0, 4.0])
    assert x.var().item() == pytest.approx(5 / 3)
    assert x.var(unbiased=False).item() == pytest.approx(1.25)
    assert x.var(False).item() == pytest.approx(1.25)
    assert x.var(0, True).item() == pytest.approx(5 / 3)
    assert x.var(correction=2).item() == pytest.approx(2.5)
    assert x.std(correction=0).item() == pytest.approx(1.25 ** 0.5)
    assert x.var(correction=4).item() == float("inf")
    v, m = lucid.var_mean(x, 0, keepdim=True)
    assert v.shape == (1,) and m.item() == 2.5
    s, m = lucid.std_mean(x)
    assert s.item() == pytest.approx((5 / 3) ** 0.5)


def test_var_is_two_pass():
    x = lucid.tensor([1e8 + 1.0, 1e8 + 2.0, 1e8 + 3.0], dtype=lucid.float64)
    assert x.var().item() == pytest.approx(1.0)


def test_logsumexp_is_stable():
    x = lucid.tensor([1000.0, 1000.0])
    assert x.logsumexp(0).item() == pytest.approx(1000.0 + np.log(2))
    y = lucid.tensor([-float("inf"), -float("inf")])
    assert y.logsumexp(0).item() == float("-inf")
    z = lucid.tensor([float("inf"), 1.0])
    assert z.logsumexp(0).item() == float("inf")
    assert lucid.tensor([1, 2]).logsumexp(0).dtype is lucid.float32


def test_logcumsumexp_is_stable():
    x = lucid.tensor([1000.0, 1000.0, -1000.0])
    r = x.logcumsumexp(0).tolist()
    assert r[0] == 1000.0 and r[1] == pytest.approx(1000.0 + np.log(2)) and r[2] == pytest.approx(r[1])


def test_inplace_scans():
    x = lucid.tensor([1, 2, 3], dtype=lucid.int32)
    v = x._version
    y = x.cumsum_(0)
    assert y is x and x.tolist() == [1, 3, 6] and x.dtype is lucid.int32 and x._version == v + 1
    f = lucid.tensor([[1.0, 2.0], [3.0, 4.0]])
    f.cumprod_(dim=1)
    assert f.tolist() == [[1.0, 2.0], [3.0, 12.0]]


def test_result_dtypes():
    i = lucid.tensor([1, 2], dtype=lucid.int32)
    assert i.prod().dtype is lucid.int64 and i.cumsum(0).dtype is lucid.int64
    assert i.cumprod(0).dtype is lucid.int64 and i.nansum().dtype is lucid.int64
    assert i.mean(dtype=lucid.float64).item() == 1.5
    assert lucid.tensor([True, True]).cumsum(0).tolist() == [1, 2]
    assert lucid.tensor([True, False]).prod().item() == 0
    assert lucid.tensor([True, False]).max().item() is True
    assert lucid.arange(6, dtype=lucid.int32).reshape(2, 3).trace().dtype is lucid.int64
    assert lucid.tensor([1 + 1j, 2]).var().dtype is lucid.float32


def test_argmax_keepdim_without_dim():
    x = lucid.tensor([[1.0, 9.0], [3.0, 4.0]])
    r = x.argmax(keepdim=True)
    assert r.shape == (1, 1) and r.item() == 1


def test_integer_prod_wraps_like_int64():
    x = lucid.full((70,), 2, dtype=lucid.int64)
    assert x.prod().item() == 0  # 2**70 wraps to 0 in int64, as PyTorch
    assert lucid.full((62,), 2, dtype=lucid.int64).prod().item() == 2 ** 62


def test_amax_outer_dims_path():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((300, 70)).astype(np.float32)
    x = lucid.tensor(a)
    np.testing.assert_array_equal(x.amax(0).numpy(), a.max(0))
    np.testing.assert_array_equal(x.max(0).indices.numpy(), a.argmax(0))
    np.testing.assert_array_equal(x.argmin(0).numpy(), a.argmin(0))
    np.testing.assert_allclose(x.prod(0).numpy(), a.astype(np.float64).prod(0).astype(np.float32), rtol=1e-5)


def _grad(fn, x):
    t = lucid.tensor(x, dtype=lucid.float64).requires_grad_()
    fn(t).sum().backward()
    return t.grad.numpy()


def _tgrad(torch, fn, x):
    t = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    fn(t).sum().backward()
    return t.grad.numpy()


@pytest.mark.parametrize("x", [[2.0, 3.0, 4.0], [2.0, 0.0, 4.0], [0.0, 3.0, 0.0], [[1.0, 0.0, 2.0], [3.0, 4.0, 5.0]],
                               [[0.0, 0.0], [2.0, 0.0]]])
def test_prod_grad_with_zeros(torch, x):
    np.testing.assert_allclose(_grad(lambda t: t.prod(), x), _tgrad(torch, lambda t: t.prod(), x))
    np.testing.assert_allclose(_grad(lambda t: t.prod(-1), x), _tgrad(torch, lambda t: t.prod(-1), x))
    np.testing.assert_allclose(_grad(lambda t: t.prod(0, keepdim=True), x),
                               _tgrad(torch, lambda t: t.prod(0, keepdim=True), x))


@pytest.mark.parametrize("x", [[2.0, 3.0, 4.0, 5.0], [2.0, 0.0, 4.0, 5.0], [0.0, 3.0, 0.0, 2.0], [1.0, 2.0, 3.0, 0.0],
                               [[1.0, 0.0, 2.0], [0.0, 4.0, 0.0]]])
def test_cumprod_grad_with_zeros(torch, x):
    w = np.arange(1.0, 1.0 + np.size(x)).reshape(np.shape(x))
    lw, tw = lucid.tensor(w), torch.tensor(w)
    np.testing.assert_allclose(_grad(lambda t: t.cumprod(-1) * lw, x), _tgrad(torch, lambda t: t.cumprod(-1) * tw, x))
    np.testing.assert_allclose(_grad(lambda t: t.cumprod(0) * lw, x), _tgrad(torch, lambda t: t.cumprod(0) * tw, x))


def test_cumprod_and_prod_double_backward_with_a_zero():
    x = lucid.tensor([2.0, 0.0, 3.0, 1.5], dtype=lucid.float64).requires_grad_()
    assert lucid.autograd.gradcheck(lambda t: t.cumprod(0), (x,))
    assert lucid.autograd.gradgradcheck(lambda t: t.cumprod(0), (x,))
    assert lucid.autograd.gradcheck(lambda t: t.prod(), (x,))
    assert lucid.autograd.gradgradcheck(lambda t: t.prod(), (x,))


def test_amax_grad_splits_ties_evenly(torch):
    x = [[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]]
    for fn in (lambda t: t.amax(1), lambda t: t.amax(), lambda t: t.max(), lambda t: t.amin((0, 1))):
        np.testing.assert_allclose(_grad(fn, x), _tgrad(torch, fn, x))


def test_max_dim_grad_goes_to_the_index(torch):
    x = [[1.0, 3.0, 3.0], [2.0, 5.0, 2.0]]
    for fn in (lambda t: t.max(1).values, lambda t: t.min(0, keepdim=True)[0], lambda t: t.cummax(1).values,
               lambda t: t.cummin(0).values):
        np.testing.assert_allclose(_grad(fn, x), _tgrad(torch, fn, x))


def test_nansum_grad_skips_nan():
    x = lucid.tensor([1.0, float("nan"), 2.0]).requires_grad_()
    lucid.nansum(x).backward()
    assert x.grad.tolist() == [1.0, 0.0, 1.0]
    y = lucid.tensor([1.0, float("nan"), 3.0]).requires_grad_()
    lucid.nanmean(y).backward()
    assert y.grad.tolist() == [0.5, 0.0, 0.5]


def test_logsumexp_grad_is_softmax(torch):
    x = [[1.0, 2.0, 3.0], [1000.0, 1000.0, -5.0]]
    np.testing.assert_allclose(_grad(lambda t: t.logsumexp(1), x), _tgrad(torch, lambda t: t.logsumexp(1), x))


def test_var_std_grads(torch):
    x = [[1.0, 2.0, 4.0], [3.0, -1.0, 0.5]]
    for fn in (lambda t: t.var(1), lambda t: t.std(0, correction=0), lambda t: t.var()):
        np.testing.assert_allclose(_grad(fn, x), _tgrad(torch, fn, x), rtol=1e-12)


def test_diff_of_bools_is_xor():
    assert lucid.tensor([True, False, False, True]).diff().tolist() == [True, False, True]


def test_diff_prepend_errors():
    with pytest.raises(RuntimeError, match="same dimension"):
        lucid.diff(lucid.zeros(2, 3), prepend=lucid.zeros(3))
    with pytest.raises(ValueError, match="non-negative"):
        lucid.diff(lucid.zeros(3), n=-1)
    with pytest.raises(RuntimeError, match="one-dimensional"):
        lucid.diff(lucid.tensor(1.0))


def test_max_min_of_two_tensors_are_maximum_minimum():
    a, b = lucid.tensor([1.0, 5.0]), lucid.tensor([3.0, 2.0])
    assert lucid.max(a, b).tolist() == [3.0, 5.0] and a.max(b).tolist() == [3.0, 5.0]
    assert lucid.min(a, b).tolist() == [1.0, 2.0] and a.min(other=b).tolist() == [1.0, 2.0]


def test_logcumsumexp_grad_is_stable(torch):
    x = [[1000.0, 1000.0, -1000.0, 3.0], [-2.0, 0.5, 1.0, 700.0]]
    w = np.array([[1.0, -2.0, 0.5, 3.0], [-1.0, 2.0, -0.5, 1.5]])
    lw, tw = lucid.tensor(w), torch.tensor(w)
    got = _grad(lambda t: t.logcumsumexp(1) * lw, x)
    want = _tgrad(torch, lambda t: t.logcumsumexp(1) * tw, x)
    assert np.isfinite(got).all()
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("n", [40, 1000, 100003])
def test_long_runs_nan_and_first_index(n):
    """The vectorised lanes of contiguous runs keep NaN propagation and the first-index rule."""
    a = np.zeros(n, np.float32)
    a[n // 3] = 5.0
    a[n // 2] = 5.0
    x = lucid.tensor(a)
    assert x.amax().item() == 5.0 and x.argmax().item() == n // 3 and x.max(0).indices.item() == n // 3
    assert x.argmin().item() == 0
    a[n - 7] = np.nan
    x = lucid.tensor(a)
    assert np.isnan(x.amax().item()) and x.argmax().item() == n - 7 and x.min(0).indices.item() == n - 7
    assert np.isnan(x.reshape(1, n).amax(1).item())
