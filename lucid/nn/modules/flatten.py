"""Flatten and Unflatten (views where the layout allows, as reshape)."""
from lucid.nn.modules.module import Module

__all__ = ["Flatten", "Unflatten"]


class Flatten(Module):
    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Expands dimension `dim` into `unflattened_size` (a tuple of ints, one of them may be -1)."""

    def __init__(self, dim, unflattened_size):
        super().__init__()
        if isinstance(dim, int):
            if not isinstance(unflattened_size, (tuple, list)) or \
                    not all(isinstance(s, int) for s in unflattened_size):
                raise TypeError("unflattened_size must be tuple of ints, but found type "
                                f"{type(unflattened_size).__name__}")
        elif isinstance(dim, str):
            raise NotImplementedError("Unflatten with named dimensions is not supported")
        else:
            raise TypeError("invalid argument type for dim parameter")
        self.dim = dim
        self.unflattened_size = tuple(unflattened_size)

    def forward(self, input):
        shape = list(input.shape)
        d = self.dim if self.dim >= 0 else self.dim + len(shape)
        if not 0 <= d < len(shape):
            raise IndexError(f"Dimension out of range (expected to be in range of [{-len(shape)}, "
                             f"{len(shape) - 1}], but got {self.dim})")
        sizes = list(self.unflattened_size)
        if sizes.count(-1) > 1:
            raise RuntimeError("only one dimension can be inferred")
        known = 1
        for s in sizes:
            if s != -1:
                known *= s
        if -1 in sizes:
            if known == 0 or shape[d] % known:
                raise RuntimeError(f"unflatten: Provided sizes {self.unflattened_size} don't multiply up to the "
                                   f"size of dim {self.dim} ({shape[d]}) in the input tensor")
            sizes[sizes.index(-1)] = shape[d] // known
        elif known != shape[d]:
            raise RuntimeError(f"unflatten: Provided sizes {self.unflattened_size} don't multiply up to the size "
                               f"of dim {self.dim} ({shape[d]}) in the input tensor")
        return input.reshape(shape[:d] + sizes + shape[d + 1:])

    def extra_repr(self):
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
