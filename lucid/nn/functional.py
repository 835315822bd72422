"""lucid.nn.functional: PyTorch's torch.nn.functional. The heavy ops (convolution, pooling, softmax,
the NLL loss) are engine ops with fused kernels; this module spells their arguments."""
import math
import warnings

import lucid
from lucid import _C

__all__ = ["linear", "conv1d", "conv2d", "unfold", "fold", "max_pool1d", "max_pool2d", "max_pool1d_with_indices",
           "max_pool2d_with_indices", "relu", "relu_", "softmax", "log_softmax", "softmin", "nll_loss",
           "cross_entropy", "dropout", "layer_norm", "batch_norm", "group_norm", "instance_norm", "rms_norm"]


def _reduction(size_average, reduce, reduction):
    """The legacy size_average/reduce flags, as PyTorch maps them."""
    if size_average is None and reduce is None:
        return reduction
    warnings.warn("size_average and reduce args will be deprecated, please use reduction instead.", stacklevel=3)
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if not reduce:
        return "none"
    return "mean" if size_average else "sum"


# ---- linear and convolution

def linear(input, weight, bias=None):
    """y = input @ weight.T + bias: one GEMM with a fused bias pass and one autograd node on the CPU."""
    return _C.linear(input, weight, bias)


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-D convolution (cross-correlation) over (N, C, L) or (C, L); padding may be 'same' or 'valid'."""
    return _C.conv1d(input, weight, bias, stride, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-D convolution (cross-correlation) over (N, C, H, W) or (C, H, W); padding may be 'same' or 'valid'."""
    return _C.conv2d(input, weight, bias, stride, padding, dilation, groups)


def _single(v, name):
    if isinstance(v, (tuple, list)):
        if len(v) != 1:
            raise TypeError(f"max_pool1d: {name} must be an int or a 1-tuple, got {v!r}")
        return v[0]
    return v


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """Sliding local blocks: (N, C, H, W) -> (N, C*kh*kw, L)."""
    return _C.unfold(input, kernel_size, dilation, padding, stride)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """The adjoint of unfold: (N, C*kh*kw, L) -> (N, C, H, W), summing overlapping values."""
    return _C.fold(input, output_size, kernel_size, dilation, padding, stride)


# ---- pooling

def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    """(output, indices) whatever return_indices says, as torch's."""
    if _integral(input):  # the generic pooling kernel handles integers
        return _C.max_pool_with_indices(input, 2, kernel_size, stride if stride not in ((), []) else None, padding,
                                        dilation, ceil_mode)
    return _C.max_pool2d_with_indices(input, kernel_size, stride if stride not in ((), []) else None, padding,
                                      dilation, ceil_mode)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """2-D max pooling over (N, C, H, W) or (C, H, W); indices are flat within each H x W plane."""
    out, idx = max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return (out, idx) if return_indices else out


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    """(output, indices) whatever return_indices says, as torch's."""
    if input.dim() not in (2, 3):
        raise lucid.ShapeMismatch(f"[max_pool1d] expected a 2-D or 3-D input, got shape {tuple(input.shape)}")
    k = _single(kernel_size, "kernel_size")
    s = k if stride is None or stride in ((), []) else _single(stride, "stride")
    out, idx = _C.max_pool2d_with_indices(input.unsqueeze(-2), (1, k), (1, s), (0, _single(padding, "padding")),
                                          (1, _single(dilation, "dilation")), ceil_mode)
    return out.squeeze(-2), idx.squeeze(-2)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    out, idx = max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return (out, idx) if return_indices else out


# ---- activations

def relu(input, inplace=False):
    return input.relu_() if inplace else _C.relu(input)


def relu_(input):
    return input.relu_()


def _softmax_dim(name, ndim):
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X "
                  "as an argument.", stacklevel=3)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _softmax_dim("softmax", input.dim())
    return _C.softmax(input, dim, dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _softmax_dim("log_softmax", input.dim())
    return _C.log_softmax(input, dim, dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _softmax_dim("softmin", input.dim())
    return _C.softmax(-input if dtype is None else -input.to(dtype), dim, None)


# ---- losses

class _TargetSizeMismatch(lucid.ShapeMismatch, ValueError):
    """A class-index target whose batch size does not match the input's: lucid's ShapeMismatch, and the
    ValueError torch raises."""


def _check_batch(input, target):
    """torch's ValueErrors for class-index targets whose batch size does not match the input's."""
    if target.dtype.is_floating_point:
        return
    if input.dim() == 1:
        if target.dim() == 1 and target.shape[0] != 1:
            raise _TargetSizeMismatch(f"For 1D input, 1D target must have size 1, but got target size: {target.shape[0]}")
    elif target.dim() >= 1 and input.shape[0] != target.shape[0]:
        raise _TargetSizeMismatch(f"[nll_loss] Expected input batch_size ({input.shape[0]}) to match target batch_size "
                         f"({target.shape[0]}).")


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    """Negative log-likelihood of class indices: input (N, C) / (N, C, d1, ...) / (C,) log-probabilities."""
    _check_batch(input, target)
    return _C.nll_loss(input, target, weight, _reduction(size_average, reduce, reduction), ignore_index)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                  label_smoothing=0.0):
    """log_softmax over the class dim (dim 1, or 0 for unbatched input) followed by the NLL loss; the
    target is class indices (int64) or class probabilities (same shape as input)."""
    reduction = _reduction(size_average, reduce, reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"cross_entropy: label_smoothing must be between 0.0 and 1.0, got {label_smoothing}")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"cross_entropy: {reduction} is not a valid value for reduction")
    _check_batch(input, target)
    cdim = 0 if input.dim() == 1 else 1
    logp = _C.log_softmax(input, cdim, None)
    C = input.shape[cdim]
    if target.dtype.is_floating_point:                       # class probabilities
        if tuple(target.shape) != tuple(input.shape):
            raise lucid.ShapeMismatch(f"[cross_entropy] probability targets must have the input's shape "
                                      f"{tuple(input.shape)}, got {tuple(target.shape)}")
        if label_smoothing > 0:
            target = target * (1 - label_smoothing) + label_smoothing / C
        w = 1.0 if weight is None else weight.reshape([C] + [1] * (input.dim() - cdim - 1))
        per = -(logp * target * w).sum(cdim)
        if reduction == "none":
            return per
        if reduction == "sum":
            return per.sum()
        n = per.numel()
        return per.sum() / n if n else per.sum() / 0.0
    nll = _C.nll_loss(logp, target, weight, reduction, ignore_index)
    if label_smoothing <= 0:
        return nll
    # smoothing: mix in the (weighted) mean over classes of -log p, over the samples the NLL counts
    w = 1.0 if weight is None else weight.reshape([C] + [1] * (input.dim() - cdim - 1))
    smooth = -(logp * w).sum(cdim)                                        # per sample
    keep = _C.nll_loss(-lucid.ones_like(logp), target, None, "none", ignore_index)   # 1 kept, 0 ignored
    smooth = smooth * keep
    if reduction == "none":
        out = smooth
    elif reduction == "sum":
        out = smooth.sum()
    else:
        denom = _C.nll_loss(-lucid.ones_like(logp), target, weight, "sum", ignore_index)  # sum of w[t] kept
        out = smooth.sum() / denom
    return (1 - label_smoothing) * nll + (label_smoothing / C) * out


# ---- dropout

def dropout(input, p=0.5, training=True, inplace=False):
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    if not input.dtype.is_floating_point:
        raise lucid.DtypeMismatch(f"[dropout] expected a floating-point input, got {input.dtype}")
    if p == 1.0:
        return input.mul_(0) if inplace else input * 0
    mask = lucid.bernoulli(lucid.full_like(input, 1 - p)) * (1.0 / (1 - p))
    return input.mul_(mask) if inplace else input * mask


# ---- normalisation

def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Normalises over the trailing dims `normalized_shape` (fused kernel), then the elementwise affine."""
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    return _C.layer_norm(input, list(normalized_shape), weight, bias, eps)


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5):
    """Per-channel normalisation of (N, C, *): batch statistics when training (updating the running ones
    in place), the running statistics otherwise."""
    return _C.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Normalises each of num_groups channel groups of (N, C, *) over its channels and positions."""
    if input.dim() < 2:
        raise lucid.ShapeMismatch(f"[group_norm] expected an input of shape (N, C, *), got {tuple(input.shape)}")
    N, C = input.shape[0], input.shape[1]
    if num_groups <= 0 or C % num_groups != 0:
        raise lucid.ShapeMismatch(f"group_norm: expected the number of channels {C} to be divisible by num_groups "
                         f"{num_groups}")
    x = input.reshape(N, num_groups, -1)
    y = _C.layer_norm(x, [x.shape[-1]], None, None, eps).reshape(input.shape)
    shape = [1, C] + [1] * (input.dim() - 2)
    if weight is not None:
        y = y * weight.reshape(shape)
    if bias is not None:
        y = y + bias.reshape(shape)
    return y


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-5):
    """Normalises each (sample, channel) plane of (N, C, *) over its positions."""
    if input.dim() < 3:
        raise lucid.ShapeMismatch(f"[instance_norm] expected an input of shape (N, C, L, ...), got "
                                  f"{tuple(input.shape)}")
    N, C = input.shape[0], input.shape[1]
    x = input.reshape(1, N * C, *input.shape[2:])
    rm = running_mean.repeat(N) if running_mean is not None else None
    rv = running_var.repeat(N) if running_var is not None else None
    w = weight.repeat(N) if weight is not None else None
    b = bias.repeat(N) if bias is not None else None
    y = _C.batch_norm(x, rm, rv, w, b, use_input_stats, momentum, eps)
    if use_input_stats:
        with lucid.no_grad():
            if running_mean is not None:
                running_mean.copy_(rm.reshape(N, C).mean(0))
            if running_var is not None:
                running_var.copy_(rv.reshape(N, C).mean(0))
    return y.reshape(input.shape)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """x / sqrt(mean(x^2) + eps) over the trailing dims, times weight (one fused engine op); eps defaults to
    finfo(dtype).eps."""
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"[rms_norm] is not implemented for {input.dtype} inputs (floating point only)")
    if eps is None:
        eps = lucid.finfo(input.dtype).eps
    return _C.rms_norm(input, list(normalized_shape), weight, float(eps))


# ---- activations (engine ops of the activation family: one fused kernel each, exact second derivatives)

__all__ += ["relu6", "leaky_relu", "leaky_relu_", "elu", "elu_", "selu", "selu_", "celu", "celu_", "gelu", "silu",
            "mish", "softplus", "softsign", "softshrink", "hardshrink", "tanhshrink", "hardtanh", "hardtanh_",
            "hardsigmoid", "hardswish", "logsigmoid", "threshold", "threshold_", "glu", "prelu", "rrelu", "rrelu_",
            "gumbel_softmax", "sigmoid", "tanh"]

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _integral(t):
    """An integer tensor: the float-only activation kernels are bypassed by exact integer compositions (as torch,
    which runs these activations on integers; no gradients flow through integers)."""
    return isinstance(t, lucid.Tensor) and not (t.dtype.is_floating_point or t.dtype.is_complex) and \
        t.dtype != lucid.bool


def relu6(input, inplace=False):
    """min(max(x, 0), 6)."""
    if _integral(input):
        return input.clamp_(0, 6) if inplace else input.clamp(0, 6)
    return _C.relu6_(input, 0.0, 6.0) if inplace else _C.relu6(input, 0.0, 6.0)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """x if x > 0 else negative_slope * x."""
    return _C.leaky_relu_(input, negative_slope) if inplace else _C.leaky_relu(input, negative_slope)


def leaky_relu_(input, negative_slope=0.01):
    return _C.leaky_relu_(input, negative_slope)


def elu(input, alpha=1.0, inplace=False):
    """x if x > 0 else alpha * (exp(x) - 1)."""
    return _C.elu_(input, alpha, 1.0, 1.0) if inplace else _C.elu(input, alpha, 1.0, 1.0)


def elu_(input, alpha=1.0):
    return _C.elu_(input, alpha, 1.0, 1.0)


def selu(input, inplace=False):
    """scale * elu(x, alpha) with the self-normalising constants."""
    f = _C.selu_ if inplace else _C.selu
    return f(input, _SELU_ALPHA, _SELU_SCALE, 1.0)


def selu_(input):
    return _C.selu_(input, _SELU_ALPHA, _SELU_SCALE, 1.0)


def _celu_alpha(alpha):
    if alpha == 0:
        raise ValueError("celu: alpha cannot be 0 (ZeroDivisionError)")
    return alpha


def celu(input, alpha=1.0, inplace=False):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""
    f = _C.celu_ if inplace else _C.celu
    return f(input, _celu_alpha(alpha), 1.0, 1.0 / alpha)


def celu_(input, alpha=1.0):
    return _C.celu_(input, _celu_alpha(alpha), 1.0, 1.0 / alpha)


def gelu(input, approximate="none"):
    """x * Phi(x) (approximate='none') or its tanh approximation (approximate='tanh')."""
    if approximate == "none":
        return _C.gelu_erf(input)
    if approximate == "tanh":
        return _C.gelu_tanh(input)
    raise ValueError(f"gelu: approximate argument must be either none or tanh, got {approximate!r}")


def silu(input, inplace=False):
    """x * sigmoid(x)."""
    return _C.silu_(input) if inplace else _C.silu(input)


def mish(input, inplace=False):
    """x * tanh(softplus(x))."""
    return _C.mish_(input) if inplace else _C.mish(input)


def softplus(input, beta=1.0, threshold=20.0):
    """log(1 + exp(beta * x)) / beta, linear where beta * x > threshold."""
    if beta == 0:
        raise ValueError("softplus: beta must be nonzero")
    return _C.softplus(input, beta, threshold)


def softsign(input):
    """x / (1 + |x|)."""
    if _integral(input):
        return input / (input.abs() + 1)
    return _C.softsign(input)


def _lambd(name, lambd):
    if not lambd >= 0:
        raise ValueError(f"{name}: lambda must be in range [0, inf), but found {lambd}")
    return lambd


def softshrink(input, lambd=0.5):
    """x - lambd if x > lambd, x + lambd if x < -lambd, else 0."""
    return _C.softshrink(input, _lambd("softshrink", lambd))


def hardshrink(input, lambd=0.5):
    """x if |x| > lambd else 0."""
    return _C.hardshrink(input, lambd)


def tanhshrink(input):
    """x - tanh(x)."""
    if _integral(input):
        return input - lucid.tanh(input)
    return _C.tanhshrink(input)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """clamp(x, min_val, max_val)."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if _integral(input):
        if input.dtype == lucid.uint8 and min_val < 0:
            raise lucid.DtypeMismatch("[hardtanh] cannot do hardtanh on an unsigned type with negative limits")
        lo, hi = int(min_val), int(max_val)
        return input.clamp_(lo, hi) if inplace else input.clamp(lo, hi)
    return _C.hardtanh_(input, min_val, max_val) if inplace else _C.hardtanh(input, min_val, max_val)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    return hardtanh(input, min_val, max_val, inplace=True)


def hardsigmoid(input, inplace=False):
    """relu6(x + 3) / 6."""
    return _C.hardsigmoid_(input) if inplace else _C.hardsigmoid(input)


def hardswish(input, inplace=False):
    """x * relu6(x + 3) / 6."""
    return _C.hardswish_(input) if inplace else _C.hardswish(input)


def logsigmoid(input):
    """log(sigmoid(x)), computed stably."""
    return _C.logsigmoid(input)


def threshold(input, threshold, value, inplace=False):
    """x if x > threshold else value."""
    if _integral(input):
        out = lucid.where(input > threshold, input, lucid.full_like(input, int(value)))
        return input.copy_(out) if inplace else out
    return _C.threshold_(input, threshold, value) if inplace else _C.threshold(input, threshold, value)


def threshold_(input, threshold, value):
    if _integral(input):
        return globals()["threshold"](input, threshold, value, inplace=True)
    return _C.threshold_(input, threshold, value)


def glu(input, dim=-1):
    """a * sigmoid(b), a and b the two halves of input along dim."""
    return _C.glu(input, dim)


def prelu(input, weight):
    """x if x > 0 else weight * x, weight a single value or one per channel (dim 1)."""
    return _C.prelu(input, weight)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """Leaky ReLU with a random slope per element drawn from U(lower, upper) when training (lucid's
    default generator), the mean slope (lower + upper) / 2 otherwise."""
    return _C.rrelu_(input, lower, upper, training) if inplace else _C.rrelu(input, lower, upper, training)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    return _C.rrelu_(input, lower, upper, training)


def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """Samples from the Gumbel-softmax distribution: softmax((logits + g) / tau) with g ~ Gumbel(0, 1);
    hard=True returns one-hot samples whose gradient is the soft sample's (straight-through)."""
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    gumbels = -lucid.empty_like(logits).exponential_().log()
    y_soft = softmax((logits + gumbels) / tau, dim)
    if not hard:
        return y_soft
    index = y_soft.argmax(dim, keepdim=True)
    y_hard = lucid.zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


def sigmoid(input):
    """1 / (1 + exp(-x))."""
    return _C.sigmoid(input)


def tanh(input):
    return _C.tanh(input)


# PyTorch spells the indexing family's one_hot torch.nn.functional.one_hot (also lucid.one_hot)
one_hot = _C.one_hot
from lucid.nn._functional_pool import *  # noqa: E402,F401,F403
from lucid.nn._functional_loss import *  # noqa: E402,F401,F403
from lucid.nn._functional_conv import *  # noqa: E402,F401,F403
from lucid.nn._functional_attn import *  # noqa: E402,F401,F403
from lucid.nn._functional_resample import *  # noqa: E402,F401,F403
from lucid.nn._functional_extra import *  # noqa: E402,F401,F403
from lucid.nn import (_functional_pool as _pool, _functional_loss as _loss, _functional_conv as _conv,  # noqa: E402
                      _functional_attn as _attn, _functional_resample as _resample, _functional_extra as _extra)

__all__ += ["one_hot"] + _pool.__all__ + _loss.__all__ + _conv.__all__ + _attn.__all__ + _resample.__all__ + \
    _extra.__all__
