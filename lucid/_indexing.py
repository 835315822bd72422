"""Indexing (advanced __getitem__/__setitem__, gather/scatter, index_*, masked_*, take, put, nonzero, one_hot): module functions and Tensor methods."""
from lucid import _C  # noqa: F401

__all__ = []
