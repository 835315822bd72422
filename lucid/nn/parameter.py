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


def is_lazy(param):
    return False
