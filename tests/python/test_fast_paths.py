"""Vectorised paths added for speed: nansum and the 2-norm as blocked sums (one pass, no copies),
lerp with a tensor weight as a branch-free select, add/sub with alpha, aminmax and var of a whole
float32 tensor in one pass, the float32 row kernels of cummax/cummin and topk, and x[idx] as a
direct gather. Each against a reference (float64, or the op's rule written out lane by lane)."""
import math

import numpy as np
import pytest

import lucid


@pytest.mark.parametrize("n", [1, 31, 512, 513, 5000, 1 << 16])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nansum_blocked(n, dtype):
    rng = np.random.default_rng(n)
    x = rng.standard_normal(n).astype(dtype)
    x[rng.integers(0, n, size=max(1, n // 50))] = np.nan
    ref = np.nansum(x.astype(np.float64))
    got = lucid.tensor(x).nansum().item()
    assert abs(got - ref) <= (1e-5 if dtype == np.float32 else 1e-12) * max(1.0, np.abs(x[~np.isnan(x)]).sum())
    rows = np.stack([x, -x, np.full(n, np.nan, dtype)])
    np.testing.assert_allclose(lucid.tensor(rows).nansum(1).numpy(), np.nansum(rows.astype(np.float64), 1),
                               rtol=1e-5, atol=1e-4)


def test_nansum_of_ones_is_exact():
    assert lucid.ones(10 ** 6 + 7).nansum().item() == 10 ** 6 + 7


@pytest.mark.parametrize("dim", [None, 0, 1, (0, 1)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_vector_norm_sum_of_squares(dim, dtype):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((300, 77)).astype(dtype)
    ref = np.sqrt((x.astype(np.float64) ** 2).sum(axis=dim))
    got = lucid.linalg.vector_norm(lucid.tensor(x), dim=dim).numpy()
    np.testing.assert_allclose(got, ref, rtol=2e-6 if dtype == np.float32 else 1e-13)
    kd = lucid.linalg.vector_norm(lucid.tensor(x), dim=dim, keepdim=True)
    assert tuple(kd.shape) == np.sqrt((x ** 2).sum(axis=dim, keepdims=True)).shape


def test_vector_norm_edges():
    assert lucid.linalg.vector_norm(lucid.tensor(-3.0)).item() == 3.0
    assert lucid.linalg.vector_norm(lucid.zeros(0)).item() == 0.0
    assert np.isnan(lucid.linalg.vector_norm(lucid.tensor([1.0, float("nan")])).item())
    assert lucid.linalg.vector_norm(lucid.tensor([1.0, float("inf")])).item() == float("inf")
    x = lucid.tensor(np.arange(12.0).reshape(3, 4)).mT  # non-contiguous
    np.testing.assert_allclose(lucid.linalg.vector_norm(x, dim=1).numpy(),
                               np.sqrt((np.arange(12.0).reshape(3, 4).T ** 2).sum(1)))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_lerp_tensor_weight_two_sided(dtype):
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal(4099).astype(dtype), rng.standard_normal(4099).astype(dtype)
    w = (rng.random(4099) * 3 - 1).astype(dtype)
    w[:4] = [0.0, 1.0, 0.5, -0.5]
    a64, b64, w64 = a.astype(np.float64), b.astype(np.float64), w.astype(np.float64)
    ref = np.where(np.abs(w64) < 0.5, a64 + w64 * (b64 - a64), b64 - (b64 - a64) * (1 - w64))
    got = lucid.lerp(lucid.tensor(a), lucid.tensor(b), lucid.tensor(w)).numpy()
    np.testing.assert_allclose(got, ref, rtol=1e-5 if dtype == np.float32 else 1e-13, atol=1e-6)
    assert got[0] == a[0] and got[1] == b[1]  # exact at both ends


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("alpha", [0.3, -1.7, 3])
def test_add_sub_alpha_round_once_as_torch(dtype, alpha):
    """a + alpha * b rounded once (one fused multiply-add) on every ISA, as PyTorch's fmadd; lucid's
    CUDA kernels do the same, so both devices give the same bits."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    a, b = (rng.standard_normal((100, 33)) * 50).astype(dtype), (rng.standard_normal(33) * 50).astype(dtype)
    for lf, tf in ((lucid.add, torch.add), (lucid.sub, torch.sub)):
        got = lf(lucid.tensor(a), lucid.tensor(b), alpha=alpha).numpy()
        want = tf(torch.from_numpy(a), torch.from_numpy(b), alpha=alpha).numpy()
        assert np.array_equal(got, want)


@pytest.mark.parametrize("n", [1, 17, 65536, 65537, 300001])
def test_aminmax_single_pass(n):
    """aminmax with no dim: one pass over a contiguous float32 tensor in chunks (a NaN in any chunk
    gives NaN for both), the same values and gradients as amin and amax."""
    rng = np.random.default_rng(n)
    x = rng.standard_normal(n).astype(np.float32)
    mn, mx = lucid.aminmax(lucid.tensor(x))
    assert mn.item() == x.min() and mx.item() == x.max() and mn.dim() == 0 and mx.dtype is lucid.float32
    x[n // 2 + 1 if n > 2 else 0] = np.nan
    mn, mx = lucid.aminmax(lucid.tensor(x))
    assert np.isnan(mn.item()) and np.isnan(mx.item())
    mn, mx = lucid.aminmax(lucid.tensor(x.astype(np.float64)))
    assert np.isnan(mn.item()) and np.isnan(mx.item())
    y = rng.standard_normal((7, 9)).astype(np.float32)
    for t in (lucid.tensor(y), lucid.tensor(y).mT):  # contiguous and a transposed view
        t = t.detach().requires_grad_()
        lo, hi = lucid.aminmax(t, keepdim=True)
        assert lo.shape == (1, 1) and lo.item() == y.min() and hi.item() == y.max()
        (lo.sum() + 2 * hi.sum()).backward()
        want = (np.where(t.detach().numpy() == y.min(), 1.0, 0.0) + 2 * np.where(t.detach().numpy() == y.max(), 1.0, 0.0))
        np.testing.assert_array_equal(t.grad.numpy(), want)


@pytest.mark.parametrize("n", [5, 65536, 65537, 400001])
def test_var_whole_float32_single_pass(n):
    """var/std of a whole float32 tensor without grad: the squared deviations summed in one pass over
    fixed chunks (float lanes, double totals): float32-accurate, the same bits at any thread count,
    and the composite (with its gradient) when grad is wanted."""
    rng = np.random.default_rng(n)
    x = (rng.standard_normal(n) * 0.01 + 1000.0).astype(np.float32)
    x64 = x.astype(np.float64)
    want = ((x64 - x64.mean()) ** 2).sum() / (n - 1)
    t = lucid.tensor(x)
    got = lucid.var(t).item()
    assert abs(got - want) <= 1e-4 * want
    assert abs(lucid.std(t, correction=0).item() - math.sqrt(want * (n - 1) / n)) <= 1e-4 * math.sqrt(want)
    old = lucid.get_num_threads()
    try:
        lucid.set_num_threads(1)
        one = lucid.var(t).item()
        lucid.set_num_threads(2)
        assert lucid.var(t).item() == one
    finally:
        lucid.set_num_threads(old)
    m = min(n, 64)
    tg = lucid.tensor(x[:m]).requires_grad_()
    lucid.var(tg).backward()
    np.testing.assert_allclose(tg.grad.numpy(), 2 * (x64[:m] - x64[:m].mean()) / (m - 1), rtol=1e-3, atol=1e-7)


@pytest.mark.parametrize("decimals", [2, 0, -1, 3])
def test_round_decimals_and_nan_to_num_float32_rows(decimals):
    """float32 round(decimals) and nan_to_num: contiguous runs through the per-ISA rows, strided
    ones element by element; both the same bits, and the same as PyTorch's formula."""
    rng = np.random.default_rng(decimals + 10)
    x = (rng.standard_normal(5003) * 100).astype(np.float32)
    x[::97], x[::89], x[::83] = np.nan, np.inf, -np.inf
    t = lucid.tensor(x)
    r = lucid.round(t, decimals=decimals).numpy()
    s = np.float32(10.0 ** abs(decimals))
    with np.errstate(invalid="ignore"):
        want = np.round(x / s) * s if decimals < 0 else np.round(x * s) / s
    np.testing.assert_array_equal(r, want)
    np.testing.assert_array_equal(lucid.round(t[::3], decimals=decimals).numpy(), r[::3])
    n = lucid.nan_to_num(t, nan=1.5, posinf=2.0, neginf=-3.0).numpy()
    np.testing.assert_array_equal(n, np.nan_to_num(x, nan=1.5, posinf=2.0, neginf=-3.0))
    np.testing.assert_array_equal(lucid.nan_to_num(t[1::2], nan=1.5, posinf=2.0, neginf=-3.0).numpy(), n[1::2])


def _cumext_ref(x, want_max):
    """PyTorch's cummax/cummin rule, lane by lane: a NaN takes over (each new NaN moves the index),
    ties move to the latest index."""
    v = np.empty_like(x)
    ix = np.empty(x.shape, np.int64)
    for r in range(x.shape[0]):
        cur, ci = x[r, 0], 0
        for k, a in enumerate(x[r]):
            if np.isnan(a) or (not np.isnan(cur) and (a >= cur if want_max else a <= cur)):
                cur, ci = a, k
            v[r, k], ix[r, k] = cur, ci
    return v, ix


@pytest.mark.parametrize("want_max", [True, False])
@pytest.mark.parametrize("n", [1, 15, 16, 17, 100, 1000])
def test_cummax_cummin_rows(n, want_max):
    """float32 rows (a vectorised kernel that skips blocks which cannot move the extreme): ties,
    NaNs (first, inside a block, at its end), -0/+0, a rising run, against the lane-by-lane rule."""
    rng = np.random.default_rng(n)
    x = rng.integers(-3, 4, (6, n)).astype(np.float32)  # many ties
    x[1] = np.arange(n, dtype=np.float32) * (1 if want_max else -1)  # the extreme moves every step
    x[2, n // 3] = np.nan
    x[3, -1] = np.nan
    x[3, n // 2] = np.nan
    x[4] = rng.standard_normal(n).astype(np.float32)
    x[4, 0] = np.nan
    x[5] = np.where(rng.random(n) < 0.5, np.float32(0.0), np.float32(-0.0))
    want_v, want_i = _cumext_ref(x, want_max)
    v, i = (lucid.cummax if want_max else lucid.cummin)(lucid.tensor(x), 1)
    np.testing.assert_array_equal(v.numpy(), want_v)
    np.testing.assert_array_equal(np.signbit(v.numpy()), np.signbit(want_v))
    np.testing.assert_array_equal(i.numpy(), want_i)


def _topk_ref(row, k, largest):
    """lucid's total order: NaN above every number (NaNs equal), -0 == +0, equal keys by position."""
    def key(j):
        v = row[j]
        if np.isnan(v):
            return (0 if largest else 1, 0.0, j)
        return (1 if largest else 0, -v if largest else v, j)
    order = sorted(range(len(row)), key=key)[:k]
    return row[order], np.array(order, dtype=np.int64)


@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("n,k", [(1, 1), (15, 4), (16, 16), (17, 1), (100, 16), (1000, 5), (1000, 32), (300, 33)])
def test_topk_rows(n, k, largest):
    """float32 rows with k <= 32 (a one-pass kernel that keeps the k best and skips blocks that
    cannot enter) against the total order: ties, NaNs, -0/+0, rising and falling runs; k = 33
    takes the partial sort, for comparison."""
    rng = np.random.default_rng(n * 1000 + k)
    x = rng.integers(-3, 4, (7, n)).astype(np.float32)
    x[1] = np.arange(n, dtype=np.float32)
    x[2] = -np.arange(n, dtype=np.float32)
    x[3] = rng.standard_normal(n).astype(np.float32)
    x[4, rng.integers(0, n, max(1, n // 10))] = np.nan
    x[5] = np.where(rng.random(n) < 0.5, np.float32(0.0), np.float32(-0.0))
    x[6] = rng.standard_normal(n).astype(np.float32)
    x[6, -1] = np.nan
    v, i = lucid.topk(lucid.tensor(x), k, largest=largest)
    for r in range(x.shape[0]):
        wv, wi = _topk_ref(x[r], k, largest)
        np.testing.assert_array_equal(i.numpy()[r], wi, err_msg=f"row {r}")
        np.testing.assert_array_equal(v.numpy()[r], wv, err_msg=f"row {r}")
        np.testing.assert_array_equal(np.signbit(v.numpy()[r]), np.signbit(wv), err_msg=f"row {r}")
    # along dim 0 (strided rows) and with a non-contiguous output layout: the same rule
    v0, i0 = lucid.topk(lucid.tensor(x.T.copy()), k, dim=0, largest=largest)
    np.testing.assert_array_equal(i0.numpy().T, i.numpy())


def test_first_dim_index_vector():
    """x[idx] with one int64 vector in range (a direct gather) matches the general path's values,
    gradient (repeated rows add up) and grad_fn; strided sources and indices; negative indices and
    out-of-range ones still take the general path and its error."""
    a = np.arange(60.0).reshape(5, 12)
    x = lucid.tensor(a, requires_grad=True)
    src = x[:, ::3]  # a strided source
    idx = lucid.tensor([4, 0, 4, 2, 2, 2])[::1]
    y = src[idx]
    np.testing.assert_array_equal(y.numpy(), a[:, ::3][[4, 0, 4, 2, 2, 2]])
    assert y.grad_fn.name() == "IndexBackward0"
    y.backward(lucid.ones_like(y))
    want = np.zeros_like(a)
    np.add.at(want, (np.array([4, 0, 4, 2, 2, 2])[:, None], np.arange(0, 12, 3)[None, :]), 1.0)
    np.testing.assert_array_equal(x.grad.numpy(), want)
    strided = lucid.tensor([3, 9, 1, 9, 0])[::2]  # [3, 1, 0], stride 2
    np.testing.assert_array_equal(lucid.tensor(a)[strided].numpy(), a[[3, 1, 0]])
    np.testing.assert_array_equal(lucid.tensor(a)[lucid.tensor([-1, 0, -5])].numpy(), a[[-1, 0, -5]])
    with pytest.raises(IndexError, match="index 5 is out of bounds for dimension 0 with size 5"):
        lucid.tensor(a)[lucid.tensor([0, 5])]
    with pytest.raises(IndexError, match="index -6 is out of bounds for dimension 0 with size 5"):
        lucid.tensor(a)[lucid.tensor([-6])]
