"""NAdam (PyTorch's algorithm: momentum_decay, decoupled weight decay; mu_product kept in float32 as
PyTorch keeps it)."""
from lucid import _C
from lucid.optim._base import _PerParamOptimizer, _scalar_tensor, _check
from lucid.optim.optimizer import _to_scalar

__all__ = ["NAdam"]


class NAdam(_PerParamOptimizer):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False):
        _check(0.0 <= _to_scalar(lr), f"Invalid learning rate: {lr}")
        _check(0.0 <= eps, f"Invalid epsilon value: {eps}")
        _check(0.0 <= betas[0] < 1.0, f"Invalid beta parameter at index 0: {betas[0]}")
        _check(0.0 <= betas[1] < 1.0, f"Invalid beta parameter at index 1: {betas[1]}")
        _check(0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}")
        _check(0.0 <= momentum_decay, f"Invalid momentum_decay value: {momentum_decay}")
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      momentum_decay=momentum_decay, decoupled_weight_decay=decoupled_weight_decay,
                                      maximize=maximize, foreach=foreach, capturable=capturable,
                                      differentiable=differentiable))

    def _init_state(self, p, state, group):
        state["step"] = _scalar_tensor(0)
        state["mu_product"] = _scalar_tensor(1.0)
        state["exp_avg"] = _C.zeros(list(p.shape), p.dtype, p.device)
        state["exp_avg_sq"] = _C.zeros(list(p.shape), p.dtype, p.device)

    def _fused_step(self, group, params, grads, states, lr):
        beta1, beta2 = group["betas"]
        _C._nadam_step_(params, grads, [s["exp_avg"] for s in states], [s["exp_avg_sq"] for s in states],
                        [s["mu_product"] for s in states], [s["step"] for s in states], lr=lr, beta1=beta1,
                        beta2=beta2, eps=group["eps"], weight_decay=group["weight_decay"],
                        momentum_decay=group["momentum_decay"],
                        decoupled_weight_decay=group["decoupled_weight_decay"], maximize=group["maximize"])

    def _update(self, p, grad, state, group, lr):
        beta1, beta2 = group["betas"]
        wd, md, eps = group["weight_decay"], group["momentum_decay"], group["eps"]
        state["step"].add_(1)
        step = state["step"].item()
        bias_correction2 = 1 - beta2 ** step
        if wd != 0:
            if group["decoupled_weight_decay"]:
                p.mul_(1 - lr * wd)
            else:
                grad = grad.add(p, alpha=wd)
        mu = beta1 * (1.0 - 0.5 * 0.96 ** (step * md))
        mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((step + 1) * md))
        mu_product = state["mu_product"].mul_(mu).item()
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        exp_avg.add_(grad.sub(exp_avg), alpha=1 - beta1)
        exp_avg_sq.mul_(beta2).add_(grad * grad, alpha=1 - beta2)
        denom = (exp_avg_sq / bias_correction2).sqrt()
        mu_product_next = mu_product * mu_next
        denom = denom.add(eps)
        p.add_(grad / denom, alpha=-lr * (1.0 - mu) / (1.0 - mu_product))
        p.add_(exp_avg / denom, alpha=-lr * mu_next / (1.0 - mu_product_next))
