"""The loop shared by the per-parameter optimizers: closure, no_grad, lazy state, one update call per
parameter with a gradient. Subclasses define _init_state(p, group) and _update(p, grad, state, group)."""
from lucid import _C
from lucid.autograd.grad_mode import no_grad, enable_grad
from lucid.optim.optimizer import Optimizer, _to_scalar

Tensor = _C.Tensor


def _scalar_tensor(value):
    """A 0-d float32 CPU tensor: PyTorch keeps step counts (and NAdam's/ASGD's scalars) in these."""
    return _C.full([], float(value), _C.float32, _C.device("cpu"))


def _check(cond, msg):
    if not cond:
        raise ValueError(msg)


class _PerParamOptimizer(Optimizer):
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        with no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    state = self.state[p]
                    if len(state) == 0:
                        self._init_state(p, state, group)
                    grad = p.grad if not group.get("maximize", False) else p.grad * -1
                    self._update(p, grad, state, group, _to_scalar(group["lr"]))
        return loss

    def _init_state(self, p, state, group):
        raise NotImplementedError

    def _update(self, p, grad, state, group, lr):
        raise NotImplementedError
