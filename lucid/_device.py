"""Devices, the default device, and memory statistics."""
from lucid import _C

device = _C.device
_default_device = device("cpu")


def to_device(d, allow_none=True):
    """Accepts a lucid.device, a string ('cpu', 'cuda', 'cuda:1', 'gpu') or an int (a CUDA index)."""
    if d is None:
        if allow_none:
            return None
        return _default_device
    if isinstance(d, device):
        return d
    if isinstance(d, str):
        return device(d)
    if isinstance(d, int) and not isinstance(d, bool):
        return device("cuda", d)
    if hasattr(d, "type") and hasattr(d, "index"):  # e.g. a torch.device
        return device(str(d))
    raise TypeError(f"expected a device, a device string or an int, got {d!r}")


def resolve(d):
    """The device a factory uses: the argument, else the default device; CUDA must exist."""
    dev = _default_device if d is None else to_device(d)
    if dev.type == "cuda":
        _C._check_device(dev)
    return dev


def set_default_device(d):
    """Sets the device on which factories place new tensors (None restores the CPU)."""
    global _default_device
    dev = device("cpu") if d is None else to_device(d)
    if dev.type == "cuda":
        _C._check_device(dev)
    _default_device = dev


def get_default_device():
    return _default_device


def _stats_device(d):
    dev = to_device(d) if d is not None else _default_device
    _C._check_device(dev)
    return dev


def memory_allocated(device=None):  # noqa: A002
    """Bytes held by live tensors on the device."""
    return _C._memory_allocated(_stats_device(device))


def max_memory_allocated(device=None):  # noqa: A002
    return _C._max_memory_allocated(_stats_device(device))


def memory_reserved(device=None):  # noqa: A002
    """Bytes obtained from the system (cached blocks included)."""
    return _C._memory_reserved(_stats_device(device))


def max_memory_reserved(device=None):  # noqa: A002
    return _C._max_memory_reserved(_stats_device(device))


def reset_peak_memory_stats(device=None):  # noqa: A002
    _C._reset_peak_memory_stats(_stats_device(device))


def memory_stats(device=None):  # noqa: A002
    return _C._memory_stats(_stats_device(device))
