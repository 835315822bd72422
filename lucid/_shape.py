"""Shape and movement ops (cat, stack, split, flip, roll, pad, tril/triu, ...): module functions and Tensor methods.
Most are bound directly from C++ (bindings/shape.cpp); here only the varargs and alias spellings."""
from lucid import _C
from lucid._device import resolve
from lucid._dtypes import to_dtype, int64

Tensor = _C.Tensor

cat, concat, concatenate, stack = _C.cat, _C.concat, _C.concatenate, _C.stack
hstack, vstack, row_stack, dstack, column_stack = _C.hstack, _C.vstack, _C.row_stack, _C.dstack, _C.column_stack
split, chunk, tensor_split, unbind = _C.split, _C.chunk, _C.tensor_split, _C.unbind
hsplit, vsplit, dsplit = _C.hsplit, _C.vsplit, _C.dsplit
unflatten, ravel, movedim, moveaxis, swapaxes, swapdims = (_C.unflatten, _C.ravel, _C.movedim, _C.moveaxis,
                                                           _C.swapaxes, _C.swapdims)
flip, fliplr, flipud, roll, rot90 = _C.flip, _C.fliplr, _C.flipud, _C.roll, _C.rot90
tile, repeat_interleave, pad = _C.tile, _C.repeat_interleave, _C.pad
tril, triu, diag, diag_embed, diagflat = _C.tril, _C.triu, _C.diag, _C.diag_embed, _C.diagflat
combinations = _C.combinations


def _tensors(args, name):
    """f(a, b, c) and f([a, b, c]) both mean the list of tensors."""
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = tuple(args[0])
    for i, a in enumerate(args):
        if not isinstance(a, Tensor):
            raise TypeError(f"{name}(): expected Tensors, got {type(a).__name__} at position {i}")
    return list(args)


def tril_indices(row, col, offset=0, *, dtype=int64, device=None, layout=None):
    return _C._tril_indices(row, col, offset, to_dtype(dtype), resolve(device))


def triu_indices(row, col, offset=0, *, dtype=int64, device=None, layout=None):
    return _C._triu_indices(row, col, offset, to_dtype(dtype), resolve(device))


def block_diag(*tensors):
    return _C._block_diag(_tensors(tensors, "block_diag"))


def meshgrid(*tensors, indexing=None):
    return _C._meshgrid(_tensors(tensors, "meshgrid"), "ij" if indexing is None else indexing)


def broadcast_tensors(*tensors):
    return _C._broadcast_tensors(_tensors(tensors, "broadcast_tensors"))


def broadcast_shapes(*shapes):
    out = []
    for s in shapes:
        if isinstance(s, int) or hasattr(s, "__index__") and not isinstance(s, (list, tuple)):
            out.append([int(s)])
        else:
            out.append([int(v) for v in s])
    return _C.Size(_C._broadcast_shapes(out)) if hasattr(_C, "Size") else tuple(_C._broadcast_shapes(out))


def _atleast(fn, name):
    def f(*tensors):
        if len(tensors) == 1 and isinstance(tensors[0], Tensor):
            return fn(tensors[0])
        return tuple(fn(t) for t in _tensors(tensors, name))
    f.__name__ = name
    return f


atleast_1d = _atleast(_C._atleast_1d, "atleast_1d")
atleast_2d = _atleast(_C._atleast_2d, "atleast_2d")
atleast_3d = _atleast(_C._atleast_3d, "atleast_3d")


def cartesian_prod(*tensors):
    return _C._cartesian_prod(_tensors(tensors, "cartesian_prod"))


__all__ = ["cat", "concat", "concatenate", "stack", "hstack", "vstack", "row_stack", "dstack", "column_stack",
           "split", "chunk", "tensor_split", "unbind", "hsplit", "vsplit", "dsplit", "unflatten", "ravel", "movedim", "moveaxis", "swapaxes",
           "swapdims", "flip", "fliplr", "flipud", "roll", "rot90", "tile", "repeat_interleave", "pad", "tril",
           "triu", "tril_indices", "triu_indices", "diag", "diag_embed", "diagflat", "block_diag", "meshgrid",
           "broadcast_tensors", "broadcast_shapes", "atleast_1d", "atleast_2d", "atleast_3d", "cartesian_prod", "combinations"]

# out= on the module functions (PyTorch's semantics, lucid/_out.py)
from lucid import _out  # noqa: E402
_out.install(globals(), ("cat", "concat", "concatenate", "stack", "hstack", "vstack", "row_stack", "dstack",
                         "column_stack"), overlap="any")
_out.install(globals(), ("tril", "triu", "diag"))
