"""Adamax (PyTorch's algorithm: the infinity-norm variant of Adam)."""
from lucid import _C
from lucid.optim._base import _PerParamOptimizer, _scalar_tensor, _check
from lucid.optim.adam import _maximum_
from lucid.optim.optimizer import _to_scalar

__all__ = ["Adamax"]


class Adamax(_PerParamOptimizer):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *,
                 maximize=False, differentiable=False, capturable=False):
        _check(0.0 <= _to_scalar(lr), f"Invalid learning rate: {lr}")
        _check(0.0 <= eps, f"Invalid epsilon value: {eps}")
        _check(0.0 <= betas[0] < 1.0, f"Invalid beta parameter at index 0: {betas[0]}")
        _check(0.0 <= betas[1] < 1.0, f"Invalid beta parameter at index 1: {betas[1]}")
        _check(0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable, capturable=capturable))

    def _init_state(self, p, state, group):
        state["step"] = _scalar_tensor(0)
        state["exp_avg"] = _C.zeros(list(p.shape), p.dtype, p.device)
        state["exp_inf"] = _C.zeros(list(p.shape), p.dtype, p.device)

    def _fused_step(self, group, params, grads, states, lr):
        beta1, beta2 = group["betas"]
        _C._adamax_step_(params, grads, [s["exp_avg"] for s in states], [s["exp_inf"] for s in states],
                         [s["step"] for s in states], lr=lr, beta1=beta1, beta2=beta2, eps=group["eps"],
                         weight_decay=group["weight_decay"], maximize=group["maximize"])

    def _update(self, p, grad, state, group, lr):
        beta1, beta2 = group["betas"]
        state["step"].add_(1)
        if group["weight_decay"] != 0:
            grad = grad.add(p, alpha=group["weight_decay"])
        exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
        exp_avg.add_(grad.sub(exp_avg), alpha=1 - beta1)
        _maximum_(exp_inf.mul_(beta2), grad.abs().add(group["eps"]))
        clr = lr / (1 - beta1 ** state["step"].item())
        p.add_(exp_avg / exp_inf, alpha=-clr)
