"""Factories: lucid.tensor and friends (spec 000), zeros/ones/full/empty/eye/arange/linspace/logspace
and their *_like, from_numpy and DLPack."""
import math

from lucid import _C
from lucid._device import resolve, to_device
from lucid._dtypes import to_dtype, int64

Tensor = _C.Tensor


def _size(size):
    """f(2, 3), f((2, 3)) and f([2, 3]) all mean shape (2, 3)."""
    if len(size) == 1 and not isinstance(size[0], int):
        size = size[0]
    out = []
    for s in size:
        if not isinstance(s, int) and not hasattr(s, "__index__"):
            raise TypeError(f"size must be a sequence of ints, got {type(s).__name__}")
        out.append(int(s.__index__()) if not isinstance(s, int) else s)
    return out


def _dt(dtype):
    d = to_dtype(dtype)
    return _C.get_default_dtype() if d is None else d


def _finish(t, requires_grad):
    if requires_grad:
        t.requires_grad = True
    return t


def _is_numpy(obj):
    return type(obj).__module__ == "numpy" and hasattr(obj, "__array_interface__")


def tensor(data, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new tensor holding a copy of `data` (a scalar, a nested sequence, a NumPy array or a tensor)."""
    dtype = to_dtype(dtype)
    dev = resolve(device)
    if isinstance(data, Tensor):
        t = data.detach()._to(dtype, dev, True)
    elif _is_numpy(data):
        import numpy as np
        arr = np.asarray(data)  # (ascontiguousarray would make 0-d arrays 1-d)
        if not arr.flags.c_contiguous:
            arr = arr.copy(order="C")
        t = _C.from_numpy(arr)
        t = t._to(dtype, dev, True)
    elif hasattr(data, "__dlpack__") and not isinstance(data, (list, tuple)):
        t = from_dlpack(data)._to(dtype, dev, True)
    else:
        t = _C._from_data(data, dtype, dev)
    if pin_memory:
        t = t.pin_memory()
    return _finish(t, requires_grad)


def as_tensor(data, dtype=None, device=None):
    """Like tensor(), but shares memory when `data` is already a tensor (or a CPU NumPy array) of the
    requested dtype and device."""
    dtype = to_dtype(dtype)
    if isinstance(data, Tensor):
        return data._to(dtype, to_device(device), False)
    if _is_numpy(data) and type(data).__name__ == "ndarray":
        t = _C.from_numpy(data) if all(s >= 0 for s in data.strides) else tensor(data)
        return t._to(dtype, resolve(device) if device is not None else None, False)
    return tensor(data, dtype=dtype, device=device)


def from_numpy(ndarray):
    """A tensor sharing memory with a NumPy array (writes show through both ways)."""
    return _C.from_numpy(ndarray)


def from_dlpack(ext_tensor):
    """A tensor sharing memory with any DLPack producer (NumPy, PyTorch, CuPy, ...)."""
    return _C._from_dlpack(ext_tensor)


def empty(*size, dtype=None, device=None, requires_grad=False, pin_memory=False):
    return _finish(_C.empty(_size(size), _dt(dtype), resolve(device), pin_memory), requires_grad)


def zeros(*size, dtype=None, device=None, requires_grad=False):
    return _finish(_C.zeros(_size(size), _dt(dtype), resolve(device)), requires_grad)


def ones(*size, dtype=None, device=None, requires_grad=False):
    return _finish(_C.ones(_size(size), _dt(dtype), resolve(device)), requires_grad)


def _fill_dtype(value):
    if isinstance(value, bool):
        return _C.bool
    if isinstance(value, int):
        return int64
    if isinstance(value, complex):
        return _C._result_type(value, value)
    return _C.get_default_dtype()


def full(size, fill_value, dtype=None, device=None, requires_grad=False):
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    d = to_dtype(dtype) or _fill_dtype(fill_value)
    return _finish(_C.full(_size((size,)), fill_value, d, resolve(device)), requires_grad)


def eye(n, m=None, dtype=None, device=None, requires_grad=False):
    return _finish(_C.eye(n, n if m is None else m, _dt(dtype), resolve(device)), requires_grad)


def arange(start=0, end=None, step=1, dtype=None, device=None, requires_grad=False):
    if end is None:
        start, end = 0, start
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    d = to_dtype(dtype)
    if d is None:
        d = int64 if all(isinstance(v, int) for v in vals) else _C.get_default_dtype()
    return _finish(_C.arange(*vals, d, resolve(device)), requires_grad)


def linspace(start, end, steps, dtype=None, device=None, requires_grad=False):
    return _finish(_C.linspace(float(start), float(end), int(steps), _dt(dtype), resolve(device)), requires_grad)


def logspace(start, end, steps, base=10.0, dtype=None, device=None, requires_grad=False):
    return _finish(_C.logspace(float(start), float(end), int(steps), float(base), _dt(dtype), resolve(device)),
                   requires_grad)


# ---- *_like: same shape, dtype and device as `input` unless given
def _like(input, dtype, device):
    return list(input.shape), (to_dtype(dtype) or input.dtype), (resolve(device) if device is not None else input.device)


def empty_like(input, dtype=None, device=None, requires_grad=False):
    s, d, dev = _like(input, dtype, device)
    return _finish(_C.empty(s, d, dev), requires_grad)


def zeros_like(input, dtype=None, device=None, requires_grad=False):
    s, d, dev = _like(input, dtype, device)
    return _finish(_C.zeros(s, d, dev), requires_grad)


def ones_like(input, dtype=None, device=None, requires_grad=False):
    s, d, dev = _like(input, dtype, device)
    return _finish(_C.ones(s, d, dev), requires_grad)


def full_like(input, fill_value, dtype=None, device=None, requires_grad=False):
    s, d, dev = _like(input, dtype, device)
    return _finish(_C.full(s, fill_value, d, dev), requires_grad)


__all__ = ["tensor", "as_tensor", "from_numpy", "from_dlpack", "empty", "zeros", "ones", "full", "eye", "arange",
           "linspace", "logspace", "empty_like", "zeros_like", "ones_like", "full_like"]
