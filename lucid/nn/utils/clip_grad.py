"""Gradient clipping (torch.nn.utils.clip_grad): clip_grad_norm_, clip_grad_value_, get_total_norm,
clip_grads_with_norm_. The norm is computed as a Python float (one host read per call on CPU)."""
import math

from lucid import _C
from lucid.autograd.grad_mode import no_grad

Tensor = _C.Tensor

__all__ = ["clip_grad_norm_", "clip_grad_norm", "clip_grad_value_", "get_total_norm", "clip_grads_with_norm_"]


def _tensors(x):
    return [x] if isinstance(x, Tensor) else list(x)


def _norm(t, norm_type):
    """The norm_type-norm of one tensor, as a float (2, 1, inf, -inf, 0 and any p > 0)."""
    a = t.detach()
    if a.numel() == 0:
        return 0.0
    if a.dtype.is_complex:
        a = a.abs()
    if norm_type == 2.0:
        return math.sqrt(float((a * a).sum(dtype=_C.float64).item()))
    import numpy as np
    v = np.abs(np.asarray(a.contiguous().to(_C.float64).numpy()).ravel())
    if norm_type == math.inf:
        return float(v.max())
    if norm_type == -math.inf:
        return float(v.min())
    if norm_type == 0:
        return float((v != 0).sum())
    return float((v ** norm_type).sum() ** (1.0 / norm_type))


def _combine(norms, norm_type):
    if not norms:
        return 0.0
    if norm_type == math.inf:
        return max(norms)
    if norm_type == -math.inf:
        return min(norms)
    if norm_type == 0:  # the 0-"norm" of the per-tensor norms, as PyTorch
        return float(sum(1 for n in norms if n != 0))
    return float(sum(n ** norm_type for n in norms) ** (1.0 / norm_type))


def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The norm of the concatenation of `tensors` (each norm first, then the norm of the norms), as a
    0-d float32 tensor."""
    norm_type = float(norm_type)
    ts = [t for t in _tensors(tensors) if t is not None]
    total = _combine([_norm(t, norm_type) for t in ts], norm_type)
    if error_if_nonfinite and not math.isfinite(total):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so "
                           "it cannot be clipped. To disable this error and scale the gradients by the non-finite "
                           "norm anyway, set `error_if_nonfinite=False`")
    dtype = ts[0].dtype if ts and ts[0].dtype.is_floating_point else _C.float32
    return _C.full([], total, dtype, ts[0].device if ts else _C.device("cpu"))


def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Scales the gradients by max_norm / (total_norm + 1e-6) when that is below 1."""
    grads = [p.grad for p in _tensors(parameters) if p.grad is not None]
    total = float(total_norm.item()) if isinstance(total_norm, Tensor) else float(total_norm)
    clip_coef = float(max_norm) / (total + 1e-6)
    clip_coef_clamped = min(clip_coef, 1.0)
    if math.isnan(clip_coef):
        clip_coef_clamped = clip_coef
    with no_grad():
        for g in grads:
            g.mul_(clip_coef_clamped)


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Clips the gradients of `parameters` in place so their total norm is at most max_norm; returns the
    total norm before clipping (a 0-d tensor)."""
    params = _tensors(parameters)
    grads = [p.grad for p in params if p.grad is not None]
    total_norm = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(params, max_norm, total_norm, foreach)
    return total_norm


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    import warnings
    warnings.warn("`lucid.nn.utils.clip_grad_norm` is now deprecated in favor of `lucid.nn.utils.clip_grad_norm_`.",
                  FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamps every gradient to [-clip_value, clip_value] in place."""
    clip_value = float(clip_value)
    with no_grad():
        for p in _tensors(parameters):
            if p.grad is None:
                continue
            g = p.grad
            if hasattr(g, "clamp_"):
                g.clamp_(min=-clip_value, max=clip_value)
            else:  # until the op library's clamp lands: clamp on the host values
                import numpy as np
                g.copy_(_C.from_numpy(np.ascontiguousarray(np.clip(g.contiguous().numpy(), -clip_value,
                                                                   clip_value))))
