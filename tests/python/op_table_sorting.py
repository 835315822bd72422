"""Op-table entries: sorting, searching and order statistics (sort, topk, unique, searchsorted, histc, median, mode, quantile, ...). See op_table.py for the fields of an entry.

References are written in NumPy from the definitions: orders put NaN last (first when descending)
and keep ties in index order, so indices are deterministic. PyTorch picks any index among ties for
topk/kthvalue/median; their torch_op takes PyTorch's values and the indices of its stable sort."""
import builtins

import numpy as np

import lucid
from helpers import ALL_DTYPES, round_bf16

min_, max_ = min, max
from op_table import OpInfo, Sample  # noqa: F401

BOOL, I64, F32, F64 = lucid.bool_, lucid.int64, lucid.float32, lucid.float64
REAL = [d for d in ALL_DTYPES if not d.is_complex]              # sort, msort, argsort, mode, unique
REAL_NO_BOOL = [d for d in REAL if d is not BOOL]               # topk, kthvalue, median, searchsorted, isin
FLOATS = [lucid.float16, lucid.bfloat16, F32, F64]              # histc
F32_64 = [F32, F64]                                             # quantile, histogram
INTS = [lucid.uint8, lucid.int8, lucid.int16, lucid.int32, lucid.int64]  # bincount

# Gradients of sort/topk/kthvalue/median/mode/quantile scatter through the indices (scatter_add).
GRAD = True


# ---------------------------------------------------------------------------------------------
# references

def _f64(a):
    return np.asarray(a).astype(np.float64)


def _order(a, axis, descending=False):
    """Stable argsort along axis with NaN as the largest value."""
    v = np.moveaxis(_f64(a), axis, -1)
    nan = np.isnan(v)
    v0 = np.where(nan, 0.0, v)
    keys = (-v0, ~nan) if descending else (v0, nan)
    idx = np.lexsort(keys, axis=-1) if v.ndim else np.zeros((), np.int64)
    return np.moveaxis(idx, -1, axis) if v.ndim else idx


def _sort_ref(a, out, dim=-1, descending=False, stable=False):
    a = np.asarray(a)
    if a.ndim == 0:
        return a.copy(), np.zeros((), np.int64)
    idx = _order(a, dim, descending)
    return np.take_along_axis(a, idx, dim), idx


def _topk_ref(a, out, k, dim=-1, largest=True, sorted=True):
    a = np.asarray(a)
    if a.ndim == 0:
        return a.copy(), np.zeros((), np.int64)
    idx = np.take(_order(a, dim, largest), np.arange(k), axis=dim)
    return np.take_along_axis(a, idx, dim), idx


def _pick(a, dim, keepdim, kfn):
    """values/indices at position kfn(row) of each row's stable ascending order."""
    a = np.asarray(a)
    if a.ndim == 0:
        return a.copy(), np.zeros((), np.int64)
    idx = np.moveaxis(_order(a, dim), dim, -1)
    vals = np.moveaxis(a, dim, -1)
    flat_i = idx.reshape(-1, idx.shape[-1])
    flat_v = vals.reshape(-1, vals.shape[-1])
    oi = np.array([row_i[kfn(_f64(row_v))] for row_i, row_v in zip(flat_i, flat_v)], dtype=np.int64)
    oi = oi.reshape(idx.shape[:-1])
    ov = np.take_along_axis(vals, oi[..., None], -1)[..., 0]
    if keepdim:
        oi, ov = np.expand_dims(oi, dim), np.expand_dims(ov, dim)
    return ov, oi


def _median_k(row):
    nans = int(np.isnan(row).sum())
    return row.size - nans if nans else (row.size - 1) // 2


def _nanmedian_k(row):
    valid = row.size - int(np.isnan(row).sum())
    return (valid - 1) // 2 if valid else 0


def _kth_ref(a, out, k, dim=-1, keepdim=False):
    return _pick(a, dim, keepdim, lambda row: k - 1)


def _median_dim_ref(a, out, dim, keepdim=False):
    return _pick(a, dim, keepdim, _median_k)


def _nanmedian_dim_ref(a, out, dim, keepdim=False):
    return _pick(a, dim, keepdim, _nanmedian_k)


def _median_all_ref(a, out):
    return _pick(np.asarray(a).reshape(-1), 0, False, _median_k)[0]


def _nanmedian_all_ref(a, out):
    return _pick(np.asarray(a).reshape(-1), 0, False, _nanmedian_k)[0]


def _mode_row(row):
    order = np.lexsort((np.arange(row.size), row))
    best, best_n, s = 0, 0, 0
    while s < row.size:
        t = s + 1
        while t < row.size and row[order[t]] == row[order[s]]:
            t += 1
        if t - s > best_n:
            best_n, best = t - s, t - 1
        s = t
    return row[order[best]], order[best]


def _mode_ref(a, out, dim=-1, keepdim=False):
    a = np.asarray(a)
    if a.ndim == 0:
        return a.copy(), np.zeros((), np.int64)
    m = np.moveaxis(a, dim, -1)
    flat = m.reshape(-1, m.shape[-1])
    vi = [_mode_row(_f64(r)) for r in flat]
    oi = np.array([i for _, i in vi], dtype=np.int64).reshape(m.shape[:-1])
    ov = np.take_along_axis(m, oi[..., None], -1)[..., 0]
    if keepdim:
        oi, ov = np.expand_dims(oi, dim), np.expand_dims(ov, dim)
    return ov, oi


def _lerp(a, b, w):
    return np.where(w < 0.5, a + w * (b - a), b - (b - a) * (1 - w))


def _quantile_rows(rows, q, interpolation, ignore_nan):
    """rows: (r, n) float64; q: list -> (len(q), r)."""
    out = np.empty((len(q), rows.shape[0]))
    for ri, row in enumerate(rows):
        s = np.sort(row)                              # NaN last
        valid = int((~np.isnan(s)).sum())
        for qi, qq in enumerate(q):
            if ignore_nan:
                rank = max(qq * (valid - 1), 0.0)
            else:
                rank = float(row.size - 1) if valid < row.size else qq * (row.size - 1)
            if interpolation == "lower":
                rank = np.floor(rank)
            elif interpolation == "higher":
                rank = np.ceil(rank)
            elif interpolation == "nearest":
                rank = np.round(rank)
            lo = int(rank)
            if interpolation in ("linear", "midpoint"):
                hi = int(np.ceil(rank))
                w = 0.5 if interpolation == "midpoint" else rank - lo
                out[qi, ri] = s[lo] if hi == lo else _lerp(s[lo], s[hi], w)
            else:
                out[qi, ri] = s[lo]
    return out


def _quantile_ref_impl(a, q, dim, keepdim, interpolation, ignore_nan):
    a = _f64(a)
    qs = [q] if np.ndim(q) == 0 else list(np.asarray(q, dtype=np.float64).reshape(-1))
    if dim is None:
        rows = a.reshape(1, -1)
        shape = (1,) * a.ndim if keepdim else ()
    else:
        m = np.moveaxis(a, dim, -1) if a.ndim else a.reshape(1)
        rows = m.reshape(-1, m.shape[-1])
        shape = m.shape[:-1]
        if keepdim and a.ndim:
            shape = list(shape)
            shape.insert(dim % a.ndim, 1)
            shape = tuple(shape)
    res = _quantile_rows(rows, qs, interpolation, ignore_nan)
    if np.ndim(q) == 1:
        return res.reshape((len(qs),) + tuple(shape))
    return res.reshape(shape)


def _unique_ref(a, out, sorted=True, return_inverse=False, return_counts=False, dim=None):
    a = np.asarray(a)
    if dim is None:
        u, inv, cnt = np.unique(a.reshape(-1), return_inverse=True, return_counts=True)
        inv = inv.reshape(a.shape)
    else:
        u, inv, cnt = np.unique(a, return_inverse=True, return_counts=True, axis=dim)
        inv = inv.reshape(-1)
    res = (u,) + ((inv.astype(np.int64),) if return_inverse else ()) + ((cnt.astype(np.int64),) if return_counts else ())
    return res if len(res) > 1 else res[0]


def _unique_out(d, return_inverse=False, return_counts=False, **_):
    n = 1 + bool(return_inverse) + bool(return_counts)
    return (d,) + (I64,) * (n - 1) if n > 1 else d


def _unique_consecutive_ref(a, out, return_inverse=False, return_counts=False, dim=None):
    a = np.asarray(a)
    rows = a.reshape(-1, 1) if dim is None else np.moveaxis(a, dim, 0).reshape(a.shape[dim], -1)
    firsts, inv, cnt = [], [], []
    for i in range(rows.shape[0]):
        if i == 0 or not np.array_equal(rows[i], rows[i - 1]):
            firsts.append(i)
            cnt.append(0)
        inv.append(len(firsts) - 1)
        cnt[-1] += 1
    if dim is None:
        u = a.reshape(-1)[firsts]
        inv = np.array(inv, dtype=np.int64).reshape(a.shape)
    else:
        u = np.take(a, firsts, axis=dim)
        inv = np.array(inv, dtype=np.int64)
    cnt = np.array(cnt, dtype=np.int64)
    res = (u,) + ((inv,) if return_inverse else ()) + ((cnt,) if return_counts else ())
    return res if len(res) > 1 else res[0]


def _searchsorted_ref(s, v, out, right=False, side=None, out_int32=False):
    s = np.sort(_f64(s), axis=-1)
    v = _f64(v)
    r = "right" if (side == "right" or right) else "left"
    if s.ndim == 1:
        return np.searchsorted(s, v, side=r)
    fs, fv = s.reshape(-1, s.shape[-1]), v.reshape(-1, v.shape[-1])
    return np.stack([np.searchsorted(a, b, side=r) for a, b in zip(fs, fv)]).reshape(v.shape)


def _bucketize_ref(v, b, out, right=False, out_int32=False):
    return np.searchsorted(np.sort(_f64(b)), _f64(v), side="right" if right else "left")


def _edges_ref(bins, lo, hi, d):
    """PyTorch's linspace in dtype d's arithmetic."""
    r = _rounder(d)
    s, e = r(lo), r(hi)
    step = r(r(e - s) / bins)
    steps, half = bins + 1, (bins + 1) // 2
    return np.array([r(s + r(step * i)) if i < half else r(e - r(step * (steps - i - 1))) for i in range(steps)],
                    dtype=np.float64)


def _hist_with_edges(x, e, w=None):
    x = _f64(x).reshape(-1)
    w = None if w is None else _f64(w).reshape(-1)
    h = np.zeros(len(e) - 1)
    for i, v in enumerate(x):
        if not (e[0] <= v <= e[-1]):
            continue
        p = min(int(np.searchsorted(e, v, side="right")) - 1, len(e) - 2)
        h[p] += 1.0 if w is None else w[i]
    return h


def _rounder(d):
    """Rounds to dtype d after each step (PyTorch's Half/BFloat16 arithmetic)."""
    if d.name == "bfloat16":
        return lambda v: round_bf16(np.asarray(v, dtype=np.float32))
    npd = {"float16": np.float16, "float32": np.float32, "float64": np.float64}[d.name]
    wide_t = np.float64 if d.name == "float64" else np.float32
    return lambda v: np.asarray(v).astype(npd).astype(wide_t)


def _histc_ref(a, out, bins=100, min=0, max=0):
    """PyTorch's histc: bin = int((x - lo) * bins / (hi - lo)) in the input's dtype."""
    x = _f64(a).reshape(-1)
    lo, hi = float(min), float(max)
    if lo == hi and x.size:
        lo, hi = x.min(), x.max()
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    r = _rounder(out)
    lo, hi = r(lo), r(hi)
    width, kb = r(hi - lo), r(bins)
    h = np.zeros(bins)
    xs = r(x)
    for v in xs:
        if not (lo <= v <= hi):
            continue
        pos = int(r(r(r(v - lo) * kb) / width))
        h[min_(max_(pos, 0), bins - 1)] += 1
    return h


def _histogram_ref(a, *rest, bins=None, range=None, density=False):
    out = rest[-1]
    w = rest[0] if len(rest) == 2 else None
    x = _f64(a)
    if isinstance(bins, int):
        lo, hi = range if range is not None else ((x.min(), x.max()) if x.size else (0.0, 0.0))
        if lo == hi:
            lo, hi = (0.0, 1.0) if (not x.size and range is None) else (lo - 0.5, hi + 0.5)
        e = _edges_ref(bins, lo, hi, out[0])
    else:
        e = np.asarray(bins, dtype=np.float64)
    h = _hist_with_edges(x, e, w)
    if density:
        h = h / (h.sum() * np.diff(e))
    return h, e


def _histogramdd_ref(a, *rest, bins=None, range=None, density=False):
    """(hist, edges of each dim): each column through _histogram_ref's edges, the points counted
    where every coordinate lies inside its edges (the last bin of a dim holds its right edge)."""
    out = rest[-1]
    w = None if len(rest) == 1 else _f64(rest[0]).reshape(-1)
    x = _f64(a)
    pts = x.reshape(-1, x.shape[-1])
    edges = []
    for d, b in enumerate(bins):
        r = None if range is None else (range[2 * d], range[2 * d + 1])
        edges.append(_histogram_ref(pts[:, d], out, bins=b if isinstance(b, int) else np.asarray(b.tolist()), range=r)[1])
    h = np.zeros([len(e) - 1 for e in edges])
    for i, p in enumerate(pts):
        if all(e[0] <= v <= e[-1] for v, e in zip(p, edges)):
            pos = tuple(min(int(np.searchsorted(e, v, side="right")) - 1, len(e) - 2) for v, e in zip(p, edges))
            h[pos] += 1.0 if w is None else w[i]
    if density:
        vol = np.ones_like(h)
        for d, e in enumerate(edges):
            vol = vol * np.diff(e).reshape([-1 if k == d else 1 for k in builtins.range(len(edges))])
        with np.errstate(all="ignore"):
            h = h / (h.sum() * vol)
    return (h, *edges)


def _bincount_ref(a, *rest, minlength=0):
    w = rest[0] if len(rest) == 2 else None
    x = np.asarray(a).astype(np.int64)
    return np.bincount(x, weights=None if w is None else _f64(w), minlength=minlength)


def _isin_ref(e, t, out, invert=False, assume_unique=False):
    r = np.isin(_f64(e), _f64(t))
    return ~r if invert else r


# ---------------------------------------------------------------------------------------------
# samples

def _sort_samples(d):
    return [
        Sample(((3, 4),)), Sample(((3, 4),), dict(dim=0)), Sample(((3, 4),), dict(descending=True)),
        Sample(((2, 3, 4),), dict(dim=1, descending=True)), Sample(((2, 3, 4),), dict(dim=-3, stable=True)),
        Sample(((7,),)),
        Sample(((),), kind="zerodim"), Sample(((),), dict(dim=-1, descending=True), kind="zerodim"),
        Sample(((0, 3),), dict(dim=0), kind="empty"), Sample(((3, 0),), kind="empty"),
        Sample(((1031,),), kind="large"), Sample(((67, 129),), dict(dim=0, descending=True), kind="large"),
    ]


def _topk_samples(d):
    return [
        Sample(((3, 5),), dict(k=2)), Sample(((3, 5),), dict(k=3, dim=0)), Sample(((3, 5),), dict(k=2, largest=False)),
        Sample(((2, 3, 4),), dict(k=4, dim=-1)), Sample(((2, 3, 4),), dict(k=0, dim=1)),
        Sample(((6,),), dict(k=6, largest=False)),
        Sample(((),), dict(k=1), kind="zerodim"), Sample(((),), dict(k=0), kind="zerodim"),
        Sample(((0, 3),), dict(k=2), kind="empty"), Sample(((3, 0),), dict(k=0), kind="empty"),
        Sample(((1031,),), dict(k=10), kind="large"), Sample(((67, 129),), dict(k=5, dim=0, largest=False), kind="large"),
    ]


def _kth_samples(d):
    return [
        Sample(((3, 5),), dict(k=2)), Sample(((3, 5),), dict(k=3, dim=0)), Sample(((3, 5),), dict(k=5, keepdim=True)),
        Sample(((2, 3, 4),), dict(k=1, dim=1, keepdim=True)), Sample(((7,),), dict(k=4)),
        Sample(((7,),), dict(k=3, dim=0, keepdim=True)),
        Sample(((),), dict(k=1), kind="zerodim"), Sample(((),), dict(k=1, dim=0, keepdim=True), kind="zerodim"),
        Sample(((0, 3),), dict(k=2), kind="empty"),
        Sample(((1031,),), dict(k=500), kind="large"), Sample(((67, 129),), dict(k=30, dim=0), kind="large"),
    ]


def _median_dim_samples(d):
    return [
        Sample(((3, 5),), dict(dim=1)), Sample(((4, 5),), dict(dim=0)), Sample(((3, 4),), dict(dim=-1, keepdim=True)),
        Sample(((2, 3, 4),), dict(dim=1)), Sample(((6,),), dict(dim=0)), Sample(((5,),), dict(dim=-1, keepdim=True)),
        Sample(((),), dict(dim=0), kind="zerodim"), Sample(((),), dict(dim=-1, keepdim=True), kind="zerodim"),
        Sample(((0, 3),), dict(dim=1), kind="empty"),
        Sample(((1031,),), dict(dim=0), kind="large"), Sample(((67, 128),), dict(dim=1), kind="large"),
    ]


def _median_all_samples(d):
    return [
        Sample(((3, 5),)), Sample(((4, 4),)), Sample(((2, 3, 4),)), Sample(((1,),)),
        Sample(((),), kind="zerodim"),
        Sample(((1031,),), kind="large"), Sample(((64, 33),), kind="large"),
    ]


def _mode_samples(d):
    return [
        Sample(((3, 6),)), Sample(((5, 4),), dict(dim=0)), Sample(((3, 4),), dict(dim=-1, keepdim=True)),
        Sample(((2, 3, 4),), dict(dim=1)), Sample(((9,),)), Sample(((9,),), dict(dim=0, keepdim=True)),
        Sample(((),), kind="zerodim"), Sample(((0, 3),), dict(dim=1), kind="empty"),
        Sample(((1031,),), kind="large"), Sample(((33, 65),), dict(dim=0), kind="large"),
    ]


def _quantile_samples(d):
    q2 = lucid.tensor([0.0, 0.25, 0.5, 1.0], dtype=d)
    out = [
        Sample(((3, 5),), dict(q=0.3)), Sample(((3, 5),), dict(q=0.3, dim=1)), Sample(((4, 5),), dict(q=0.75, dim=0)),
        Sample(((3, 4),), dict(q=0.5, dim=-1, keepdim=True)), Sample(((3, 4),), dict(q=0.4, keepdim=True)),
        Sample(((2, 3, 4),), dict(q=q2, dim=1)), Sample(((7,),), dict(q=q2)),
        Sample(((2, 3, 4),), dict(q=lucid.tensor(0.6, dtype=d), dim=2)), Sample(((6,),), dict(q=q2, dim=0, keepdim=True)),
        Sample(((),), dict(q=0.5), kind="zerodim"), Sample(((),), dict(q=0.5, dim=0), kind="zerodim"),
        Sample(((1031,),), dict(q=0.33), kind="large"), Sample(((67, 129),), dict(q=q2, dim=0), kind="large"),
    ]
    for interp in ["lower", "higher", "midpoint", "nearest"]:
        out.append(Sample(((3, 5),), dict(q=q2, dim=1, interpolation=interp)))
        out.append(Sample(((4, 4),), dict(q=0.5, interpolation=interp)))
    return out


def _unique_samples(d):
    out = []
    for inv, cnt in [(False, False), (True, False), (False, True), (True, True)]:
        out.append(Sample(((3, 5),), dict(return_inverse=inv, return_counts=cnt)))
    out += [
        Sample(((2, 3, 4),), dict(sorted=False, return_inverse=True)),
        Sample(((6, 2),), dict(dim=0, return_inverse=True, return_counts=True)),
        Sample(((2, 6),), dict(dim=1, return_inverse=True, return_counts=True)),
        Sample(((3, 2, 2),), dict(dim=2, return_counts=True)),
        Sample(((),), dict(return_inverse=True, return_counts=True), kind="zerodim"),
        Sample(((0, 3),), dict(return_inverse=True, return_counts=True), kind="empty"),
        Sample(((1031,),), dict(return_inverse=True, return_counts=True), kind="large"),
    ]
    return out


def _unique_consecutive_samples(d):
    return [
        Sample(((12,),)), Sample(((3, 5),), dict(return_inverse=True, return_counts=True)),
        Sample(((12,),), dict(return_counts=True)), Sample(((12,),), dict(return_inverse=True)),
        Sample(((6, 2),), dict(dim=0, return_inverse=True, return_counts=True)),
        Sample(((2, 6),), dict(dim=1, return_counts=True)),
        Sample(((),), dict(return_inverse=True, return_counts=True), kind="zerodim"),
        Sample(((0,),), dict(return_inverse=True, return_counts=True), kind="empty"),
        Sample(((1031,),), dict(return_inverse=True, return_counts=True), kind="large"),
    ]


def _searchsorted_samples(d):
    return [
        Sample(((6,), (3, 4))), Sample(((6,), (3, 4)), dict(right=True)), Sample(((6,), (5,)), dict(side="right")),
        Sample(((2, 5), (2, 3))), Sample(((2, 3, 5), (2, 3, 4)), dict(right=True, out_int32=True)),
        Sample(((6,), ()), kind="zerodim"), Sample(((0,), (3,)), kind="empty"), Sample(((4,), (0, 2)), kind="empty"),
        Sample(((1031,), (67,)), kind="large"), Sample(((33, 65), (33, 31)), kind="large"),
    ]


def _bucketize_samples(d):
    return [
        Sample(((3, 4), (6,))), Sample(((3, 4), (6,)), dict(right=True)), Sample(((5,), (5,)), dict(out_int32=True)),
        Sample(((), (6,)), kind="zerodim"), Sample(((0, 3), (4,)), kind="empty"),
        Sample(((67, 31), (1031,)), kind="large"),
    ]


def _histc_samples(d):
    return [
        Sample(((3, 5),)), Sample(((3, 5),), dict(bins=4)), Sample(((20,),), dict(bins=6, min=-1, max=1)),
        Sample(((2, 3, 4),), dict(bins=3, min=-3, max=0.5)),
        Sample(((),), dict(bins=5), kind="zerodim"), Sample(((0,),), dict(bins=3), kind="empty"),
        Sample(((0, 3),), dict(bins=3, min=-1, max=2), kind="empty"),
        Sample(((1031,),), dict(bins=17), kind="large"), Sample(((67, 129),), dict(bins=50, min=-1.5, max=1.5), kind="large"),
    ]


def _histogram_samples(d):
    edges = lucid.tensor([-2.0, -0.5, 0.0, 0.25, 2.0], dtype=d)
    return [
        Sample(((3, 5),), dict(bins=4)), Sample(((3, 5),), dict(bins=3, density=True)),
        Sample(((20,),), dict(bins=6, range=(-1.0, 1.0))), Sample(((2, 3, 4),), dict(bins=edges)),
        Sample(((2, 3, 4),), dict(bins=edges, density=True)),
        Sample(((),), dict(bins=5), kind="zerodim"), Sample(((0,),), dict(bins=3), kind="empty"),
        Sample(((1031,),), dict(bins=17), kind="large"),
    ]


def _histogram_w_samples(d):
    edges = lucid.tensor([-1.5, -0.5, 0.0, 0.25, 1.0], dtype=d)
    return [
        Sample(((3, 5), (3, 5)), dict(bins=4)), Sample(((12,), (12,)), dict(bins=3, range=(-1.0, 1.0), density=True)),
        Sample(((2, 3, 4), (2, 3, 4)), dict(bins=edges)),
        Sample(((), ()), dict(bins=2), kind="zerodim"), Sample(((0,), (0,)), dict(bins=3), kind="empty"),
        Sample(((1031,), (1031,)), dict(bins=9), kind="large"),
    ]


def _histogramdd_samples(d):
    e0 = lucid.tensor([-2.0, -0.5, 0.0, 0.25, 2.0], dtype=d)
    e1 = lucid.tensor([-1.0, 1.0], dtype=d)
    return [
        Sample(((6, 2),), dict(bins=[3, 4])), Sample(((2, 5, 3),), dict(bins=[2, 3, 2], density=True)),
        Sample(((9, 2),), dict(bins=[4, 2], range=[-1.0, 1.0, -0.5, 0.5])), Sample(((7, 2),), dict(bins=[e0, e1])),
        Sample(((7, 2),), dict(bins=[e0, e1], density=True)), Sample(((1, 1),), dict(bins=[3]), kind="zerodim"),
        Sample(((0, 2),), dict(bins=[2, 3]), kind="empty"), Sample(((515, 2),), dict(bins=[7, 5]), kind="large"),
    ]


def _histogramdd_w_samples(d):
    return [Sample(((6, 2), (6,)), dict(bins=[3, 4])), Sample(((2, 4, 2), (2, 4)), dict(bins=[2, 2], density=True)),
            Sample(((0, 3), (0,)), dict(bins=[2, 2, 1]), kind="empty")]


def _torch_histogramdd(torch, t, *rest, bins, **kw):
    bins = [torch.tensor(b.tolist(), dtype=t.dtype) if isinstance(b, lucid.Tensor) else b for b in bins]
    if rest:
        kw["weight"] = rest[0]
    r = torch.histogramdd(t, bins, **kw)
    return (r.hist, *r.bin_edges)


def _hdd(a, w=None, **kw):
    r = lucid.histogramdd(a, weight=w, **kw)
    return (r.hist, *r.bin_edges)


def _bincount_samples(d):
    return [
        Sample(((12,),)), Sample(((7,),), dict(minlength=15)), Sample(((1,),), dict(minlength=3)),
        Sample(((0,),), kind="empty"), Sample(((0,),), dict(minlength=4), kind="empty"),
        Sample(((1031,),), kind="large"),
    ]


def _bincount_w_samples(d):
    # (an empty input gives int64 zeros even with weights, as PyTorch: see test_sorting.py)
    return [Sample(((12,), (12,))), Sample(((5,), (5,)), dict(minlength=12)), Sample(((1031,), (1031,)), kind="large")]


def _isin_samples(d):
    return [
        Sample(((3, 4), (5,))), Sample(((3, 4), (2, 3)), dict(invert=True)), Sample(((7,), (7,)), dict(assume_unique=True)),
        Sample(((), (4,)), kind="zerodim"), Sample(((3,), ()), kind="zerodim"),
        Sample(((0, 3), (4,)), kind="empty"), Sample(((4,), (0,)), kind="empty"),
        Sample(((1031,), (67,)), kind="large"),
    ]


# ---------------------------------------------------------------------------------------------
# torch oracles (PyTorch's values; indices of its stable sort where it may pick any tie)

def _torch_stable_idx(torch, t, k, dim, descending):
    if t.dim() == 0:
        return torch.zeros((), dtype=torch.int64)
    return torch.sort(t, dim=dim, descending=descending, stable=True).indices.narrow(dim, 0, k)


def _torch_topk(torch, t, k, dim=-1, largest=True, sorted=True):
    v = torch.topk(t, k, dim=dim, largest=largest, sorted=sorted).values
    return v, _torch_stable_idx(torch, t, k, dim, largest)


def _torch_kth(torch, t, k, dim=-1, keepdim=False):
    v = torch.kthvalue(t, k, dim=dim, keepdim=keepdim).values
    if t.dim() == 0:
        return v, torch.zeros((), dtype=torch.int64)
    i = torch.sort(t, dim=dim, stable=True).indices.narrow(dim, k - 1, 1)
    return v, (i if keepdim else i.squeeze(dim))


def _torch_median_dim(torch, t, dim, keepdim=False, nan=False):
    fn = torch.nanmedian if nan else torch.median
    v = fn(t, dim=dim, keepdim=keepdim).values
    if t.dim() == 0:
        return v, torch.zeros((), dtype=torch.int64)
    n = t.shape[dim]
    i = torch.sort(t, dim=dim, stable=True).indices.narrow(dim, (n - 1) // 2, 1)   # no NaN in random inputs
    return v, (i if keepdim else i.squeeze(dim))


def _torch_mode(torch, t, dim=-1, keepdim=False):
    """PyTorch's mode value; the index of its last occurrence (PyTorch picks any on large inputs)."""
    v = torch.mode(t, dim=dim, keepdim=keepdim).values
    if t.dim() == 0:
        return v, torch.zeros((), dtype=torch.int64)
    hit = t == (v if keepdim else v.unsqueeze(dim))
    shape = [1] * t.dim()
    shape[dim] = t.shape[dim]
    pos = torch.arange(t.shape[dim]).reshape(shape)
    i = torch.where(hit, pos, -1).amax(dim=dim, keepdim=keepdim)
    return v, i


def _torch_q(name):
    def f(torch, t, q, **kw):
        if isinstance(q, lucid.Tensor):
            q = torch.tensor(q.tolist(), dtype=t.dtype)
        return getattr(torch, name)(t, q, **kw)
    return f


def _torch_histogram(torch, t, *rest, bins, **kw):
    if isinstance(bins, lucid.Tensor):
        bins = torch.tensor(bins.tolist(), dtype=t.dtype)
    if rest:
        kw["weight"] = rest[0]
    return torch.histogram(t, bins, **kw)


def _q_kw(kw):
    return kw


# ---------------------------------------------------------------------------------------------
# the table

def _pair(d, **_):
    return (d, I64)


def _sort_fn(a, **kw):
    return lucid.sort(a, **kw)


OPS = [
    OpInfo("sort", _sort_fn, _sort_ref, _pair, REAL, _sort_samples,
           torch_op=lambda torch, t, stable=False, **kw: torch.sort(t, stable=True, **kw),
           variants={"method": lambda a, **kw: a.sort(**kw),
                     "fields": lambda a, **kw: (lucid.sort(a, **kw).values, lucid.sort(a, **kw).indices)},
           cuda=False, differentiable=GRAD),
    OpInfo("argsort", lambda a, **kw: lucid.argsort(a, **kw), lambda a, out, **kw: _sort_ref(a, out, **kw)[1],
           lambda d, **_: I64, REAL, _sort_samples,
           torch_op=lambda torch, t, stable=False, **kw: torch.argsort(t, stable=True, **kw),
           variants={"method": lambda a, **kw: a.argsort(**kw)}, cuda=False, differentiable=False),
    OpInfo("msort", lambda a: lucid.msort(a), lambda a, out: _sort_ref(a, out, dim=0)[0], lambda d, **_: d, REAL,
           lambda d: [s for s in _sort_samples(d) if not s.kwargs], torch_op=lambda torch, t: torch.msort(t),
           variants={"method": lambda a: a.msort()}, cuda=False, differentiable=GRAD),
    OpInfo("topk", lambda a, **kw: lucid.topk(a, **kw), _topk_ref, _pair, REAL_NO_BOOL, _topk_samples,
           torch_op=_torch_topk, variants={"method": lambda a, **kw: a.topk(**kw)}, cuda=False, differentiable=GRAD),
    OpInfo("kthvalue", lambda a, **kw: lucid.kthvalue(a, **kw), _kth_ref, _pair, REAL_NO_BOOL, _kth_samples,
           torch_op=_torch_kth, variants={"method": lambda a, **kw: a.kthvalue(**kw)}, cuda=False, differentiable=GRAD),
    OpInfo("median", lambda a: lucid.median(a), _median_all_ref, lambda d, **_: d, REAL_NO_BOOL,
           _median_all_samples, torch_op=lambda torch, t: torch.median(t), variants={"method": lambda a: a.median()},
           cuda=False, differentiable=GRAD),
    OpInfo("median_dim", lambda a, **kw: lucid.median(a, **kw), _median_dim_ref, _pair, REAL_NO_BOOL,
           _median_dim_samples, torch_op=_torch_median_dim,
           variants={"method": lambda a, **kw: a.median(**kw),
                     "numpy_names": lambda a, dim, keepdim=False: lucid.median(a, axis=dim, keepdims=keepdim)},
           cuda=False, differentiable=GRAD),
    OpInfo("nanmedian", lambda a: lucid.nanmedian(a), _nanmedian_all_ref, lambda d, **_: d, REAL_NO_BOOL,
           _median_all_samples, torch_op=lambda torch, t: torch.nanmedian(t),
           variants={"method": lambda a: a.nanmedian()}, cuda=False, differentiable=GRAD),
    OpInfo("nanmedian_dim", lambda a, **kw: lucid.nanmedian(a, **kw), _nanmedian_dim_ref, _pair, REAL_NO_BOOL,
           _median_dim_samples, torch_op=lambda torch, t, **kw: _torch_median_dim(torch, t, nan=True, **kw),
           variants={"method": lambda a, **kw: a.nanmedian(**kw)}, cuda=False, differentiable=GRAD),
    OpInfo("mode", lambda a, **kw: lucid.mode(a, **kw), _mode_ref, _pair, REAL, _mode_samples,
           torch_op=_torch_mode,
           variants={"method": lambda a, **kw: a.mode(**kw)}, kinds=("small",), cuda=False, differentiable=GRAD),
    OpInfo("quantile", lambda a, **kw: lucid.quantile(a, **kw),
           lambda a, out, q, dim=None, keepdim=False, interpolation="linear":
               _quantile_ref_impl(a, q.tolist() if isinstance(q, lucid.Tensor) else q, dim, keepdim, interpolation, False)
               if not (isinstance(q, lucid.Tensor) and q.dim() == 0) else
               _quantile_ref_impl(a, q.item(), dim, keepdim, interpolation, False),
           lambda d, **_: d, F32_64, _quantile_samples, torch_op=_torch_q("quantile"),
           variants={"method": lambda a, **kw: a.quantile(**kw)}, cuda=False, differentiable=GRAD),
    OpInfo("nanquantile", lambda a, **kw: lucid.nanquantile(a, **kw),
           lambda a, out, q, dim=None, keepdim=False, interpolation="linear":
               _quantile_ref_impl(a, q.tolist() if isinstance(q, lucid.Tensor) else q, dim, keepdim, interpolation, True)
               if not (isinstance(q, lucid.Tensor) and q.dim() == 0) else
               _quantile_ref_impl(a, q.item(), dim, keepdim, interpolation, True),
           lambda d, **_: d, F32_64, _quantile_samples, torch_op=_torch_q("nanquantile"),
           variants={"method": lambda a, **kw: a.nanquantile(**kw)}, cuda=False, differentiable=GRAD),
    OpInfo("unique", lambda a, **kw: lucid.unique(a, **kw), _unique_ref, _unique_out, REAL, _unique_samples,
           torch_op=lambda torch, t, **kw: torch.unique(t, **kw), variants={"method": lambda a, **kw: a.unique(**kw)},
           kinds=("small",), cuda=False, differentiable=False),
    OpInfo("unique_consecutive", lambda a, **kw: lucid.unique_consecutive(a, **kw), _unique_consecutive_ref,
           _unique_out, REAL, _unique_consecutive_samples,
           torch_op=lambda torch, t, **kw: torch.unique_consecutive(t, **kw),
           variants={"method": lambda a, **kw: a.unique_consecutive(**kw)}, kinds=("unit",), cuda=False,
           differentiable=False),
    OpInfo("searchsorted", lambda s, v, **kw: lucid.searchsorted(lucid.sort(s).values, v, **kw), _searchsorted_ref,
           lambda d, out_int32=False, **_: lucid.int32 if out_int32 else I64, REAL_NO_BOOL, _searchsorted_samples,
           torch_op=lambda torch, s, v, **kw: torch.searchsorted(torch.sort(s).values, v, **kw),
           kinds=("small", "small"), cuda=False, differentiable=False),
    OpInfo("bucketize", lambda v, b, **kw: lucid.bucketize(v, lucid.sort(b).values, **kw), _bucketize_ref,
           lambda d, out_int32=False, **_: lucid.int32 if out_int32 else I64, REAL_NO_BOOL, _bucketize_samples,
           torch_op=lambda torch, v, b, **kw: torch.bucketize(v, torch.sort(b).values, **kw),
           kinds=("small", "small"), cuda=False, differentiable=False),
    OpInfo("histc", lambda a, **kw: lucid.histc(a, **kw), _histc_ref, lambda d, **_: d, FLOATS, _histc_samples,
           torch_op=lambda torch, t, **kw: torch.histc(t, **kw), variants={"method": lambda a, **kw: a.histc(**kw)},
           cuda=False, differentiable=False),
    OpInfo("histogram", lambda a, **kw: lucid.histogram(a, **kw), _histogram_ref, lambda d, **_: (d, d), F32_64,
           _histogram_samples, torch_op=_torch_histogram,
           variants={"method": lambda a, **kw: a.histogram(**kw)}, cuda=False, differentiable=False),
    OpInfo("histogram_weight", lambda a, w, **kw: lucid.histogram(a, weight=w, **kw), _histogram_ref,
           lambda d, **_: (d, d), F32_64, _histogram_w_samples, torch_op=_torch_histogram,
           variants={"method": lambda a, w, **kw: a.histogram(weight=w, **kw)}, kinds=("default", "positive"),
           cuda=False, differentiable=False),
    OpInfo("histogramdd", _hdd, _histogramdd_ref, lambda d, bins, **_: (d,) * (1 + len(bins)), F32_64,
           _histogramdd_samples, torch_op=_torch_histogramdd, cuda=False, differentiable=False),
    OpInfo("histogramdd_weight", _hdd, _histogramdd_ref, lambda d, bins, **_: (d,) * (1 + len(bins)), F32_64,
           _histogramdd_w_samples, torch_op=_torch_histogramdd, kinds=("default", "positive"), cuda=False,
           differentiable=False),
    OpInfo("bincount", lambda a, **kw: lucid.bincount(a, **kw), _bincount_ref, lambda d, **_: I64, INTS,
           _bincount_samples, torch_op=lambda torch, t, **kw: torch.bincount(t, **kw),
           variants={"method": lambda a, **kw: a.bincount(**kw)}, kinds=("positive",), cuda=False,
           differentiable=False),
    OpInfo("bincount_weights", lambda a, w, **kw: lucid.bincount(a, weights=w, **kw), _bincount_ref,
           lambda d, **_: F64, INTS, _bincount_w_samples,
           torch_op=lambda torch, t, w, **kw: torch.bincount(t, weights=w, **kw),
           variants={"method": lambda a, w, **kw: a.bincount(w, **kw)}, kinds=("positive", "default"), cuda=False,
           differentiable=False),
    OpInfo("isin", lambda e, t, **kw: lucid.isin(e, t, **kw), _isin_ref, lambda d, **_: BOOL, REAL_NO_BOOL,
           _isin_samples, torch_op=lambda torch, e, t, **kw: torch.isin(e, t, **kw), kinds=("small", "small"),
           cuda=False, differentiable=False),
]
