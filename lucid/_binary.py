"""The binary family beyond add/sub/mul/div (comparisons, where, pow, maximum, bitwise, ...): module
functions and Tensor methods. Everything is bound in C++ (bindings/binary.cpp); this module exports
the names and adds the few spellings PyTorch has on top."""
from lucid import _C

_NAMES = (
    "eq", "ne", "lt", "le", "gt", "ge", "not_equal", "less", "less_equal", "greater", "greater_equal",
    "logical_and", "logical_or", "logical_xor",
    "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift",
    "floor_divide", "remainder", "fmod", "pow", "float_power", "atan2", "arctan2", "hypot",
    "maximum", "minimum", "fmax", "fmin", "logaddexp", "logaddexp2", "copysign", "xlogy", "heaviside",
    "where", "lerp", "addcmul", "addcdiv", "isclose", "allclose", "equal", "complex", "polar",
    "divide", "true_divide",
)
for _name in _NAMES:
    globals()[_name] = getattr(_C, _name)

multiply, subtract = _C.mul, _C.sub


def rsub(input, other, *, alpha=1):
    """other - alpha * input (PyTorch's rsub)."""
    return _C.sub(other, input, alpha=alpha)


__all__ = list(_NAMES) + ["multiply", "subtract", "rsub"]

# PyTorch's alias methods of the arithmetic core
for _alias, _target in (("multiply", "mul"), ("multiply_", "mul_"), ("subtract", "sub"), ("subtract_", "sub_")):
    setattr(_C.Tensor, _alias, getattr(_C.Tensor, _target))

# out= on the module functions (PyTorch's semantics, lucid/_out.py)
from lucid import _out  # noqa: E402
_DIRECT = {"floor_divide": "floor_divide", "remainder": "remainder", "fmod": "fmod", "pow": "pow", "atan2": "atan2",
           "arctan2": "atan2", "hypot": "hypot", "maximum": "maximum", "minimum": "minimum", "fmax": "fmax",
           "fmin": "fmin", "logaddexp": "logaddexp", "logaddexp2": "logaddexp2", "copysign": "copysign",
           "xlogy": "xlogy", "heaviside": "heaviside", "bitwise_and": "bitwise_and", "bitwise_or": "bitwise_or",
           "bitwise_xor": "bitwise_xor", "bitwise_left_shift": "bitwise_left_shift",
           "bitwise_right_shift": "bitwise_right_shift", "multiply": "mul", "subtract": "sub", "divide": "div",
           "true_divide": "div"}
_out.install(globals(), [n for n in __all__ if n not in ("isclose", "allclose", "equal", "rsub")],
             direct={n: _out.binary_direct(c) for n, c in _DIRECT.items()}, overlap=True)
