"""Dtype objects, aliases, finfo/iinfo and PyTorch's promotion rules (engine/core/dtype.cpp)."""
import builtins

from lucid import _C

dtype = _C.dtype
bool_ = _C.bool
uint8, int8, int16, int32, int64 = _C.uint8, _C.int8, _C.int16, _C.int32, _C.int64
float16, bfloat16, float32, float64 = _C.float16, _C.bfloat16, _C.float32, _C.float64
complex64, complex128 = _C.complex64, _C.complex128

ALIASES = {
    "bool": bool_, "bool_": bool_, "uint8": uint8, "int8": int8, "int16": int16, "short": int16,
    "int32": int32, "int": int32, "int64": int64, "long": int64, "float16": float16, "half": float16,
    "bfloat16": bfloat16, "float32": float32, "float": float32, "float64": float64, "double": float64,
    "complex64": complex64, "cfloat": complex64, "complex128": complex128, "cdouble": complex128,
}
ALL = (bool_, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64, complex64, complex128)

_NUMPY_NAMES = {"bool": bool_, "uint8": uint8, "int8": int8, "int16": int16, "int32": int32, "int64": int64,
                "float16": float16, "float32": float32, "float64": float64, "complex64": complex64,
                "complex128": complex128}


def to_dtype(d, allow_none=True):
    """Accepts a lucid dtype, a Python type (float/int/bool/complex), or a NumPy dtype."""
    if d is None:
        if allow_none:
            return None
        raise TypeError("dtype must not be None")
    if isinstance(d, dtype):
        return d
    if d is builtins.float:
        return _C.get_default_dtype()
    if d is builtins.int:
        return int64
    if d is builtins.bool:
        return bool_
    if d is builtins.complex:
        return complex128 if _C.get_default_dtype() is float64 else complex64
    name = getattr(d, "name", None) or (d if isinstance(d, str) else None)
    if name is None and hasattr(d, "dtype"):
        name = getattr(d.dtype, "name", None)
    if isinstance(name, str) and name in _NUMPY_NAMES:
        return _NUMPY_NAMES[name]
    raise TypeError(f"expected a lucid.dtype, got {d!r}")


def get_default_dtype():
    return _C.get_default_dtype()


def set_default_dtype(d):
    """Sets the dtype of float tensors made from Python floats (float32 or float64 as in PyTorch; float16 and bfloat16 too)."""
    _C.set_default_dtype(to_dtype(d, allow_none=False))


def promote_types(type1, type2):
    return _C.promote_types(to_dtype(type1, False), to_dtype(type2, False))


def result_type(tensor1, tensor2):
    """The dtype an arithmetic op on the two operands gives (tensors, 0-d tensors and Python scalars)."""
    return _C._result_type(tensor1, tensor2)


def can_cast(from_, to):
    return _C.can_cast(to_dtype(from_, False), to_dtype(to, False))


class finfo:
    """Machine limits of a floating dtype, as torch.finfo."""

    _TABLE = {
        "float16": (16, 2.0 ** -10, 65504.0, 2.0 ** -14, 2.0 ** -24, 3),
        "bfloat16": (16, 2.0 ** -7, 3.3895313892515355e38, 1.1754943508222875e-38, 9.183549615799121e-41, 2),
        "float32": (32, 2.0 ** -23, 3.4028234663852886e38, 1.1754943508222875e-38, 1.401298464324817e-45, 6),
        "float64": (64, 2.0 ** -52, 1.7976931348623157e308, 2.2250738585072014e-308, 5e-324, 15),
    }

    def __init__(self, type=None):  # noqa: A002
        d = to_dtype(type) if type is not None else _C.get_default_dtype()
        if d.is_complex:
            d = d.to_real()
        if not d.is_floating_point:
            raise TypeError(f"finfo expects a floating point dtype, got {d}")
        self.dtype = d
        self.bits, self.eps, self.max, self.tiny, self.smallest_subnormal, self.precision = self._TABLE[d.name]
        self.min = -self.max
        self.smallest_normal = self.tiny
        self.resolution = 10.0 ** -self.precision

    def __repr__(self):
        return (f"finfo(resolution={self.resolution}, min={self.min:e}, max={self.max:e}, eps={self.eps:e}, "
                f"smallest_normal={self.tiny:e}, tiny={self.tiny:e}, dtype={self.dtype.name})")


class iinfo:
    """Machine limits of an integer dtype, as torch.iinfo."""

    def __init__(self, type):  # noqa: A002
        d = to_dtype(type, False)
        if d.is_floating_point or d.is_complex:
            raise TypeError(f"iinfo expects an integer dtype, got {d}")
        self.dtype = d
        self.bits = 8 * d.itemsize
        if d is bool_:
            self.min, self.max = 0, 1
        elif d.is_signed:
            self.min, self.max = -(2 ** (self.bits - 1)), 2 ** (self.bits - 1) - 1
        else:
            self.min, self.max = 0, 2 ** self.bits - 1

    def __repr__(self):
        return f"iinfo(min={self.min}, max={self.max}, dtype={self.dtype.name})"
