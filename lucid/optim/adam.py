"""Adam and AdamW (PyTorch's algorithm, incl. amsgrad, maximize, decoupled weight decay). A param
group's update is one fused engine call (`_C._adam_step_` over the lists); complex parameters and
other devices take `_adam_update_ops`, written over lucid ops. State matches PyTorch's: step (a 0-d
float32 tensor), exp_avg, exp_avg_sq, max_exp_avg_sq (amsgrad)."""
import math

from lucid import _C
from lucid.optim._base import _PerParamOptimizer, _check_fused, _optional
from lucid.optim.optimizer import _to_scalar

Tensor = _C.Tensor

__all__ = ["Adam", "AdamW"]


def _maximum_(dst, src):
    """dst = max(dst, src) elementwise, in place."""
    import lucid
    if hasattr(lucid, "maximum"):
        return dst.copy_(lucid.maximum(dst.clone(), src))  # (clone: maximum's vjp keeps its inputs)
    import numpy as np  # until the op library's maximum lands
    return dst.copy_(_C.from_numpy(np.ascontiguousarray(np.maximum(dst.numpy(), src.numpy()))))


def _adam_update_ops(param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq, step, *, lr, beta1, beta2, eps, weight_decay,
                     amsgrad, maximize, decoupled_weight_decay):
    """_adam_update over lucid ops (complex parameters, devices without the fused kernel)."""
    if maximize:
        grad = grad * -1
    if weight_decay != 0:
        if decoupled_weight_decay:
            param.mul_(1 - lr * weight_decay)
        else:
            grad = grad.add(param, alpha=weight_decay)
    exp_avg.add_(grad.sub(exp_avg), alpha=1 - beta1)  # lerp_(grad, 1 - beta1)
    exp_avg_sq.mul_(beta2).add_(grad * grad, alpha=1 - beta2)
    bias_correction1 = 1 - beta1 ** step
    bias_correction2 = 1 - beta2 ** step
    step_size = lr / bias_correction1
    bias_correction2_sqrt = math.sqrt(bias_correction2)
    if amsgrad:
        _maximum_(max_exp_avg_sq, exp_avg_sq)
        denom = (max_exp_avg_sq.sqrt() / bias_correction2_sqrt).add(eps)
    else:
        denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add(eps)
    param.add_(exp_avg / denom, alpha=-step_size)


class Adam(_PerParamOptimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
                 decoupled_weight_decay=False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= _to_scalar(lr):
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        _check_fused(fused, foreach, differentiable)
        betas = tuple(map(_to_scalar, betas))
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad, maximize=maximize,
                        foreach=foreach, capturable=capturable, differentiable=differentiable, fused=fused,
                        decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("amsgrad", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("capturable", False)
            group.setdefault("differentiable", False)
            group.setdefault("fused", None)
            group.setdefault("decoupled_weight_decay", False)

    def _init_state(self, p, state, group):
        state["step"] = _C.zeros([], _C.float32, _C.device("cpu"))
        state["exp_avg"] = _C.zeros(list(p.shape), p.dtype, p.device)
        state["exp_avg_sq"] = _C.zeros(list(p.shape), p.dtype, p.device)
        if group["amsgrad"]:
            state["max_exp_avg_sq"] = _C.zeros(list(p.shape), p.dtype, p.device)

    def _fused_step(self, group, params, grads, states, lr):
        beta1, beta2 = group["betas"]
        _C._adam_step_(params, grads, [s["exp_avg"] for s in states], [s["exp_avg_sq"] for s in states],
                       _optional(states, "max_exp_avg_sq", group["amsgrad"]), [s["step"] for s in states], lr=lr,
                       beta1=beta1, beta2=beta2, eps=group["eps"], weight_decay=group["weight_decay"],
                       amsgrad=group["amsgrad"], maximize=group["maximize"],
                       decoupled_weight_decay=group["decoupled_weight_decay"])

    def _update(self, p, grad, state, group, lr):
        beta1, beta2 = group["betas"]
        state["step"].add_(1)
        # (grad is already negated under maximize)
        _adam_update_ops(p, grad, state["exp_avg"], state["exp_avg_sq"], state.get("max_exp_avg_sq"),
                         state["step"].item(), lr=lr, beta1=beta1, beta2=beta2, eps=group["eps"],
                         weight_decay=group["weight_decay"], amsgrad=group["amsgrad"], maximize=False,
                         decoupled_weight_decay=group["decoupled_weight_decay"])


class AdamW(Adam):
    """Adam with decoupled weight decay (default weight_decay=1e-2)."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False, differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True
