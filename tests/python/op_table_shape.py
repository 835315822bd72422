"""Op-table entries: shape and movement ops (cat, stack, split, flip, roll, pad, tril/triu, ...). See op_table.py for the fields of an entry."""
from op_table import OpInfo, Sample  # noqa: F401

OPS = []
