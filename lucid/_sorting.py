"""Sorting, searching and order statistics (sort, topk, unique, searchsorted, histc, median, mode, quantile, ...): module functions and Tensor methods."""
from lucid import _C  # noqa: F401

__all__ = []
