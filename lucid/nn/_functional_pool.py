"""Pooling and embeddings of lucid.nn.functional (star-imported there): average / max / adaptive / LP
pooling over 1-3 spatial dims, max unpooling, embedding and embedding_bag. The pooling windows run as
engine ops (lucid._C.avg_pool, max_pool_with_indices, adaptive_*_pool, max_unpool, embedding) with their
own vjps; this module spells PyTorch's arguments."""
import numpy as np

import lucid
from lucid import _C

__all__ = ["avg_pool1d", "avg_pool2d", "avg_pool3d", "max_pool3d", "max_pool3d_with_indices",
           "max_unpool1d", "max_unpool2d", "max_unpool3d",
           "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d",
           "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d",
           "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices",
           "adaptive_max_pool3d_with_indices", "lp_pool1d", "lp_pool2d", "lp_pool3d",
           "fractional_max_pool2d", "fractional_max_pool3d", "fractional_max_pool2d_with_indices",
           "fractional_max_pool3d_with_indices", "embedding", "embedding_bag"]


def _stride(stride):
    return None if stride is None or (isinstance(stride, (tuple, list)) and len(stride) == 0) else stride


def _ntuple(v, n, op, name):
    if isinstance(v, (tuple, list)):
        v = tuple(int(e) for e in v)
        if len(v) == 1:
            return v * n
        if len(v) != n:
            raise ValueError(f"[{op}] {name} must be an int or a {n}-tuple of ints, got {v!r}")
        return v
    return (int(v),) * n


# ---- average pooling

def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    """1-D average pooling over (N, C, L) or (C, L)."""
    return _C.avg_pool(input, 1, kernel_size, _stride(stride), padding, ceil_mode, count_include_pad, None)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """2-D average pooling over (N, C, H, W) or (C, H, W)."""
    return _C.avg_pool(input, 2, kernel_size, _stride(stride), padding, ceil_mode, count_include_pad,
                       divisor_override)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """3-D average pooling over (N, C, D, H, W) or (C, D, H, W)."""
    return _C.avg_pool(input, 3, kernel_size, _stride(stride), padding, ceil_mode, count_include_pad,
                       divisor_override)


# ---- max pooling (1-d / 2-d live in lucid.nn.functional)

def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    """(output, indices) whatever return_indices says, as torch's."""
    return _C.max_pool_with_indices(input, 3, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """3-D max pooling over (N, C, D, H, W) or (C, D, H, W); indices are flat within each D x H x W volume."""
    out, idx = max_pool3d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return (out, idx) if return_indices else out


def _unpool_output_size(input, nd, kernel_size, stride, padding, output_size, op):
    k = _ntuple(kernel_size, nd, op, "kernel_size")
    s = k if _stride(stride) is None else _ntuple(stride, nd, op, "stride")
    p = _ntuple(padding, nd, op, "padding")
    spatial = tuple(input.shape)[-nd:]
    default = [(spatial[i] - 1) * s[i] + k[i] - 2 * p[i] for i in range(nd)]
    if output_size is None:
        return default
    output_size = list(output_size) if isinstance(output_size, (tuple, list)) else [output_size]
    if len(output_size) == nd + 2 or (len(output_size) == nd + 1 and input.dim() == nd + 1):
        output_size = output_size[-nd:]
    if len(output_size) != nd:
        raise ValueError(f"[{op}] output_size should be a sequence containing {nd} or {nd + 2} elements, "
                         f"but it has a length of '{len(output_size)}'")
    for i in range(nd):
        lo, hi = default[i] - s[i], default[i] + s[i]
        if not lo < int(output_size[i]) < hi:
            raise ValueError(f"[{op}] invalid output_size {tuple(output_size)} (dim {i} must be between {lo} and {hi})")
    return [int(v) for v in output_size]


def _max_unpool(input, indices, nd, kernel_size, stride, padding, output_size, op):
    size = _unpool_output_size(input, nd, kernel_size, stride, padding, output_size, op)
    return _C.max_unpool(input, indices, nd, size)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of max_pool1d: values scattered at their indices, zeros elsewhere."""
    return _max_unpool(input, indices, 1, kernel_size, stride, padding, output_size, "max_unpool1d")


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of max_pool2d: values scattered at their indices, zeros elsewhere."""
    return _max_unpool(input, indices, 2, kernel_size, stride, padding, output_size, "max_unpool2d")


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of max_pool3d: values scattered at their indices, zeros elsewhere."""
    return _max_unpool(input, indices, 3, kernel_size, stride, padding, output_size, "max_unpool3d")


# ---- adaptive pooling

def adaptive_avg_pool1d(input, output_size):
    return _C.adaptive_avg_pool(input, 1, output_size)


def adaptive_avg_pool2d(input, output_size):
    return _C.adaptive_avg_pool(input, 2, output_size)


def adaptive_avg_pool3d(input, output_size):
    return _C.adaptive_avg_pool(input, 3, output_size)


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    return _C.adaptive_max_pool(input, 1, output_size)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    return _C.adaptive_max_pool(input, 2, output_size)


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    return _C.adaptive_max_pool(input, 3, output_size)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    out, idx = adaptive_max_pool1d_with_indices(input, output_size)
    return (out, idx) if return_indices else out


def adaptive_max_pool2d(input, output_size, return_indices=False):
    out, idx = adaptive_max_pool2d_with_indices(input, output_size)
    return (out, idx) if return_indices else out


def adaptive_max_pool3d(input, output_size, return_indices=False):
    out, idx = adaptive_max_pool3d_with_indices(input, output_size)
    return (out, idx) if return_indices else out


# ---- power-average pooling

def _lp_pool(input, nd, norm_type, kernel_size, stride, ceil_mode, op):
    k = _ntuple(kernel_size, nd, op, "kernel_size")
    out = _C.avg_pool(input.pow(norm_type), nd, list(k), _stride(stride), 0, ceil_mode, True, None)
    n = 1
    for v in k:
        n *= v
    return (lucid.sign(out) * lucid.abs(out).relu()).mul(n).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """(sum over each window of x**p) ** (1/p)."""
    return _lp_pool(input, 1, norm_type, kernel_size, stride, ceil_mode, "lp_pool1d")


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """(sum over each window of x**p) ** (1/p)."""
    return _lp_pool(input, 2, norm_type, kernel_size, stride, ceil_mode, "lp_pool2d")


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """(sum over each window of x**p) ** (1/p)."""
    return _lp_pool(input, 3, norm_type, kernel_size, stride, ceil_mode, "lp_pool3d")


# ---- fractional max pooling

def _fractional(input, nd, kernel_size, output_size, output_ratio, return_indices, _random_samples, op):
    if output_size is None and output_ratio is None:
        raise ValueError(f"{op} requires specifying either an output_size or an output_ratio")
    if input.dim() not in (nd + 1, nd + 2):
        raise lucid.ShapeMismatch(f"[{op}] expected a {nd + 1}-D (unbatched) or {nd + 2}-D (batched) input, got "
                                  f"shape {tuple(input.shape)}")
    if output_size is None:
        ratio = tuple(output_ratio) if isinstance(output_ratio, (tuple, list)) else (output_ratio,)
        ratio = ratio * nd if len(ratio) == 1 else ratio
        if len(ratio) != nd:
            raise ValueError(f"[{op}] output_ratio must be a float or a {nd}-tuple of floats, got {output_ratio!r}")
        for r in ratio:
            if not 0 < r < 1:
                raise ValueError(f"[{op}] output_ratio must be between 0 and 1 (got {output_ratio})")
        output_size = [int(input.shape[-nd + i] * ratio[i]) for i in range(nd)]
    if _random_samples is None:
        n = 1 if input.dim() == nd + 1 else input.shape[0]
        _random_samples = lucid.rand(n, input.shape[-nd - 1], nd, dtype=input.dtype)
    out, idx = _C.fractional_max_pool(input, nd, kernel_size, output_size, _random_samples)
    return (out, idx) if return_indices else out


def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    return _fractional(input, 2, kernel_size, output_size, output_ratio, True, _random_samples,
                       "fractional_max_pool2d")


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    """Fractional max pooling (Graham, 2014) over (N, C, H, W) or (C, H, W) with pseudo-random window starts."""
    return _fractional(input, 2, kernel_size, output_size, output_ratio, return_indices, _random_samples,
                       "fractional_max_pool2d")


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    return _fractional(input, 3, kernel_size, output_size, output_ratio, True, _random_samples,
                       "fractional_max_pool3d")


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    """Fractional max pooling over (N, C, D, H, W) or (C, D, H, W)."""
    return _fractional(input, 3, kernel_size, output_size, output_ratio, return_indices, _random_samples,
                       "fractional_max_pool3d")


# ---- embeddings

def _padding_idx(padding_idx, num):
    if padding_idx is None:
        return -1
    if padding_idx > 0:
        if padding_idx >= num:
            raise AssertionError("Padding_idx must be within num_embeddings")
    elif padding_idx < 0:
        if padding_idx < -num:
            raise AssertionError("Padding_idx must be within num_embeddings")
        padding_idx = num + padding_idx
    return padding_idx


def _check_indices(input, op):
    if not isinstance(input, lucid.Tensor):
        raise TypeError(f"[{op}] input must be a Tensor of indices, got {type(input).__name__}")
    if input.dtype not in (lucid.int64, lucid.int32):
        raise lucid.DtypeMismatch(f"[{op}] expected indices of dtype int64 or int32, got {input.dtype}")


def _renorm_(weight, input, max_norm, norm_type):
    """PyTorch's embedding_renorm_: rows of weight looked up by input with norm > max_norm are scaled
    in place to norm max_norm (over the weight's storage, outside autograd)."""
    rows = np.unique(input.numpy().astype(np.int64).reshape(-1))
    if rows.size == 0:
        return
    num = weight.shape[0]
    if rows.min() < 0 or rows.max() >= num:
        bad = int(rows.min() if rows.min() < 0 else rows.max())
        raise IndexError(f"[embedding] index {bad} is out of range for an embedding of {num} rows")
    with lucid.no_grad():
        idx = lucid.tensor(rows, dtype=lucid.int64)
        sel = weight.index_select(0, idx)
        norms = sel.abs().pow(norm_type).sum(1).pow(1.0 / norm_type) if norm_type != 2 else \
            (sel * sel).sum(1).sqrt()
        scale = (max_norm / (norms + 1e-7)).numpy()
        big = norms.numpy() > max_norm
        if not big.any():
            return
        factors = np.where(big, scale, 1.0).astype(sel.numpy().dtype).reshape(-1, 1)
        weight.index_copy_(0, idx, sel * lucid.tensor(factors, dtype=weight.dtype))


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False, sparse=False):
    """weight[input]: rows of a (num_embeddings, embedding_dim) table looked up by integer indices."""
    _check_indices(input, "embedding")
    if weight.dim() != 2:
        raise lucid.ShapeMismatch(f"[embedding] expected a 2-D weight, got shape {tuple(weight.shape)}")
    if sparse:
        raise NotImplementedError("[embedding] sparse gradients are not supported (sparse=False)")
    pad = _padding_idx(padding_idx, weight.shape[0])
    if max_norm is not None:
        _renorm_(weight, input, float(max_norm), float(norm_type))
    return _C.embedding(weight, input, pad, bool(scale_grad_by_freq))


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False, mode="mean",
                  sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """Sums, means or maxes of bags of embeddings: 2-D input (B, L) is B bags of L indices; 1-D input
    is split into bags at offsets."""
    _check_indices(input, "embedding_bag")
    if weight.dim() != 2:
        raise lucid.ShapeMismatch(f"[embedding_bag] expected a 2-D weight, got shape {tuple(weight.shape)}")
    if mode not in ("sum", "mean", "max"):
        raise ValueError(f"[embedding_bag] mode has to be one of sum, mean or max, got {mode!r}")
    if sparse:
        raise NotImplementedError("[embedding_bag] sparse gradients are not supported (sparse=False)")
    if scale_grad_by_freq and mode == "max":
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if per_sample_weights is not None:
        if mode != "sum":
            raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                      f"supported for mode='sum' (got mode='{mode}'). Please open a feature request "
                                      f"on GitHub.")
        if tuple(per_sample_weights.shape) != tuple(input.shape):
            raise ValueError(f"embedding_bag: If per_sample_weights ({tuple(per_sample_weights.shape)}) is not None, "
                             f"then it must have the same shape as the input ({tuple(input.shape)})")
    pad = _padding_idx(padding_idx, weight.shape[0])
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             "fixed length sequences. However, found offsets of type Tensor")
        B, L = input.shape
        offsets = lucid.arange(B, dtype=lucid.int64, device=input.device) * L
        flat = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
        include_last_offset = False
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if not isinstance(offsets, lucid.Tensor) or offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
        flat = input
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")
    if max_norm is not None:
        _renorm_(weight, input, float(max_norm), float(norm_type))
    # one engine op: the fused forward kernel, its vjp in lucid ops
    return _C.embedding_bag(weight, flat, offsets, _BAG_MODES[mode], per_sample_weights, bool(include_last_offset),
                            pad, bool(scale_grad_by_freq))


_BAG_MODES = {"sum": 0, "mean": 1, "max": 2}
