"""lucid's typed errors. Every engine check raises one of these (DESIGN.md §3).

LucidError is a RuntimeError; IndexError and NotImplementedError also derive from Python's own,
so ordinary ``except IndexError`` clauses work.
"""
import builtins

from lucid import _C


class LucidError(RuntimeError):
    """Base class of lucid's engine errors."""


class ShapeMismatch(LucidError):
    """Shapes that do not broadcast, an inner dimension that differs, a view that cannot exist."""


class DtypeMismatch(LucidError):
    """Operands whose dtypes cannot meet, or a result that cannot be cast to its destination."""


class DeviceMismatch(LucidError):
    """Operands on different devices."""


class VersionMismatch(LucidError):
    """A tensor saved for backward was modified in place."""


class OutOfMemory(LucidError, MemoryError):
    """An allocation failed on the host or device."""


class IndexError(LucidError, builtins.IndexError):  # noqa: A001
    """An index or dimension out of range."""


class NotImplementedError(LucidError, builtins.NotImplementedError):  # noqa: A001
    """An op or dtype/device combination lucid does not implement (yet)."""


# Order follows lucid::ErrorKind (engine/core/error.h).
_C._register_error_classes([LucidError, ShapeMismatch, DtypeMismatch, DeviceMismatch, VersionMismatch,
                            OutOfMemory, IndexError, NotImplementedError, builtins.ValueError,
                            builtins.TypeError])

__all__ = ["LucidError", "ShapeMismatch", "DtypeMismatch", "DeviceMismatch", "VersionMismatch",
           "OutOfMemory", "IndexError", "NotImplementedError"]
