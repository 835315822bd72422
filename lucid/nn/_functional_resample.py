"""lucid.nn.functional, resampling: interpolate/upsample, grid_sample, affine_grid, pixel_shuffle, channel_shuffle.

interpolate's nearest / linear / cubic modes run as one engine op (lucid._C.interpolate, a separable tap
kernel with PyTorch's source-index rules and an exact adjoint as its vjp); "area" is adaptive average
pooling. This module spells PyTorch's argument rules (size vs scale_factor, recompute_scale_factor,
align_corners) and errors."""
import math
import numbers
import warnings

import numpy as np

import lucid
from lucid import _C

__all__ = ["interpolate", "upsample", "upsample_nearest", "upsample_bilinear", "pixel_shuffle", "pixel_unshuffle",
           "channel_shuffle", "native_channel_shuffle", "grid_sample", "affine_grid", "rotate"]

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
    if antialias:  # 4-d bilinear / bicubic / lanczos (checked above)
        aa = {"bilinear": "linear-aa", "bicubic": "cubic-aa", "lanczos": "lanczos-aa"}[mode]
        if output_size is None:
            output_size = [_int_trunc(input.shape[i + 2] * scale_factors[i]) for i in range(dim)]
        return _C.interpolate(input, dim, output_size, scale_factors, aa, bool(align_corners))
    if output_size is None:  # the engine op wants the sizes; the scales set the source-index step
        output_size = [_int_trunc(input.shape[i + 2] * scale_factors[i]) for i in range(dim)]
    if 3 <= input.dim() <= 5:
        if mode in ("nearest", "nearest-exact"):
            # PyTorch's 2-d nearest kernel keeps nearest_idx's shortcuts (out == in, out == 2 * in); 1-d / 3-d don't
            op_mode = "nearest-idx" if mode == "nearest" and dim == 2 else mode
            return _C.interpolate(input, dim, output_size, scale_factors, op_mode, False)
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


# ---- pure data movement: views and one copy (PyTorch's outputs are contiguous too)

def _factor(op, name, v):
    if not isinstance(v, numbers.Integral) or isinstance(v, bool):
        raise TypeError(f"{op}(): argument '{name}' must be int, not {type(v).__name__}")
    if v <= 0:
        raise lucid.errors.LucidError(f"{op} expects a positive {name}, but got {v}")
    return int(v)


def pixel_shuffle(input, upscale_factor):
    """(*, C * r * r, H, W) -> (*, C, H * r, W * r)."""
    r = _factor("pixel_shuffle", "upscale_factor", upscale_factor)
    if input.dim() < 3:
        raise lucid.errors.ShapeMismatch("pixel_shuffle expects input to have at least 3 dimensions, but got input "
                                         f"with {input.dim()} dimension(s)")
    *lead, c, h, w = input.shape
    if c % (r * r):
        raise lucid.errors.ShapeMismatch("pixel_shuffle expects its input's 'channel' dimension to be divisible by the "
                                         f"square of upscale_factor, but input.size(-3)={c} is not divisible by {r * r}")
    k = len(lead)
    y = input.reshape(*lead, c // (r * r), r, r, h, w)
    y = y.permute(*range(k), k, k + 3, k + 1, k + 4, k + 2)
    return y.reshape(*lead, c // (r * r), h * r, w * r)


def pixel_unshuffle(input, downscale_factor):
    """(*, C, H * r, W * r) -> (*, C * r * r, H, W)."""
    r = _factor("pixel_unshuffle", "downscale_factor", downscale_factor)
    if input.dim() < 3:
        raise lucid.errors.ShapeMismatch("pixel_unshuffle expects input to have at least 3 dimensions, but got input "
                                         f"with {input.dim()} dimension(s)")
    *lead, c, h, w = input.shape
    if h % r:
        raise lucid.errors.ShapeMismatch("pixel_unshuffle expects height to be divisible by downscale_factor, but "
                                         f"input.size(-2)={h} is not divisible by {r}")
    if w % r:
        raise lucid.errors.ShapeMismatch("pixel_unshuffle expects width to be divisible by downscale_factor, but "
                                         f"input.size(-1)={w} is not divisible by {r}")
    k = len(lead)
    y = input.reshape(*lead, c, h // r, r, w // r, r)
    y = y.permute(*range(k), k, k + 2, k + 4, k + 1, k + 3)
    return y.reshape(*lead, c * r * r, h // r, w // r)


def channel_shuffle(input, groups):
    """(N, C, *) -> channels regrouped: (N, g, C / g, *) transposed to (N, C / g, g, *)."""
    if not isinstance(groups, numbers.Integral) or isinstance(groups, bool):
        raise TypeError(f"channel_shuffle(): argument 'groups' must be int, not {type(groups).__name__}")
    if input.dim() <= 2:
        raise lucid.errors.ShapeMismatch(f"channel_shuffle expects input with > 2 dims, but got input with sizes "
                                         f"{list(input.shape)}")
    if groups <= 0:
        raise lucid.errors.LucidError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    n, c, *rest = input.shape
    if c % groups:
        raise lucid.errors.ShapeMismatch(f"Number of channels must be divisible by groups. Got {c} channels and "
                                         f"{groups} groups.")
    y = input.reshape(n, groups, c // groups, *rest).transpose(1, 2)
    return y.reshape(n, c, *rest)


native_channel_shuffle = channel_shuffle


# ---- grid sampling

_ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
                  "Please specify align_corners=True if the old behavior is desired. See the documentation of "
                  "grid_sample for details.")


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """Samples input (N, C, H, W) / (N, C, D, H, W) at the normalized grid points (N, Ho, Wo, 2) / (N, Do, Ho, Wo, 3)."""
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but "
                         f"got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    return _C.grid_sample(input, grid, mode, padding_mode, bool(align_corners))


def _base_axis(steps, align_corners, dtype):
    if steps <= 1:
        return np.zeros(max(steps, 0), dtype=dtype)
    r = np.linspace(-1.0, 1.0, steps).astype(dtype)
    if not align_corners:
        r = (r * dtype(steps - 1)) / dtype(steps)
    return r


def affine_grid(theta, size, align_corners=None):
    """The sampling grid (N, H, W, 2) / (N, D, H, W, 3) of the affine maps theta (N, 2, 3) / (N, 3, 4), for grid_sample."""
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    if not theta.dtype.is_floating_point:
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = [int(v) for v in size]
    if len(size) == 4:
        if theta.dim() != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
            raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {size}. Got "
                             f"{tuple(theta.shape)}.")
        spatial = size[-2:]
    elif len(size) == 5:
        if theta.dim() != 3 or theta.shape[-2] != 3 or theta.shape[-1] != 4:
            raise ValueError(f"Expected a batch of 3D affine matrices of shape Nx3x4 for size {size}. Got "
                             f"{tuple(theta.shape)}.")
        spatial = size[-3:]
    else:
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {size}.")
    if align_corners and min(spatial) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
                      "align_corners=True. This is not an intended use case of affine_grid. See the documentation of "
                      "affine_grid for details.", stacklevel=2)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    if theta.shape[0] != size[0]:
        raise lucid.errors.ShapeMismatch(f"[affine_grid] expected theta of batch size {size[0]}, got "
                                         f"{tuple(theta.shape)}")
    dt = np.float64 if theta.dtype == lucid.float64 else np.float32
    axes = [_base_axis(n, align_corners, dt) for n in reversed(spatial)]  # x (W), y (H)[, z (D)]
    mesh = list(np.meshgrid(*axes[::-1], indexing="ij"))[::-1]  # each of shape spatial, x first
    base = np.stack(mesh + [np.ones(tuple(spatial), dtype=dt)], axis=-1).reshape(1, -1, len(spatial) + 1)
    base = lucid.tensor(base, dtype=theta.dtype, device=theta.device)
    grid = lucid.matmul(base, theta.transpose(1, 2))
    return grid.reshape(size[0], *spatial, len(spatial))


def rotate(input, angle, center=None):
    """Rotates images (N, C, H, W) or (C, H, W) by `angle` degrees counter-clockwise (as displayed, y down) about
    `center` = (x, y) in pixel coordinates (default the image centre ((W - 1) / 2, (H - 1) / 2)), sampling
    bilinearly with zeros outside the image (lucid's rotate; grid_sample under it, so gradients flow to the
    input and, when `angle` is a tensor, to the angle). `angle` may be a number, a 0-d tensor or one angle per
    image (N,)."""
    unbatched = input.dim() == 3
    if unbatched:
        input = input.unsqueeze(0)
    if input.dim() != 4:
        raise lucid.errors.ShapeMismatch(f"[rotate] expected a (N, C, H, W) or (C, H, W) input, got shape "
                                         f"{tuple(input.shape)}")
    if not input.dtype.is_floating_point:
        raise lucid.errors.DtypeMismatch(f"[rotate] expected a floating point input, got {input.dtype}")
    n, _, h, w = input.shape
    cx, cy = ((w - 1) / 2.0, (h - 1) / 2.0) if center is None else (float(center[0]), float(center[1]))
    if isinstance(angle, lucid.Tensor):
        a = angle.to(input.dtype) * (math.pi / 180.0)
        if a.dim() == 1:
            if a.shape[0] != n:
                raise lucid.errors.ShapeMismatch(f"[rotate] expected {n} angles, got shape {tuple(angle.shape)}")
            a = a.reshape(n, 1, 1)
        elif a.dim() != 0:
            raise lucid.errors.ShapeMismatch(f"[rotate] angle must be a number, a 0-d or a 1-d tensor, got shape "
                                             f"{tuple(angle.shape)}")
        cos, sin = lucid.cos(a), lucid.sin(a)
    else:
        r = float(angle) * math.pi / 180.0
        cos, sin = math.cos(r), math.sin(r)
    dt = np.float64 if input.dtype == lucid.float64 else np.float32
    dx = lucid.tensor((np.arange(w) - cx).astype(dt).reshape(1, w), dtype=input.dtype, device=input.device)
    dy = lucid.tensor((np.arange(h) - cy).astype(dt).reshape(h, 1), dtype=input.dtype, device=input.device)
    sx = cx + cos * dx - sin * dy  # the source of output pixel (x, y): the inverse rotation about the centre
    sy = cy + sin * dx + cos * dy
    gx = (sx * 2.0 + 1.0) / w - 1.0  # normalized for align_corners=False (no division by W - 1)
    gy = (sy * 2.0 + 1.0) / h - 1.0
    grid = lucid.stack([gx.expand(n, h, w), gy.expand(n, h, w)], dim=-1)
    out = _C.grid_sample(input, grid, "bilinear", "zeros", False)
    return out.squeeze(0) if unbatched else out
