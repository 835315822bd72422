"""Reductions beyond sum (mean, prod, max/min, var/std, logsumexp, cum*, any/all, ...): module functions and Tensor methods."""
from lucid import _C  # noqa: F401

__all__ = []
