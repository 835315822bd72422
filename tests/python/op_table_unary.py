"""Op-table entries: the rest of the unary family (neg, sgn, logit, erfinv, lgamma, digamma, round, sinc, is*, nan_to_num, clamp, logical_not, bitwise_not, real/imag/angle, complex unary). See op_table.py for the fields of an entry."""
from op_table import OpInfo, Sample  # noqa: F401

OPS = []
