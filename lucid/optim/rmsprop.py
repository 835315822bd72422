"""RMSprop (PyTorch's algorithm: alpha, eps, weight_decay, momentum, centered, maximize)."""
from lucid import _C
from lucid.optim._base import _PerParamOptimizer, _scalar_tensor, _check, _optional
from lucid.optim.optimizer import _to_scalar

__all__ = ["RMSprop"]


class RMSprop(_PerParamOptimizer):
    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        _check(0.0 <= _to_scalar(lr), f"Invalid learning rate: {lr}")
        _check(0.0 <= eps, f"Invalid epsilon value: {eps}")
        _check(0.0 <= momentum, f"Invalid momentum value: {momentum}")
        _check(0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}")
        _check(0.0 <= alpha, f"Invalid alpha value: {alpha}")
        super().__init__(params, dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                                      weight_decay=weight_decay, capturable=capturable, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable))

    def _init_state(self, p, state, group):
        state["step"] = _scalar_tensor(0)
        state["square_avg"] = _C.zeros(list(p.shape), p.dtype, p.device)
        if group["momentum"] > 0:
            state["momentum_buffer"] = _C.zeros(list(p.shape), p.dtype, p.device)
        if group["centered"]:
            state["grad_avg"] = _C.zeros(list(p.shape), p.dtype, p.device)

    def _fused_step(self, group, params, grads, states, lr):
        _C._rmsprop_step_(params, grads, [s["square_avg"] for s in states],
                          _optional(states, "grad_avg", group["centered"]),
                          _optional(states, "momentum_buffer", group["momentum"] > 0), [s["step"] for s in states],
                          lr=lr, alpha=group["alpha"], eps=group["eps"], weight_decay=group["weight_decay"],
                          momentum=group["momentum"], centered=group["centered"], maximize=group["maximize"])

    def _update(self, p, grad, state, group, lr):
        _rmsprop_update(p, grad, state, lr=lr, alpha=group["alpha"], eps=group["eps"],
                        weight_decay=group["weight_decay"], momentum=group["momentum"], centered=group["centered"])


def _rmsprop_update(param, grad, state, *, lr, alpha, eps, weight_decay, momentum, centered):
    state["step"].add_(1)
    if weight_decay != 0:
        grad = grad.add(param, alpha=weight_decay)
    square_avg = state["square_avg"]
    square_avg.mul_(alpha).add_(grad * grad, alpha=1 - alpha)
    if centered:
        grad_avg = state["grad_avg"]
        grad_avg.add_(grad.sub(grad_avg), alpha=1 - alpha)  # lerp_(grad, 1 - alpha)
        avg = square_avg.sub(grad_avg * grad_avg).sqrt()
    else:
        avg = square_avg.sqrt()
    avg = avg.add(eps)
    if momentum > 0:
        buf = state["momentum_buffer"]
        buf.mul_(momentum).add_(grad / avg)
        param.add_(buf, alpha=-lr)
    else:
        param.add_(grad / avg, alpha=-lr)
