"""Benchmark rows of the indexing family (CPU only for now): advanced __getitem__/__setitem__, gather,
scatter_add, index_select/index_add, masked_fill/masked_select, small-index overhead."""
import numpy as np
import lucid
import torch

from harness import Row
from rows import _pair


def all_indexing_rows(device, quick):
    if device != "cpu":
        return []          # the indexing family has no CUDA kernels yet
    m, n = (512, 512) if quick else (1024, 1024)
    rng = np.random.default_rng(0)
    a, ta = _pair((m, n), device)
    idx = rng.integers(0, m, m // 2)
    li, ti = lucid.tensor(idx), torch.tensor(idx)
    g = rng.integers(0, m, (m, n))
    lg, tg = lucid.tensor(g), torch.tensor(g)
    mask = rng.random((m, n)) < 0.5
    lm, tm = lucid.tensor(mask), torch.tensor(mask)
    src, tsrc = _pair((m // 2, n), device, seed=1)
    s, ts = _pair((4, 4), device)
    si, tsi = lucid.tensor([0, 2]), torch.tensor([0, 2])

    def setitem(x, i, v):
        x[i] = v
        return x

    return [
        Row("overhead", "x[idx] (4x4, 2 indices)", lambda: s[si], lambda: ts[tsi]),
        Row("overhead", "x[[0, 2]] (4x4, list)", lambda: s[[0, 2]], lambda: ts[[0, 2]]),
        Row("indexing", f"x[idx] rows ({m}x{n})", lambda: a[li], lambda: ta[ti]),
        Row("indexing", f"x[:, idx] ({m}x{n})", lambda: a[:, li], lambda: ta[:, ti]),
        Row("indexing", f"x[mask] ({m}x{n})", lambda: a[lm], lambda: ta[tm]),
        Row("indexing", f"x[idx] = 1 ({m}x{n})", lambda: setitem(a.clone(), li, 1.0), lambda: setitem(ta.clone(), ti, 1.0)),
        Row("indexing", f"gather dim 0 ({m}x{n})", lambda: a.gather(0, lg), lambda: ta.gather(0, tg)),
        Row("indexing", f"gather dim 1 ({m}x{n})", lambda: a.gather(1, lg), lambda: ta.gather(1, tg)),
        Row("indexing", f"scatter_add dim 0 ({m}x{n})", lambda: a.scatter_add(0, lg, a), lambda: ta.scatter_add(0, tg, ta),
            rtol=1e-4, atol=1e-3),
        Row("indexing", f"index_select dim 1 ({m}x{n})", lambda: a.index_select(1, li), lambda: ta.index_select(1, ti)),
        Row("indexing", f"index_add dim 0 ({m}x{n})", lambda: a.index_add(0, li, src), lambda: ta.index_add(0, ti, tsrc)),
        Row("indexing", f"masked_fill ({m}x{n})", lambda: a.masked_fill(lm, 0.0), lambda: ta.masked_fill(tm, 0.0)),
        Row("indexing", f"nonzero ({m}x{n})", lambda: lucid.nonzero(lm), lambda: torch.nonzero(tm)),
    ]
