"""Sorting, searching and order statistics (sort, topk, unique, searchsorted, histc, median, mode, quantile, ...): module functions and Tensor methods.

Each is one binding into the engine (bindings/sorting.cpp); results with several tensors are named
tuples with PyTorch's field names (values/indices, hist/bin_edges)."""
from lucid import _C

__all__ = ["sort", "argsort", "msort", "topk", "kthvalue", "median", "nanmedian", "mode", "quantile", "nanquantile",
           "unique", "unique_consecutive", "searchsorted", "bucketize", "histc", "histogram", "bincount", "isin"]

sort = _C.sort
argsort = _C.argsort
msort = _C.msort
topk = _C.topk
kthvalue = _C.kthvalue
median = _C.median
nanmedian = _C.nanmedian
mode = _C.mode
quantile = _C.quantile
nanquantile = _C.nanquantile
unique = _C.unique
unique_consecutive = _C.unique_consecutive
searchsorted = _C.searchsorted
bucketize = _C.bucketize
histc = _C.histc
histogram = _C.histogram
bincount = _C.bincount
isin = _C.isin

# out= on the module functions (PyTorch's semantics, lucid/_out.py)
from lucid import _out  # noqa: E402
_out.install(globals(), [n for n in __all__ if n not in ("argsort", "unique", "unique_consecutive", "bincount")])
