"""`out=` for the op library: one wrapper gives a module function PyTorch's out semantics.

    lucid.add(a, b, out=o)      # the result is written into o, and o is returned

- the result dtype must be castable to out's dtype (lucid.can_cast, PyTorch's rule), else
  RuntimeError "result type Float can't be cast to the desired output type Long";
- out must be on the result's device;
- out is resized when its shape differs: silently when it has no elements, with PyTorch's
  UserWarning otherwise;
- under grad mode, no argument (out included) may require grad: PyTorch's "functions with out=...
  arguments don't support automatic differentiation" RuntimeError;
- the write bumps out's version counter (it is a copy_ into out, or a kernel writing into it);
- ops with several results (values/indices, ...) take a tuple of tensors and return the same named
  tuple type, holding the out tensors.

Elementwise ops may pass `direct`: a function (out, *args, **kwargs) that writes straight into a
fitting out (contiguous, right shape and dtype, sharing no memory with an input, no tensor requiring
grad under grad mode) and returns it, or returns None to fall back to the checks and
compute-then-copy. It runs before the checks: where it writes, they cannot fail.
"""
import warnings

from lucid import _C

Tensor = _C.Tensor

_TORCH_NAME = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16", "int64": "Long",
               "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool",
               "complex64": "ComplexFloat", "complex128": "ComplexDouble"}


def scalar_type_name(dtype):
    """PyTorch's ScalarType spelling of a dtype (Float, Long, ComplexDouble, ...)."""
    return _TORCH_NAME.get(dtype.name, dtype.name)


def _any_requires_grad(x):
    if isinstance(x, Tensor):
        return x.requires_grad
    if isinstance(x, (list, tuple)):
        return any(_any_requires_grad(v) for v in x)
    return False


def _shape_str(s):
    return "[" + ", ".join(str(int(v)) for v in s) + "]"


def _write_one(name, result, out):
    if not isinstance(out, Tensor):
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if out.device != result.device:
        raise RuntimeError(f"{name}(): Expected out tensor to have device {result.device}, but got {out.device} "
                           f"instead")
    if out.dtype is not result.dtype and not _C.can_cast(result.dtype, out.dtype):
        raise RuntimeError(f"result type {scalar_type_name(result.dtype)} can't be cast to the desired output type "
                           f"{scalar_type_name(out.dtype)}")
    if tuple(out.shape) != tuple(result.shape):
        resize_out(out, result.shape)
    out.copy_(result)


def resize_out(out, shape):
    """PyTorch's resize_output: a new contiguous buffer of `shape` (a UserWarning unless out was empty)."""
    if out.numel() != 0:
        warnings.warn(
            f"An output with one or more elements was resized since it had shape {_shape_str(out.shape)}, which "
            f"does not match the required output shape {_shape_str(shape)}. This behavior is deprecated, and in a "
            "future PyTorch release outputs will not be resized unless they have zero elements. You can explicitly "
            "reuse an out tensor t by resizing it, inplace, to zero elements with t.resize_(0).",
            UserWarning, stacklevel=5)
    out.data = _C.empty(list(shape), dtype=out.dtype, device=out.device)


def write_out(name, result, out):
    """Writes result (a tensor or a tuple of tensors) into out; returns out (as result's tuple type)."""
    if isinstance(result, tuple):
        if not isinstance(out, (tuple, list)) or len(out) != len(result):
            raise TypeError(f"{name}(): argument 'out' must be tuple of {len(result)} Tensors")
        for r, o in zip(result, out):
            _write_one(name, r, o)
        return type(result)(*out) if hasattr(result, "_fields") else tuple(out)
    if isinstance(result, list):
        raise TypeError(f"{name}(): out= is not supported for an op that returns a list of tensors")
    _write_one(name, result, out)
    return out


def check_grad(name, args, kwargs, out):
    if _C.is_grad_enabled() and (_any_requires_grad(args) or _any_requires_grad(tuple(kwargs.values()))
                                 or _any_requires_grad(out)):
        raise RuntimeError(f"{name}(): functions with out=... arguments don't support automatic differentiation, "
                           "but one of the arguments requires grad.")


def _dense_span(t):
    """(first, end) element range of a tensor with no gaps and no self-overlap, else None."""
    n = t.numel()
    if n == 0:
        return None
    extent = 1 + sum((int(sz) - 1) * abs(int(st)) for sz, st in zip(t.shape, t.stride()))
    if extent != n:
        return None
    low = t.storage_offset() + sum((int(sz) - 1) * int(st) for sz, st in zip(t.shape, t.stride()) if st < 0)
    return low, low + n


def _tensors_in(x):
    if isinstance(x, Tensor):
        yield x
    elif isinstance(x, (list, tuple)):
        for v in x:
            yield from _tensors_in(v)


def check_overlap(args, kwargs, out, same_ok=True):
    """PyTorch's partial-overlap error: an input sharing memory with out (both dense) in another layout
    (same_ok=False: in any layout -- ops that are not elementwise, as cat)."""
    for o in _tensors_in(out):
        so = _dense_span(o)
        if so is None:
            continue
        for t in _tensors_in((args, tuple(kwargs.values()))):
            if t._storage_ptr() != o._storage_ptr() or t.dtype is not o.dtype:
                continue
            if (same_ok and tuple(t.shape) == tuple(o.shape) and t.stride() == o.stride()
                    and t.storage_offset() == o.storage_offset()):
                continue   # the same tensor: an in-place write, fine
            st = _dense_span(t)
            if st is not None and st[0] < so[1] and so[0] < st[1]:
                raise RuntimeError("unsupported operation: some elements of the input tensor and the written-to "
                                   "tensor refer to a single memory location. Please clone() the tensor before "
                                   "performing the operation.")


def with_out(fn, name=None, direct=None, overlap=False):
    """fn with a keyword-only out= (PyTorch's semantics); out=None calls fn unchanged."""
    name = name or getattr(fn, "__name__", "op")

    def wrapper(*args, out=None, **kwargs):
        if out is None:
            return fn(*args, **kwargs)
        if direct is not None:   # writes only where the checks below cannot fail (see ops/out.h)
            r = direct(out, *args, **kwargs)
            if r is not None:
                return r
        check_grad(name, args, kwargs, out)
        if overlap:
            check_overlap(args, kwargs, out, overlap != "any")
        return write_out(name, fn(*args, **kwargs), out)

    wrapper.__name__ = name
    wrapper.__qualname__ = name
    wrapper.__doc__ = getattr(fn, "__doc__", None)
    wrapper.__wrapped__ = fn
    wrapper._lucid_out = True
    return wrapper


def unary_direct(cname):
    """A direct writer for a one-tensor elementwise op (the engine's unary op `cname`)."""
    def direct(out, *args, **kwargs):
        if kwargs or len(args) != 1 or not isinstance(args[0], Tensor) or not isinstance(out, Tensor):
            return None
        return out if _C._unary_out(cname, args[0], out) else None
    return direct


def binary_direct(cname):
    """A direct writer for a two-operand elementwise op (the engine's binary op `cname`; alpha kept)."""
    def direct(out, *args, **kwargs):
        if len(args) != 2 or not isinstance(out, Tensor) or (kwargs and (len(kwargs) != 1 or "alpha" not in kwargs)):
            return None
        try:
            done = _C._binary_out(cname, args[0], args[1], out, kwargs.get("alpha", 1))
        except TypeError:   # operands the engine call doesn't take (lists, arrays): the general path decides
            return None
        return out if done else None
    return direct


def install(namespace, names, direct=None, overlap=False):
    """Replaces each namespace[name] by its with_out wrapper (module functions only: Tensor methods keep
    their own, out-less spelling, as in PyTorch). direct: optional {name: direct writer}; overlap: refuse
    an out partially overlapping an input (PyTorch checks it for elementwise ops), "any": overlapping at
    all (cat)."""
    for n in names:
        fn = namespace[n]
        if getattr(fn, "_lucid_out", False):
            continue
        namespace[n] = with_out(fn, n, (direct or {}).get(n), overlap)
