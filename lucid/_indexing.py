"""Indexing (advanced __getitem__/__setitem__, gather/scatter, index_*, masked_*, take, put, nonzero, one_hot): module functions and Tensor methods.

The functions and methods are bound in C++ (bindings/indexing.cpp); this module re-exports them."""
from lucid import _C

__all__ = ["gather", "scatter", "scatter_add", "scatter_reduce", "index_select", "index_add", "index_copy",
           "index_fill", "index_put", "index_put_", "masked_fill", "masked_select", "masked_scatter", "take",
           "take_along_dim", "put", "nonzero", "argwhere", "one_hot"]

for _name in __all__:
    globals()[_name] = getattr(_C, _name)
del _name

# out= on the module functions (PyTorch's semantics, lucid/_out.py)
from lucid import _out  # noqa: E402
_out.install(globals(), ("gather", "scatter", "scatter_add", "scatter_reduce", "index_select", "index_add",
                         "index_copy", "masked_select", "take", "take_along_dim", "nonzero"))
