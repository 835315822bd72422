"""The losses of lucid.nn.functional (star-imported by lucid.nn.functional).

mse / l1 / smooth_l1 / huber / binary_cross_entropy / binary_cross_entropy_with_logits are fused
engine ops (engine/ops/loss.h: one elementwise kernel, a backward op over the same kernel whose own
vjp gives exact second derivatives); the others compose lucid ops, so their gradients of every
order come from the composition. Argument names, defaults, shape rules, warnings and errors follow
PyTorch."""
import math
import warnings

import lucid
from lucid import _C

__all__ = ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy",
           "binary_cross_entropy_with_logits", "kl_div", "poisson_nll_loss", "gaussian_nll_loss",
           "cosine_embedding_loss", "margin_ranking_loss", "hinge_embedding_loss", "multi_margin_loss",
           "multilabel_margin_loss", "multilabel_soft_margin_loss", "soft_margin_loss", "triplet_margin_loss",
           "triplet_margin_with_distance_loss", "ctc_loss"]


def _legacy(size_average, reduce, reduction):
    from lucid.nn.functional import _reduction
    return _reduction(size_average, reduce, reduction)


def _check_reduction(reduction):
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")


def _reduce(loss, reduction):
    _check_reduction(reduction)
    if reduction == "none":
        return loss
    return loss.sum() if reduction == "sum" else loss.mean()


def _size(t):
    return tuple(t.shape)


def _warn_size(input, target):
    if _size(target) != _size(input):
        warnings.warn(f"Using a target size ({_size(target)}) that is different to the input size ({_size(input)}). "
                      "This will likely lead to incorrect results due to broadcasting. "
                      "Please ensure they have the same size.", stacklevel=3)


# Masks of elementwise conditions as float tensors without history (0/1), built from sign.
def _float_input(name, input):
    """torch's kernels of these losses take floating-point inputs only (an integer one is an error, not a cast)."""
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise lucid.DtypeMismatch(f"[{name}] expected a floating-point input, got {input.dtype}")


def _is(x, value):
    """1 where x == value, else 0."""
    with lucid.no_grad():
        return 1 - lucid.abs(lucid.sign(x - value))


def _gt(x, value):
    """1 where x > value, else 0."""
    with lucid.no_grad():
        return lucid.relu(lucid.sign(x - value))


# ---- the fused pointwise losses

def _promote_int(input, target):
    """torch promotes an integer operand of these losses to the other's floating dtype (its kernels see floats)."""
    if input.dtype.is_floating_point != target.dtype.is_floating_point:
        rt = lucid.result_type(input, target)
        return input.to(rt), target.to(rt)
    return input, target


def _weighted(name, input, target, weight, reduction, a, mean_by_weight):
    if name != "huber_loss":
        input, target = _promote_int(input, target)
    if weight is None:
        return getattr(_C, name)(input, target, None, reduction, a)
    if _size(weight) != _size(input):
        raise ValueError("Weights and input must have the same size.")
    _check_reduction(reduction)
    if reduction == "mean" and mean_by_weight:
        return getattr(_C, name)(input, target, weight, "sum", a) / weight.sum()
    return getattr(_C, name)(input, target, weight, reduction, a)


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean squared error (x - y)^2, input and target broadcast (with a warning when they differ)."""
    _warn_size(input, target)
    reduction = _legacy(size_average, reduce, reduction)
    return _weighted("mse_loss", input, target, weight, reduction, 0.0, True)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean absolute error |x - y|."""
    _warn_size(input, target)
    reduction = _legacy(size_average, reduce, reduction)
    return _weighted("l1_loss", input, target, weight, reduction, 0.0, True)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """0.5 d^2 / beta where |d| < beta, |d| - 0.5 beta elsewhere (beta = 0: the L1 loss)."""
    _warn_size(input, target)
    reduction = _legacy(size_average, reduce, reduction)
    if beta < 0:
        raise ValueError(f"smooth_l1_loss does not support negative values for beta, got {beta}")
    input, target = _promote_int(input, target)
    return _C.smooth_l1_loss(input, target, None, reduction, float(beta))


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """0.5 d^2 where |d| < delta, delta (|d| - 0.5 delta) elsewhere."""
    _warn_size(input, target)
    if delta <= 0:
        raise ValueError(f"huber_loss does not support non-positive values for delta, got {delta}")
    return _weighted("huber_loss", input, target, weight, reduction, float(delta), False)


def _check_same_size(input, target, msg):
    if _size(target) != _size(input):
        raise ValueError(msg)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """-(y log x + (1 - y) log(1 - x)) of probabilities x, each log clamped at -100 as PyTorch."""
    reduction = _legacy(size_average, reduce, reduction)
    _check_same_size(input, target, f"Using a target size ({_size(target)}) that is different to the input size "
                                    f"({_size(input)}) is deprecated. Please ensure they have the same size.")
    if input.numel() and input.dtype.is_floating_point:
        lo, hi = lucid.aminmax(input.detach())
        if not (float(lo) >= 0 and float(hi) <= 1):          # NaN fails too, as PyTorch
            raise lucid.LucidError("all elements of input should be between 0 and 1")
    if weight is not None:
        weight = weight.expand(lucid.broadcast_shapes(_size(target), _size(weight)))
    return _C.binary_cross_entropy(input, target, weight, reduction, 0.0)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None, reduction="mean",
                                     pos_weight=None):
    """Binary cross entropy of sigmoid(x) in the stable form (1 - y) x + log(1 + exp(-x)); pos_weight
    scales the positive term: (1 - y) x + (1 + (pos_weight - 1) y) log(1 + exp(-x))."""
    reduction = _legacy(size_average, reduce, reduction)
    _check_same_size(input, target, f"Target size ({_size(target)}) must be the same as input size ({_size(input)})")
    if pos_weight is None:
        return _C.binary_cross_entropy_with_logits(input, target, weight, reduction, 0.0)
    _check_reduction(reduction)
    per = _C.binary_cross_entropy_with_logits(input, target, None, "none", 0.0)
    from lucid.nn.functional import logsigmoid
    per = per - (pos_weight - 1) * target * logsigmoid(input)      # + (pw - 1) y softplus(-x)
    if weight is not None:
        per = per * weight
    return _reduce(per, reduction)


# ---- composed losses

def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """Pointwise KL divergence target * (log target - input) (input: log-probabilities; log_target: the
    target is given as log-probabilities too). reduction 'batchmean' divides the sum by the batch size."""
    if size_average is not None or reduce is not None:
        reduction = _legacy(size_average, reduce, reduction)
    elif reduction == "mean":
        warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the support size."
                      "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                      "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
                      stacklevel=2)
    if reduction not in ("none", "mean", "sum", "batchmean"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    _float_input("kl_div", input)
    if log_target:
        per = lucid.exp(target) * (target - input)
    else:
        zero = _is(target, 0.0)
        per = target * lucid.log(target + zero) - target * input      # xlogy(t, t): 0 where t == 0
    if reduction == "batchmean":
        total = per.sum()
        return total / input.shape[0] if input.dim() != 0 else total
    return _reduce(per, reduction)


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                     reduction="mean"):
    """Negative log-likelihood of a Poisson target: exp(x) - y x (log_input) or x - y log(x + eps);
    full adds the Stirling term y log y - y + 0.5 log(2 pi y) where y > 1."""
    reduction = _legacy(size_average, reduce, reduction)
    _check_reduction(reduction)
    if log_input:
        loss = lucid.exp(input) - target * input
    else:
        loss = input - target * lucid.log(input + eps)
    if full:
        big = _gt(target, 1.0)
        safe = target * big + (1 - big)          # 1 where the term is dropped (log 1 = 0)
        stirling = safe * lucid.log(safe) - safe + 0.5 * lucid.log(2 * math.pi * safe)
        loss = loss + stirling * big
    return _reduce(loss, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """Gaussian negative log-likelihood 0.5 (log var + (x - y)^2 / var) (+ 0.5 log(2 pi) when full);
    var has input's shape, one dim fewer, or one dim of size 1 (homoscedastic); clamped at eps
    without blocking its gradient, as PyTorch."""
    if isinstance(var, (int, float)):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = float(var) * lucid.ones_like(input)
    elif var.numel() and float(var.detach().amin()) < 0:
        raise ValueError("var has negative entry/entries")
    if _size(var) != _size(input):
        if _size(input)[:-1] == _size(var):
            var = var.unsqueeze(-1)
        elif input.dim() == var.dim() and sum(y for x, y in zip(_size(input), _size(var)) if x != y) == 1:
            pass
        else:
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = var + lucid.relu(eps - var).detach()          # clamp(min=eps) outside autograd
    loss = 0.5 * (lucid.log(var) + lucid.square(input - target) / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


def _check_1d_target(name, input, target):
    if input.dim() not in (1, 2):
        raise lucid.ShapeMismatch(f"{name}: 1D target tensor expects 2D input tensors, but found inputs with sizes "
                                  f"{_size(input)} and {_size(target)}.")


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    """1 - cos(x1, x2) where y == 1, max(0, cos(x1, x2) - margin) where y == -1 (cosine along the last dim)."""
    reduction = _legacy(size_average, reduce, reduction)
    _check_reduction(reduction)
    if input1.dim() != input2.dim() or _size(input1) != _size(input2):
        raise lucid.ShapeMismatch(f"cosine_embedding_loss: input1 and input2 must have the same size, got "
                                  f"{_size(input1)} and {_size(input2)}")
    if input1.dim() not in (1, 2):
        raise lucid.ShapeMismatch(f"cosine_embedding_loss: 0D or 1D target tensor expected, multi-target not "
                                  f"supported (inputs of {input1.dim()} dims)")
    if target.dim() != input1.dim() - 1:
        raise lucid.ShapeMismatch(f"cosine_embedding_loss: 0D target tensor expects 1D input tensors, 1D target "
                                  f"tensor expects 2D input tensors, got target of shape {_size(target)} and "
                                  f"inputs of shape {_size(input1)}")
    EPS = 1e-12
    prod = (input1 * input2).sum(-1)
    m1 = (input1 * input1).sum(-1) + EPS
    m2 = (input2 * input2).sum(-1) + EPS
    cos = prod / lucid.sqrt(m1 * m2)
    pos, neg = _is(target, 1.0), _is(target, -1.0)
    loss = pos * (1 - cos) + neg * lucid.relu(cos - margin)
    return _reduce(loss, reduction)


def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    """max(0, -y (x1 - x2) + margin)."""
    reduction = _legacy(size_average, reduce, reduction)
    _check_reduction(reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise lucid.ShapeMismatch(f"margin_ranking_loss : All input tensors should have same dimension but got "
                                  f"sizes: input1: {_size(input1)}, input2: {_size(input2)}, target: {_size(target)} ")
    return _reduce(lucid.relu(-target * (input1 - input2) + margin), reduction)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    """x where y == 1, max(0, margin - x) where y == -1 (PyTorch's where(y != 1) / where(y != -1) sum)."""
    reduction = _legacy(size_average, reduce, reduction)
    _check_reduction(reduction)
    _float_input("hinge_embedding_loss", input)
    not_pos, not_neg = 1 - _is(target, 1.0), 1 - _is(target, -1.0)
    loss = not_pos * lucid.relu(margin - input) + not_neg * input
    return _reduce(loss, reduction)


def _class_targets(name, input, target):
    if input.dim() not in (1, 2) or (input.dim() == 2 and input.shape[1] == 0) or \
            (input.dim() == 1 and input.shape[0] == 0):
        raise lucid.ShapeMismatch(f"{name}: expected a non-empty vector or matrix as input, got shape {_size(input)}")
    want = (input.shape[0],) if input.dim() == 2 else ()
    if _size(target) != want and not (input.dim() == 1 and _size(target) == (1,)):
        raise lucid.ShapeMismatch(f"{name}: inconsistent target size: {_size(target)} for input of size: "
                                  f"{_size(input)}")
    if target.dtype != lucid.int64:
        raise lucid.DtypeMismatch(f"{name}: expected target of dtype int64 (class indices), got {target.dtype}")


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None, reduction="mean"):
    """sum over j != y of max(0, margin - x[y] + x[j])^p / C (times weight[y]); p is 1 or 2."""
    reduction = _legacy(size_average, reduce, reduction)
    _check_reduction(reduction)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    _class_targets("multi_margin_loss", input, target)
    _float_input("multi_margin_loss", input)
    x = input if input.dim() == 2 else input.reshape(1, -1)
    t = target.reshape(-1)
    C = x.shape[1]
    if t.numel():
        lo, hi = int(t.amin()), int(t.amax())
        if lo < 0 or hi >= C:
            raise IndexError(f"multi_margin_loss: target {lo if lo < 0 else hi} is out of bounds for {C} classes")
    if weight is not None and (weight.dim() != 1 or weight.shape[0] != C):
        raise lucid.ShapeMismatch(f"multi_margin_loss: weight must be a 1-D tensor of {C} class weights, got "
                                  f"shape {_size(weight)}")
    if x.device.type == "cpu" and not (weight is not None and weight.requires_grad):
        loss = _C.multi_margin_loss(x, t, int(p), float(margin), weight, "none")   # fused (N,) per sample
        if input.dim() == 1:
            loss = loss.reshape(())
        return _reduce(loss, reduction)
    xy = x.gather(1, t.reshape(-1, 1))
    z = lucid.relu(margin - xy + x)
    if p == 2:
        z = z * z
    if weight is not None:
        z = z * weight.gather(0, t).reshape(-1, 1)
    other = 1 - lucid.one_hot(t, C).to(x.dtype)
    loss = (z * other).sum(1) / C
    if input.dim() == 1:
        loss = loss.reshape(())
    return _reduce(loss, reduction)


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """sum over target classes j and non-target classes k of max(0, 1 - (x[j] - x[k])) / C; target holds
    class indices, ended by the first -1."""
    reduction = _legacy(size_average, reduce, reduction)
    _check_reduction(reduction)
    if input.dim() not in (0, 1, 2) or _size(target) != _size(input):
        raise lucid.ShapeMismatch(f"multilabel_margin_loss: inconsistent target size: {_size(target)} for input "
                                  f"of size: {_size(input)}")
    if target.dtype != lucid.int64:
        raise lucid.DtypeMismatch(f"multilabel_margin_loss: expected target of dtype int64, got {target.dtype}")
    _float_input("multilabel_margin_loss", input)
    x = input.reshape(1, -1) if input.dim() < 2 else input
    t = target.reshape(1, -1) if input.dim() < 2 else target
    C = x.shape[1]
    if t.numel():
        lo, hi = int(t.amin()), int(t.amax())
        if lo < -1 or hi >= C:
            raise IndexError(f"multilabel_margin_loss: target {lo if lo < -1 else hi} is out of bounds for "
                             f"{C} classes")
    if x.device.type == "cpu":
        loss = _C.multilabel_margin_loss(x, t, "none")                  # fused (N,) per sample
        if input.dim() < 2:
            loss = loss.reshape(())
        return _reduce(loss, reduction)
    with lucid.no_grad():
        valid = (1 - _is(t.to(x.dtype), -1.0)).cumprod(1)            # (N, C): before the first -1
        idx = (t * valid.to(lucid.int64))                             # invalid slots point at class 0
        is_target = (lucid.one_hot(idx, C).to(x.dtype) * valid.unsqueeze(-1)).sum(1)   # (N, C) counts
        is_target = lucid.sign(is_target)
    xj = x.gather(1, idx)                                             # (N, C): x at each target slot
    z = lucid.relu(1 - xj.unsqueeze(-1) + x.unsqueeze(1))             # (N, J, K)
    mask = valid.unsqueeze(-1) * (1 - is_target).unsqueeze(1)
    loss = (z * mask).sum((1, 2)) / C
    if input.dim() < 2:
        loss = loss.reshape(())
    return _reduce(loss, reduction)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """-(y log sigmoid(x) + (1 - y) log sigmoid(-x)) (times weight), averaged over the classes (last dim)."""
    reduction = _legacy(size_average, reduce, reduction)
    from lucid.nn.functional import logsigmoid
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    C = input.shape[class_dim]
    loss = loss.sum(class_dim) / C
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    return _reduce(loss, reduction)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """log(1 + exp(-y x))."""
    reduction = _legacy(size_average, reduce, reduction)
    _check_reduction(reduction)
    _float_input("soft_margin_loss", input)
    if lucid.broadcast_shapes(_size(input), _size(target)) != _size(input):
        raise lucid.ShapeMismatch(f"[soft_margin_loss] the target of shape {_size(target)} must broadcast to the "
                                  f"input's shape {_size(input)}")
    return _C.soft_margin_loss(input, target, None, reduction, 0.0)


def _pairwise_distance(x1, x2, p=2.0, eps=1e-6):
    """||x1 - x2 + eps||_p along the last dim (PyTorch's pairwise_distance)."""
    return lucid.linalg.vector_norm(x1 - x2 + eps, p, dim=-1)


def _triplet_dims(anchor, positive, negative):
    a, p, n = anchor.dim(), positive.dim(), negative.dim()
    if not (a == p and p == n):
        raise lucid.ShapeMismatch(f"The anchor, positive, and negative tensors are expected to have the same number "
                                  f"of dimensions, but got: anchor {a}D, positive {p}D, and negative {n}D inputs")


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, size_average=None,
                        reduce=None, reduction="mean"):
    """max(0, margin + d(a, p) - d(a, n)) with d the p-norm pairwise distance; swap uses
    min(d(a, n), d(p, n))."""
    reduction = _legacy(size_average, reduce, reduction)
    _check_reduction(reduction)
    _triplet_dims(anchor, positive, negative)
    if anchor.dim() not in (1, 2):
        raise lucid.ShapeMismatch(f"triplet_margin_loss: expected 1D or 2D inputs, got {anchor.dim()}D")
    d_pos = _pairwise_distance(anchor, positive, p, eps)
    d_neg = _pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_swap = _pairwise_distance(positive, negative, p, eps)
        d_neg = d_neg - lucid.relu(d_neg - d_swap)                   # min(d_neg, d_swap)
    return _reduce(lucid.relu(margin + d_pos - d_neg), reduction)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None, margin=1.0, swap=False,
                                      reduction="mean"):
    """triplet_margin_loss with any distance function (default: the 2-norm pairwise distance)."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    _triplet_dims(anchor, positive, negative)
    dist = distance_function if distance_function is not None else _pairwise_distance
    d_pos = dist(anchor, positive)
    d_neg = dist(anchor, negative)
    if swap:
        d_swap = dist(positive, negative)
        d_neg = d_neg - lucid.relu(d_neg - d_swap)
    return _reduce(lucid.relu(margin + d_pos - d_neg), reduction)


def _lengths(v):
    if isinstance(v, lucid.Tensor):
        return v
    return lucid.tensor(list(v) if isinstance(v, (list, tuple)) else v, dtype=lucid.int64)


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean", zero_infinity=False):
    """Connectionist temporal classification loss of log_probs (T, N, C) (or unbatched (T, C)) against
    targets (N, S) padded or 1-D concatenated; the alpha/beta recursions run in one engine kernel.
    'mean' divides each loss by its target length, then averages over the batch."""
    return _C.ctc_loss(log_probs, targets, _lengths(input_lengths), _lengths(target_lengths), blank, reduction,
                       zero_infinity)
