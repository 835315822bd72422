"""Op-table entries: sorting, searching and order statistics (sort, topk, unique, searchsorted, histc, median, mode, quantile, ...). See op_table.py for the fields of an entry."""
from op_table import OpInfo, Sample  # noqa: F401

OPS = []
