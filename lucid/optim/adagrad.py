"""Adagrad (PyTorch's algorithm: lr_decay, weight_decay, initial_accumulator_value, eps, maximize).
As in PyTorch, the state of every parameter is created in the constructor."""
from lucid import _C
from lucid.optim._base import _PerParamOptimizer, _scalar_tensor, _check, _check_fused
from lucid.optim.optimizer import _to_scalar

__all__ = ["Adagrad"]


class Adagrad(_PerParamOptimizer):
    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 foreach=None, *, maximize=False, differentiable=False, fused=None):
        _check(0.0 <= _to_scalar(lr), f"Invalid learning rate: {lr}")
        _check(0.0 <= lr_decay, f"Invalid lr_decay value: {lr_decay}")
        _check(0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}")
        _check(0.0 <= initial_accumulator_value,
               f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        _check(0.0 <= eps, f"Invalid epsilon value: {eps}")
        _check_fused(fused, foreach, differentiable)
        super().__init__(params, dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                                      initial_accumulator_value=initial_accumulator_value, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable, fused=fused))
        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(p, self.state[p], group)

    def share_memory(self):
        """Moves the state sums to shared memory (torch's Adagrad.share_memory)."""
        for group in self.param_groups:
            for p in group["params"]:
                self.state[p]["sum"].share_memory_()

    def _init_state(self, p, state, group):
        state["step"] = _scalar_tensor(0)
        v = group["initial_accumulator_value"]
        v = complex(v, v) if p.dtype.is_complex else v  # (real and imaginary parts count as two reals)
        state["sum"] = _C.full(list(p.shape), v, p.dtype, p.device)

    def _fused_step(self, group, params, grads, states, lr):
        _C._adagrad_step_(params, grads, [s["sum"] for s in states], [s["step"] for s in states], lr=lr,
                          lr_decay=group["lr_decay"], eps=group["eps"], weight_decay=group["weight_decay"],
                          maximize=group["maximize"])

    def _update(self, p, grad, state, group, lr):
        state["step"].add_(1)
        step = state["step"].item()
        if group["weight_decay"] != 0:
            grad = grad.add(p, alpha=group["weight_decay"])
        clr = lr / (1 + (step - 1) * group["lr_decay"])
        state["sum"].add_(grad * grad)
        std = state["sum"].sqrt().add(group["eps"])
        p.add_(grad / std, alpha=-clr)
