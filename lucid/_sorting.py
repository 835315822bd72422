"""Sorting, searching and order statistics (sort, topk, unique, searchsorted, histc, median, mode, quantile, ...): module functions and Tensor methods.

Each is one binding into the engine (bindings/sorting.cpp); results with several tensors are named
tuples with PyTorch's field names (values/indices, hist/bin_edges)."""
import builtins as _builtins
from collections import namedtuple

from lucid import _C
from lucid._C import Tensor, float32 as _float32, float64 as _float64

_builtin_range = _builtins.range

__all__ = ["sort", "argsort", "msort", "topk", "kthvalue", "median", "nanmedian", "mode", "quantile", "nanquantile",
           "unique", "unique_consecutive", "searchsorted", "bucketize", "histc", "histogram", "histogramdd", "bincount",
           "isin"]

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

_histogramdd_rt = namedtuple("histogramdd", ["hist", "bin_edges"])
_histogramdd_rt.__module__ = "lucid.return_types"
_histogramdd_rt.__qualname__ = "histogramdd"


def histogramdd(input, bins, *, range=None, weight=None, density=False):
    """torch.histogramdd: the histogram of the points input[..., :] (the last dim holds the D
    coordinates). bins: an int, D ints, or D 1-d tensors of increasing edges; range: 2*D floats (min,
    max per dim) for int bins, default each column's min and max. Each bin holds [left, right) but the
    last one of a dim also its right edge; points outside, or with a NaN, count nowhere. Built on
    histogram's edges, searchsorted and bincount."""
    if not isinstance(input, Tensor):
        raise TypeError(f"histogramdd(): argument 'input' must be Tensor, not {type(input).__name__}")
    if input.dtype not in (_float32, _float64):
        raise NotImplementedError(f"[histogramdd] is not implemented for {input.dtype} tensors (float32/float64 only)")
    if input.dim() < 2:
        raise RuntimeError(f"[histogramdd] input tensor should have at least 2 dimensions, got shape {tuple(input.shape)}")
    D = input.shape[-1]
    pts = input.reshape(-1, D)
    if isinstance(bins, int):
        bins = [bins] * D
    bins = list(bins)
    if len(bins) != D:
        raise RuntimeError(f"[histogramdd] the size of bins ({len(bins)}) must be equal to the innermost dimension "
                           f"of the input ({D})")
    if range is not None:
        range = [float(v) for v in range]
        if len(range) != 2 * D:
            raise RuntimeError(f"[histogramdd] for a {D}-dimensional histogram range should have {2 * D} elements, "
                               f"but got {len(range)}")
    if weight is not None:
        if tuple(weight.shape) != tuple(input.shape[:-1]):
            raise RuntimeError(f"[histogramdd] weight should have the shape of the input without its innermost "
                               f"dimension {tuple(input.shape[:-1])}, but got {tuple(weight.shape)}")
        weight = weight.reshape(-1)
    edges, counts = [], []
    flat = None
    valid = None
    for d, b in enumerate(bins):
        col = pts[:, d]
        if isinstance(b, Tensor):
            e = histogram(col, bins=b).bin_edges  # histogram checks the edges
        else:
            if int(b) <= 0:
                raise RuntimeError(f"[histogramdd] bins must be > 0, but got {int(b)} for dimension {d}")
            r = None if range is None else (range[2 * d], range[2 * d + 1])
            if r is not None and r[0] > r[1]:
                raise RuntimeError(f"[histogramdd] min should not exceed max, but got min {r[0]} max {r[1]} "
                                   f"for dimension {d}")
            e = histogram(col, bins=int(b), range=r).bin_edges
        n = e.shape[0] - 1
        pos = searchsorted(e, col, right=True) - 1
        pos = pos.masked_fill(col == e[n], n - 1)  # the last bin holds its right edge
        inside = (col >= e[0]) & (col <= e[n])  # NaN: False
        flat = pos if flat is None else flat * n + pos
        valid = inside if valid is None else valid & inside
        edges.append(e)
        counts.append(n)
    total = 1
    for n in counts:
        total *= n
    keep = flat[valid]
    hist = bincount(keep, weights=None if weight is None else weight[valid].to(_float64), minlength=total)
    hist = hist.to(input.dtype).reshape(counts)  # flat < total: bincount gives exactly total bins
    if density:
        volume = None
        for d, e in enumerate(edges):
            w = (e[1:] - e[:-1]).reshape([-1 if k == d else 1 for k in _builtin_range(D)])
            volume = w if volume is None else volume * w
        hist = hist / (hist.sum() * volume)
    return _histogramdd_rt(hist, tuple(edges))


# out= on the module functions (PyTorch's semantics, lucid/_out.py)
from lucid import _out  # noqa: E402
_out.install(globals(), [n for n in __all__ if n not in ("argsort", "unique", "unique_consecutive", "bincount",
                                                          "histogramdd")])
