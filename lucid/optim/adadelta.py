"""Adadelta (PyTorch's algorithm: lr, rho, eps, weight_decay, maximize)."""
from lucid import _C
from lucid.optim._base import _PerParamOptimizer, _scalar_tensor, _check
from lucid.optim.optimizer import _to_scalar

__all__ = ["Adadelta"]


class Adadelta(_PerParamOptimizer):
    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *, capturable=False,
                 maximize=False, differentiable=False):
        _check(0.0 <= _to_scalar(lr), f"Invalid learning rate: {lr}")
        _check(0.0 <= rho <= 1.0, f"Invalid rho value: {rho}")
        _check(0.0 <= eps, f"Invalid epsilon value: {eps}")
        _check(0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize,
                                      capturable=capturable, foreach=foreach, differentiable=differentiable))

    def _init_state(self, p, state, group):
        state["step"] = _scalar_tensor(0)
        state["square_avg"] = _C.zeros(list(p.shape), p.dtype, p.device)
        state["acc_delta"] = _C.zeros(list(p.shape), p.dtype, p.device)

    def _fused_step(self, group, params, grads, states, lr):
        _C._adadelta_step_(params, grads, [s["square_avg"] for s in states], [s["acc_delta"] for s in states],
                           [s["step"] for s in states], lr=lr, rho=group["rho"], eps=group["eps"],
                           weight_decay=group["weight_decay"], maximize=group["maximize"])

    def _update(self, p, grad, state, group, lr):
        rho, eps = group["rho"], group["eps"]
        state["step"].add_(1)
        if group["weight_decay"] != 0:
            grad = grad.add(p, alpha=group["weight_decay"])
        square_avg, acc_delta = state["square_avg"], state["acc_delta"]
        square_avg.mul_(rho).add_(grad * grad, alpha=1 - rho)
        std = square_avg.add(eps).sqrt()
        delta = acc_delta.add(eps).sqrt()
        delta = delta.div(std).mul(grad)
        acc_delta.mul_(rho).add_(delta * delta, alpha=1 - rho)
        p.add_(delta, alpha=-lr)
