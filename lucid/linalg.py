"""lucid.linalg: linear-algebra functions with PyTorch's torch.linalg names (products for now:
matmul, multi_dot, cross, vecdot; norms composed from lucid ops)."""
from lucid import _C
from lucid import _out

__all__ = ["matmul", "multi_dot", "cross", "vecdot"]

from lucid._ops import matmul  # noqa: E402  (the module function: takes out=)


def multi_dot(tensors):
    """The product of two or more matrices (the first may be a row, the last a column vector), in the
    order of fewest multiplications."""
    return _C._multi_dot(list(tensors))


def cross(input, other, *, dim=-1):
    return _C._linalg_cross(input, other, dim=dim)


def vecdot(x, y, *, dim=-1):
    """sum(conj(x) * y, dim) with broadcasting."""
    return _C._vecdot(x, y, dim=dim)


def _ord_name(ord):
    if isinstance(ord, str):
        return ord
    if ord == float("inf"):
        return "inf"
    if ord == float("-inf"):
        return "-inf"
    return str(int(ord)) if float(ord).is_integer() else str(ord)


def _dims(dim):
    if dim is None:
        return None
    return [dim] if isinstance(dim, int) else list(dim)


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    """The ord-norm of x over dim (all dims by default): ord 0 counts non-zeros, +-inf takes the
    extreme |x|, any other real p is sum(|x|^p)^(1/p)."""
    return _C._vector_norm(x, float(ord), _dims(dim), keepdim, dtype)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    """Frobenius ('fro'), max column sum (1), max row sum (inf) and their minima (-1, -inf) over the two
    dims. 'nuc' and +-2 need singular values (NotImplementedError until linalg.svd exists)."""
    return _C._matrix_norm(A, _ord_name(ord), list(dim), keepdim, dtype)


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    """linalg.norm: a vector norm over one dim (or the flattened input), a matrix norm over two."""
    dims = _dims(dim)
    if ord is None:
        if dims is not None and len(dims) == 2:
            return matrix_norm(A, "fro", dims, keepdim, dtype=dtype)
        return vector_norm(A, 2, dims, keepdim, dtype=dtype)
    if isinstance(ord, str) or (dims is not None and len(dims) == 2) or (dims is None and A.dim() == 2):
        return matrix_norm(A, ord, dims if dims is not None else (-2, -1), keepdim, dtype=dtype)
    if dims is None and A.dim() != 1:
        raise RuntimeError(f"linalg.norm: if dim is not given but ord is, the input must be 1-D or 2-D, got {A.dim()}-D")
    return vector_norm(A, ord, dims, keepdim, dtype=dtype)


__all__ += ["vector_norm", "matrix_norm", "norm"]

# out= (PyTorch's semantics, lucid/_out.py); norm and the others call the unwrapped functions above
_plain = {n: globals()[n] for n in ("multi_dot", "cross", "vecdot", "vector_norm", "matrix_norm", "norm")}
for _n, _f in _plain.items():
    globals()[_n] = _out.with_out(_f, "linalg_" + _n)
del _n, _f


def matrix_power(A, n):
    """A @ A @ ... (n times); n = 0 gives the identity (negative n needs an inverse: not in lucid yet)."""
    import lucid
    return lucid.matrix_power(A, n)


def vander(x, *, N=None):
    """Powers x**0, ..., x**(N-1) along a new last dim (batched over x's leading dims)."""
    import lucid
    n = x.shape[-1] if N is None else N
    if n <= 1 and N is not None and n < 1:
        raise RuntimeError("N must be greater than 1.")
    dt = x.dtype if (x.dtype.is_floating_point or x.dtype.is_complex) else lucid.int64
    cols = [lucid.ones_like(x, dtype=dt)]
    for _ in range(1, n):
        cols.append(cols[-1] * x.to(dt))
    return lucid.stack(cols, -1)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """A's diagonals over dim1 and dim2 (a view; the matrix dims last by default)."""
    return A.diagonal(offset, dim1, dim2)


__all__ += ["matrix_power", "vander", "diagonal"]
matrix_power = _out.with_out(matrix_power, "linalg_matrix_power")
