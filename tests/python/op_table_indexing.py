"""Op-table entries: indexing (advanced __getitem__/__setitem__, gather/scatter, index_*, masked_*, take, put, nonzero, one_hot). See op_table.py for the fields of an entry."""
from op_table import OpInfo, Sample  # noqa: F401

OPS = []
