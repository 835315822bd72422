"""lucid.nn.functional, 3-d and transposed convolutions (engine ops; conv1d/conv2d live in functional.py)."""
from lucid import _C

__all__ = ["conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d"]


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """3-D convolution (cross-correlation) over (N, C, D, H, W) or (C, D, H, W); padding may be 'same' or 'valid'."""
    return _C.conv3d(input, weight, bias, stride, padding, dilation, groups)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """The adjoint of conv1d in its input: (N, C_in, L) -> (N, C_out, L'); weight (C_in, C_out/groups, k)."""
    return _C.conv_transpose1d(input, weight, bias, stride, padding, output_padding, groups, dilation)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """The adjoint of conv2d in its input: (N, C_in, H, W) -> (N, C_out, H', W'); weight (C_in, C_out/groups, k...)."""
    return _C.conv_transpose2d(input, weight, bias, stride, padding, output_padding, groups, dilation)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """The adjoint of conv3d in its input: (N, C_in, D, H, W) -> (N, C_out, D', H', W')."""
    return _C.conv_transpose3d(input, weight, bias, stride, padding, output_padding, groups, dilation)
