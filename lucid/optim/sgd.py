"""SGD with momentum, dampening, Nesterov, weight decay and maximize (PyTorch's algorithm). The
per-parameter update is `_sgd_update`, written over lucid ops for now; a fused engine kernel will
replace it without touching the optimizer class."""
from lucid import _C
from lucid.autograd.grad_mode import no_grad, enable_grad
from lucid.optim.optimizer import Optimizer, _to_scalar

Tensor = _C.Tensor

__all__ = ["SGD", "sgd"]


def _sgd_update(param, grad, buf, *, lr, momentum, dampening, nesterov, weight_decay, maximize):
    """One SGD step for one parameter, in place; returns the momentum buffer (None without momentum).
    Real floating parameters on the CPU take the fused engine kernel (one pass); others the ops below."""
    if param.dtype.is_floating_point and not param.is_cuda and grad.dtype is param.dtype:
        first = momentum != 0 and buf is None
        if first:
            buf = _C.zeros(list(param.shape), param.dtype, param.device)
        _C._sgd_step_(param, grad, buf if momentum != 0 else None, lr=lr, momentum=momentum, dampening=dampening,
                      weight_decay=weight_decay, nesterov=nesterov, maximize=maximize, first_step=first)
        return buf if momentum != 0 else None
    return _sgd_update_ops(param, grad, buf, lr=lr, momentum=momentum, dampening=dampening, nesterov=nesterov,
                           weight_decay=weight_decay, maximize=maximize)


def _sgd_update_ops(param, grad, buf, *, lr, momentum, dampening, nesterov, weight_decay, maximize):
    """_sgd_update over lucid ops (complex parameters, devices without the fused kernel)."""
    d_p = grad if not maximize else grad * -1
    if weight_decay != 0:
        d_p = d_p.add(param, alpha=weight_decay)
    if momentum != 0:
        if buf is None:
            buf = d_p.clone().detach()
        else:
            buf.mul_(momentum).add_(d_p, alpha=1 - dampening)
        d_p = d_p.add(buf, alpha=momentum) if nesterov else buf
    param.add_(d_p, alpha=-lr)
    return buf


def sgd(params, d_p_list, momentum_buffer_list, *, weight_decay, momentum, lr, dampening, nesterov, maximize,
        **_):
    """Functional SGD over lists (torch.optim.sgd.sgd's signature, single-tensor path)."""
    lr = _to_scalar(lr)
    for i, param in enumerate(params):
        buf = momentum_buffer_list[i] if momentum != 0 else None
        buf = _sgd_update(param, d_p_list[i], buf, lr=lr, momentum=momentum, dampening=dampening,
                          nesterov=nesterov, weight_decay=weight_decay, maximize=maximize)
        if momentum != 0:
            momentum_buffer_list[i] = buf


class SGD(Optimizer):
    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *, maximize=False,
                 foreach=None, differentiable=False, fused=None):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if _to_scalar(lr) < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay, nesterov=nesterov,
                        maximize=maximize, foreach=foreach, differentiable=differentiable, fused=fused)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("nesterov", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("differentiable", False)
            group.setdefault("fused", False)

    def step(self, closure=None):
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        with no_grad():
            for group in self.param_groups:
                params, grads, bufs = [], [], []
                for p in group["params"]:
                    if p.grad is not None:
                        params.append(p)
                        grads.append(p.grad)
                        if group["momentum"] != 0:
                            bufs.append(self.state[p].get("momentum_buffer"))
                sgd(params, grads, bufs, weight_decay=group["weight_decay"], momentum=group["momentum"],
                    lr=group["lr"], dampening=group["dampening"], nesterov=group["nesterov"],
                    maximize=group["maximize"])
                if group["momentum"] != 0:
                    for p, buf in zip(params, bufs):
                        self.state[p]["momentum_buffer"] = buf
        return loss
