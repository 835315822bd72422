"""Shape and movement ops (cat, stack, split, flip, roll, pad, tril/triu, ...): module functions and Tensor methods."""
from lucid import _C  # noqa: F401

__all__ = []
