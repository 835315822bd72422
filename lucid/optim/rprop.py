"""Rprop (PyTorch's algorithm: etas, step_sizes, maximize). The sign bookkeeping runs on host NumPy
arrays until the op library's where/clamp are in place (the fused kernel replaces all of it)."""
from lucid import _C
from lucid.optim._base import _PerParamOptimizer, _scalar_tensor, _check
from lucid.optim.optimizer import _to_scalar

__all__ = ["Rprop"]


class Rprop(_PerParamOptimizer):
    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, capturable=False, foreach=None,
                 maximize=False, differentiable=False):
        _check(0.0 <= _to_scalar(lr), f"Invalid learning rate: {lr}")
        _check(0.0 < etas[0] < 1.0 < etas[1], f"Invalid eta values: {etas[0]}, {etas[1]}")
        super().__init__(params, dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach, maximize=maximize,
                                      differentiable=differentiable, capturable=capturable))

    def _init_state(self, p, state, group):
        state["step"] = _scalar_tensor(0)
        state["prev"] = _C.zeros(list(p.shape), p.dtype, p.device)
        lr = _to_scalar(group["lr"])
        lr = complex(lr, lr) if p.dtype.is_complex else lr  # (real and imaginary parts count as two reals)
        state["step_size"] = _C.full(list(p.shape), lr, p.dtype, p.device)

    def _fused_step(self, group, params, grads, states, lr):
        etaminus, etaplus = group["etas"]
        step_size_min, step_size_max = group["step_sizes"]
        _C._rprop_step_(params, grads, [s["prev"] for s in states], [s["step_size"] for s in states],
                        [s["step"] for s in states], etaminus=etaminus, etaplus=etaplus, step_size_min=step_size_min,
                        step_size_max=step_size_max, maximize=group["maximize"])

    def _update(self, p, grad, state, group, lr):
        import numpy as np
        etaminus, etaplus = group["etas"]
        step_size_min, step_size_max = group["step_sizes"]
        state["step"].add_(1)
        g = grad.contiguous().numpy()
        prev = state["prev"].contiguous().numpy()
        step_size = state["step_size"].contiguous().numpy()
        dt = g.dtype.type
        sign = np.sign(g * prev)
        sign = np.where(sign > 0, dt(etaplus), np.where(sign < 0, dt(etaminus), dt(1)))
        step_size = np.clip(step_size * sign, dt(step_size_min), dt(step_size_max))
        g = np.where(sign == dt(etaminus), dt(0), g)
        p.add_(_C.from_numpy(np.ascontiguousarray(np.sign(g) * step_size)), alpha=-1)
        state["prev"].copy_(_C.from_numpy(np.ascontiguousarray(g)))
        state["step_size"].copy_(_C.from_numpy(np.ascontiguousarray(step_size)))
