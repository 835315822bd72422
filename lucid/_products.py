"""Products beyond matmul (mm, bmm, mv, dot, outer, tensordot, einsum, kron, cross, addmm, cdist, ...): module functions and Tensor methods.

The engine does the work (engine/ops/products.cpp, einsum.cpp, products_dist.cpp); Tensor methods are
bound in C++ (bindings/products.cpp). Python only spells arguments (einsum's forms, chain_matmul's *args)."""
from lucid import _C
from lucid import _out

__all__ = ["mm", "bmm", "mv", "dot", "vdot", "inner", "outer", "ger", "kron", "tensordot", "einsum", "cross",
           "addmm", "addmv", "addr", "addbmm", "baddbmm", "chain_matmul", "cdist"]

mm, bmm, mv, dot, vdot, inner, outer, ger, kron, tensordot, cross = (
    _C.mm, _C.bmm, _C.mv, _C.dot, _C.vdot, _C.inner, _C.outer, _C.ger, _C.kron, _C.tensordot, _C.cross)
addmm, addmv, addr, addbmm, baddbmm, cdist = _C.addmm, _C.addmv, _C.addr, _C.addbmm, _C.baddbmm, _C.cdist


def _subscript(n):
    if n is Ellipsis:
        return "..."
    if not isinstance(n, int) or isinstance(n, bool) or not 0 <= n < 52:
        raise ValueError(f"einsum(): subscript in the sublist format must be in [0, 52), got {n!r}")
    return chr(ord("A") + n) if n < 26 else chr(ord("a") + n - 26)


def einsum(*args):
    """einsum(equation, *operands), einsum(equation, [operands]) or the sublist form
    einsum(op1, sublist1, op2, sublist2, ..., [sublist_out])."""
    if not args:
        raise TypeError("einsum(): must specify the equation string and at least one operand")
    if isinstance(args[0], str):
        equation, operands = args[0], args[1:]
        if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
            operands = operands[0]
        return _C._einsum(equation, list(operands))
    operands, terms = list(args[0::2]), list(args[1::2])
    out = None
    if len(terms) < len(operands):          # an odd count: the last entry is the output sublist
        out = operands.pop()
    if len(terms) != len(operands):
        raise ValueError("einsum(): the sublist format takes operand, sublist pairs and an optional output sublist")
    equation = ",".join("".join(_subscript(s) for s in t) for t in terms)
    if out is not None:
        equation += "->" + "".join(_subscript(s) for s in out)
    return _C._einsum(equation, operands)


def chain_matmul(*matrices, out=None):
    if out is not None:
        _out.check_grad("chain_matmul", matrices, {}, out)
        return _out.write_out("chain_matmul", _C._chain_matmul(list(matrices)), out)
    return _C._chain_matmul(list(matrices))


def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    """torch.norm: the 2-norm ('fro') or a p-norm over dim (all dims by default); 'nuc' needs an SVD."""
    from lucid import linalg
    if out is not None:
        _out.check_grad("norm", (input,), {}, out)
        return _out.write_out("norm", norm(input, p, dim, keepdim, dtype=dtype), out)
    dims = [dim] if isinstance(dim, int) else (list(dim) if dim is not None else None)
    if isinstance(p, str):
        if p == "fro" and (dims is None or len(dims) <= 2):
            return linalg.vector_norm(input, 2, dims, keepdim, dtype=dtype)
        return linalg.matrix_norm(input, p, dims if dims is not None else (-2, -1), keepdim, dtype=dtype)
    return linalg.vector_norm(input, 2 if p is None else p, dims, keepdim, dtype=dtype)


__all__.append("norm")
_C.Tensor.norm = norm

# out= on the module functions (PyTorch's semantics, lucid/_out.py); Tensor methods stay out-less
_out.install(globals(), ("mm", "bmm", "mv", "dot", "vdot", "inner", "outer", "ger", "kron", "tensordot", "cross",
                         "addmm", "addmv", "addr", "addbmm", "baddbmm"))

# the audit's additions (lucid/_more_ops.py), exported with this family
from lucid._more_ops import *  # noqa: F401,F403,E402
from lucid._more_ops import __all__ as _more_all  # noqa: E402
__all__ += _more_all
