"""The binary family beyond add/sub/mul/div (comparisons, where, pow, maximum, bitwise, ...): module functions and Tensor methods."""
from lucid import _C  # noqa: F401

__all__ = []
