"""Products beyond matmul (mm, bmm, mv, dot, outer, tensordot, einsum, kron, cross, addmm, cdist, ...): module functions and Tensor methods."""
from lucid import _C  # noqa: F401

__all__ = []
