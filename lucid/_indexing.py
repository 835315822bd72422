"""Indexing (advanced __getitem__/__setitem__, gather/scatter, index_*, masked_*, take, put, nonzero, one_hot): module functions and Tensor methods.

The functions and methods are bound in C++ (bindings/indexing.cpp); this module re-exports them."""
from lucid import _C

__all__ = ["gather", "scatter", "scatter_add", "scatter_reduce", "index_select", "index_add", "index_copy",
           "index_fill", "index_put", "index_put_", "masked_fill", "masked_select", "masked_scatter", "take",
           "take_along_dim", "put", "nonzero", "argwhere", "one_hot"]

for _name in __all__:
    globals()[_name] = getattr(_C, _name)
del _name


def nonzero_static(input, *, size, fill_value=-1):
    """nonzero(input) as a (size, input.dim()) tensor: cut to its first `size` rows, or padded with
    rows of fill_value (PyTorch's nonzero_static: a shape known before the data)."""
    if isinstance(size, bool) or not isinstance(size, int) or size < 0:
        raise ValueError(f"nonzero_static: 'size' must be an non-negative integer (got {size!r})")
    nz = _C.nonzero(input)
    n = nz.shape[0]
    if n >= size:
        return nz[:size]
    pad = _C.full([size - n, nz.shape[1]], fill_value, _C.int64, input.device)
    return _C.cat([nz, pad], 0)


_C.Tensor.nonzero_static = lambda self, *, size, fill_value=-1: nonzero_static(self, size=size, fill_value=fill_value)
__all__.append("nonzero_static")

# out= on the module functions (PyTorch's semantics, lucid/_out.py)
from lucid import _out  # noqa: E402
_out.install(globals(), ("gather", "scatter", "scatter_add", "scatter_reduce", "index_select", "index_add",
                         "index_copy", "masked_select", "take", "take_along_dim", "nonzero", "nonzero_static"))
