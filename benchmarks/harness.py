"""Side-by-side timing of lucid and PyTorch in one process (issue 6's method).

Each row gives a lucid callable and a torch callable computing the same thing; the harness checks
that both results agree, then times them interleaved (A/B/A/B after warm-ups) and reports the median
of the trials and the ratio lucid/torch (lower is better)."""
import statistics
import time

import numpy as np


def _to_np(x):
    if hasattr(x, "detach") and hasattr(x, "numpy") and type(x).__module__.startswith("torch"):
        return x.detach().float().cpu().numpy() if x.dtype.is_floating_point else x.detach().cpu().numpy()
    if hasattr(x, "tolist"):
        return np.asarray(x.float().tolist() if getattr(x.dtype, "name", "") == "bfloat16" else x.tolist())
    return np.asarray(x)


def same(a, b, rtol, atol):
    if a is None or b is None:
        return True
    aa, bb = _to_np(a), _to_np(b)
    return aa.shape == bb.shape and np.allclose(aa, bb, rtol=rtol, atol=atol, equal_nan=True)


def _time_once(fn, number, sync=None):
    """Seconds per call over `number` calls; with `sync` (GPU rows), queued device work is waited for
    before the clock starts and before it stops, so the time is the device's, not the launches'."""
    if sync:
        sync()
    t0 = time.perf_counter()
    for _ in range(number):
        fn()
    if sync:
        sync()
    return (time.perf_counter() - t0) / number


def measure(lucid_fn, torch_fn, *, trials=5, min_time=0.02, sync=None):
    """Median seconds per call of each side, interleaved A/B/A/B with warm-ups."""
    for _ in range(3):
        lucid_fn()
        torch_fn()
    # Calls per trial so one trial lasts at least min_time.
    number = 1
    while True:
        t = _time_once(lucid_fn, number, sync)
        if t * number >= min_time or number >= 1 << 20:
            break
        number *= 4
    la, ta = [], []
    for _ in range(trials):
        la.append(_time_once(lucid_fn, number, sync))
        ta.append(_time_once(torch_fn, number, sync))
    return statistics.median(la), statistics.median(ta)


class Row:
    def __init__(self, group, name, lucid_fn, torch_fn, *, flops=None, bytes_moved=None, rtol=1e-4, atol=1e-4,
                 check=True):
        self.group, self.name = group, name
        self.lucid_fn, self.torch_fn = lucid_fn, torch_fn
        self.flops, self.bytes_moved = flops, bytes_moved
        self.rtol, self.atol, self.check = rtol, atol, check
