"""lucid.nn.functional, the remaining small functionals of PyTorch (bilinear, local_response_norm, normalize,
the distances, the feature and alpha dropouts, pad). Each is a thin composite of engine ops, spelled as
PyTorch spells it so that values, gradients and edge cases (eps clamping, pdist order) agree."""
import warnings

import lucid
from lucid import _C

__all__ = ["pad", "bilinear", "local_response_norm", "normalize", "cosine_similarity", "pairwise_distance", "pdist",
           "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout"]

# torch.nn.functional.pad is lucid's pad op (constant, reflect, replicate, circular)
pad = _C.pad


def _shape(t):
    return tuple(t.shape)


# ---- bilinear

def bilinear(input1, input2, weight, bias=None):
    """y[..., o] = sum_ij input1[..., i] weight[o, i, j] input2[..., j] + bias[o]."""
    if input1.dim() != input2.dim():
        raise lucid.ShapeMismatch(f"[bilinear] input dimensions do not match: got {input1.dim()} and {input2.dim()} "
                                  f"(shapes {_shape(input1)} and {_shape(input2)})")
    for d in range(input1.dim() - 1):
        if input1.shape[d] != input2.shape[d]:
            raise lucid.ShapeMismatch(f"[bilinear] input batch dimensions do not match at dim {d}: got "
                                      f"{input1.shape[d]} and {input2.shape[d]} (shapes {_shape(input1)} and "
                                      f"{_shape(input2)})")
    if weight.dim() != 3:
        raise lucid.ShapeMismatch(f"[bilinear] expected a 3-D weight (out, in1, in2), got shape {_shape(weight)}")
    if input1.dim() == 0 or input1.shape[-1] != weight.shape[1]:
        raise lucid.ShapeMismatch(f"[bilinear] input1 size does not match weight size: input1 {_shape(input1)}, "
                                  f"weight {_shape(weight)}")
    if input2.shape[-1] != weight.shape[2]:
        raise lucid.ShapeMismatch(f"[bilinear] input2 size does not match weight size: input2 {_shape(input2)}, "
                                  f"weight {_shape(weight)}")
    if bias is not None and (bias.dim() != 1 or bias.shape[0] != weight.shape[0]):
        raise lucid.ShapeMismatch(f"[bilinear] bias size does not match weight size: bias {_shape(bias)}, "
                                  f"weight {_shape(weight)}")
    out_f, in1, in2 = weight.shape
    # one GEMM (input1 against the weight laid out as (in1, out*in2)), then a batched contraction with input2
    t = _C.matmul(input1, weight.permute(1, 0, 2).reshape(in1, out_f * in2))
    t = t.reshape(*input1.shape[:-1], out_f, in2)
    y = _C.matmul(t, input2.unsqueeze(-1)).squeeze(-1)
    return y if bias is None else y + bias


# ---- local response norm

def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """x / (k + alpha * mean over `size` neighbouring channels of x^2) ^ beta (PyTorch's recipe:
    zero-padded average pooling across channels)."""
    from lucid.nn.functional import avg_pool2d, avg_pool3d
    dim = input.dim()
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {dim} dimensions)")
    if input.numel() == 0:
        return input
    div = input * input
    if dim == 3:
        div = pad(div.unsqueeze(1), (0, 0, size // 2, (size - 1) // 2))
        div = avg_pool2d(div, (size, 1), stride=1).squeeze(1)
    else:
        sizes = _shape(input)
        div = div.reshape(sizes[0], 1, sizes[1], sizes[2], -1)
        div = pad(div, (0, 0, 0, 0, size // 2, (size - 1) // 2))
        div = avg_pool3d(div, (size, 1, 1), stride=1).squeeze(1).reshape(sizes)
    div = (div * alpha + k).pow(beta)
    return input / div


# ---- normalisation and distances

def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """input / max(||input||_p along dim, eps)."""
    denom = lucid.linalg.vector_norm(input, p, dim=dim, keepdim=True).clamp_min(eps).expand_as(input)
    if out is None:
        return input / denom
    return out.copy_(input / denom)


def _float_common(name, x1, x2):
    dt = lucid.result_type(x1, x2)
    if not dt.is_floating_point:
        raise lucid.DtypeMismatch(f"[{name}] expected common dtype to be floating point, yet common dtype is {dt} "
                                  f"(inputs {x1.dtype} and {x2.dtype})")
    return x1.to(dt), x2.to(dt)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """<x1, x2> / (max(||x1||, eps) * max(||x2||, eps)) along dim, computed as PyTorch does: each input is
    divided by its clamped norm first (the clamp is outside autograd), keeping |result| <= 1."""
    x1, x2 = _float_common("cosine_similarity", x1, x2)
    x1, x2 = lucid.broadcast_tensors(x1, x2)
    n1 = lucid.linalg.vector_norm(x1, 2, dim=dim, keepdim=True).clone()
    n2 = lucid.linalg.vector_norm(x2, 2, dim=dim, keepdim=True).clone()
    with lucid.no_grad():
        n1.clamp_min_(eps)
        n2.clamp_min_(eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """||x1 - x2 + eps||_p along the last dimension of the broadcast inputs."""
    return lucid.linalg.vector_norm(x1 - x2 + eps, p, dim=-1, keepdim=keepdim)


def pdist(input, p=2):
    """The p-norm distances between the rows of an (N, M) input, for i < j in row-major order: N(N-1)/2 values."""
    if input.dim() != 2:
        raise lucid.ShapeMismatch(f"[pdist] only supports 2D tensors, got: {input.dim()}D (shape {_shape(input)})")
    if not input.dtype.is_floating_point:
        raise lucid.DtypeMismatch(f"[pdist] only supports floating-point dtypes, got {input.dtype}")
    if p < 0:
        raise ValueError(f"[pdist] only supports non-negative p values, got {p}")
    n = input.shape[0]
    i, j = lucid.triu_indices(n, n, 1, device=input.device)
    return lucid.linalg.vector_norm(input[i] - input[j], p, dim=-1)


# ---- dropouts

def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


_ALPHA = 1.7580993408473766     # -selu's negative saturation: SELU's lambda * alpha


def _dropout_impl(input, p, training, inplace, feature, alpha):
    """PyTorch's _dropout_impl: a Bernoulli(1 - p) mask, per channel for the feature variants (shape
    (N, C, 1, ...)); alpha dropout sets dropped units to SELU's saturation and rescales to keep mean/var."""
    _check_p(p)
    if feature and input.dim() < 2:
        raise lucid.ShapeMismatch(f"[{'feature_alpha_dropout' if alpha else 'feature_dropout'}] Feature dropout "
                                  f"requires at least 2 dimensions in the input, got shape {_shape(input)}")
    if p == 0 or not training or input.numel() == 0:
        return input
    if p == 1:
        return input.mul_(0) if inplace else input * 0
    shape = _shape(input)[:2] + (1,) * (input.dim() - 2) if feature else _shape(input)
    noise = lucid.bernoulli(lucid.full(shape, 1 - p, dtype=input.dtype, device=input.device))
    if alpha:
        a = 1.0 / ((_ALPHA * _ALPHA * p + 1) * (1 - p)) ** 0.5
        b = (noise - 1) * (_ALPHA * a) + _ALPHA * a * p
        noise = noise * a
        return input.mul_(noise).add_(b) if inplace else input * noise + b
    noise = noise * (1.0 / (1 - p))
    return input.mul_(noise) if inplace else input * noise


def _feature_dropout(input, p, training, inplace):
    return _dropout_impl(input, p, training, inplace, True, False)


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of (N, C, L) or (C, L) with probability p, scaling the rest by 1 / (1 - p)."""
    _check_p(p)
    d = input.dim()
    if d not in (2, 3):
        raise lucid.ShapeMismatch(f"[dropout1d] Expected 2D or 3D input, but received a {d}D input (shape "
                                  f"{_shape(input)}). Note that dropout1d exists to provide channel-wise dropout on "
                                  "inputs with 1 spatial dimension, a channel dimension, and an optional batch "
                                  "dimension (i.e. 2D or 3D inputs).")
    if d == 2:
        return _feature_dropout(input.unsqueeze(0), p, training, inplace).squeeze(0)
    return _feature_dropout(input, p, training, inplace)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of (N, C, H, W) with probability p; a 3-D input is read as (N, C, L), as in PyTorch."""
    _check_p(p)
    d = input.dim()
    if d not in (3, 4):
        warnings.warn(f"dropout2d: Received a {d}-D input to dropout2d, which is deprecated and will result in an "
                      "error in a future release. To retain the behavior and silence this warning, please use "
                      "dropout instead. Note that dropout2d exists to provide channel-wise dropout on inputs with 2 "
                      "spatial dimensions, a channel dimension, and an optional batch dimension (i.e. 3D or 4D "
                      "inputs).", stacklevel=2)
    if d == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout "
                      "behavior is desired - input is interpreted as shape (N, C, L), where C is the channel dim. "
                      "This behavior will change in a future release to interpret the input as one without a "
                      "batch dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise dropout behavior, "
                      "please switch to using dropout1d instead.", stacklevel=2)
    return _feature_dropout(input, p, training, inplace)


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of (N, C, D, H, W) or (C, D, H, W) with probability p."""
    _check_p(p)
    d = input.dim()
    if d not in (4, 5):
        warnings.warn(f"dropout3d: Received a {d}-D input to dropout3d, which is deprecated and will result in an "
                      "error in a future release. To retain the behavior and silence this warning, please use "
                      "dropout instead. Note that dropout3d exists to provide channel-wise dropout on inputs with 3 "
                      "spatial dimensions, a channel dimension, and an optional batch dimension (i.e. 4D or 5D "
                      "inputs).", stacklevel=2)
    if d != 5:
        return _feature_dropout(input.unsqueeze(0), p, training, inplace).squeeze(0)
    return _feature_dropout(input, p, training, inplace)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout for SELU networks: keeps zero mean and unit variance of the input."""
    return _dropout_impl(input, p, training, inplace, False, True)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Alpha dropout of whole channels (dim 1)."""
    return _dropout_impl(input, p, training, inplace, True, True)
