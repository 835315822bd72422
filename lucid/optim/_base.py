"""The loop shared by the optimizers: closure, lazy state, and one fused engine call per param group.

`step` gathers the parameters of a group that have a gradient, creates their state on first use
(`_init_state`), and hands the real floating CPU ones to `_fused_step(group, params, grads, states,
lr)` (one `_C._<name>_step_` call over the whole list, as torch's foreach/fused paths). Parameters
the kernels do not take (complex, other devices, a gradient of another dtype) go one by one through
`_update(p, grad, state, group, lr)`, written over lucid ops. With differentiable=True every
parameter takes that op path with autograd recording (PyTorch's differentiable step), so the updated
parameters are differentiable with respect to what the update read (initial values, gradients).

foreach/fused/capturable are accepted as PyTorch accepts them (with its checks on combining them);
lucid's step is fused whatever they say, and capturable (CUDA graphs) changes nothing."""


def _check_fused(fused, foreach, differentiable):
    """PyTorch's constructor checks of the fused flag (SGD, Adam, AdamW, Adagrad)."""
    if fused:
        if differentiable:
            raise RuntimeError("`fused` does not support `differentiable`")
        if foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")

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


def _fusable(p, g):
    """Whether the CPU kernels take this parameter (real floating or complex: a complex one is
    updated as its real view, as PyTorch does)."""
    return g.dtype is p.dtype and (p.dtype.is_floating_point or p.dtype.is_complex) and not p.is_cuda


def _optional(states, key, on):
    """The list of state[key] over `states` when the option `on` is set, else None."""
    return [s[key] for s in states] if on else None


class _PerParamOptimizer(Optimizer):
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        state_of = self.state
        for group in self.param_groups:
            params, grads, states, slow = [], [], [], []
            differentiable = group.get("differentiable", False)
            for p in group["params"]:
                g = p.grad
                if g is None:
                    continue
                state = state_of[p]
                if len(state) == 0:
                    self._init_state(p, state, group)
                if differentiable:
                    # fresh copies of the state the last step's graph may have saved, so this step's
                    # in-place updates leave those intact for backward
                    for k, v in state.items():
                        if isinstance(v, Tensor) and v.requires_grad:
                            state[k] = v.clone()
                if not differentiable and _fusable(p, g):
                    params.append(p)
                    grads.append(g)
                    states.append(state)
                else:
                    slow.append((p, g, state))
            lr = _to_scalar(group["lr"])
            if params:
                self._fused_step(group, params, grads, states, lr)
            if slow:
                with enable_grad() if differentiable else no_grad():
                    for p, g, state in slow:
                        self._update(p, g if not group.get("maximize", False) else g * -1, state, group, lr)
        return loss

    def _init_state(self, p, state, group):
        raise NotImplementedError

    def _fused_step(self, group, params, grads, states, lr):
        raise NotImplementedError

    def _update(self, p, grad, state, group, lr):
        raise NotImplementedError
