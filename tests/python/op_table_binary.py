"""Op-table entries: the binary family beyond add/sub/mul/div (comparisons, where, pow, maximum, bitwise, ...). See op_table.py for the fields of an entry."""
from op_table import OpInfo, Sample  # noqa: F401

OPS = []
