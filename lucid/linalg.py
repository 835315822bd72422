"""lucid.linalg: linear-algebra functions with PyTorch's torch.linalg names (products for now:
matmul, multi_dot, cross, vecdot; norms composed from lucid ops)."""
from lucid import _C

__all__ = ["matmul", "multi_dot", "cross", "vecdot"]

matmul = _C.matmul


def multi_dot(tensors, *, out=None):
    """The product of two or more matrices (the first may be a row, the last a column vector), in the
    order of fewest multiplications."""
    if out is not None:
        raise NotImplementedError("multi_dot(out=) is not supported")
    return _C._multi_dot(list(tensors))


def cross(input, other, *, dim=-1, out=None):
    if out is not None:
        raise NotImplementedError("linalg.cross(out=) is not supported")
    return _C._linalg_cross(input, other, dim=dim)


def vecdot(x, y, *, dim=-1, out=None):
    """sum(conj(x) * y, dim) with broadcasting."""
    if out is not None:
        raise NotImplementedError("linalg.vecdot(out=) is not supported")
    return _C._vecdot(x, y, dim=dim)
