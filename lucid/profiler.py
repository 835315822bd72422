"""An op-level profiler, as torch.profiler in small.

    with lucid.profiler.profile() as prof:
        loss = model(x).sum()
        loss.backward()
    print(prof.key_averages().table(sort_by="self_time_total", row_limit=10))

While a profile runs, the engine records every kernel call (op name, device, operand shapes, bytes
read and written, wall time) and every autograd node run by backward (its name and time; the
kernels it launches nest under it). `record_function("name")` marks a region of your own code.
CUDA kernels are timed to completion: the profiler synchronises the device after each one, so a
profiled run is slower than an unprofiled one, but each row's time is the kernel's own.
"""
import json
from collections import OrderedDict

from lucid import _C

__all__ = ["profile", "record_function", "FunctionEvent", "EventList"]

_active = []          # the running profile (profiles do not nest)


class FunctionEvent:
    """One recorded call: a kernel, an autograd node (kind 'backward') or a user region."""

    __slots__ = ("name", "kind", "device", "input_shapes", "bytes", "start_ns", "duration_ns", "depth",
                 "self_ns")

    def __init__(self, name, kind, device, input_shapes, nbytes, start_ns, duration_ns, depth):
        self.name, self.kind, self.device = name, kind, device
        self.input_shapes, self.bytes = [list(s) for s in input_shapes], nbytes
        self.start_ns, self.duration_ns, self.depth = start_ns, duration_ns, depth
        self.self_ns = duration_ns

    @property
    def end_ns(self):
        return self.start_ns + self.duration_ns

    @property
    def cpu_time_total(self):      # PyTorch's spelling, in microseconds
        return self.duration_ns / 1e3

    @property
    def self_cpu_time_total(self):
        return self.self_ns / 1e3

    def __repr__(self):
        return (f"<FunctionEvent {self.name} ({self.kind}, {self.device}) {self.duration_ns / 1e3:.1f} us "
                f"shapes={self.input_shapes} bytes={self.bytes}>")


class _Average:
    """The events of one key (name, kind, device[, shapes]) summed."""

    def __init__(self, key, first):
        self.key = key
        self.name, self.kind, self.device = first.name, first.kind, first.device
        self.input_shapes = first.input_shapes
        self.count = 0
        self.total_ns = 0
        self.self_ns = 0
        self.bytes = 0

    def add(self, e):
        self.count += 1
        self.total_ns += e.duration_ns
        self.self_ns += e.self_ns
        self.bytes += e.bytes

    # PyTorch's attribute names (microseconds)
    @property
    def cpu_time_total(self):
        return self.total_ns / 1e3

    @property
    def self_cpu_time_total(self):
        return self.self_ns / 1e3

    @property
    def cpu_time(self):
        return self.total_ns / 1e3 / max(self.count, 1)

    def __repr__(self):
        return f"<{self.name} ({self.kind}, {self.device}) x{self.count} {self.total_ns / 1e3:.1f} us>"


_SORT_KEYS = {
    "total": lambda a: a.total_ns, "time": lambda a: a.total_ns, "total_time": lambda a: a.total_ns,
    "cpu_time_total": lambda a: a.total_ns, "cuda_time_total": lambda a: a.total_ns,
    "self": lambda a: a.self_ns, "self_time_total": lambda a: a.self_ns, "self_cpu_time_total": lambda a: a.self_ns,
    "self_cuda_time_total": lambda a: a.self_ns, "count": lambda a: a.count, "calls": lambda a: a.count,
    "bytes": lambda a: a.bytes,
}


def _fmt_time(ns):
    if ns >= 1e9:
        return f"{ns / 1e9:.3f}s"
    if ns >= 1e6:
        return f"{ns / 1e6:.3f}ms"
    return f"{ns / 1e3:.3f}us"


def _fmt_bytes(b):
    for unit, f in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if b >= f:
            return f"{b / f:.2f} {unit}"
    return f"{b} B"


class EventList(list):
    """A list of averaged rows (key_averages) with a printable table."""

    def table(self, sort_by="total", row_limit=100, max_name_column_width=40):
        if sort_by not in _SORT_KEYS:
            raise ValueError(f"table: unknown sort_by {sort_by!r}; expected one of {sorted(_SORT_KEYS)}")
        rows = sorted(self, key=_SORT_KEYS[sort_by], reverse=True)
        if row_limit is not None and row_limit >= 0:
            rows = rows[:row_limit]
        all_self = sum(a.self_ns for a in self) or 1
        shapes = any(getattr(a, "_by_shape", False) for a in self)
        head = ["Name", "Kind", "Device", "Self %", "Self", "Total", "Avg", "Calls", "Bytes", "GB/s"]
        if shapes:
            head.append("Input shapes")
        body = []
        for a in rows:
            w = max_name_column_width
            name = a.name if len(a.name) <= w else a.name[:w - 3] + "..."
            gbs = a.bytes / a.self_ns if a.self_ns and a.kind == "kernel" else 0.0
            row = [name, a.kind, a.device, f"{100.0 * a.self_ns / all_self:.1f}%", _fmt_time(a.self_ns),
                   _fmt_time(a.total_ns), _fmt_time(a.total_ns / max(a.count, 1)), str(a.count),
                   _fmt_bytes(a.bytes) if a.bytes else "", f"{gbs:.2f}" if gbs else ""]
            if shapes:
                row.append(str(a.input_shapes))
            body.append(row)
        widths = [max(len(h), *(len(r[i]) for r in body)) if body else len(h) for i, h in enumerate(head)]
        sep = "-" * (sum(widths) + 2 * (len(widths) - 1))
        lines = [sep, "  ".join(h.ljust(w) for h, w in zip(head, widths)), sep]
        lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)) for r in body]
        lines += [sep, f"Self time total: {_fmt_time(sum(a.self_ns for a in self))}"]
        return "\n".join(lines)

    def __str__(self):
        return self.table()


class profile:
    """Records the ops run inside the `with` block. After it: events(), key_averages(), table(),
    export_chrome_trace(path). Arguments of torch.profiler.profile that change nothing here
    (activities, record_shapes, profile_memory, with_stack) are accepted for compatibility;
    `enabled=False` records nothing."""

    def __init__(self, enabled=True, *, activities=None, record_shapes=True, profile_memory=False,
                 with_stack=False, **_ignored):
        self.enabled = enabled
        self._events = None
        self._user = []

    def __enter__(self):
        if not self.enabled:
            return self
        if _active:
            raise RuntimeError("lucid.profiler.profile: a profile is already running; profiles do not nest")
        _C._profiler_start()
        _active.append(self)
        self._t0 = _C._profiler_now_ns()
        return self

    def __exit__(self, *exc):
        if not self.enabled:
            return False
        raw = _C._profiler_stop()
        _active.remove(self)
        events = [FunctionEvent(*r) for r in raw] + self._user
        events.sort(key=lambda e: (e.start_ns, -e.duration_ns))
        _fill_self_times(events)
        self._events = events
        return False

    def _check(self):
        if self._events is None:
            raise RuntimeError("lucid.profiler.profile: no results yet (use them after the `with` block)")

    def events(self):
        self._check()
        return list(self._events)

    def key_averages(self, group_by_input_shape=False):
        self._check()
        groups = OrderedDict()
        for e in self._events:
            key = (e.name, e.kind, e.device) + ((str(e.input_shapes),) if group_by_input_shape else ())
            if key not in groups:
                groups[key] = _Average(key, e)
                groups[key]._by_shape = group_by_input_shape
            groups[key].add(e)
        return EventList(groups.values())

    def table(self, sort_by="total", row_limit=100, group_by_input_shape=False):
        return self.key_averages(group_by_input_shape).table(sort_by=sort_by, row_limit=row_limit)

    def export_chrome_trace(self, path):
        """Writes the events in Chrome's trace-event format (chrome://tracing, Perfetto)."""
        self._check()
        t0 = self._t0
        trace = [{"name": e.name, "cat": e.kind, "ph": "X", "ts": (e.start_ns - t0) / 1e3,
                  "dur": e.duration_ns / 1e3, "pid": 0, "tid": 0,
                  "args": {"device": e.device, "input_shapes": e.input_shapes, "bytes": e.bytes}}
                 for e in self._events]
        with open(path, "w") as f:
            json.dump({"traceEvents": trace}, f)


def _fill_self_times(events):
    """Self time = own time minus the time of the events nested directly inside (by interval)."""
    stack = []
    for e in events:
        while stack and stack[-1].end_ns <= e.start_ns:
            stack.pop()
        if stack and e.end_ns <= stack[-1].end_ns:
            stack[-1].self_ns -= e.duration_ns
        stack.append(e)
    for e in events:
        e.self_ns = max(e.self_ns, 0)


class record_function:
    """Marks a region of user code in the running profile (a no-op without one); the ops inside
    nest under it. Usable as a context manager or a decorator."""

    def __init__(self, name):
        self.name = name

    def __enter__(self):
        self._t0 = _C._profiler_now_ns()
        return self

    def __exit__(self, *exc):
        if _active:
            t1 = _C._profiler_now_ns()
            _active[-1]._user.append(FunctionEvent(self.name, "user", "cpu", [], 0, self._t0, t1 - self._t0, 0))
        return False

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with record_function(self.name):
                return fn(*args, **kwargs)
        return wrapper
