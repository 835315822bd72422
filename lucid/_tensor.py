"""Python-side methods of lucid.Tensor (the class itself is bound in bindings/tensor.cpp).

Hot paths (arithmetic, views, metadata) are bound in C++; what lives here is argument parsing that
reads better in Python: to(), casts, repr, the new_* factories, reductions with aliases.
"""
import builtins

from lucid import _C
from lucid import _creation
from lucid._device import resolve, to_device
from lucid._dtypes import to_dtype

Tensor = _C.Tensor


def _parse_to(args, kwargs):
    dtype = device = None
    copy = kwargs.pop("copy", False)
    kwargs.pop("non_blocking", None)
    kwargs.pop("memory_format", None)
    if "dtype" in kwargs:
        dtype = to_dtype(kwargs.pop("dtype"))
    if "device" in kwargs:
        device = to_device(kwargs.pop("device"))
    if "other" in kwargs:
        args = args + (kwargs.pop("other"),)
    if kwargs:
        raise TypeError(f"to() got unexpected keyword arguments {sorted(kwargs)}")
    for a in args:
        if isinstance(a, Tensor):
            dtype, device = a.dtype, a.device
        elif isinstance(a, _C.dtype) or a in (builtins.float, builtins.int, builtins.bool, builtins.complex):
            dtype = to_dtype(a)
        elif isinstance(a, bool):
            continue  # positional non_blocking
        elif a is None:
            continue
        else:
            device = to_device(a)
    if device is not None and device.type == "cuda":
        _C._check_device(device)
    return dtype, device, copy


def to(self, *args, **kwargs):
    """to(dtype), to(device), to(device, dtype), to(other); returns self when nothing changes and
    copy=False (spec 000)."""
    dtype, device, copy = _parse_to(args, dict(kwargs))
    return self._to(dtype, device, copy)


def _cast(dtype):
    def method(self, memory_format=None):
        return self._to(dtype, None, False)
    method.__name__ = dtype.name
    method.__doc__ = f"Returns self when already {dtype.name}, else a {dtype.name} copy (spec 000)."
    return method


def type_as(self, other):
    return self._to(other.dtype, None, False)


def cpu(self, memory_format=None):
    return self._to(None, _C.device("cpu"), False)


def cuda(self, device=None, non_blocking=False, memory_format=None):
    dev = _C.device("cuda") if device is None else to_device(device)
    if isinstance(device, int):
        dev = _C.device("cuda", device)
    _C._check_device(dev)
    return self._to(None, dev, False)


def type(self, dtype=None, non_blocking=False):  # noqa: A001
    if dtype is None:
        return "lucid." + {"float32": "FloatTensor", "float64": "DoubleTensor", "float16": "HalfTensor",
                           "bfloat16": "BFloat16Tensor", "int64": "LongTensor", "int32": "IntTensor",
                           "int16": "ShortTensor", "int8": "CharTensor", "uint8": "ByteTensor",
                           "bool": "BoolTensor", "complex64": "ComplexFloatTensor",
                           "complex128": "ComplexDoubleTensor"}[self.dtype.name]
    return self._to(to_dtype(dtype), None, False)


def share_memory_(self):
    """Identity on CPU tensors here (as spec 000's unified-memory note): storages are process-local."""
    return self


def is_shared(self):
    return False


def __repr__(self):
    prefix = "tensor("
    body = self._repr_data(len(prefix))
    extras = []
    if self.device.type != "cpu":
        extras.append(f"device='{self.device}'")
    default_float = _C.get_default_dtype()
    implicit = {_C.int64, _C.bool, default_float, _C.complex64 if default_float is _C.float32 else _C.complex128}
    if self.numel() == 0 and self.dim() != 1:
        extras.insert(0, f"size={tuple(self.shape)}")
    if self.dtype not in implicit or self.numel() == 0 and self.dtype is not default_float:
        extras.append(f"dtype={self.dtype}")
    if self.grad_fn is not None:
        extras.append(f"grad_fn=<{self.grad_fn.name()}>")
    elif self.requires_grad:
        extras.append("requires_grad=True")
    return prefix + body + "".join(", " + e for e in extras) + ")"


def __bool__(self):
    if self.numel() != 1:
        raise RuntimeError(f"Boolean value of Tensor with {self.numel()} elements is ambiguous")
    return builtins.bool(self.item())


def __float__(self):
    return builtins.float(_scalar(self, "float"))


def __int__(self):
    return builtins.int(_scalar(self, "int").real if isinstance(self.item(), complex) else self.item())


def __complex__(self):
    return builtins.complex(_scalar(self, "complex"))


def __index__(self):
    if self.dtype.is_floating_point or self.dtype.is_complex or self.numel() != 1:
        raise TypeError("only integer tensors of a single element can be converted to an index")
    return builtins.int(self.item())


def _scalar(self, what):
    if self.numel() != 1:
        raise ValueError(f"only one element tensors can be converted to Python scalars (got {self.numel()} "
                         f"elements converting to {what})")
    return self.item()


def __array__(self, dtype=None, copy=None):
    arr = self.numpy()
    return arr.astype(dtype) if dtype is not None else arr


def __iter__(self):
    if self.dim() == 0:
        raise TypeError("iteration over a 0-d tensor")
    return (self[i] for i in range(self.shape[0]))


def __hash__(self):
    return id(self)


def __reduce_ex__(self, protocol):
    return (_rebuild, (self.to_bytes(), tuple(self.shape), self.dtype.name, str(self.device), self.requires_grad))


def _rebuild(data, shape, dtype_name, device, requires_grad):
    t = _C._from_buffer(data, list(shape), getattr(_C, dtype_name), _C.device(device))
    if requires_grad:
        t.requires_grad = True
    return t


def sum(self, dim=None, keepdim=False, *, dtype=None, axis=None, keepdims=None):
    if axis is not None:
        dim = axis
    if keepdims is not None:
        keepdim = keepdims
    return self._sum(dim, keepdim, to_dtype(dtype))


def new_empty(self, *size, dtype=None, device=None, requires_grad=False):
    return _creation.empty(*size, dtype=dtype or self.dtype, device=device or self.device, requires_grad=requires_grad)


def new_zeros(self, *size, dtype=None, device=None, requires_grad=False):
    return _creation.zeros(*size, dtype=dtype or self.dtype, device=device or self.device, requires_grad=requires_grad)


def new_ones(self, *size, dtype=None, device=None, requires_grad=False):
    return _creation.ones(*size, dtype=dtype or self.dtype, device=device or self.device, requires_grad=requires_grad)


def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False):
    return _creation.full(size, fill_value, dtype=dtype or self.dtype, device=device or self.device,
                          requires_grad=requires_grad)


def new_tensor(self, data, dtype=None, device=None, requires_grad=False):
    """Always copies (spec 000), with self's dtype and device unless given."""
    return _creation.tensor(data, dtype=dtype or self.dtype, device=device or self.device,
                            requires_grad=requires_grad)


def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulates the gradient of this tensor into the leaves' .grad (spec 000)."""
    from lucid import autograd
    autograd.backward(self, gradient, retain_graph, create_graph, inputs)


def requires_grad_(self, requires_grad=True):
    self.requires_grad = requires_grad
    return self


def eval(self):
    """Waits for the tensor's device to finish pending work (DESIGN.md §1); returns self."""
    if self.device.type == "cuda":
        _C._synchronize(self.device)
    return self


_METHODS = dict(
    to=to, type_as=type_as, cpu=cpu, cuda=cuda, type=type, share_memory_=share_memory_, is_shared=is_shared,
    __repr__=__repr__, __str__=__repr__, __bool__=__bool__, __float__=__float__, __int__=__int__,
    __complex__=__complex__, __index__=__index__, __array__=__array__, __iter__=__iter__, __hash__=__hash__,
    __reduce_ex__=__reduce_ex__, sum=sum, new_empty=new_empty, new_zeros=new_zeros, new_ones=new_ones,
    new_full=new_full, new_tensor=new_tensor, requires_grad_=requires_grad_, eval=eval, backward=backward,
    float=_cast(_C.float32), double=_cast(_C.float64), half=_cast(_C.float16), bfloat16=_cast(_C.bfloat16),
    int=_cast(_C.int32), long=_cast(_C.int64), short=_cast(_C.int16), char=_cast(_C.int8), byte=_cast(_C.uint8),
    bool=_cast(_C.bool), cfloat=_cast(_C.complex64), cdouble=_cast(_C.complex128),
)
for _name, _fn in _METHODS.items():
    setattr(Tensor, _name, _fn)


def _tensor_new(*args, **kwargs):
    """lucid.Tensor(data) builds like lucid.tensor(data); lucid.Tensor(2, 3) an uninitialised float
    tensor. Called by the constructor bound in bindings/tensor.cpp."""
    if len(args) == 1 and not isinstance(args[0], builtins.int):
        return _creation.tensor(args[0], **kwargs)
    if not args:
        return _creation.empty(0, **kwargs)  # torch.Tensor() is an empty 1-d tensor
    return _creation.empty(*args, **kwargs)


# ---- small PyTorch methods: the device index, Python callables applied per element, nn ops

def get_device(self):
    """The CUDA device index, or -1 for a CPU tensor."""
    return -1 if self.device.type == "cpu" else (self.device.index or 0)


def _check_apply(self, name):
    if self.device.type != "cpu":
        raise NotImplementedError(f"{name} only works with CPU tensors (got {self.device})")
    if self.requires_grad:
        raise RuntimeError(f"Can't call {name}() on Variable that requires grad. Use var.detach().{name}() instead.")


def apply_(self, callable):  # noqa: A002
    """self[i] = callable(self[i]) for every element, in place (CPU tensors; slow: a Python call each)."""
    _check_apply(self, "apply_")
    vals = [callable(v) for v in self.flatten().tolist()]
    return self.copy_(_creation.tensor(vals, dtype=self.dtype).reshape(list(self.shape)))


def map_(self, tensor, callable):  # noqa: A002
    """self[i] = callable(self[i], tensor[i]) (tensor broadcast to self), in place (CPU tensors)."""
    _check_apply(self, "map_")
    other = tensor.expand(list(self.shape)).flatten().tolist()
    vals = [callable(a, b) for a, b in zip(self.flatten().tolist(), other)]
    return self.copy_(_creation.tensor(vals, dtype=self.dtype).reshape(list(self.shape)))


def _hardshrink(self, lambd=0.5):
    from lucid.nn import functional as F
    return F.hardshrink(self, lambd)


def _prelu(self, weight):
    from lucid.nn import functional as F
    return F.prelu(self, weight)


for _name, _fn in dict(get_device=get_device, apply_=apply_, map_=map_, hardshrink=_hardshrink, prelu=_prelu).items():
    setattr(Tensor, _name, _fn)
