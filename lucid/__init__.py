"""lucid: a deep learning framework with a C++ engine and a PyTorch-style API."""
from lucid import _env  # noqa: F401  (must run before the engine loads OpenBLAS)
from lucid import _C

__all__ = []
