"""Op-table entries: reductions beyond sum (mean, prod, max/min, var/std, logsumexp, cum*, any/all, ...). See op_table.py for the fields of an entry."""
import warnings

import numpy as np

import lucid
from helpers import ALL_DTYPES, COMPLEX_DTYPES, FLOAT_DTYPES, INT_DTYPES
from op_table import BOOL, F32, I64, OpInfo, Sample, category, wide  # noqa: F401

REAL = [d for d in ALL_DTYPES if not d.is_complex]
NUMERIC_REAL = [d for d in REAL if d is not BOOL]
FLOATS = FLOAT_DTYPES
FLOAT_COMPLEX = FLOAT_DTYPES + COMPLEX_DTYPES
NO_BOOL = [d for d in ALL_DTYPES if d is not BOOL]


# ---------------------------------------------------------------------------------------------
# samples

def multi_dim_samples(d, empty_reduce=True, keep=True):
    """dim as None, int or tuple (with keepdim), 0-d, empty, large."""
    def s(shape, dim, keepdim=False, kind="basic"):
        kw = dict(dim=dim)
        if keep:
            kw["keepdim"] = keepdim
        return Sample((shape,), kw, kind)
    out = [s((3, 4), None), s((3, 4), 0), s((3, 4), 1, True), s((3, 4), -1), s((3, 4), (0, 1)),
           s((2, 3, 4), (0, 2)), s((2, 3, 4), (2, 0), True), s((2, 3, 4), -2), s((5, 1, 3), 1), s((7,), 0, True),
           s((), None, kind="zerodim"), s((), 0, kind="zerodim"), s((), -1, True, kind="zerodim"),
           s((0, 3), 1, kind="empty"), s((3, 0), 0, True, kind="empty"),
           s((1031,), None, kind="large"), s((67, 129), 0, kind="large"), s((67, 129), 1, kind="large"),
           s((33, 9, 17), (0, 2), kind="large")]
    if empty_reduce:
        out += [s((0, 3), 0, kind="empty"), s((0,), None, kind="empty"), s((3, 0), 1, True, kind="empty")]
    return out


def one_dim_samples(d, empty_reduce=True, allow_none=True):
    """dim as one int (or None: the whole tensor)."""
    out = [Sample(((3, 4),), dict(dim=0, keepdim=False)), Sample(((3, 4),), dict(dim=1, keepdim=True)),
           Sample(((3, 4),), dict(dim=-1, keepdim=False)), Sample(((2, 3, 4),), dict(dim=1, keepdim=False)),
           Sample(((2, 3, 4),), dict(dim=0, keepdim=True)), Sample(((5, 1, 3),), dict(dim=1, keepdim=False)),
           Sample(((7,),), dict(dim=0, keepdim=False)),
           Sample(((),), dict(dim=0, keepdim=False), "zerodim"), Sample(((),), dict(dim=-1, keepdim=True), "zerodim"),
           Sample(((0, 3),), dict(dim=1, keepdim=False), "empty"),
           Sample(((67, 129),), dict(dim=0, keepdim=False), "large"),
           Sample(((67, 129),), dict(dim=1, keepdim=True), "large")]
    if allow_none:
        out += [Sample(((3, 4),), dict(dim=None, keepdim=False)), Sample(((),), dict(dim=None, keepdim=False), "zerodim"),
                Sample(((1031,),), dict(dim=None, keepdim=False), "large")]
    if empty_reduce:
        out += [Sample(((0, 3),), dict(dim=0, keepdim=True), "empty")]
        if allow_none:
            out += [Sample(((0,),), dict(dim=None, keepdim=False), "empty")]
    return out


def scan_samples(d):
    return [Sample(((3, 4),), dict(dim=0)), Sample(((3, 4),), dict(dim=1)), Sample(((2, 3, 4),), dict(dim=-2)),
            Sample(((7,),), dict(dim=0)), Sample(((5, 1, 3),), dict(dim=1)),
            Sample(((),), dict(dim=0), "zerodim"), Sample(((0, 3),), dict(dim=0), "empty"),
            Sample(((3, 0),), dict(dim=0), "empty"), Sample(((1031,),), dict(dim=0), "large"),
            Sample(((67, 129),), dict(dim=0), "large"), Sample(((67, 129),), dict(dim=1), "large")]


def var_samples(d):
    out = []
    for kw in [dict(dim=None), dict(dim=0), dict(dim=1, keepdim=True), dict(dim=(0, 1), correction=0),
               dict(dim=-1, unbiased=False), dict(dim=0, correction=2, keepdim=True)]:
        out.append(Sample(((3, 4),), kw))
    out += [Sample(((2, 3, 4),), dict(dim=(0, 2))), Sample(((2, 3, 4),), dict(dim=1, keepdim=True, correction=0)),
            Sample(((),), dict(dim=None, correction=0), "zerodim"),
            Sample(((0, 3),), dict(dim=1), "empty"), Sample(((1031,),), dict(dim=None), "large"),
            Sample(((67, 129),), dict(dim=0), "large"), Sample(((67, 129),), dict(dim=1, correction=0), "large")]
    return out


# ---------------------------------------------------------------------------------------------
# references (wide precision)

def _axis(a, dim):
    if a.ndim == 0 or dim is None or dim == ():
        return None
    return dim


def _quiet(fn):
    def wrapped(*args, **kw):
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            return fn(*args, **kw)
    return wrapped


def _reduce_ref(np_fn, acc=None):
    @_quiet
    def ref(a, out, dim=None, keepdim=False, dtype=None):
        A = wide(a, acc or out)
        r = np_fn(A, axis=_axis(a, dim), keepdims=keepdim and a.ndim > 0)
        return np.asarray(r)
    return ref


def _float_out(d, dtype=None, **_):
    return dtype if dtype is not None else d


def _int_to_i64(d, dtype=None, **_):
    if dtype is not None:
        return dtype
    return I64 if category(d) <= 1 else d


def _int_to_float(d, **_):
    return lucid.get_default_dtype() if category(d) <= 1 else d


def _real(d, **_):
    return {lucid.complex64: lucid.float32, lucid.complex128: lucid.float64}.get(d, d)


def _any_out(d, **_):
    return lucid.uint8 if d is lucid.uint8 else BOOL


def _same(d, **_):
    return d


@_quiet
def _prod_ref(a, out, dim=None, keepdim=False, dtype=None):
    A = wide(a, out if category(out) >= 1 else I64)
    if a.ndim == 0:
        return A.copy()
    return np.prod(A, axis=dim, keepdims=keepdim)


def _extreme_ref(np_fn):
    def ref(a, out, dim=(), keepdim=False):
        A = wide(a, out) if out is not BOOL else a.astype(bool)
        if A.size == 0 and A.ndim and _axis(a, dim) is not None:
            shape = list(A.shape)
            for ax in np.atleast_1d(_axis(a, dim)):
                shape[ax] = 1 if keepdim else -1
            shape = [s for s in shape if s != -1]
            return np.zeros(shape, A.dtype)
        return np.asarray(np_fn(A, axis=_axis(a, dim), keepdims=keepdim and a.ndim > 0))
    return ref


def _max_dim_ref(is_max):
    def ref(a, out, dim=0, keepdim=False):
        A = wide(a, out[0]) if out[0] is not BOOL else a.astype(np.int64)
        if a.ndim == 0:
            return A.copy(), np.array(0)
        fn = np.argmax if is_max else np.argmin
        if A.shape[dim] == 0 or A.size == 0:
            shape = list(A.shape)
            if keepdim:
                shape[dim] = 1
            else:
                del shape[dim]
            return np.zeros(shape, A.dtype), np.zeros(shape, np.int64)
        idx = fn(A, axis=dim, keepdims=True)
        vals = np.take_along_axis(A, idx, axis=dim)
        if not keepdim:
            idx, vals = np.squeeze(idx, dim), np.squeeze(vals, dim)
        return vals, idx
    return ref


def _arg_ref(is_max):
    def ref(a, out, dim=None, keepdim=False):
        fn = np.argmax if is_max else np.argmin
        A = a.astype(np.float64)
        if dim is None or a.ndim == 0:
            r = np.asarray(fn(A.reshape(-1)))
            return r.reshape((1,) * a.ndim) if keepdim else r
        if A.shape[dim] == 0 or A.size == 0:
            shape = list(A.shape)
            if keepdim:
                shape[dim] = 1
            else:
                del shape[dim]
            return np.zeros(shape, np.int64)
        return fn(A, axis=dim, keepdims=keepdim)
    return ref


def _aminmax_ref(a, out, dim=None, keepdim=False):
    A = wide(a, out[0]) if out[0] is not BOOL else a.astype(bool)
    ax = None if dim is None or a.ndim == 0 else dim
    kd = keepdim and a.ndim > 0
    if A.size == 0:
        shape = list(A.shape)
        if keepdim:
            shape[dim] = 1
        else:
            del shape[dim]
        z = np.zeros(shape, A.dtype)
        return z, z
    return np.min(A, axis=ax, keepdims=kd), np.max(A, axis=ax, keepdims=kd)


def _corr(unbiased=None, correction=None):
    if correction is not None:
        return correction
    return 0 if unbiased is False else 1


@_quiet
def _var_np(a, out, dim=None, keepdim=False, unbiased=None, correction=None):
    A = a.astype(np.complex128) if np.iscomplexobj(a) else a.astype(np.float64)
    ax = _axis(a, dim)
    n = A.size if ax is None else int(np.prod([A.shape[i] for i in np.atleast_1d(ax)]))
    m = np.mean(A, axis=ax, keepdims=True) if A.size else np.full([1] * A.ndim, np.nan)
    ss = np.sum(np.abs(A - m) ** 2, axis=ax, keepdims=keepdim and a.ndim > 0)
    v = np.asarray(ss / max(0, n - _corr(unbiased, correction)))
    mean = np.asarray(np.mean(A, axis=ax, keepdims=keepdim and a.ndim > 0))
    return v, mean


def _var_ref(a, out, **kw):
    return _var_np(a, out, **kw)[0]


def _std_ref(a, out, **kw):
    return np.sqrt(_var_np(a, out, **kw)[0])


def _var_mean_ref(a, out, **kw):
    return _var_np(a, out, **kw)


def _std_mean_ref(a, out, **kw):
    v, m = _var_np(a, out, **kw)
    return np.sqrt(v), m


@_quiet
def _lse_ref(a, out, dim=None, keepdim=False):
    A = a.astype(np.complex128 if np.iscomplexobj(a) else np.float64)
    ax = _axis(a, dim)
    if A.size == 0:
        return np.asarray(np.log(np.sum(np.exp(A), axis=ax, keepdims=keepdim and a.ndim > 0)))
    m = np.max(A.real, axis=ax, keepdims=True)   # complex: shifted by the max real part (PyTorch)
    r = np.log(np.sum(np.exp(A - m), axis=ax, keepdims=True)) + m
    if not (keepdim and a.ndim > 0):
        r = np.squeeze(r, axis=ax) if ax is not None else r.reshape(())
    return np.asarray(r)


def _scan_ref(np_fn):
    @_quiet
    def ref(a, out, dim=0, dtype=None):
        A = wide(a, out)
        if a.ndim == 0:
            return A.copy()
        return np_fn(A, axis=dim)
    return ref


def _cum_extreme_ref(is_max):
    def ref(a, out, dim=0):
        A = wide(a, out[0]) if out[0] is not BOOL else a.astype(np.int64)
        if a.ndim == 0:
            return A.copy(), np.array(0)
        B = np.moveaxis(A, dim, -1)
        vals = np.empty_like(B)
        idx = np.zeros(B.shape, np.int64)
        if B.shape[-1]:
            cur = B[..., 0].copy()
            ci = np.zeros(B.shape[:-1], np.int64)
            for k in range(B.shape[-1]):
                x = B[..., k]
                take = (x >= cur) if is_max else (x <= cur)
                cur = np.where(take, x, cur)
                ci = np.where(take, k, ci)
                vals[..., k] = cur
                idx[..., k] = ci
        vals, idx = np.moveaxis(vals, -1, dim), np.moveaxis(idx, -1, dim)
        if out[0] is BOOL:
            vals = vals.astype(bool)
        return vals, idx
    return ref


@_quiet
def _lcse_ref(a, out, dim=0):
    if np.iscomplexobj(a):   # complex: PyTorch's running max + log1p(exp(min - max)) (not the principal log)
        d = dim if a.ndim else 0
        A = np.moveaxis(a.astype(np.complex128).reshape(a.shape or (1,)), d, 0)
        r = np.empty_like(A)
        acc = np.full(A.shape[1:], -np.inf, dtype=np.complex128)
        for k in range(A.shape[0]):
            x = A[k]
            lt = x.real < acc.real
            mn, mx = np.where(lt, x, acc), np.where(lt, acc, x)
            acc = np.where(np.isneginf(mn.real) & (mn.real == mx.real), mn, mx + np.log1p(np.exp(mn - mx)))
            r[k] = acc
        return np.moveaxis(r, 0, d).reshape(a.shape)
    A = a.astype(np.float64)
    if a.ndim == 0:
        return A.copy()
    return np.logaddexp.accumulate(A, axis=dim)


def _any_ref(is_any):
    def ref(a, out, dim=None, keepdim=False):
        B = a != 0
        fn = np.any if is_any else np.all
        return np.asarray(fn(B, axis=_axis(a, dim), keepdims=keepdim and a.ndim > 0))
    return ref


def _count_ref(a, out, dim=None):
    return np.asarray(np.count_nonzero(a != 0, axis=_axis(a, dim)))


def _diff_ref(a, out, n=1, dim=-1):
    return np.diff(wide(a, out) if out is not BOOL else a.astype(bool), n=n, axis=dim)


def _trace_ref(a, out):
    return np.asarray(np.trace(wide(a, out)))


def _nanmean_ref(a, out, dim=None, keepdim=False, dtype=None):
    return _reduce_ref(np.nanmean)(a, out, dim=dim, keepdim=keepdim)


# ---------------------------------------------------------------------------------------------
# torch spellings

def _td(torch, dtype):
    return None if dtype is None else getattr(torch, dtype.name)


def _torch_dims(t, dim):
    return tuple(range(t.dim())) if dim is None else dim


def _t_red(name):
    def op(torch, t, dim=None, keepdim=False, dtype=None):
        kw = {} if dtype is None else {"dtype": _td(torch, dtype)}
        if dim is None and not keepdim:
            return getattr(torch, name)(t, **kw)
        return getattr(torch, name)(t, dim=_torch_dims(t, dim), keepdim=keepdim, **kw)
    return op


def _t_prod(torch, t, dim=None, keepdim=False, dtype=None):
    kw = {} if dtype is None else {"dtype": _td(torch, dtype)}
    return torch.prod(t, **kw) if dim is None else torch.prod(t, dim, keepdim=keepdim, **kw)


def _t_lse(torch, t, dim=None, keepdim=False):
    return torch.logsumexp(t, dim=_torch_dims(t, dim), keepdim=keepdim)


def _lu_red(name):
    return lambda a, **kw: getattr(lucid, name)(a, **kw)


def _method(name):
    return lambda a, **kw: getattr(a, name)(**kw)


def _np_names(name):
    def fn(a, dim=None, keepdim=False, **kw):
        return getattr(lucid, name)(a, axis=dim, keepdims=keepdim, **kw)
    return fn


# ---------------------------------------------------------------------------------------------
# the table

_F_TOL = {"float32": (1e-5, 1e-5), "complex64": (1e-5, 1e-5)}

OPS = [
    OpInfo("mean", _lu_red("mean"), _reduce_ref(np.mean), _float_out, FLOAT_COMPLEX, multi_dim_samples,
           torch_op=_t_red("mean"), variants={"method": _method("mean"), "numpy_names": _np_names("mean")},
           kinds=("default",), tol=_F_TOL),
    OpInfo("nansum", _lu_red("nansum"), _reduce_ref(np.nansum), _int_to_i64, NUMERIC_REAL, multi_dim_samples,
           torch_op=_t_red("nansum"), variants={"method": _method("nansum"), "numpy_names": _np_names("nansum")},
           tol=_F_TOL, cuda=False),
    OpInfo("nanmean", _lu_red("nanmean"), _nanmean_ref, _float_out, FLOATS, multi_dim_samples,
           torch_op=_t_red("nanmean"), variants={"method": _method("nanmean")}, tol=_F_TOL, cuda=False),
    OpInfo("prod", _lu_red("prod"), _prod_ref, _int_to_i64, ALL_DTYPES,
           # a complex product of 1031 factors overflows: inf in lucid (double, then cast), nan in torch
           lambda d: [s for s in one_dim_samples(d) if not (d.is_complex and s.shapes == ((1031,),))],
           torch_op=_t_prod, variants={"method": _method("prod"), "numpy_names": _np_names("prod")},
           kinds=("small",), tol={"float32": (1e-5, 1e-5), "complex64": (1e-3, 1e-5)}, cuda=False),
    OpInfo("amax", _lu_red("amax"), _extreme_ref(np.amax), _same, REAL,
           lambda d: [s for s in multi_dim_samples(d, empty_reduce=False) if s.kwargs["dim"] is not None],
           torch_op=lambda torch, t, dim, keepdim: torch.amax(t, dim, keepdim),
           variants={"method": _method("amax"), "numpy_names": _np_names("amax")}, cuda=False),
    OpInfo("amin", _lu_red("amin"), _extreme_ref(np.amin), _same, REAL,
           lambda d: [s for s in multi_dim_samples(d, empty_reduce=False) if s.kwargs["dim"] is not None],
           torch_op=lambda torch, t, dim, keepdim: torch.amin(t, dim, keepdim),
           variants={"method": _method("amin"), "numpy_names": _np_names("amin")}, cuda=False),
    OpInfo("max_all", lambda a: lucid.max(a), lambda a, out: _extreme_ref(np.amax)(a, out, None), _same, REAL,
           lambda d: [Sample(((3, 4),)), Sample(((2, 3, 4),)), Sample(((),), kind="zerodim"),
                      Sample(((1031,),), kind="large")],
           torch_op=lambda torch, t: torch.max(t), variants={"method": lambda a: a.max()}, cuda=False),
    OpInfo("min_all", lambda a: lucid.min(a), lambda a, out: _extreme_ref(np.amin)(a, out, None), _same, REAL,
           lambda d: [Sample(((3, 4),)), Sample(((2, 3, 4),)), Sample(((),), kind="zerodim"),
                      Sample(((1031,),), kind="large")],
           torch_op=lambda torch, t: torch.min(t), variants={"method": lambda a: a.min()}, cuda=False),
    OpInfo("max_dim", _lu_red("max"), _max_dim_ref(True), lambda d, **_: (d, I64), REAL,
           lambda d: one_dim_samples(d, empty_reduce=False, allow_none=False),
           torch_op=lambda torch, t, dim, keepdim: tuple(torch.max(t, dim, keepdim)),
           variants={"method": _method("max"), "numpy_names": _np_names("max")}, cuda=False),
    OpInfo("min_dim", _lu_red("min"), _max_dim_ref(False), lambda d, **_: (d, I64), REAL,
           lambda d: one_dim_samples(d, empty_reduce=False, allow_none=False),
           torch_op=lambda torch, t, dim, keepdim: tuple(torch.min(t, dim, keepdim)),
           variants={"method": _method("min"), "numpy_names": _np_names("min")}, cuda=False),
    OpInfo("argmax", _lu_red("argmax"), _arg_ref(True), lambda d, **_: I64, NUMERIC_REAL,
           lambda d: one_dim_samples(d, empty_reduce=False) + [Sample(((3, 4),), dict(dim=None, keepdim=True))],
           torch_op=lambda torch, t, dim, keepdim: torch.argmax(t, dim, keepdim),
           variants={"method": _method("argmax"), "numpy_names": _np_names("argmax")}, differentiable=False,
           cuda=False),
    OpInfo("argmin", _lu_red("argmin"), _arg_ref(False), lambda d, **_: I64, NUMERIC_REAL,
           lambda d: one_dim_samples(d, empty_reduce=False) + [Sample(((3, 4),), dict(dim=None, keepdim=True))],
           torch_op=lambda torch, t, dim, keepdim: torch.argmin(t, dim, keepdim),
           variants={"method": _method("argmin"), "numpy_names": _np_names("argmin")}, differentiable=False,
           cuda=False),
    OpInfo("aminmax", _lu_red("aminmax"), _aminmax_ref, lambda d, **_: (d, d), REAL,
           lambda d: one_dim_samples(d, empty_reduce=False),
           torch_op=lambda torch, t, dim, keepdim: tuple(torch.aminmax(t, dim=dim, keepdim=keepdim)),
           variants={"method": _method("aminmax")}, cuda=False),
    OpInfo("var", _lu_red("var"), _var_ref, _real, FLOAT_COMPLEX, var_samples,
           torch_op=lambda torch, t, **kw: torch.var(t, **kw), variants={"method": _method("var")},
           tol={"float32": (1e-4, 1e-5), "complex64": (1e-4, 1e-5)}, cuda=False),
    OpInfo("std", _lu_red("std"), _std_ref, _real, FLOAT_COMPLEX, var_samples,
           torch_op=lambda torch, t, **kw: torch.std(t, **kw), variants={"method": _method("std")},
           tol={"float32": (1e-4, 1e-5), "complex64": (1e-4, 1e-5)}, cuda=False),
    OpInfo("var_mean", _lu_red("var_mean"), _var_mean_ref, lambda d, **_: (_real(d), d), FLOAT_COMPLEX, var_samples,
           torch_op=lambda torch, t, **kw: tuple(torch.var_mean(t, **kw)),
           tol={"float32": (1e-4, 1e-5), "complex64": (1e-4, 1e-5)}, cuda=False),
    OpInfo("std_mean", _lu_red("std_mean"), _std_mean_ref, lambda d, **_: (_real(d), d), FLOAT_COMPLEX, var_samples,
           torch_op=lambda torch, t, **kw: tuple(torch.std_mean(t, **kw)),
           tol={"float32": (1e-4, 1e-5), "complex64": (1e-4, 1e-5)}, cuda=False),
    OpInfo("logsumexp", _lu_red("logsumexp"), _lse_ref, _int_to_float, ALL_DTYPES,
           lambda d: [s for s in multi_dim_samples(d) if s.kwargs["dim"] is not None], torch_op=_t_lse,
           variants={"method": _method("logsumexp"), "numpy_names": _np_names("logsumexp")}, tol=_F_TOL, cuda=False),
    OpInfo("cumsum", _lu_red("cumsum"), _scan_ref(np.cumsum), _int_to_i64, ALL_DTYPES,
           lambda d: scan_samples(d) + [Sample(((3, 4),), dict(dim=1, dtype=lucid.float64 if not d.is_complex
                                                                 else lucid.complex128))],
           torch_op=lambda torch, t, dim, dtype=None: torch.cumsum(t, dim, dtype=_td(torch, dtype)),
           variants={"method": _method("cumsum"), "numpy_names": lambda a, dim, **kw: lucid.cumsum(a, axis=dim, **kw)},
           tol=_F_TOL, cuda=False),
    OpInfo("cumprod", _lu_red("cumprod"), _scan_ref(np.cumprod), _int_to_i64, ALL_DTYPES, scan_samples,
           torch_op=lambda torch, t, dim: torch.cumprod(t, dim), variants={"method": _method("cumprod")},
           kinds=("small",), tol={"float32": (1e-5, 1e-5), "complex64": (1e-4, 1e-5)}, cuda=False),
    OpInfo("cummax", _lu_red("cummax"), _cum_extreme_ref(True), lambda d, **_: (d, I64), REAL, scan_samples,
           torch_op=lambda torch, t, dim: tuple(torch.cummax(t, dim)), variants={"method": _method("cummax")},
           cuda=False),
    OpInfo("cummin", _lu_red("cummin"), _cum_extreme_ref(False), lambda d, **_: (d, I64), REAL, scan_samples,
           torch_op=lambda torch, t, dim: tuple(torch.cummin(t, dim)), variants={"method": _method("cummin")},
           cuda=False),
    OpInfo("logcumsumexp", _lu_red("logcumsumexp"), _lcse_ref, _same, FLOAT_COMPLEX, scan_samples,
           torch_op=lambda torch, t, dim: torch.logcumsumexp(t, dim), variants={"method": _method("logcumsumexp")},
           tol=_F_TOL, cuda=False),
    OpInfo("any", _lu_red("any"), _any_ref(True), _any_out, ALL_DTYPES, multi_dim_samples,
           torch_op=_t_red("any"), variants={"method": _method("any"), "numpy_names": _np_names("any")},
           differentiable=False, cuda=False),
    OpInfo("all", _lu_red("all"), _any_ref(False), _any_out, ALL_DTYPES, multi_dim_samples,
           torch_op=_t_red("all"), variants={"method": _method("all"), "numpy_names": _np_names("all")},
           differentiable=False, cuda=False),
    OpInfo("count_nonzero", _lu_red("count_nonzero"), _count_ref, lambda d, **_: I64, ALL_DTYPES,
           lambda d: multi_dim_samples(d, keep=False),
           torch_op=lambda torch, t, dim=None: torch.count_nonzero(t, dim),
           variants={"method": _method("count_nonzero")}, differentiable=False, cuda=False),
    OpInfo("diff", _lu_red("diff"), _diff_ref, _same, ALL_DTYPES,
           lambda d: [Sample(((7,),)), Sample(((3, 4),), dict(dim=0)), Sample(((3, 5),), dict(n=2)),
                      Sample(((2, 3, 4),), dict(n=2, dim=1)), Sample(((3, 4),), dict(n=0)),
                      Sample(((3, 4),), dict(n=5)), Sample(((0, 3),), dict(dim=0), "empty"),
                      Sample(((67, 129),), dict(dim=0), "large")],
           torch_op=lambda torch, t, **kw: torch.diff(t, **kw), variants={"method": _method("diff")}, cuda=False),
    OpInfo("diff_prepend_append", lambda a, p, q, **kw: lucid.diff(a, prepend=p, append=q, **kw),
           lambda a, p, q, out, n=1, dim=-1: np.diff(wide(a, out), n=n, axis=dim, prepend=wide(p, out),
                                                     append=wide(q, out)),
           _same, NO_BOOL,
           lambda d: [Sample(((3, 4), (3, 1), (3, 2))), Sample(((3, 4), (2, 4), (1, 4)), dict(dim=0, n=2)),
                      Sample(((5,), (0,), (3,)), dict(n=3)), Sample(((0, 3), (2, 3), (0, 3)), dict(dim=0), "empty")],
           torch_op=lambda torch, a, p, q, **kw: torch.diff(a, prepend=p, append=q, **kw),
           variants={"method": lambda a, p, q, **kw: a.diff(prepend=p, append=q, **kw)}, cuda=False),
    OpInfo("trace", lambda a: lucid.trace(a), _trace_ref, _int_to_i64, NO_BOOL,
           lambda d: [Sample(((3, 3),)), Sample(((3, 5),)), Sample(((5, 2),)), Sample(((0, 3),), kind="empty"),
                      Sample(((129, 67),), kind="large")],
           torch_op=lambda torch, t: torch.trace(t), variants={"method": lambda a: a.trace()}, cuda=False),
]

# vjps waiting for eq/where (binary family) and scatter (indexing family)
_PENDING_GRAD = set()
for _op in OPS:
    if _op.name in _PENDING_GRAD:
        _op.differentiable = False
