"""The rest of the unary family (neg, sgn, logit, erfinv, lgamma, digamma, round, sinc, is*, nan_to_num, clamp, logical_not, bitwise_not, real/imag/angle, complex unary): module functions and Tensor methods."""
from lucid import _C  # noqa: F401

__all__ = []
