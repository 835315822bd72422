"""Reductions beyond sum (mean, prod, max/min, var/std, logsumexp, cum*, any/all, ...): module functions and Tensor methods.

Each function only spells the arguments PyTorch's way (plus Lucid's ``axis``/``keepdims``) and makes
one call into the engine (bindings/reduce.cpp)."""
import builtins
from collections import namedtuple

from lucid import _C
from lucid._dtypes import to_dtype

__all__ = ["mean", "nansum", "nanmean", "prod", "amax", "amin", "max", "min", "argmax", "argmin", "aminmax",
           "var", "std", "var_mean", "std_mean", "logsumexp", "cumsum", "cumprod", "cummax", "cummin",
           "logcumsumexp", "any", "all", "count_nonzero", "diff", "trace"]


def _rt(name, fields):
    """A torch.return_types-like result: a named tuple (values/indices, min/max)."""
    cls = namedtuple(name, fields)
    cls.__module__ = "lucid.return_types"
    cls.__qualname__ = name
    return cls


_max_rt = _rt("max", ["values", "indices"])
_min_rt = _rt("min", ["values", "indices"])
_cummax_rt = _rt("cummax", ["values", "indices"])
_cummin_rt = _rt("cummin", ["values", "indices"])
_aminmax_rt = _rt("aminmax", ["min", "max"])


def _dk(dim, keepdim, axis, keepdims):
    if axis is not None:
        dim = axis
    if keepdims is not None:
        keepdim = keepdims
    return dim, keepdim


def mean(input, dim=None, keepdim=False, *, dtype=None, axis=None, keepdims=None):
    dim, keepdim = _dk(dim, keepdim, axis, keepdims)
    return _C._mean(input, dim, keepdim, to_dtype(dtype))


def nansum(input, dim=None, keepdim=False, *, dtype=None, axis=None, keepdims=None):
    dim, keepdim = _dk(dim, keepdim, axis, keepdims)
    return _C._nansum(input, dim, keepdim, to_dtype(dtype))


def nanmean(input, dim=None, keepdim=False, *, dtype=None, axis=None, keepdims=None):
    dim, keepdim = _dk(dim, keepdim, axis, keepdims)
    return _C._nanmean(input, dim, keepdim, to_dtype(dtype))


def prod(input, dim=None, keepdim=False, *, dtype=None, axis=None, keepdims=None):
    dim, keepdim = _dk(dim, keepdim, axis, keepdims)
    return _C._prod(input, dim, keepdim, to_dtype(dtype))


def amax(input, dim=(), keepdim=False, *, axis=None, keepdims=None):
    dim, keepdim = _dk(dim, keepdim, axis, keepdims)
    return _C._amax(input, dim, keepdim)


def amin(input, dim=(), keepdim=False, *, axis=None, keepdims=None):
    dim, keepdim = _dk(dim, keepdim, axis, keepdims)
    return _C._amin(input, dim, keepdim)


def _extreme(name, all_fn, dim_fn, rt, pair):
    def fn(input, dim=None, keepdim=False, *, axis=None, keepdims=None, other=None):
        dim, keepdim = _dk(dim, keepdim, axis, keepdims)
        if other is not None:
            dim = other
        if isinstance(dim, _C.Tensor):      # max(a, b) is maximum(a, b)
            import lucid
            return getattr(lucid, pair)(input, dim)
        if dim is None:
            if keepdim:
                raise TypeError(f"{name}(): keepdim=True needs a dim")
            return all_fn(input)
        return rt(*dim_fn(input, dim, keepdim))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"{name}(input) -> Tensor; {name}(input, dim, keepdim=False) -> (values, indices); "
                  f"{name}(input, other) -> {pair}(input, other).")
    return fn


max = _extreme("max", _C._max_all, _C._max_dim, _max_rt, "maximum")   # noqa: A001
min = _extreme("min", _C._min_all, _C._min_dim, _min_rt, "minimum")   # noqa: A001


def argmax(input, dim=None, keepdim=False, *, axis=None, keepdims=None):
    dim, keepdim = _dk(dim, keepdim, axis, keepdims)
    return _C._argmax(input, dim, keepdim)


def argmin(input, dim=None, keepdim=False, *, axis=None, keepdims=None):
    dim, keepdim = _dk(dim, keepdim, axis, keepdims)
    return _C._argmin(input, dim, keepdim)


def aminmax(input, *, dim=None, keepdim=False, axis=None, keepdims=None):
    dim, keepdim = _dk(dim, keepdim, axis, keepdims)
    return _aminmax_rt(*_C._aminmax(input, dim, keepdim))


def _correction(dim, unbiased, correction):
    """PyTorch's var/std spellings: var(x, unbiased), var(x, dim, unbiased, keepdim), correction=."""
    if isinstance(dim, builtins.bool):
        if unbiased is not None:
            raise TypeError("var/std: unbiased given twice")
        dim, unbiased = None, dim
    if correction is not None and unbiased is not None:
        raise TypeError("var/std: give either unbiased or correction, not both")
    if correction is None:
        correction = 0 if unbiased is False else 1
    return dim, float(correction)


def _var_like(name, raw):
    def fn(input, dim=None, unbiased=None, keepdim=False, *, correction=None, axis=None, keepdims=None):
        d, keep = _dk(dim, keepdim, axis, keepdims)
        d, c = _correction(d, unbiased, correction)
        return raw(input, d, c, keep)
    fn.__name__ = fn.__qualname__ = name
    return fn


var = _var_like("var", _C._var)
std = _var_like("std", _C._std)
var_mean = _var_like("var_mean", _C._var_mean)
std_mean = _var_like("std_mean", _C._std_mean)


def logsumexp(input, dim=None, keepdim=False, *, axis=None, keepdims=None):
    dim, keepdim = _dk(dim, keepdim, axis, keepdims)
    return _C._logsumexp(input, dim, keepdim)


def _dim_required(dim, axis, name):
    if axis is not None:
        dim = axis
    if dim is None:
        raise TypeError(f"{name}(): argument 'dim' must be int, not None")
    return dim


def cumsum(input, dim=None, *, dtype=None, axis=None):
    return _C._cumsum(input, _dim_required(dim, axis, "cumsum"), to_dtype(dtype))


def cumprod(input, dim=None, *, dtype=None, axis=None):
    return _C._cumprod(input, _dim_required(dim, axis, "cumprod"), to_dtype(dtype))


def cummax(input, dim=None, *, axis=None):
    return _cummax_rt(*_C._cummax(input, _dim_required(dim, axis, "cummax")))


def cummin(input, dim=None, *, axis=None):
    return _cummin_rt(*_C._cummin(input, _dim_required(dim, axis, "cummin")))


def logcumsumexp(input, dim=None, *, axis=None):
    return _C._logcumsumexp(input, _dim_required(dim, axis, "logcumsumexp"))


def any(input, dim=None, keepdim=False, *, axis=None, keepdims=None):  # noqa: A001
    dim, keepdim = _dk(dim, keepdim, axis, keepdims)
    return _C._any(input, dim, keepdim)


def all(input, dim=None, keepdim=False, *, axis=None, keepdims=None):  # noqa: A001
    dim, keepdim = _dk(dim, keepdim, axis, keepdims)
    return _C._all(input, dim, keepdim)


def count_nonzero(input, dim=None, *, axis=None):
    if axis is not None:
        dim = axis
    return _C._count_nonzero(input, dim)


def diff(input, n=1, dim=-1, prepend=None, append=None, *, axis=None):
    if axis is not None:
        dim = axis
    return _C._diff(input, n, dim, prepend, append)


trace = _C.trace


def _inplace(name, fn):
    def method(self, dim=None, *, dtype=None, axis=None):
        out = fn(self, dim, dtype=self.dtype if dtype is None else dtype, axis=axis)
        if out.dtype is not self.dtype:
            raise RuntimeError(f"{name}_: result type {out.dtype} can't be cast to the desired output type "
                               f"{self.dtype}")
        return self.copy_(out)
    method.__name__ = name + "_"
    method.__doc__ = f"In-place {name}: self.copy_(self.{name}(dim)) (bumps the version, recorded by autograd)."
    return method


for _name in __all__:
    if _name not in ("trace", "var_mean", "std_mean"):
        setattr(_C.Tensor, _name, globals()[_name])
_C.Tensor.cumsum_ = _inplace("cumsum", cumsum)
_C.Tensor.cumprod_ = _inplace("cumprod", cumprod)

# out= on the module functions (PyTorch's semantics, lucid/_out.py); the Tensor methods above stay out-less
from lucid import _out  # noqa: E402
_out.install(globals(), [n for n in __all__ if n not in ("count_nonzero", "var_mean", "std_mean", "trace")])
