"""Benchmark rows of the sorting family (CPU only for now): sorts along each dim, one long row,
topk, median, quantile, unique, searchsorted, histc."""
import lucid
import torch

from harness import Row
from rows import _pair


def all_sorting_rows(device, quick):
    if device != "cpu":
        return []          # the sorting family has no CUDA kernels yet
    m, n = (512, 512) if quick else (1024, 1024)
    big = 1 << (18 if quick else 20)
    a, ta = _pair((m, n), device)
    v, tv = _pair((big,), device, seed=1)
    sv, tsv = lucid.sort(v).values, torch.sort(tv).values
    q, tq = _pair((4096,), device, seed=2)
    return [
        Row("sort", f"sort last dim ({m}x{n})", lambda: lucid.sort(a).values, lambda: torch.sort(ta).values),
        Row("sort", f"sort dim 0 ({m}x{n})", lambda: lucid.sort(a, 0).values, lambda: torch.sort(ta, 0).values),
        Row("sort", f"sort one row of {big}", lambda: lucid.sort(v).values, lambda: torch.sort(tv).values),
        Row("sort", f"argsort descending ({m}x{n})", lambda: lucid.argsort(a, descending=True),
            lambda: torch.argsort(ta, descending=True, stable=True)),
        Row("sort", f"topk 16 last dim ({m}x{n})", lambda: lucid.topk(a, 16).values, lambda: torch.topk(ta, 16).values),
        Row("sort", f"median last dim ({m}x{n})", lambda: lucid.median(a, 1).values,
            lambda: torch.median(ta, 1).values),
        Row("sort", f"quantile 0.3 last dim ({m}x{n})", lambda: lucid.quantile(a, 0.3, dim=1),
            lambda: torch.quantile(ta, 0.3, dim=1), rtol=1e-5, atol=1e-6),
        Row("sort", f"unique of {big}", lambda: lucid.unique(v), lambda: torch.unique(tv)),
        Row("sort", f"searchsorted 4096 in {big}", lambda: lucid.searchsorted(sv, q), lambda: torch.searchsorted(tsv, tq)),
        Row("sort", f"histc 100 bins of {big}", lambda: lucid.histc(v), lambda: torch.histc(tv)),
    ]
