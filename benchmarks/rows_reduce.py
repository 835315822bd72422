"""Benchmark rows of the reduce family beyond sum (CPU only for now, except mean): mean, amax, max
with indices, argmax, prod, var, logsumexp, cumsum, any."""
import lucid
import torch

from harness import Row
from rows import _pair


def all_reduce_rows(device, quick):
    m, n = (1024, 1024) if quick else (4096, 1024)
    a, ta = _pair((m, n), device)
    b = 4 * m * n
    rows = [
        Row("reduce", f"mean last dim ({m}x{n})", lambda: a.mean(-1), lambda: ta.mean(-1), bytes_moved=b),
        Row("reduce", f"mean first dim ({m}x{n})", lambda: a.mean(0), lambda: ta.mean(0), bytes_moved=b),
    ]
    if device != "cpu":
        return rows        # the rest of the family has no CUDA kernels yet
    return rows + [
        Row("reduce", f"amax last dim ({m}x{n})", lambda: a.amax(-1), lambda: ta.amax(-1), bytes_moved=b),
        Row("reduce", f"amax first dim ({m}x{n})", lambda: a.amax(0), lambda: ta.amax(0), bytes_moved=b),
        Row("reduce", f"max(dim) last dim ({m}x{n})", lambda: a.max(-1).indices, lambda: ta.max(-1).indices,
            bytes_moved=b),
        Row("reduce", f"argmax all ({m}x{n})", lambda: a.argmax(), lambda: ta.argmax(), bytes_moved=b),
        Row("reduce", f"prod last dim ({m}x{n})", lambda: (a * 0.01 + 1).prod(-1), lambda: (ta * 0.01 + 1).prod(-1),
            rtol=1e-3),
        Row("reduce", f"var last dim ({m}x{n})", lambda: a.var(-1), lambda: ta.var(-1), bytes_moved=b, rtol=1e-3),
        Row("reduce", f"logsumexp last dim ({m}x{n})", lambda: a.logsumexp(-1), lambda: ta.logsumexp(-1),
            bytes_moved=b, rtol=1e-4),
        Row("reduce", f"cumsum last dim ({m}x{n})", lambda: a.cumsum(-1), lambda: ta.cumsum(-1), bytes_moved=2 * b,
            rtol=1e-3, atol=1e-3),
        Row("reduce", f"cumsum first dim ({m}x{n})", lambda: a.cumsum(0), lambda: ta.cumsum(0), bytes_moved=2 * b,
            rtol=1e-3, atol=1e-3),
        Row("reduce", f"any last dim ({m}x{n})", lambda: a.any(-1), lambda: ta.any(-1), bytes_moved=b),
    ]
