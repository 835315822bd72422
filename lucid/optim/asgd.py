"""ASGD, averaged SGD (PyTorch's algorithm; eta and mu kept as float32 scalars as PyTorch keeps them)."""
from lucid import _C
from lucid.optim._base import _PerParamOptimizer, _scalar_tensor, _check
from lucid.optim.optimizer import _to_scalar

__all__ = ["ASGD"]


class ASGD(_PerParamOptimizer):
    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, foreach=None,
                 maximize=False, differentiable=False, capturable=False):
        _check(0.0 <= _to_scalar(lr), f"Invalid learning rate: {lr}")
        _check(0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay,
                                      foreach=foreach, maximize=maximize, differentiable=differentiable,
                                      capturable=capturable))

    def _init_state(self, p, state, group):
        state["step"] = _scalar_tensor(0)
        state["eta"] = _scalar_tensor(_to_scalar(group["lr"]))
        state["mu"] = _scalar_tensor(1.0)
        state["ax"] = _C.zeros(list(p.shape), p.dtype, p.device)

    def _fused_step(self, group, params, grads, states, lr):
        _C._asgd_step_(params, grads, [s["ax"] for s in states], [s["eta"] for s in states],
                       [s["mu"] for s in states], [s["step"] for s in states], lr=lr, lambd=group["lambd"],
                       alpha=group["alpha"], t0=group["t0"], weight_decay=group["weight_decay"],
                       maximize=group["maximize"])

    def _update(self, p, grad, state, group, lr):
        lambd, alpha, t0 = group["lambd"], group["alpha"], group["t0"]
        state["step"].add_(1)
        if group["weight_decay"] != 0:
            grad = grad.add(p, alpha=group["weight_decay"])
        eta_value = state["eta"].item()
        p.mul_(1 - lambd * eta_value)
        p.add_(grad, alpha=-eta_value)
        ax = state["ax"]
        if state["mu"].item() != 1:
            ax.add_(p.sub(ax).mul_(state["mu"].item()))
        else:
            ax.copy_(p)
        step = state["step"].item()
        state["eta"].fill_(lr / (1 + lambd * lr * step) ** alpha)
        state["mu"].fill_(1 / max(1, step - t0))
