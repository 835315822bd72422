"""SGD with momentum, dampening, Nesterov, weight decay and maximize (PyTorch's algorithm). A param
group's update is one fused engine call (`_C._sgd_step_` over the lists); complex parameters and
other devices take `_sgd_update_ops`, written over lucid ops."""
from lucid import _C
from lucid.autograd.grad_mode import no_grad, enable_grad
from lucid.optim._base import _check_fused, _fusable
from lucid.optim.optimizer import Optimizer, _to_scalar

Tensor = _C.Tensor

__all__ = ["SGD", "sgd"]


def _sgd_fused(params, grads, bufs, *, lr, momentum, dampening, nesterov, weight_decay, maximize):
    """One fused engine call over the lists; returns the momentum buffers (new ones where None)."""
    return _C._sgd_step_(params, grads, bufs if momentum != 0 else None, lr=lr, momentum=momentum,
                         dampening=dampening, weight_decay=weight_decay, nesterov=nesterov, maximize=maximize)


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
    """Functional SGD over lists (torch.optim.sgd.sgd's signature): the real floating CPU parameters
    take one fused engine call, the others (complex, other devices) the op path one by one."""
    lr = _to_scalar(lr)
    kw = dict(lr=lr, momentum=momentum, dampening=dampening, nesterov=nesterov, weight_decay=weight_decay,
              maximize=maximize)
    fast = [i for i, (p, g) in enumerate(zip(params, d_p_list)) if _fusable(p, g)]
    if len(fast) == len(params):
        bufs = _sgd_fused(params, d_p_list, momentum_buffer_list, **kw)
        if momentum != 0:
            momentum_buffer_list[:] = bufs
        return
    if fast:
        bufs = _sgd_fused([params[i] for i in fast], [d_p_list[i] for i in fast],
                          [momentum_buffer_list[i] for i in fast] if momentum != 0 else None, **kw)
        if momentum != 0:
            for i, b in zip(fast, bufs):
                momentum_buffer_list[i] = b
    fast = set(fast)
    with no_grad():
        for i, param in enumerate(params):
            if i in fast:
                continue
            buf = momentum_buffer_list[i] if momentum != 0 else None
            buf = _sgd_update_ops(param, d_p_list[i], buf, **kw)
            if momentum != 0:
                momentum_buffer_list[i] = buf


def _sgd_differentiable(params, grads, bufs, group):
    """differentiable=True: the op path with autograd recording (PyTorch's differentiable step)."""
    with enable_grad():
        for i, (p, g) in enumerate(zip(params, grads)):
            buf = _sgd_update_ops(p, g, bufs[i] if group["momentum"] != 0 else None, lr=_to_scalar(group["lr"]),
                                  momentum=group["momentum"], dampening=group["dampening"],
                                  nesterov=group["nesterov"], weight_decay=group["weight_decay"],
                                  maximize=group["maximize"])
            if group["momentum"] != 0:
                bufs[i] = buf


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
        _check_fused(fused, foreach, differentiable)
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
        for group in self.param_groups:
            params, grads, bufs = [], [], []
            momentum = group["momentum"]
            for p in group["params"]:
                g = p.grad
                if g is not None:
                    params.append(p)
                    grads.append(g)
                    if momentum != 0:
                        bufs.append(self.state[p].get("momentum_buffer"))
            if not params:
                continue
            if group["differentiable"]:
                _sgd_differentiable(params, grads, bufs, group)
            else:
                sgd(params, grads, bufs, weight_decay=group["weight_decay"], momentum=momentum, lr=group["lr"],
                    dampening=group["dampening"], nesterov=group["nesterov"], maximize=group["maximize"])
            if momentum != 0:
                for p, buf in zip(params, bufs):
                    self.state[p]["momentum_buffer"] = buf
        return loss
