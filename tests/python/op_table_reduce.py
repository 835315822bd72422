"""Op-table entries: reductions beyond sum (mean, prod, max/min, var/std, logsumexp, cum*, any/all, ...). See op_table.py for the fields of an entry."""
from op_table import OpInfo, Sample  # noqa: F401

OPS = []
