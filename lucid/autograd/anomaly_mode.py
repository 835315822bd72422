"""Anomaly detection: while on, every node remembers the Python stack of its forward, and a backward
that produces NaN raises an error naming the node and showing that stack."""
import functools

from lucid import _C


class detect_anomaly:
    """Context manager and decorator that turns anomaly detection on."""

    def __init__(self, check_nan=True):
        self.check_nan = check_nan

    def __enter__(self):
        self._prev = (_C.is_anomaly_enabled(), _C.is_anomaly_check_nan_enabled())
        _C._set_anomaly_enabled(True, self.check_nan)
        return self

    def __exit__(self, *exc):
        _C._set_anomaly_enabled(*self._prev)
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with detect_anomaly(self.check_nan):
                return fn(*args, **kwargs)
        return wrapper


class set_detect_anomaly:
    """set_detect_anomaly(mode, check_nan=True): sets anomaly detection now; restores it on leaving a
    `with` block."""

    def __init__(self, mode, check_nan=True):
        self._prev = (_C.is_anomaly_enabled(), _C.is_anomaly_check_nan_enabled())
        _C._set_anomaly_enabled(bool(mode), check_nan)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _C._set_anomaly_enabled(*self._prev)
        return False


def is_anomaly_enabled():
    return _C.is_anomaly_enabled()


def is_anomaly_check_nan_enabled():
    return _C.is_anomaly_check_nan_enabled()
