"""Module-level functions that mirror Tensor methods (lucid.sum(x, dim) == x.sum(dim))."""
from lucid import _C
from lucid._dtypes import to_dtype

add, sub, mul, div, matmul = _C.add, _C.sub, _C.mul, _C.div, _C.matmul


def sum(input, dim=None, keepdim=False, *, dtype=None, axis=None, keepdims=None):  # noqa: A001
    if axis is not None:
        dim = axis
    if keepdims is not None:
        keepdim = keepdims
    return input._sum(dim, keepdim, to_dtype(dtype))


def reshape(input, shape):
    return input.reshape(shape)


def permute(input, dims):
    return input.permute(dims)


def transpose(input, dim0, dim1):
    return input.transpose(dim0, dim1)


def squeeze(input, dim=None):
    return input.squeeze(dim)


def unsqueeze(input, dim):
    return input.unsqueeze(dim)


def flatten(input, start_dim=0, end_dim=-1):
    return input.flatten(start_dim, end_dim)


def narrow(input, dim, start, length):
    return input.narrow(dim, start, length)


def select(input, dim, index):
    return input.select(dim, index)


def diagonal(input, offset=0, dim1=0, dim2=1):
    return input.diagonal(offset, dim1, dim2)


def broadcast_to(input, size):
    return input.broadcast_to(size)


def as_strided(input, size, stride, storage_offset=None):
    return input.as_strided(size, stride, storage_offset)


def clone(input):
    return input.clone()


def numel(input):
    return input.numel()


# The unary math family, bound one by one in C++ (bindings/ops.cpp).
UNARY = ("abs", "sign", "square", "relu", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt",
         "reciprocal", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh",
         "sigmoid", "erf", "erfc", "floor", "ceil", "trunc", "frac")
for _name in UNARY:
    globals()[_name] = getattr(_C, _name)
# PyTorch's aliases
absolute, arcsin, arccos, arctan, arcsinh, arccosh, arctanh, fix = (
    _C.abs, _C.asin, _C.acos, _C.atan, _C.asinh, _C.acosh, _C.atanh, _C.trunc)


def _inplace(name):
    def method(self):
        out = getattr(_C, name)(self)
        if out.dtype is not self.dtype:
            raise RuntimeError(f"{name}_: result type {out.dtype} can't be cast to the desired output type "
                               f"{self.dtype}")
        return self.copy_(out)
    method.__name__ = name + "_"
    method.__doc__ = f"In-place {name}: self.copy_(self.{name}()) (bumps the version, recorded by autograd)."
    return method


for _name in UNARY:
    setattr(_C.Tensor, _name + "_", _inplace(_name))
for _alias, _target in (("absolute", "abs"), ("arcsin", "asin"), ("arccos", "acos"), ("arctan", "atan"),
                        ("arcsinh", "asinh"), ("arccosh", "acosh"), ("arctanh", "atanh"), ("fix", "trunc")):
    setattr(_C.Tensor, _alias, getattr(_C.Tensor, _target))

# out= on the module functions (PyTorch's semantics, lucid/_out.py); Tensor methods stay out-less
from lucid import _out  # noqa: E402
_ALIAS = {"absolute": "abs", "arcsin": "asin", "arccos": "acos", "arctan": "atan", "arcsinh": "asinh",
          "arccosh": "acosh", "arctanh": "atanh", "fix": "trunc"}
_UNARY_OUT = tuple(n for n in UNARY if n != "relu") + tuple(_ALIAS)
_out.install(globals(), ("add", "sub", "mul", "div") + _UNARY_OUT, overlap=True,
             direct={**{n: _out.unary_direct(_ALIAS.get(n, n)) for n in _UNARY_OUT},
                     **{n: _out.binary_direct(n) for n in ("add", "sub", "mul", "div")}})
_out.install(globals(), ("matmul", "sum"))
