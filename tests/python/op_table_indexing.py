"""Op-table entries: indexing (advanced __getitem__/__setitem__, gather/scatter, index_*, masked_*, take, put, nonzero, one_hot). See op_table.py for the fields of an entry.

Index arrays are made inside each op from the sample's kwargs (deterministically), so the generic
tests only perturb the float inputs; `_index` gives the same array to the op, the NumPy reference and
the PyTorch call."""
import zlib

import numpy as np

import lucid
from helpers import ALL_DTYPES
from op_table import OpInfo, Sample, wide

BOOL = lucid.bool_
NO_BOOL = [d for d in ALL_DTYPES if d is not BOOL]
REAL = [d for d in ALL_DTYPES if not d.is_complex]
NUMERIC_NO_BOOL_REAL = [d for d in NO_BOOL if not d.is_complex]


# sums of several values round once per addition in float16/bfloat16 (as PyTorch's kernels do)
ACC_TOL = {"float16": (1e-2, 1e-2), "bfloat16": (6e-2, 6e-2)}


def _index(shape, low, high, tag=""):
    """A deterministic int64 index array of `shape` with values in [low, high)."""
    rng = np.random.default_rng(zlib.crc32(f"{tag}{shape}{low}{high}".encode()))
    if high <= low:
        return np.zeros(shape, dtype=np.int64)
    return rng.integers(low, high, size=shape).astype(np.int64)


def _mask(shape, tag=""):
    rng = np.random.default_rng(zlib.crc32(f"mask{tag}{shape}".encode()))
    return rng.random(shape) < 0.5


def _perm(n, tag=""):
    """Distinct indices (for ops whose duplicates have no defined result)."""
    rng = np.random.default_rng(zlib.crc32(f"perm{tag}{n}".encode()))
    return rng.permutation(n).astype(np.int64)


def _lt(a):
    return lucid.from_numpy(np.array(a, copy=True)) if np.asarray(a).size else lucid.zeros(*np.shape(a), dtype=_lt_dtype(a))


def _lt_dtype(a):
    return lucid.bool_ if np.asarray(a).dtype == bool else lucid.int64


def _tt(torch, a):
    return torch.from_numpy(np.array(a, copy=True))


def _same(d, **_):
    return d


def _dimsize(shape, dim):
    return shape[dim] if len(shape) else 1


def _coords(ishape, dim, idx):
    """Full coordinate tuple for writing idx along dim (scatter's addressing)."""
    if len(ishape) == 0:
        return (idx.reshape(()),) if False else None
    c = list(np.indices(ishape, sparse=False))
    c[dim] = idx
    return tuple(c)


def _sub(a, shape):
    """a[:shape[0], :shape[1], ...]"""
    return a[tuple(slice(0, s) for s in shape)] if len(shape) else a


# ---------------------------------------------------------------------------------------------
# gather / scatter

def _gather_index(a_shape, dim, ishape):
    return _index(ishape, 0, _dimsize(a_shape, dim), "gather")


def _gather_op(a, dim, ishape):
    return lucid.gather(a, dim, _lt(_gather_index(tuple(a.shape), dim, ishape)))


def _gather_ref(a, out, dim, ishape):
    idx = _gather_index(a.shape, dim, ishape)
    A = wide(a, out)
    if A.ndim == 0:
        return A.copy() if idx.size else np.zeros((), A.dtype)
    sub_shape = list(ishape)
    sub_shape[dim] = A.shape[dim]
    return np.take_along_axis(_sub(A, sub_shape), idx, axis=dim)


def _gather_samples(d):
    return [
        Sample(((3, 4),), dict(dim=1, ishape=(3, 2))),
        Sample(((3, 4),), dict(dim=0, ishape=(2, 4))),
        Sample(((2, 3, 4),), dict(dim=-1, ishape=(2, 3, 5))),
        Sample(((2, 3, 4),), dict(dim=1, ishape=(1, 2, 2))),
        Sample(((),), dict(dim=0, ishape=()), kind="zerodim"),
        Sample(((0, 3),), dict(dim=1, ishape=(0, 2)), kind="empty"),
        Sample(((3, 4),), dict(dim=0, ishape=(0, 4)), kind="empty"),
        Sample(((67, 129),), dict(dim=1, ishape=(67, 200)), kind="large"),
    ]


def _scatter_index(self_shape, dim, ishape):
    return _index(ishape, 0, _dimsize(self_shape, dim), "scatter")


def _scatter_ref_common(a, src, out, dim, ishape, combine, idx=None):
    if idx is None:
        idx = _scatter_index(a.shape, dim, ishape)
    A = wide(a, out).copy()
    S = wide(src, out)
    if A.ndim == 0:
        if idx.size:
            A = combine(A.reshape(1), np.zeros(1, np.int64), S.reshape(1)).reshape(())
        return A
    combine_at = _coords(ishape, dim % A.ndim, idx)
    return combine(A, combine_at, _sub(S, ishape))


def _add_at(A, at, S):
    if A.dtype == bool:
        B = A.astype(np.int64)
        np.add.at(B, at, S.astype(np.int64))
        return B != 0
    np.add.at(A, at, S)
    return A


def _scatter_add_op(a, src, dim, ishape):
    return lucid.scatter_add(a, dim, _lt(_scatter_index(tuple(a.shape), dim, ishape)), src)


def _scatter_add_samples(d):
    return [
        Sample(((3, 4), (2, 4)), dict(dim=0, ishape=(2, 4))),
        Sample(((3, 4), (3, 5)), dict(dim=1, ishape=(3, 2))),
        Sample(((2, 3, 4), (2, 6, 4)), dict(dim=1, ishape=(2, 6, 4))),
        Sample(((2, 3, 4), (2, 3, 4)), dict(dim=-1, ishape=(1, 2, 3))),
        Sample(((), ()), dict(dim=0, ishape=()), kind="zerodim"),
        Sample(((3, 4), (0, 4)), dict(dim=0, ishape=(0, 4)), kind="empty"),
        Sample(((67, 129), (200, 129)), dict(dim=0, ishape=(200, 129)), kind="large"),
    ]


def _assign_at(A, at, S):
    A[at] = S
    return A


def _scatter_distinct_index(self_shape, dim, ishape):
    """Distinct targets along dim per row (scatter's result is undefined with duplicates)."""
    if len(ishape) == 0:
        return np.zeros((), np.int64)
    n = _dimsize(self_shape, dim)
    rows = int(np.prod([s for i, s in enumerate(ishape) if i != dim % len(ishape)]))
    k = ishape[dim]
    base = np.stack([_perm(n, f"r{r}")[:k] for r in range(rows)]) if rows else np.zeros((0, k), np.int64)
    other = [s for i, s in enumerate(ishape) if i != dim % len(ishape)]
    return np.moveaxis(base.reshape(other + [k]), -1, dim % len(ishape))


def _scatter_op(a, src, dim, ishape):
    return lucid.scatter(a, dim, _lt(_scatter_distinct_index(tuple(a.shape), dim, ishape)), src)


def _scatter_ref(a, src, out, dim, ishape):
    return _scatter_ref_common(a, src, out, dim, ishape, _assign_at, _scatter_distinct_index(a.shape, dim, ishape))


def _scatter_samples(d):
    return [
        Sample(((3, 4), (2, 4)), dict(dim=0, ishape=(2, 4))),
        Sample(((3, 4), (3, 5)), dict(dim=1, ishape=(3, 2))),
        Sample(((2, 3, 4), (2, 3, 4)), dict(dim=-1, ishape=(1, 2, 3))),
        Sample(((), ()), dict(dim=0, ishape=()), kind="zerodim"),
        Sample(((3, 4), (0, 4)), dict(dim=0, ishape=(0, 4)), kind="empty"),
        Sample(((129, 67), (100, 67)), dict(dim=0, ishape=(100, 67)), kind="large"),
    ]


def _fill_value(d):
    if d is BOOL:
        return True
    if d.is_complex:
        return 1.5 - 2j
    if d.is_floating_point:
        return -1.5
    return 5


def _scatter_value_op(a, dim, ishape):
    idx = _lt(_scatter_distinct_index(tuple(a.shape), dim, ishape))
    return lucid.scatter(a, dim, idx, _fill_value(a.dtype))


def _scatter_value_ref(a, out, dim, ishape):
    v = np.full(ishape, _fill_value(out))
    return _scatter_ref_common(a, v, out, dim, ishape, _assign_at, _scatter_distinct_index(a.shape, dim, ishape))


def _scatter_value_samples(d):
    return [Sample((s[0],), k, kind) for s, k, kind in
            [(x.shapes, x.kwargs, x.kind) for x in _scatter_samples(d)]]


def _reduce_ref(kind, include_self):
    def ref(a, src, out, dim, ishape):
        idx = _scatter_index(a.shape, dim, ishape)
        A = wide(a, out).copy()
        S = wide(src, out)
        if A.ndim == 0:
            A1, S1, at = A.reshape(1), S.reshape(1), (np.zeros(1, np.int64),) if idx.size else (np.zeros(0, np.int64),)
        else:
            A1, S1, at = A, _sub(S, ishape), _coords(ishape, dim % A.ndim, idx)
        res = A1.copy()
        flat_targets = np.ravel_multi_index(tuple(np.asarray(c).reshape(-1) for c in at), A1.shape) if A1.size else []
        vals = S1.reshape(-1)
        groups = {}
        for t, v in zip(np.asarray(flat_targets).reshape(-1), vals):
            groups.setdefault(int(t), []).append(v)
        rf = res.reshape(-1)
        for t, vs in groups.items():
            vs = list(vs) + ([A1.reshape(-1)[t]] if include_self else [])
            if kind == "sum":
                r = np.sum(vs)
            elif kind == "prod":
                r = np.prod(vs)
            elif kind == "mean":
                r = np.sum(vs) / len(vs)
                if category_int(out):
                    r = np.floor_divide(np.sum(vs), len(vs))
            elif kind == "amax":
                r = np.max(vs)
            else:
                r = np.min(vs)
            rf[t] = r
        return rf.reshape(A.shape)
    return ref


def category_int(d):
    return not (d.is_floating_point or d.is_complex)


def _scatter_reduce_entry(kind, include_self, dtypes, differentiable=True):
    def op(a, src, dim, ishape):
        return lucid.scatter_reduce(a, dim, _lt(_scatter_index(tuple(a.shape), dim, ishape)), src, kind,
                                    include_self=include_self)

    def torch_op(torch, a, src, dim, ishape):
        return torch.scatter_reduce(a, dim, _tt(torch, _scatter_index(tuple(a.shape), dim, ishape)), src, kind,
                                    include_self=include_self)

    def samples(d):
        return [s for s in _scatter_add_samples(d) if s.kind != "large"] + [
            Sample(((13, 7), (40, 7)), dict(dim=0, ishape=(40, 7)), kind="large")]

    return OpInfo(f"scatter_reduce_{kind}{'' if include_self else '_noself'}", op, _reduce_ref(kind, include_self),
                  _same, dtypes, samples, torch_op=torch_op,
                  variants={"method": lambda a, src, dim, ishape: a.scatter_reduce(
                      dim, _lt(_scatter_index(tuple(a.shape), dim, ishape)), src, kind, include_self=include_self)},
                  kinds=("small", "small") if kind == "prod" else ("default", "default"),
                  cuda=False, differentiable=differentiable, tol=ACC_TOL)


# ---------------------------------------------------------------------------------------------
# index_select / index_add / index_copy / index_fill

def _isel_index(shape, dim, n):
    return _index((n,), 0, _dimsize(shape, dim), "isel")


def _isel_samples(d):
    return [
        Sample(((3, 4),), dict(dim=0, n=5)),
        Sample(((3, 4),), dict(dim=1, n=2)),
        Sample(((2, 3, 4),), dict(dim=-2, n=4)),
        Sample(((5,),), dict(dim=0, n=3)),
        Sample(((),), dict(dim=0, n=1), kind="zerodim"),
        Sample(((3, 4),), dict(dim=1, n=0), kind="empty"),
        Sample(((0, 4),), dict(dim=1, n=3), kind="empty"),
        Sample(((67, 129),), dict(dim=1, n=150), kind="large"),
    ]


def _isel_ref(a, out, dim, n):
    idx = _isel_index(a.shape, dim, n)
    A = wide(a, out)
    if A.ndim == 0:
        return A.copy()
    return np.take(A, idx, axis=dim)


def _iadd_index(shape, dim, src_shape):
    return _index((_dimsize(src_shape, dim),), 0, _dimsize(shape, dim), "iadd")


def _iadd_samples(d):
    return [
        Sample(((3, 4), (5, 4)), dict(dim=0)),
        Sample(((3, 4), (3, 2)), dict(dim=1)),
        Sample(((2, 3, 4), (2, 6, 4)), dict(dim=-2)),
        Sample(((5,), (8,)), dict(dim=0)),
        Sample(((), ()), dict(dim=0), kind="zerodim"),
        Sample(((3, 4), (3, 0)), dict(dim=1), kind="empty"),
        Sample(((67, 129), (67, 300)), dict(dim=1), kind="large"),
    ]


def _iadd_ref(alpha=None):
    def ref(a, src, out, dim):
        idx = _iadd_index(a.shape, dim, src.shape)
        A = wide(a, out).copy()
        S = wide(src, out)
        if alpha is not None:
            S = S * alpha
        if A.ndim == 0:
            return A + S if out is not BOOL else np.logical_or(A, S)
        at = [slice(None)] * A.ndim
        at[dim] = idx
        if A.dtype == bool:
            B = A.astype(np.int64)
            np.add.at(B, tuple(at), S.astype(np.int64))
            return B != 0
        np.add.at(A, tuple(at), S)
        return A
    return ref


def _icopy_index(shape, dim, src_shape):
    return _perm(_dimsize(shape, dim), "icopy")[:_dimsize(src_shape, dim)]


def _icopy_samples(d):
    return [
        Sample(((5, 4), (3, 4)), dict(dim=0)),
        Sample(((3, 4), (3, 2)), dict(dim=1)),
        Sample(((2, 6, 4), (2, 3, 4)), dict(dim=-2)),
        Sample(((), ()), dict(dim=0), kind="zerodim"),
        Sample(((3, 4), (3, 0)), dict(dim=1), kind="empty"),
        Sample(((67, 300), (67, 129)), dict(dim=1), kind="large"),
    ]


def _icopy_ref(a, src, out, dim):
    idx = _icopy_index(a.shape, dim, src.shape)
    A = wide(a, out).copy()
    if A.ndim == 0:
        return wide(src, out).copy()
    at = [slice(None)] * A.ndim
    at[dim] = idx
    A[tuple(at)] = wide(src, out)
    return A


def _ifill_ref(a, out, dim, n):
    idx = _isel_index(a.shape, dim, n)
    A = wide(a, out).copy()
    v = _fill_value(out)
    if A.ndim == 0:
        return np.full((), v, A.dtype) if n else A
    at = [slice(None)] * A.ndim
    at[dim] = idx
    A[tuple(at)] = v
    return A


# ---------------------------------------------------------------------------------------------
# masks

def _mf_samples(d):
    return [
        Sample(((3, 4),), dict(mshape=(3, 4))),
        Sample(((3, 4),), dict(mshape=(4,)), kind="broadcast"),
        Sample(((3, 1),), dict(mshape=(3, 4)), kind="broadcast"),
        Sample(((2, 3, 4),), dict(mshape=(3, 1))),
        Sample(((),), dict(mshape=()), kind="zerodim"),
        Sample(((0, 3),), dict(mshape=(0, 3)), kind="empty"),
        Sample(((67, 129),), dict(mshape=(129,)), kind="large"),
    ]


def _mf_ref(a, out, mshape):
    A = wide(a, out)
    m = _mask(mshape)
    shape = np.broadcast_shapes(A.shape, m.shape)
    return np.where(np.broadcast_to(m, shape), np.asarray(_fill_value(out), A.dtype), np.broadcast_to(A, shape))


def _mf_value_ref(a, v, out, mshape):
    A = wide(a, out)
    m = _mask(mshape)
    shape = np.broadcast_shapes(A.shape, m.shape)
    return np.where(np.broadcast_to(m, shape), wide(v, out), np.broadcast_to(A, shape))


def _msel_ref(a, out, mshape):
    A = wide(a, out)
    m = _mask(mshape)
    shape = np.broadcast_shapes(A.shape, m.shape)
    return np.broadcast_to(A, shape)[np.broadcast_to(m, shape)]


def _msel_getitem(a, mshape):
    shape = np.broadcast_shapes(tuple(a.shape), mshape)
    if not shape:
        return a.reshape(1)[_lt(_mask(mshape).reshape(1))]
    return a.expand(*shape)[_lt(np.broadcast_to(_mask(mshape), shape))]


def _mscatter_ref(a, src, out, mshape):
    A = wide(a, out)
    m = _mask(mshape)
    shape = np.broadcast_shapes(A.shape, m.shape)
    R = np.array(np.broadcast_to(A, shape))
    mb = np.broadcast_to(m, shape)
    R[mb] = wide(src, out).reshape(-1)[:int(mb.sum())]
    return R


def _mscatter_samples(d):
    return [
        Sample(((3, 4), (12,)), dict(mshape=(3, 4))),
        Sample(((3, 4), (3, 5)), dict(mshape=(4,)), kind="broadcast"),
        Sample(((3, 1), (13,)), dict(mshape=(3, 4)), kind="broadcast"),
        Sample(((), ()), dict(mshape=()), kind="zerodim"),
        Sample(((0, 3), (2,)), dict(mshape=(0, 3)), kind="empty"),
        Sample(((67, 129), (67, 129)), dict(mshape=(129,)), kind="large"),
    ]


# ---------------------------------------------------------------------------------------------
# advanced indexing (__getitem__ / index_put)

def _adv_key(shape, spec):
    """A tuple index for __getitem__ from a spec of 'i:<n>' (int tensor of n), 'm' (mask over the
    dim), ':' (slice), 'N' (None), '...' and 'k' (an int)."""
    key = []
    d = 0
    for j, s in enumerate(spec):
        if s == ":":
            key.append(slice(None))
            d += 1
        elif s == "s":
            key.append(slice(1, None, 2))
            d += 1
        elif s == "N":
            key.append(None)
        elif s == "...":
            key.append(Ellipsis)
            d = len(shape) - sum(1 for x in spec[j + 1:] if x not in ("N", "..."))
        elif s == "k":
            key.append(-1)
            d += 1
        elif s == "m":
            key.append(_mask((shape[d],), f"adv{j}"))
            d += 1
        elif s.startswith("i"):
            n = eval(s[1:]) if s[1:] else (2,)
            n = n if isinstance(n, tuple) else (n,)
            key.append(_index(n, -shape[d], shape[d], f"adv{j}"))
            d += 1
    return tuple(key)


def _to_lucid_key(key):
    return tuple(_lt(k) if isinstance(k, np.ndarray) else k for k in key)


def _to_torch_key(torch, key):
    return tuple(_tt(torch, k) if isinstance(k, np.ndarray) else k for k in key)


def _getitem_samples(d):
    specs = [
        ((3, 4), ("i3",)), ((3, 4), (":", "i(2,2)")), ((2, 3, 4), ("i2", ":", "i2")), ((2, 3, 4), (":", "i3", "i3")),
        ((2, 3, 4), ("i(2,1)", "N", "i(3,)")), ((2, 3, 4), ("k", ":", "i2")), ((2, 3, 4), ("...", "i5")),
        ((3, 4), ("m",)), ((3, 4), (":", "m")), ((2, 3, 4), ("s", "m", "i1")),
    ]
    out = [Sample((s,), dict(spec=sp)) for s, sp in specs]
    out += [Sample(((0, 3),), dict(spec=(":", "i2")), kind="empty"),
            Sample(((3, 4),), dict(spec=("i0",)), kind="empty"),
            Sample(((67, 129),), dict(spec=("i(50,)", "...")), kind="large"),
            Sample(((67, 129),), dict(spec=(":", "m")), kind="large")]
    return out


def _np_view(A, key):
    """PyTorch applies integers as selects before advanced indexing (NumPy treats them as advanced
    indices): the reference does the same."""
    while key and isinstance(key[0], int):
        A, key = A[key[0]], key[1:]
    return A, key


def _getitem_ref(a, out, spec):
    A, key = _np_view(wide(a, out), _adv_key(a.shape, spec))
    return A[key]


def _index_put_samples(d):
    out = []
    for s, spec, vshape in [((3, 4), ("i3",), (3, 4)), ((3, 4), ("i3",), (4,)), ((3, 4), (":", "i5"), (3, 5)),
                            ((2, 3, 4), ("i2", ":", "i2"), (2, 3)), ((2, 3, 4), (":", "i3", "i3"), ()),
                            ((3, 4), ("m",), (4,)), ((2, 3, 4), ("i(2,2)", "i(2,)"), (4,))]:
        out.append(Sample((s, vshape), dict(spec=spec), kind="basic" if vshape == s else "broadcast"))
    out += [Sample(((0, 3), (2,)), dict(spec=(":", "i2")), kind="empty"),
            Sample(((67, 129), (300, 129)), dict(spec=("i300",)), kind="large")]
    return out


def _index_put_ref(accumulate):
    def ref(a, v, out, spec):
        R = wide(a, out).copy()
        A, key = _np_view(R, _adv_key(a.shape, spec))
        V = wide(v, out)
        if accumulate:
            tgt = np.array(A[key])
            if A.dtype == bool:
                B = A.astype(np.int64)
                np.add.at(B, key, np.broadcast_to(V, tgt.shape).astype(np.int64))
                A[...] = B != 0
                return R
            np.add.at(A, key, np.broadcast_to(V, tgt.shape))
            return R
        A[key] = V
        return R
    return ref


def _unique_spec(spec):
    # non-accumulating writes need distinct targets: permutations instead of random indices
    return spec


def _index_put_op(accumulate):
    def op(a, v, spec):
        key = _to_lucid_key(_adv_key(tuple(a.shape), spec))
        idx = [k for k in key if not isinstance(k, slice)]
        # index_put takes one entry per dim: slices become None
        return lucid.index_put(a, tuple(None if isinstance(k, slice) else k for k in key), v, accumulate)
    return op


def _setitem_op(a, v, spec):
    r = a.clone()
    r[_to_lucid_key(_adv_key(tuple(a.shape), spec))] = v
    return r


def _torch_setitem(torch, a, v, spec):
    r = a.clone()
    r[_to_torch_key(torch, _adv_key(tuple(a.shape), spec))] = v
    return r


def _distinct_put_samples(d):
    # distinct targets only (assignment with duplicate indices has no defined result)
    return [
        Sample(((3, 4), (2, 4)), dict(spec=("p2",))),
        Sample(((3, 4), (4,)), dict(spec=("p3",)), kind="broadcast"),
        Sample(((3, 4), (3, 2)), dict(spec=(":", "p2"))),
        Sample(((3, 4), ()), dict(spec=("m",)), kind="broadcast"),
        Sample(((2, 3, 4), (3, 2)), dict(spec=("k", ":", "p2"))),
        Sample(((2, 3, 4), (2, 3)), dict(spec=("p2", ":", "p2"))),
        Sample(((0, 3), (0, 2)), dict(spec=(":", "p2")), kind="empty"),
        Sample(((67, 129), (40, 129)), dict(spec=("p40",)), kind="large"),
    ]


def _distinct_key(shape, spec):
    key, d = [], 0
    for j, s in enumerate(spec):
        if s == ":":
            key.append(slice(None))
        elif s == "k":
            key.append(-1)
        elif s == "m":
            key.append(_mask((shape[d],), f"adv{j}"))
        else:  # p<n>: n distinct indices, negative ones included
            n = int(s[1:])
            p = _perm(shape[d], f"p{j}")[:n]
            key.append(np.where(p % 2 == 1, p - shape[d], p))
        d += 1
    return tuple(key)


def _setitem_distinct_op(a, v, spec):
    r = a.clone()
    r[_to_lucid_key(_distinct_key(tuple(a.shape), spec))] = v
    return r


def _setitem_distinct_ref(a, v, out, spec):
    R = wide(a, out).copy()
    A, key = _np_view(R, _distinct_key(a.shape, spec))
    A[key] = wide(v, out)
    return R


def _setitem_distinct_torch(torch, a, v, spec):
    r = a.clone()
    r[_to_torch_key(torch, _distinct_key(tuple(a.shape), spec))] = v
    return r


# ---------------------------------------------------------------------------------------------
# take / put / nonzero / one_hot

def _take_samples(d):
    return [
        Sample(((3, 4),), dict(ishape=(5,))),
        Sample(((3, 4),), dict(ishape=(2, 3))),
        Sample(((2, 3, 4),), dict(ishape=(4, 1, 2))),
        Sample(((),), dict(ishape=()), kind="zerodim"),
        Sample(((3, 4),), dict(ishape=(0,)), kind="empty"),
        Sample(((67, 129),), dict(ishape=(200, 30)), kind="large"),
    ]


def _take_index(shape, ishape):
    n = int(np.prod(shape))
    return _index(ishape, -n, n, "take")


def _take_ref(a, out, ishape):
    return wide(a, out).reshape(-1)[_take_index(a.shape, ishape)]


def _tad_samples(d):
    return [
        Sample(((3, 4),), dict(dim=1, ishape=(3, 2))),
        Sample(((3, 4),), dict(dim=0, ishape=(5, 1)), kind="broadcast"),
        Sample(((2, 3, 4),), dict(dim=-1, ishape=(1, 3, 6)), kind="broadcast"),
        Sample(((3, 4),), dict(dim=None, ishape=(7,))),
        Sample(((3, 4),), dict(dim=1, ishape=(3, 0)), kind="empty"),
        Sample(((67, 129),), dict(dim=1, ishape=(67, 50)), kind="large"),
    ]


def _tad_index(shape, dim, ishape):
    high = int(np.prod(shape)) if dim is None else shape[dim]
    return _index(ishape, 0, high, "tad")


def _tad_ref(a, out, dim, ishape):
    A = wide(a, out)
    idx = _tad_index(a.shape, dim, ishape)
    if dim is None:
        return A.reshape(-1)[idx.reshape(-1)]
    shape = list(np.broadcast_shapes(tuple(1 if i == dim % A.ndim else s for i, s in enumerate(A.shape)),
                                     tuple(1 if i == dim % A.ndim else s for i, s in enumerate(idx.shape))))
    ish = list(shape)
    ish[dim] = idx.shape[dim]
    ash = list(shape)
    ash[dim] = A.shape[dim]
    return np.take_along_axis(np.broadcast_to(A, ash), np.broadcast_to(idx, ish), axis=dim)


def _put_samples(d):
    return [
        Sample(((3, 4), (5,))),
        Sample(((3, 4), (2, 3))),
        Sample(((2, 3, 4), (4, 1, 2))),
        Sample(((), ()), kind="zerodim"),
        Sample(((3, 4), (0,)), kind="empty"),
        Sample(((67, 129), (200, 30)), kind="large"),
    ]


def _put_index(shape, src_shape, distinct):
    n = int(np.prod(shape))
    k = int(np.prod(src_shape))
    if distinct:
        p = _perm(n, "put")[:k]
        return np.where(p % 3 == 0, p - n, p).reshape(src_shape)
    return _index(src_shape, -n, n, "put")


def _put_ref(accumulate):
    def ref(a, src, out):
        idx = _put_index(a.shape, src.shape, not accumulate).reshape(-1)
        A = wide(a, out).copy()
        flat = A.reshape(-1)
        S = wide(src, out).reshape(-1)
        if accumulate:
            if flat.dtype == bool:
                B = flat.astype(np.int64)
                np.add.at(B, idx, S.astype(np.int64))
                return (B != 0).reshape(A.shape)
            np.add.at(flat, idx, S)
        else:
            flat[idx] = S
        return flat.reshape(A.shape)
    return ref


def _put_samples_for(accumulate):
    def samples(d):
        s = _put_samples(d)
        if not accumulate:  # distinct targets: no more values than elements
            s = [x for x in s if x.kind != "large"] + [Sample(((67, 129), (60, 30)), kind="large")]
        return s
    return samples


def _nonzero_samples(d):
    return [
        Sample(((3, 4),)), Sample(((2, 3, 4),)), Sample(((7,),)),
        Sample(((),), kind="zerodim"), Sample(((0, 3),), kind="empty"), Sample(((67, 129),), kind="large"),
    ]


def _onehot_samples(d):
    return [
        Sample(((5,),), dict(num_classes=-1)), Sample(((2, 3),), dict(num_classes=7)),
        Sample(((),), dict(num_classes=4), kind="zerodim"), Sample(((0,),), dict(num_classes=3), kind="empty"),
        Sample(((300,),), dict(num_classes=-1), kind="large"),
    ]


def _onehot_ref(a, out, num_classes):
    v = np.abs(a.astype(np.int64)) % 4
    n = num_classes if num_classes != -1 else int(v.max()) + 1
    return (v[..., None] == np.arange(n)).astype(np.int64)


def _onehot_op(a, num_classes):
    return lucid.one_hot(_lt(np.abs(np.asarray(a.tolist(), dtype=np.int64)) % 4), num_classes)


# ---------------------------------------------------------------------------------------------

OPS = [
    OpInfo("gather", _gather_op, _gather_ref, _same, ALL_DTYPES, _gather_samples,
           torch_op=lambda torch, a, dim, ishape: torch.gather(
               a, dim, _tt(torch, _gather_index(tuple(a.shape), dim, ishape))),
           variants={"method": lambda a, dim, ishape: a.gather(dim, _lt(_gather_index(tuple(a.shape), dim, ishape)))},
           kinds=("default",), cuda=False),
    OpInfo("scatter_add", _scatter_add_op,
           lambda a, s, out, dim, ishape: _scatter_ref_common(a, s, out, dim, ishape, _add_at), _same, ALL_DTYPES,
           _scatter_add_samples,
           torch_op=lambda torch, a, s, dim, ishape: torch.scatter_add(
               a, dim, _tt(torch, _scatter_index(tuple(a.shape), dim, ishape)), s),
           variants={"method": lambda a, s, dim, ishape: a.scatter_add(
               dim, _lt(_scatter_index(tuple(a.shape), dim, ishape)), s),
               "reduce_add": lambda a, s, dim, ishape: a.scatter(
               dim, _lt(_scatter_index(tuple(a.shape), dim, ishape)), s, reduce="add")},
           kinds=("small", "small"), cuda=False, tol=ACC_TOL),
    OpInfo("scatter", _scatter_op, _scatter_ref, _same, ALL_DTYPES, _scatter_samples,
           torch_op=lambda torch, a, s, dim, ishape: torch.scatter(
               a, dim, _tt(torch, _scatter_distinct_index(tuple(a.shape), dim, ishape)), s),
           variants={"method": lambda a, s, dim, ishape: a.scatter(
               dim, _lt(_scatter_distinct_index(tuple(a.shape), dim, ishape)), s)},
           cuda=False),
    OpInfo("scatter_value", _scatter_value_op, _scatter_value_ref, _same, ALL_DTYPES, _scatter_value_samples,
           torch_op=lambda torch, a, dim, ishape: torch.scatter(
               a, dim, _tt(torch, _scatter_distinct_index(tuple(a.shape), dim, ishape)),
               _fill_value(getattr(lucid, str(a.dtype).replace("torch.", "")))),
           variants={"method": lambda a, dim, ishape: a.scatter(
               dim, _lt(_scatter_distinct_index(tuple(a.shape), dim, ishape)), value=_fill_value(a.dtype))},
           kinds=("default",), cuda=False),
    _scatter_reduce_entry("sum", True, ALL_DTYPES),
    _scatter_reduce_entry("sum", False, NO_BOOL),
    _scatter_reduce_entry("mean", True, NO_BOOL),
    _scatter_reduce_entry("mean", False, NO_BOOL),
    _scatter_reduce_entry("prod", True, NO_BOOL),
    _scatter_reduce_entry("prod", False, NO_BOOL),
    _scatter_reduce_entry("amax", True, REAL),
    _scatter_reduce_entry("amin", False, REAL),
    OpInfo("index_select", lambda a, dim, n: lucid.index_select(a, dim, _lt(_isel_index(tuple(a.shape), dim, n))),
           _isel_ref, _same, ALL_DTYPES, _isel_samples,
           torch_op=lambda torch, a, dim, n: torch.index_select(a, dim, _tt(torch, _isel_index(tuple(a.shape), dim, n))),
           variants={"method": lambda a, dim, n: a.index_select(dim, _lt(_isel_index(tuple(a.shape), dim, n)))},
           kinds=("default",), cuda=False),
    OpInfo("index_add", lambda a, s, dim: lucid.index_add(a, dim, _lt(_iadd_index(tuple(a.shape), dim, tuple(s.shape))), s),
           _iadd_ref(), _same, ALL_DTYPES, _iadd_samples,
           torch_op=lambda torch, a, s, dim: torch.index_add(
               a, dim, _tt(torch, _iadd_index(tuple(a.shape), dim, tuple(s.shape))), s),
           variants={"method": lambda a, s, dim: a.index_add(dim, _lt(_iadd_index(tuple(a.shape), dim, tuple(s.shape))), s)},
           kinds=("small", "small"), cuda=False, tol=ACC_TOL),
    OpInfo("index_add_alpha", lambda a, s, dim: lucid.index_add(
        a, dim, _lt(_iadd_index(tuple(a.shape), dim, tuple(s.shape))), s, alpha=2),
           _iadd_ref(2), _same, NO_BOOL, _iadd_samples,
           torch_op=lambda torch, a, s, dim: torch.index_add(
               a, dim, _tt(torch, _iadd_index(tuple(a.shape), dim, tuple(s.shape))), s, alpha=2),
           kinds=("small", "small"), cuda=False, tol=ACC_TOL),
    OpInfo("index_copy", lambda a, s, dim: lucid.index_copy(a, dim, _lt(_icopy_index(tuple(a.shape), dim, tuple(s.shape))), s),
           _icopy_ref, _same, ALL_DTYPES, _icopy_samples,
           torch_op=lambda torch, a, s, dim: torch.index_copy(
               a, dim, _tt(torch, _icopy_index(tuple(a.shape), dim, tuple(s.shape))), s),
           variants={"method": lambda a, s, dim: a.index_copy(dim, _lt(_icopy_index(tuple(a.shape), dim, tuple(s.shape))), s)},
           cuda=False),
    OpInfo("index_fill", lambda a, dim, n: lucid.index_fill(a, dim, _lt(_isel_index(tuple(a.shape), dim, n)),
                                                             _fill_value(a.dtype)),
           _ifill_ref, _same, ALL_DTYPES, _isel_samples,
           torch_op=lambda torch, a, dim, n: torch.index_fill(
               a, dim, _tt(torch, _isel_index(tuple(a.shape), dim, n)),
               _fill_value(getattr(lucid, str(a.dtype).replace("torch.", "")))),
           variants={"method": lambda a, dim, n: a.index_fill(dim, _lt(_isel_index(tuple(a.shape), dim, n)),
                                                             _fill_value(a.dtype))},
           kinds=("default",), cuda=False),
    OpInfo("masked_fill", lambda a, mshape: lucid.masked_fill(a, _lt(_mask(mshape)), _fill_value(a.dtype)),
           _mf_ref, _same, ALL_DTYPES, _mf_samples,
           torch_op=lambda torch, a, mshape: torch.masked_fill(
               a, _tt(torch, _mask(mshape)), _fill_value(getattr(lucid, str(a.dtype).replace("torch.", "")))),
           variants={"method": lambda a, mshape: a.masked_fill(_lt(_mask(mshape)), _fill_value(a.dtype))},
           kinds=("default",), cuda=False),
    OpInfo("masked_fill_tensor_value", lambda a, v, mshape: lucid.masked_fill(a, _lt(_mask(mshape)), v),
           _mf_value_ref, _same, ALL_DTYPES,
           lambda d: [Sample((s.shapes[0], ()), s.kwargs, s.kind) for s in _mf_samples(d)],
           torch_op=lambda torch, a, v, mshape: torch.masked_fill(a, _tt(torch, _mask(mshape)), v),
           variants={"method": lambda a, v, mshape: a.masked_fill(_lt(_mask(mshape)), v)}, cuda=False),
    OpInfo("masked_select", lambda a, mshape: lucid.masked_select(a, _lt(_mask(mshape))),
           _msel_ref, _same, ALL_DTYPES, _mf_samples,
           torch_op=lambda torch, a, mshape: torch.masked_select(a, _tt(torch, _mask(mshape))),
           variants={"method": lambda a, mshape: a.masked_select(_lt(_mask(mshape))), "getitem": _msel_getitem},
           kinds=("default",), cuda=False),
    OpInfo("masked_scatter", lambda a, s, mshape: lucid.masked_scatter(a, _lt(_mask(mshape)), s),
           _mscatter_ref, _same, ALL_DTYPES, _mscatter_samples,
           torch_op=lambda torch, a, s, mshape: torch.masked_scatter(a, _tt(torch, _mask(mshape)), s),
           variants={"method": lambda a, s, mshape: a.masked_scatter(_lt(_mask(mshape)), s)}, cuda=False),
    OpInfo("getitem_advanced", lambda a, spec: a[_to_lucid_key(_adv_key(tuple(a.shape), spec))],
           _getitem_ref, _same, ALL_DTYPES, _getitem_samples,
           torch_op=lambda torch, a, spec: a[_to_torch_key(torch, _adv_key(tuple(a.shape), spec))],
           variants={"list_index": lambda a, spec: a[tuple(k.tolist() if isinstance(k, np.ndarray) and k.ndim else
                                                           (_lt(k) if isinstance(k, np.ndarray) else k)
                                                           for k in _adv_key(tuple(a.shape), spec))]},
           kinds=("default",), cuda=False),
    OpInfo("setitem_advanced", _setitem_distinct_op, _setitem_distinct_ref, _same, ALL_DTYPES, _distinct_put_samples,
           torch_op=_setitem_distinct_torch,
           cuda=False),
    OpInfo("index_put_accumulate", _index_put_op(True), _index_put_ref(True), _same, ALL_DTYPES, _index_put_samples,
           torch_op=lambda torch, a, v, spec: torch.ops.aten.index_put(   # aten's form takes None entries
               a, [None if isinstance(k, slice) else _tt(torch, k) for k in _adv_key(tuple(a.shape), spec)], v, True),
           variants={"method": lambda a, v, spec: a.index_put(
               tuple(None if isinstance(k, slice) else _lt(k) for k in _adv_key(tuple(a.shape), spec)), v, True)},
           kinds=("small", "small"), cuda=False, tol=ACC_TOL),
    OpInfo("take", lambda a, ishape: lucid.take(a, _lt(_take_index(tuple(a.shape), ishape))),
           _take_ref, _same, ALL_DTYPES, _take_samples,
           torch_op=lambda torch, a, ishape: torch.take(a, _tt(torch, _take_index(tuple(a.shape), ishape))),
           variants={"method": lambda a, ishape: a.take(_lt(_take_index(tuple(a.shape), ishape)))},
           kinds=("default",), cuda=False),
    OpInfo("take_along_dim", lambda a, dim, ishape: lucid.take_along_dim(a, _lt(_tad_index(tuple(a.shape), dim, ishape)), dim),
           _tad_ref, _same, ALL_DTYPES, _tad_samples,
           torch_op=lambda torch, a, dim, ishape: torch.take_along_dim(
               a, _tt(torch, _tad_index(tuple(a.shape), dim, ishape)), dim),
           variants={"method": lambda a, dim, ishape: a.take_along_dim(_lt(_tad_index(tuple(a.shape), dim, ishape)), dim)},
           kinds=("default",), cuda=False),
    OpInfo("put", lambda a, s: lucid.put(a, _lt(_put_index(tuple(a.shape), tuple(s.shape), True)), s),
           _put_ref(False), _same, ALL_DTYPES, _put_samples_for(False),
           torch_op=lambda torch, a, s: a.put(_tt(torch, _put_index(tuple(a.shape), tuple(s.shape), True)), s),
           variants={"method": lambda a, s: a.put(_lt(_put_index(tuple(a.shape), tuple(s.shape), True)), s)},
           cuda=False),
    OpInfo("put_accumulate", lambda a, s: lucid.put(a, _lt(_put_index(tuple(a.shape), tuple(s.shape), False)), s, True),
           _put_ref(True), _same, ALL_DTYPES, _put_samples_for(True),
           torch_op=lambda torch, a, s: a.put(_tt(torch, _put_index(tuple(a.shape), tuple(s.shape), False)), s,
                                              accumulate=True),
           variants={"method": lambda a, s: a.put(_lt(_put_index(tuple(a.shape), tuple(s.shape), False)), s,
                                                  accumulate=True)},
           kinds=("small", "small"), cuda=False, tol=ACC_TOL),
    OpInfo("nonzero", lambda a: lucid.nonzero(a), lambda a, out: np.argwhere(a), lambda d, **_: lucid.int64,
           ALL_DTYPES, _nonzero_samples, torch_op=lambda torch, a: torch.nonzero(a),
           variants={"method": lambda a: a.nonzero(), "argwhere": lambda a: lucid.argwhere(a),
                     "argwhere_method": lambda a: a.argwhere()},
           kinds=("small",), cuda=False, differentiable=False),
    OpInfo("one_hot", _onehot_op, _onehot_ref, lambda d, **_: lucid.int64, [lucid.int64], _onehot_samples,
           torch_op=lambda torch, a, num_classes: torch.nn.functional.one_hot(a.abs() % 4, num_classes),
           kinds=("default",), cuda=False, differentiable=False),
]
