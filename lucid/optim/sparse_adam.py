"""SparseAdam (PyTorch's masked Adam for sparse gradients, such as nn.Embedding(sparse=True)'s).

lucid has no sparse tensors, so the gradient is dense and stands for a sparse one: a row of the
gradient (a slice along dim 0; each element of a 1-d parameter) that is entirely zero counts as
absent, and that row of the parameter, exp_avg and exp_avg_sq is left as it is, exactly as PyTorch
leaves the rows a sparse gradient does not hold. The rows present update as PyTorch's sparse path
updates them (same arithmetic, same rounding). Where PyTorch's sparse gradient holds a row whose
values all happen to be zero, PyTorch still decays that row's moments and lucid does not: the one
difference. As in PyTorch, state["step"] is a Python int counting the steps with a gradient."""
from lucid import _C
from lucid.optim._base import _check
from lucid.optim.optimizer import Optimizer, _to_scalar

__all__ = ["SparseAdam"]


class SparseAdam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize=False):
        _check(0.0 < _to_scalar(lr), f"Invalid learning rate: {lr}")
        _check(0.0 < eps, f"Invalid epsilon value: {eps}")
        _check(0.0 <= betas[0] < 1.0, f"Invalid beta parameter at index 0: {betas[0]}")
        _check(0.0 <= betas[1] < 1.0, f"Invalid beta parameter at index 1: {betas[1]}")
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, maximize=maximize))
        for group in self.param_groups:
            for p in group["params"]:
                if p.dtype.is_complex or not p.dtype.is_floating_point:
                    raise ValueError(f"SparseAdam requires real floating-point parameters, got {p.dtype}")

    def step(self, closure=None):
        loss = None
        if closure is not None:
            from lucid.autograd.grad_mode import enable_grad
            with enable_grad():
                loss = closure()
        for group in self.param_groups:
            params, grads, exp_avgs, exp_avg_sqs, steps = [], [], [], [], []
            for p in group["params"]:
                g = p.grad
                if g is None:
                    continue
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = 0
                    state["exp_avg"] = _C.zeros(list(p.shape), p.dtype, p.device)
                    state["exp_avg_sq"] = _C.zeros(list(p.shape), p.dtype, p.device)
                state["step"] += 1
                params.append(p)
                grads.append(g)
                exp_avgs.append(state["exp_avg"])
                exp_avg_sqs.append(state["exp_avg_sq"])
                steps.append(state["step"])
            if params:
                beta1, beta2 = group["betas"]
                _C._sparse_adam_step_(params, grads, exp_avgs, exp_avg_sqs, steps, lr=_to_scalar(group["lr"]),
                                      beta1=beta1, beta2=beta2, eps=group["eps"],
                                      maximize=group.get("maximize", False))
        return loss
