"""nn.Parameter: a Tensor subclass that Modules register as a parameter.

A Parameter wraps an alias of its data (same storage, new TensorImpl: `data.detach()`), so
`Parameter(t)` shares memory with `t` as in PyTorch, and behaves as a Tensor for every op (ops return
plain Tensors; in-place ops return the Parameter itself). Built by `_C._make_subclass` (bindings/nn.cpp),
which makes the subclass instance the only Python object of its TensorImpl.
"""
from lucid import _C

Tensor = _C.Tensor


class Parameter(Tensor):
    """A tensor that is a module parameter: requires_grad=True by default; assigning one as a
    Module attribute registers it."""

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = _C.empty([0], _C.get_default_dtype(), _C.device("cpu"))
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter expects a Tensor as data, got {type(data).__name__}")
        return _C._make_subclass(cls, data, bool(requires_grad))

    def __init__(self, data=None, requires_grad=True):
        pass

    def __repr__(self):
        return "Parameter containing:\n" + Tensor.__repr__(self)

    __str__ = __repr__

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.detach().clone(), self.requires_grad)
        if self.grad is not None:
            result.grad = self.grad.clone()
        memo[id(self)] = result
        return result

    def __reduce_ex__(self, protocol):
        return (_rebuild_parameter, (self.detach(), self.requires_grad))


def _rebuild_parameter(data, requires_grad):
    return Parameter(data, requires_grad)


class Buffer(Tensor):
    """nn.Buffer(t, persistent=True): assigning one as a Module attribute registers it as a buffer."""

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = _C.empty([0], _C.get_default_dtype(), _C.device("cpu"))
        obj = _C._make_subclass(cls, data, False)
        obj.persistent = persistent
        return obj

    def __init__(self, data=None, *, persistent=True):
        pass


class UninitializedTensorMixin:
    """A placeholder of unknown shape for lazy modules. `materialize(shape)` builds the real tensor and
    puts it in place of the placeholder in every Module that registered it (a TensorImpl can't change
    shape in place, so the placeholder object itself stays empty)."""

    cls_to_become = None

    def _owners_list(self):
        owners = self.__dict__.get("_owners")
        if owners is None:
            owners = []
            self._owners = owners
        return owners

    def materialize(self, shape, device=None, dtype=None):
        from lucid._creation import empty
        if isinstance(shape, int):
            shape = (shape,)
        device = device if device is not None else self.__dict__.get("_factory_device")
        dtype = dtype if dtype is not None else self.__dict__.get("_factory_dtype")
        data = empty(tuple(shape), device=device, dtype=dtype)
        if self.cls_to_become is Parameter:
            new = Parameter(data, self.requires_grad)
        else:
            new = data
            if self.requires_grad:
                new.requires_grad = True
        for ref, name, kind in self._owners_list():
            module = ref()
            if module is None:
                continue
            table = module._parameters if kind == "param" else module._buffers
            if table.get(name) is self:
                table[name] = new
        return new

    def __repr__(self):
        return f"<{type(self).__name__}>"

    __str__ = __repr__

    def __reduce_ex__(self, protocol):
        return (type(self), (self.requires_grad,))


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A Parameter whose shape is decided by the first forward of its lazy module."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        from lucid._creation import empty
        obj = Parameter.__new__(cls, empty(0, device=device, dtype=dtype), requires_grad)
        obj._factory_device, obj._factory_dtype = device, dtype
        return obj

    def __init__(self, requires_grad=True, device=None, dtype=None):
        pass

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.requires_grad, self._factory_device, self._factory_dtype)
        memo[id(self)] = result
        return result


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer whose shape is decided by the first forward of its lazy module."""

    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None, persistent=True):
        from lucid._creation import empty
        obj = _C._make_subclass(cls, empty(0, device=device, dtype=dtype), bool(requires_grad))
        obj._factory_device, obj._factory_dtype = device, dtype
        obj.persistent = persistent
        return obj

    def __init__(self, requires_grad=False, device=None, dtype=None, persistent=True):
        pass


def is_lazy(param):
    """True for the placeholders of lazy modules (UninitializedParameter / UninitializedBuffer)."""
    return isinstance(param, UninitializedTensorMixin)
