"""lucid.nn.functional, resampling: interpolate/upsample, grid_sample, affine_grid, pixel_shuffle, channel_shuffle.

interpolate's nearest / linear / cubic modes run as one engine op (lucid._C.interpolate, a separable tap
kernel with PyTorch's source-index rules and an exact adjoint as its vjp); "area" is adaptive average
pooling. This module spells PyTorch's argument rules (size vs scale_factor, recompute_scale_factor,
align_corners) and errors."""
import math
import numbers
import warnings

import lucid
from lucid import _C

__all__ = ["interpolate", "upsample", "upsample_nearest", "upsample_bilinear"]

_MODES = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"
_LINEAR = {"linear": 1, "bilinear": 2, "trilinear": 3}


def _is_integer(v):
    if isinstance(v, lucid.Tensor):
        return v.ndim == 0 and not v.dtype.is_floating_point and not v.dtype.is_complex
    return isinstance(v, numbers.Integral)


def _int_trunc(v):
    return int(v)  # PyTorch's sym_int / static_cast: truncation toward zero


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resamples (N, C, *spatial) with 1-3 spatial dims to `size` or by `scale_factor` (PyTorch's rules)."""
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: "
                             "linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    dim = input.dim() - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    elif size is not None:
        scale_factors = None
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got input with spatial "
                    f"dimensions of {list(input.shape[2:])} and output size of {size}. Please provide input tensor "
                    "in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format.")
            if not all(_is_integer(v) for v in size):
                raise TypeError("expected size to be one of int or Tuple[int] or Tuple[int, int] or "
                                f"Tuple[int, int, int], but got size with types {[type(v) for v in size]}")
            output_size = [int(v) for v in size]
        else:
            output_size = [int(size)] * max(dim, 0)
    elif scale_factor is not None:
        output_size = None
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError(
                    "Input and scale_factor must have the same number of spatial dimensions, but got input with "
                    f"spatial dimensions of {list(input.shape[2:])} and scale_factor of shape {scale_factor}. Please "
                    "provide input tensor in (N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) "
                    "format.")
            scale_factors = [float(s) for s in scale_factor]
        else:
            scale_factors = [float(scale_factor)] * max(dim, 0)
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and output_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor:
        output_size = [_int_trunc(input.shape[i + 2] * scale_factors[i]) for i in range(dim)]
        scale_factors = None
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.ndim == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a "
                         "4-D tensor as input")
    if input.dim() == 4 and mode == "lanczos":
        if align_corners:
            raise ValueError("Lanczos mode does not support align_corners=True")
        if not antialias:
            raise ValueError("Lanczos mode requires antialias=True")
    if antialias:
        raise NotImplementedError(f"[interpolate] antialias=True (mode {mode!r}) is not implemented in lucid")
    if output_size is None:  # the engine op wants the sizes; the scales set the source-index step
        output_size = [_int_trunc(input.shape[i + 2] * scale_factors[i]) for i in range(dim)]
    if 3 <= input.dim() <= 5:
        if mode in ("nearest", "nearest-exact"):
            # PyTorch 2.x's 2-d nearest kernels take their step from the sizes alone (in / out)
            return _C.interpolate(input, dim, output_size, None if dim == 2 else scale_factors, mode, False)
        if mode == "area":
            pool = (lucid.nn.functional.adaptive_avg_pool1d, lucid.nn.functional.adaptive_avg_pool2d,
                    lucid.nn.functional.adaptive_avg_pool3d)[dim - 1]
            return pool(input, output_size)
        if _LINEAR.get(mode) == dim:
            return _C.interpolate(input, dim, output_size, scale_factors, "linear", bool(align_corners))
        if mode == "bicubic" and dim == 2:
            return _C.interpolate(input, dim, output_size, scale_factors, "cubic", bool(align_corners))
        need = {"linear": 3, "bilinear": 4, "trilinear": 5}
        if mode in need:
            raise NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs {need[mode]}D input")
    raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) for "
                              f"the modes: {_MODES} (got {mode})")


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """Deprecated alias of interpolate (warns as PyTorch)."""
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """Deprecated: interpolate(mode='nearest')."""
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """Deprecated: interpolate(mode='bilinear', align_corners=True)."""
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)
