"""Focused tests of the sorting family: NaN order, ties, named results, argument forms, dtype rules
and typed errors (the op table covers values, dtypes and layouts)."""
import math

import numpy as np
import pytest

import lucid

from helpers import to_numpy

NAN = float("nan")


def _t(torch, x):
    return torch.from_numpy(to_numpy(x))


def _same(a, b):
    np.testing.assert_array_equal(to_numpy(a), b.numpy() if hasattr(b, "numpy") else np.asarray(b))


# ---------------------------------------------------------------------------------------------
# NaN order and ties

def test_sort_nan_is_largest(torch):
    x = lucid.tensor([[3.0, NAN, 1.0, -math.inf, NAN, 2.0], [NAN, 0.0, math.inf, 0.0, -1.0, NAN]])
    for descending in (False, True):
        for dim in (0, 1):
            got = lucid.sort(x, dim=dim, descending=descending)
            want = torch.sort(_t(torch, x), dim=dim, descending=descending, stable=True)
            _same(got.values, want.values)
            _same(got.indices, want.indices)
            _same(lucid.argsort(x, dim=dim, descending=descending), want.indices)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_sort_nan_reduced_floats(torch, dtype):
    x = lucid.tensor([2.0, NAN, -1.0, NAN, 0.5]).to(getattr(lucid, dtype))
    v, i = lucid.sort(x, descending=True)
    assert i.tolist() == [1, 3, 0, 4, 2]
    assert math.isnan(v.float().tolist()[0]) and v.float().tolist()[2:] == [2.0, 0.5, -1.0]


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
                                   "float32", "float64"])
def test_sort_is_stable_with_ties(torch, dtype):
    rng = np.random.default_rng(0)
    a = rng.integers(0, 2 if dtype == "bool" else 3, size=(4, 40))
    x = lucid.tensor(a).to(getattr(lucid, dtype))
    tx = torch.tensor(a).to(getattr(torch, dtype))
    for descending in (False, True):
        got = lucid.sort(x, descending=descending, stable=True)
        want = torch.sort(tx, descending=descending, stable=True)
        _same(got.indices, want.indices)
        _same(got.values.to(lucid.int64), want.values.long())


def test_topk_nan_and_ties():
    x = lucid.tensor([1.0, NAN, 3.0, NAN, 3.0, -2.0])
    v, i = lucid.topk(x, 3)
    assert i.tolist() == [1, 3, 2]
    v, i = lucid.topk(x, 3, largest=False)
    assert v.tolist() == [-2.0, 1.0, 3.0] and i.tolist() == [5, 0, 2]


def test_topk_unsorted_is_the_same_set(torch):
    rng = np.random.default_rng(1)
    a = rng.standard_normal((5, 30))
    v, i = lucid.topk(lucid.tensor(a), 7, dim=1, sorted=False)
    want = torch.topk(torch.tensor(a), 7, dim=1).values
    np.testing.assert_array_equal(np.sort(to_numpy(v), 1), np.sort(want.numpy(), 1))
    np.testing.assert_array_equal(np.take_along_axis(a, to_numpy(i), 1), to_numpy(v))


def test_kthvalue_nan_is_largest():
    x = lucid.tensor([1.0, NAN, 0.0])
    assert lucid.kthvalue(x, 2).values.item() == 1.0
    v, i = lucid.kthvalue(x, 3)
    assert math.isnan(v.item()) and i.item() == 1


def test_median_and_nanmedian_with_nan(torch):
    x = lucid.tensor([[NAN, NAN, NAN], [NAN, 2.0, 1.0], [3.0, 1.0, 2.0], [4.0, 1.0, NAN]])
    m = lucid.median(x, dim=1)
    tm = torch.median(_t(torch, x), dim=1)
    assert m.indices.tolist() == [0, 0, 2, 2] == tm.indices.tolist()
    assert [math.isnan(v) for v in m.values.tolist()] == [True, True, False, True]
    n = lucid.nanmedian(x, 1)
    tn = torch.nanmedian(_t(torch, x), 1)
    np.testing.assert_array_equal(to_numpy(n.values), tn.values.numpy())
    assert n.indices.tolist() == [0, 2, 2, 1] == tn.indices.tolist()
    assert math.isnan(lucid.median(x).item())
    assert lucid.nanmedian(x).item() == torch.nanmedian(_t(torch, x)).item()


def test_median_takes_the_lower_middle():
    assert lucid.median(lucid.tensor([4.0, 1.0, 3.0, 2.0])).item() == 2.0
    v, i = lucid.median(lucid.tensor([[4, 1, 3, 2]]), 1)
    assert v.tolist() == [2] and i.tolist() == [3]
    assert lucid.median(lucid.tensor([[1.0, 2.0], [3.0, 4.0]])).item() == 2.0


def test_median_of_empty():
    assert math.isnan(lucid.median(lucid.zeros(0)).item())
    assert math.isnan(lucid.nanmedian(lucid.zeros(0, 3)).item())
    with pytest.raises(lucid.errors.IndexError):
        lucid.median(lucid.zeros(0, dtype=lucid.int64))


def test_mode_ties_smallest_value_last_index():
    r = lucid.mode(lucid.tensor([3, 1, 3, 1, 2]))
    assert (r.values.item(), r.indices.item()) == (1, 3)
    r = lucid.mode(lucid.tensor([1.0, NAN, NAN, 2.0]))      # NaNs never equal: all runs of one
    assert (r.values.item(), r.indices.item()) == (1.0, 0)
    r = lucid.mode(lucid.tensor([[True, False, True], [False, False, True]]), 1, keepdim=True)
    assert r.values.tolist() == [[True], [False]] and r.indices.tolist() == [[2], [1]]


# ---------------------------------------------------------------------------------------------
# named results and argument spellings

def test_named_results():
    x = lucid.tensor([[3.0, 1.0, 2.0]])
    for r in (lucid.sort(x), lucid.topk(x, 2), lucid.kthvalue(x, 1), lucid.median(x, 1), lucid.nanmedian(x, 1),
              lucid.mode(x)):
        v, i = r
        assert v is r.values and i is r.indices and r[0] is v and r[1] is i and len(r) == 2
        assert i.dtype is lucid.int64
    assert type(lucid.sort(x)).__name__ == "sort" and "values=" in repr(lucid.sort(x))
    h = lucid.histogram(lucid.tensor([1.0, 2.0]), bins=2)
    assert h.hist is h[0] and h.bin_edges is h[1]


def test_axis_keepdims_aliases():
    x = lucid.tensor([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]])
    assert lucid.median(x, axis=1, keepdims=True).values.tolist() == lucid.median(x, 1, True).values.tolist()
    assert x.quantile(0.5, axis=0).tolist() == x.quantile(0.5, dim=0).tolist()
    assert lucid.mode(x, axis=0).values.tolist() == lucid.mode(x, 0).values.tolist()
    assert lucid.kthvalue(x, 2, axis=1).values.tolist() == [2.0, 4.0]
    with pytest.raises(TypeError):
        lucid.median(x, 1, axis=1)


def test_keepdim_on_1d_inputs(torch):
    a = np.array([2.0, 1.0, 3.0, 1.0])
    for name, args in [("kthvalue", (2, 0, True)), ("median", (0, True)), ("nanmedian", (-1, True)), ("mode", (0, True))]:
        got = getattr(lucid, name)(lucid.tensor(a), *args)
        want = getattr(torch, name)(torch.tensor(a), *args)
        assert tuple(got.values.shape) == tuple(want.values.shape) == (1,)
        assert tuple(got.indices.shape) == (1,)
    assert tuple(lucid.quantile(lucid.tensor(a), 0.5, 0, True).shape) == (1,)
    assert tuple(lucid.quantile(lucid.tensor(a), lucid.tensor([0.5, 0.2], dtype=lucid.float64), 0, True).shape) == (2, 1)


def test_positional_arguments():
    x = lucid.tensor([[2.0, 1.0, 3.0]])
    assert lucid.sort(x, 1, True).values.tolist() == [[3.0, 2.0, 1.0]]
    assert lucid.topk(x, 2, 1, False, True).values.tolist() == [[1.0, 2.0]]
    assert lucid.quantile(x, 0.5, 1, True).tolist() == [[2.0]]
    u, i = lucid.unique(lucid.tensor([2, 1]), True, True)
    assert i.tolist() == [1, 0]
    assert lucid.searchsorted(lucid.tensor([1, 2]), input=lucid.tensor([2])).tolist() == [1]
    assert lucid.bucketize(input=lucid.tensor([2]), boundaries=lucid.tensor([1, 2])).tolist() == [1]
    assert lucid.histc(x, 3, 0, 3).tolist() == [0.0, 1.0, 2.0]


def test_methods_exist():
    x = lucid.tensor([3.0, 1.0, 2.0, 2.0])
    assert x.sort().values.tolist() == [1.0, 2.0, 2.0, 3.0]
    assert x.argsort(descending=True).tolist() == [0, 2, 3, 1]
    assert x.msort().tolist() == [1.0, 2.0, 2.0, 3.0]
    assert x.topk(1).values.tolist() == [3.0]
    assert x.unique().tolist() == [1.0, 2.0, 3.0]
    assert x.unique_consecutive(return_counts=True)[1].tolist() == [1, 1, 2]
    assert x.histc(bins=2, min=1, max=3).tolist() == [1.0, 3.0]
    assert lucid.tensor([0, 2, 2]).bincount().tolist() == [1, 0, 2]
    assert x.nanquantile(0.5).item() == 2.0


# ---------------------------------------------------------------------------------------------
# quantile

@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint", "nearest"])
def test_quantile_matches_torch(torch, interpolation):
    rng = np.random.default_rng(2)
    a = rng.standard_normal((4, 7))
    q = [0.0, 0.1, 0.25, 0.5, 0.9, 1.0]
    got = lucid.quantile(lucid.tensor(a), lucid.tensor(q, dtype=lucid.float64), dim=1, keepdim=True,
                         interpolation=interpolation)
    want = torch.quantile(torch.tensor(a), torch.tensor(q, dtype=torch.float64), dim=1, keepdim=True,
                          interpolation=interpolation)
    assert tuple(got.shape) == tuple(want.shape) == (6, 4, 1)
    np.testing.assert_allclose(to_numpy(got), want.numpy(), rtol=1e-12)


def test_quantile_nan(torch):
    a = np.array([[1.0, NAN, 3.0, 2.0], [NAN, NAN, NAN, NAN], [4.0, 0.0, 1.0, 2.0]])
    for name in ("quantile", "nanquantile"):
        got = getattr(lucid, name)(lucid.tensor(a), 0.4, dim=1)
        want = getattr(torch, name)(torch.tensor(a), 0.4, dim=1)
        np.testing.assert_allclose(to_numpy(got), want.numpy(), equal_nan=True)
    assert math.isnan(lucid.quantile(lucid.tensor(a), 0.5).item())
    assert lucid.nanquantile(lucid.tensor(a), 0.5).item() == torch.nanquantile(torch.tensor(a), 0.5).item()


def test_quantile_scalar_forms():
    x = lucid.tensor([1.0, 2.0, 3.0, 4.0])
    assert lucid.quantile(x, 1).item() == 4.0                    # an int q
    assert lucid.quantile(x, lucid.tensor(0.5)).item() == 2.5   # a 0-d tensor q gives a 0-d result
    assert tuple(lucid.quantile(x, lucid.tensor([0.5])).shape) == (1,)
    assert tuple(lucid.quantile(x.reshape(2, 2), 0.5, keepdim=True).shape) == (1, 1)


# ---------------------------------------------------------------------------------------------
# unique

def test_unique_forms(torch):
    x = lucid.tensor([3, 1, 3, 2])
    assert lucid.unique(x).tolist() == [1, 2, 3]
    assert lucid.unique(x, sorted=False).tolist() == [1, 2, 3]     # sorted anyway, as PyTorch on the CPU
    u, c = lucid.unique(x, return_counts=True)
    assert c.tolist() == [1, 1, 2]
    u, i = lucid.unique(x, return_inverse=True)
    assert i.tolist() == [2, 0, 2, 1]
    assert lucid.unique(lucid.tensor([True, False, True])).tolist() == [False, True]
    n = lucid.unique(lucid.tensor([NAN, 1.0, NAN]))
    assert str(n.tolist()) == str(torch.unique(torch.tensor([NAN, 1.0, NAN])).tolist())   # NaNs stay apart
    u, i, c = lucid.unique(lucid.tensor(7), return_inverse=True, return_counts=True)
    assert u.tolist() == [7] and tuple(i.shape) == () and c.tolist() == [1]


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int32", "int64", "uint8"])
@pytest.mark.parametrize("n", [300, 5000])  # below and above the radix sort's threshold
def test_unique_many_with_repeats(torch, dtype, n):
    # groups read off the sorted keys: values and counts as PyTorch's (-0.0 and 0.0 one group, each NaN
    # its own), and the inverse maps every element to its value. Which of -0.0 / 0.0 is kept and the
    # order among the NaNs' groups are PyTorch's unstable sort's: not compared.
    x = np.random.default_rng(n).integers(-20 if dtype != "uint8" else 0, 40, n).astype(dtype)
    if dtype.startswith("float"):
        x[::97] = np.nan
        x[5::101] = -0.0
    v, inv, cnt = (t.numpy() for t in lucid.unique(lucid.tensor(x), return_inverse=True, return_counts=True))
    tv, _, tc = (t.numpy() for t in torch.unique(torch.from_numpy(x), return_inverse=True, return_counts=True))
    assert v.dtype == x.dtype and np.array_equal(v, tv, equal_nan=True) and np.array_equal(cnt, tc)
    assert inv.dtype == np.int64 and np.array_equal(v[inv], x, equal_nan=True)
    assert np.array_equal(np.bincount(inv, minlength=len(v)), cnt)


def test_unique_dim(torch):
    a = np.array([[1, 2, 1], [0, 5, 0], [1, 2, 1]])
    for dim in (0, 1, -1):
        got = lucid.unique(lucid.tensor(a), dim=dim, return_inverse=True, return_counts=True)
        want = torch.unique(torch.tensor(a), dim=dim, return_inverse=True, return_counts=True)
        for g, w in zip(got, want):
            _same(g, w)
    u, i, c = lucid.unique(lucid.zeros(3, 0), dim=1, return_inverse=True, return_counts=True)
    assert tuple(u.shape) == (3, 0) and i.tolist() == [] and c.tolist() == []
    got = lucid.unique_consecutive(lucid.tensor(a), dim=1, return_inverse=True, return_counts=True)
    want = torch.unique_consecutive(torch.tensor(a), dim=1, return_inverse=True, return_counts=True)
    for g, w in zip(got, want):
        _same(g, w)


# ---------------------------------------------------------------------------------------------
# searchsorted / bucketize

def test_searchsorted_forms(torch):
    s = lucid.tensor([1, 3, 5, 7])
    ts = torch.tensor([1, 3, 5, 7])
    v = lucid.tensor([[3, 6, 9], [0, 5, 7]])
    for kw in [dict(), dict(right=True), dict(side="right"), dict(side="left"), dict(out_int32=True)]:
        got = lucid.searchsorted(s, v, **kw)
        want = torch.searchsorted(ts, _t(torch, v), **kw)
        _same(got, want)
        assert got.dtype.name == str(want.dtype).replace("torch.", "")
    r = lucid.searchsorted(s, 5)
    assert tuple(r.shape) == () and r.item() == 2
    assert lucid.searchsorted(s, 2.5).item() == 1                 # compared as float, not truncated
    assert lucid.searchsorted(lucid.tensor([1.0, 3.0, NAN]), lucid.tensor([NAN, 4.0])).tolist() == [3, 3]


def test_searchsorted_sorter_and_batched(torch):
    rng = np.random.default_rng(3)
    seq = rng.standard_normal((3, 8))
    vals = rng.standard_normal((3, 5))
    sorter = np.argsort(seq, axis=1)
    for right in (False, True):
        got = lucid.searchsorted(lucid.tensor(seq), lucid.tensor(vals), right=right, sorter=lucid.tensor(sorter))
        want = torch.searchsorted(torch.tensor(seq), torch.tensor(vals), right=right, sorter=torch.tensor(sorter))
        _same(got, want)
    got = lucid.searchsorted(lucid.tensor(np.sort(seq, 1)), lucid.tensor(vals))
    _same(got, torch.searchsorted(torch.tensor(np.sort(seq, 1)), torch.tensor(vals)))


def test_bucketize(torch):
    b = lucid.tensor([1, 3, 5, 7, 9])
    x = lucid.tensor([[1, 6, 9], [3, 6, 10]])
    for right in (False, True):
        _same(lucid.bucketize(x, b, right=right), torch.bucketize(_t(torch, x), _t(torch, b), right=right))
    assert lucid.bucketize(4, b).item() == 2
    assert lucid.bucketize(x, b, out_int32=True).dtype is lucid.int32


# ---------------------------------------------------------------------------------------------
# histc / histogram / bincount / isin

def test_histc_rules(torch):
    x = lucid.tensor([1.0, 2.0, 1.0, 4.0, 9.0, -3.0])
    for kw in [dict(), dict(bins=4), dict(bins=3, min=0, max=3), dict(bins=5, min=2, max=2)]:
        _same(lucid.histc(x, **kw), torch.histc(_t(torch, x), **kw))
    assert lucid.histc(lucid.tensor([2.0, 2.0]), bins=4).tolist() == [0.0, 0.0, 2.0, 0.0]   # [1, 3]
    assert lucid.histc(lucid.zeros(0), bins=3).tolist() == [0.0, 0.0, 0.0]
    assert lucid.histc(lucid.tensor([0.5, NAN]), bins=2, min=0, max=1).tolist() == [0.0, 1.0]


def test_histogram_rules(torch):
    x = lucid.tensor([1.0, 2.0, 1.0, 4.0, 9.0, -3.0])
    w = lucid.tensor([1.0, 0.5, 2.0, 1.0, 1.0, 3.0])
    for kw in [dict(bins=4), dict(bins=3, range=(0.0, 3.0)), dict(bins=4, weight=w), dict(bins=4, density=True),
               dict(bins=lucid.tensor([-5.0, 0.0, 1.0, 10.0]), weight=w, density=True)]:
        tkw = {k: (_t(torch, v) if isinstance(v, lucid.Tensor) else v) for k, v in kw.items()}
        got = lucid.histogram(x, **kw)
        want = torch.histogram(_t(torch, x), **tkw)
        np.testing.assert_allclose(to_numpy(got.hist), want.hist.numpy(), rtol=1e-6)
        np.testing.assert_allclose(to_numpy(got.bin_edges), want.bin_edges.numpy(), rtol=1e-6)
    h = lucid.histogram(lucid.tensor([2.0, 2.0]), bins=2)
    assert h.bin_edges.tolist() == [1.5, 2.0, 2.5] and h.hist.tolist() == [0.0, 2.0]
    assert lucid.histogram(lucid.zeros(0), bins=2).bin_edges.tolist() == [0.0, 0.5, 1.0]


def test_bincount_dtypes(torch):
    x = lucid.tensor([1, 1, 3])
    for wd in ["float32", "float64", "int64", "float16", "int32"]:
        w = lucid.tensor([1, 2, 3]).to(getattr(lucid, wd))
        got = lucid.bincount(x, w)
        want = torch.bincount(_t(torch, x), torch.tensor([1, 2, 3]).to(getattr(torch, wd)))
        assert got.dtype.name == str(want.dtype).replace("torch.", "")
        np.testing.assert_array_equal(to_numpy(got), want.numpy())
    e = lucid.bincount(lucid.zeros(0, dtype=lucid.int64), lucid.zeros(0), minlength=3)
    assert e.dtype is lucid.int64 and e.tolist() == [0, 0, 0]     # PyTorch: empty input gives counts
    assert lucid.bincount(lucid.tensor([2], dtype=lucid.uint8), minlength=5).tolist() == [0, 0, 1, 0, 0]


def test_isin_forms(torch):
    e = lucid.tensor([[1, 2], [3, 4]])
    assert lucid.isin(e, lucid.tensor([2, 4])).tolist() == [[False, True], [False, True]]
    assert lucid.isin(e, 3, invert=True).tolist() == [[True, True], [False, True]]
    r = lucid.isin(2, lucid.tensor([1, 2]))
    assert tuple(r.shape) == () and r.item() is True
    assert lucid.isin(lucid.tensor([1, 2, 3]), lucid.tensor([2.5, 3.0])).tolist() == [False, False, True]
    assert lucid.isin(lucid.tensor([NAN, 1.0]), lucid.tensor([NAN, 1.0])).tolist() == [False, True]
    assert lucid.isin(e, lucid.tensor([1, 2]), assume_unique=True).tolist() == [[True, True], [False, False]]


# ---------------------------------------------------------------------------------------------
# typed errors

@pytest.mark.parametrize("call,exc,match", [
    (lambda: lucid.sort(lucid.zeros(3), dim=1), lucid.errors.IndexError, "dim"),
    (lambda: lucid.sort(lucid.zeros(3, dtype=lucid.complex64)), lucid.errors.NotImplementedError, "complex"),
    (lambda: lucid.argsort(lucid.zeros(2, 3), dim=-3), lucid.errors.IndexError, "dim"),
    (lambda: lucid.topk(lucid.zeros(3), 4), lucid.errors.IndexError, "k"),
    (lambda: lucid.topk(lucid.zeros(3), -1), lucid.errors.IndexError, "k"),
    (lambda: lucid.topk(lucid.zeros(3, dtype=lucid.bool_), 1), lucid.errors.NotImplementedError, "bool"),
    (lambda: lucid.kthvalue(lucid.zeros(3), 0), lucid.errors.IndexError, "k"),
    (lambda: lucid.kthvalue(lucid.zeros(3), 4), lucid.errors.IndexError, "k"),
    (lambda: lucid.kthvalue(lucid.zeros(3, 0), 1), lucid.errors.IndexError, "non-zero size"),
    (lambda: lucid.median(lucid.zeros(3, 0), 1), lucid.errors.IndexError, "non-zero size"),
    (lambda: lucid.mode(lucid.zeros(3, 0), 1), lucid.errors.IndexError, "non-zero size"),
    (lambda: lucid.median(lucid.zeros(3), 2), lucid.errors.IndexError, "dim"),
    (lambda: lucid.quantile(lucid.zeros(3), 1.5), ValueError, r"\[0, 1\]"),
    (lambda: lucid.quantile(lucid.zeros(3), -0.1), ValueError, r"\[0, 1\]"),
    (lambda: lucid.quantile(lucid.zeros(3), lucid.tensor([0.5, 2.0])), ValueError, r"\[0, 1\]"),
    (lambda: lucid.quantile(lucid.zeros(3, dtype=lucid.int64), 0.5), lucid.DtypeMismatch, "float or double"),
    (lambda: lucid.quantile(lucid.zeros(3), lucid.tensor([0.5], dtype=lucid.float64)), lucid.DtypeMismatch, "same dtype"),
    (lambda: lucid.quantile(lucid.zeros(3), lucid.zeros(1, 1)), lucid.ShapeMismatch, "1D"),
    (lambda: lucid.quantile(lucid.zeros(3), 0.5, interpolation="cubic"), ValueError, "interpolation"),
    (lambda: lucid.quantile(lucid.zeros(0), 0.5), ValueError, "non-empty"),
    (lambda: lucid.nanquantile(lucid.zeros(3), 0.5, dim=1), lucid.errors.IndexError, "dim"),
    (lambda: lucid.histogram(lucid.zeros(3), bins=lucid.tensor([0.0, 2.0, 1.0])), ValueError, "monoton"),
    (lambda: lucid.histogram(lucid.zeros(3), bins=0), ValueError, "bins"),
    (lambda: lucid.histogram(lucid.zeros(3, dtype=lucid.int64), bins=2), lucid.errors.NotImplementedError, "int64"),
    (lambda: lucid.histogram(lucid.zeros(3), bins=2, weight=lucid.zeros(2)), lucid.ShapeMismatch, "weight"),
    (lambda: lucid.histogram(lucid.zeros(3), bins=2, range=(1.0, 0.0)), ValueError, "max"),
    (lambda: lucid.histc(lucid.zeros(3), bins=0), ValueError, "bins"),
    (lambda: lucid.histc(lucid.zeros(3), min=2, max=1), ValueError, "max must be larger than min"),
    (lambda: lucid.histc(lucid.zeros(3, dtype=lucid.int32)), lucid.errors.NotImplementedError, "int32"),
    (lambda: lucid.histc(lucid.tensor([1.0, math.inf])), ValueError, "finite"),
    (lambda: lucid.bincount(lucid.tensor([1, -1, 2])), ValueError, "non-negative"),
    (lambda: lucid.bincount(lucid.tensor([[1, 2]])), lucid.ShapeMismatch, "1-d"),
    (lambda: lucid.bincount(lucid.tensor([1.0, 2.0])), lucid.errors.NotImplementedError, "float32"),
    (lambda: lucid.bincount(lucid.tensor([1, 2]), minlength=-1), ValueError, "minlength"),
    (lambda: lucid.bincount(lucid.tensor([1, 2]), lucid.ones(3)), lucid.ShapeMismatch, "same length"),
    (lambda: lucid.searchsorted(lucid.tensor([1, 2]), lucid.tensor([1]), side="left", right=True), ValueError,
     "opposites"),
    (lambda: lucid.searchsorted(lucid.tensor([1, 2]), lucid.tensor([1]), side="middle"), ValueError, "side"),
    (lambda: lucid.searchsorted(lucid.tensor([3, 1]), lucid.tensor([1]), sorter=lucid.tensor([1, 0], dtype=lucid.int32)),
     lucid.DtypeMismatch, "long"),
    (lambda: lucid.searchsorted(lucid.tensor([3, 1]), lucid.tensor([1]), sorter=lucid.tensor([1, 5])),
     lucid.errors.IndexError, "out of range"),
    (lambda: lucid.searchsorted(lucid.tensor([3, 1]), lucid.tensor([1]), sorter=lucid.tensor([1, 0, 2])),
     lucid.ShapeMismatch, "sorter"),
    (lambda: lucid.searchsorted(lucid.tensor([[1, 2], [3, 4]]), lucid.tensor([[1], [2], [3]])), lucid.ShapeMismatch,
     "first N-1"),
    (lambda: lucid.searchsorted(lucid.tensor([[1, 2], [3, 4]]), 2), lucid.ShapeMismatch, "scalar"),
    (lambda: lucid.searchsorted(lucid.tensor(1), lucid.tensor([1])), lucid.ShapeMismatch, "1 dimension"),
    (lambda: lucid.searchsorted(lucid.tensor([True]), lucid.tensor([True])), lucid.errors.NotImplementedError, "bool"),
    (lambda: lucid.bucketize(lucid.tensor([1]), lucid.tensor([[1, 2]])), lucid.ShapeMismatch, "1 dimension"),
    (lambda: lucid.isin(1, 2), TypeError, "Tensor|incompatible"),
    (lambda: lucid.isin(lucid.tensor([1 + 1j]), lucid.tensor([1j])), lucid.errors.NotImplementedError, "complex"),
    (lambda: lucid.unique(lucid.zeros(3), dim=1), lucid.errors.IndexError, "dim"),
    (lambda: lucid.unique(lucid.zeros(3, 0), dim=0), ValueError, "0 sized"),
    (lambda: lucid.unique_consecutive(lucid.zeros(3, 0), dim=0), ValueError, "0 sized"),
    (lambda: lucid.unique(lucid.zeros(3, dtype=lucid.complex64)), lucid.errors.NotImplementedError, "complex"),
])
def test_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


# ---------------------------------------------------------------------------------------------
# gradients route back through the indices (beside PyTorch's)

_GRAD_CASES = [
    ("sort", lambda m, x: m.sort(x, dim=0, descending=True)[0]),
    ("msort", lambda m, x: m.msort(x)),
    ("topk", lambda m, x: m.topk(x, 2, dim=1)[0]),
    ("topk_smallest", lambda m, x: m.topk(x, 3, dim=0, largest=False)[0]),
    ("kthvalue", lambda m, x: m.kthvalue(x, 2, dim=1, keepdim=True)[0]),
    ("median_all", lambda m, x: m.median(x)),
    ("median_dim", lambda m, x: m.median(x, 0)[0]),
    ("nanmedian_dim", lambda m, x: m.nanmedian(x, 1, keepdim=True)[0]),
    ("mode", lambda m, x: m.mode(x, 1)[0]),
    ("quantile_linear", lambda m, x: m.quantile(x, 0.3, dim=1)),
    ("quantile_all", lambda m, x: m.quantile(x, 0.7)),
    ("quantile_midpoint", lambda m, x: m.quantile(x, 0.5, dim=0, interpolation="midpoint")),
    ("quantile_nearest", lambda m, x: m.quantile(x, 0.4, dim=1, interpolation="nearest")),
    ("nanquantile", lambda m, x: m.nanquantile(x, 0.25, dim=1, keepdim=True)),
]


@pytest.mark.parametrize("name,fn", _GRAD_CASES, ids=[c[0] for c in _GRAD_CASES])
def test_gradients_match_torch(torch, name, fn):
    rng = np.random.default_rng(4)
    a = rng.standard_normal((4, 5))
    if name == "mode":
        a = np.round(a)                # repeated values: the gradient goes to the reported index
    x = lucid.tensor(a, requires_grad=True)
    tx = torch.tensor(a, requires_grad=True)
    y, ty = fn(lucid, x), fn(torch, tx)
    w = rng.standard_normal(tuple(ty.shape))
    (y * lucid.tensor(w)).sum().backward()
    (ty * torch.tensor(w)).sum().backward()
    if name == "mode":                 # PyTorch may report another index among ties: compare per value
        np.testing.assert_allclose(to_numpy(x.grad).sum(1), tx.grad.numpy().sum(1))
        return
    np.testing.assert_allclose(to_numpy(x.grad), tx.grad.numpy(), rtol=1e-12, atol=1e-12)


def test_integer_results_carry_no_gradient():
    x = lucid.tensor([3.0, 1.0, 2.0], requires_grad=True)
    assert not lucid.argsort(x).requires_grad
    v, i = lucid.sort(x)
    assert v.requires_grad and not i.requires_grad
    assert not lucid.unique(x).requires_grad
    assert not lucid.histc(x, bins=2).requires_grad


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
                                   "float32", "float64"])
def test_long_rows_match_torch_stable_sort(torch, dtype):
    """Rows long enough for the radix path: ties, NaN, +-0.0, +-inf and extremes as PyTorch's stable sort."""
    rng = np.random.default_rng(5)
    n = 3000
    if dtype == "bool":
        a = rng.random((2, n)) < 0.5
    elif dtype in ("uint8", "int8", "int16", "int32", "int64"):
        info = np.iinfo(dtype)
        a = rng.integers(-20 if info.min < 0 else 0, 20, size=(2, n)).astype(dtype)
        a[0, :4] = [info.min, info.max, info.min, 0]
    else:
        a = np.round(rng.standard_normal((2, n)) * 4) / 4
        a[0, :8] = [NAN, -0.0, 0.0, math.inf, -math.inf, NAN, -0.0, 0.0]
        a[1, ::7] = NAN
    x = lucid.tensor(a).to(getattr(lucid, dtype))
    tx = torch.tensor(a).to(getattr(torch, dtype))
    for descending in (False, True):
        got = lucid.sort(x, descending=descending)
        want = torch.sort(tx, descending=descending, stable=True)
        _same(got.indices, want.indices)
        g, w = to_numpy(got.values.to(lucid.float64)), want.values.double().numpy()
        np.testing.assert_array_equal(g, w)
    u = lucid.unique(x.reshape(-1), return_counts=True)
    tu = torch.unique(tx.reshape(-1), return_counts=True)
    np.testing.assert_array_equal(to_numpy(u[0].to(lucid.float64)), tu[0].double().numpy())
    _same(u[1], tu[1])


@pytest.mark.parametrize("dtype", ["int16", "float32", "bfloat16"])
def test_mode_of_long_rows(torch, dtype):
    rng = np.random.default_rng(6)
    a = rng.integers(-6, 6, size=(3, 2000))
    x = lucid.tensor(a).to(getattr(lucid, dtype))
    v, i = lucid.mode(x, 1)
    tv = torch.mode(torch.tensor(a).to(getattr(torch, dtype)), 1).values
    np.testing.assert_array_equal(to_numpy(v.to(lucid.float64)), tv.double().numpy())
    last = [int(np.nonzero(row == val)[0][-1]) for row, val in zip(a, tv.double().numpy())]
    assert i.tolist() == last


def test_histogramdd_points_and_errors():
    """histogramdd: int bins over each column's range, the right edge in the last bin, NaN and
    out-of-range points counted nowhere, weights, an int for every dim; typed errors."""
    x = lucid.tensor([[0.0, 1.0], [1.0, 2.0], [2.0, 2.0], [0.5, 1.5]])
    r = lucid.histogramdd(x, bins=[2, 3])
    np.testing.assert_array_equal(r.hist.numpy(), [[1, 1, 0], [0, 0, 2]])
    np.testing.assert_allclose(r.bin_edges[1].numpy(), [1.0, 4 / 3, 5 / 3, 2.0], rtol=1e-6)
    assert type(r).__name__ == "histogramdd" and r._fields == ("hist", "bin_edges")
    r = lucid.histogramdd(x, bins=2, range=[0.0, 1.0, 0.0, 1.0], density=True)
    np.testing.assert_array_equal(r.hist.numpy(), [[0, 4], [0, 0]])
    y = lucid.tensor([[0.5, 0.5], [float("nan"), 0.5], [0.5, 3.0]])
    h = lucid.histogramdd(y, bins=[lucid.tensor([0.0, 1.0]), lucid.tensor([0.0, 1.0, 2.0])], weight=lucid.tensor([2.0, 5.0, 7.0]))
    np.testing.assert_array_equal(h.hist.numpy(), [[2, 0]])
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        lucid.histogramdd(lucid.tensor([1.0, 2.0]), bins=2)
    with pytest.raises(RuntimeError, match="size of bins"):
        lucid.histogramdd(x, bins=[2])
    with pytest.raises(RuntimeError, match="range should have 4 elements"):
        lucid.histogramdd(x, bins=2, range=[0.0, 1.0])
    with pytest.raises(RuntimeError, match="min should not exceed max"):
        lucid.histogramdd(x, bins=2, range=[1.0, 0.0, 0.0, 1.0])
    with pytest.raises(RuntimeError, match="bins must be > 0"):
        lucid.histogramdd(x, bins=[0, 2])
    with pytest.raises(RuntimeError, match="weight should have the shape"):
        lucid.histogramdd(x, bins=2, weight=lucid.ones(3))
    with pytest.raises(NotImplementedError, match="float32/float64"):
        lucid.histogramdd(x.long(), bins=2)
