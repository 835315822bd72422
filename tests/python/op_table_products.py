"""Op-table entries: products beyond matmul (mm, bmm, mv, dot, outer, tensordot, einsum, kron, cross, addmm, cdist, ...). See op_table.py for the fields of an entry."""
from op_table import OpInfo, Sample  # noqa: F401

OPS = []
