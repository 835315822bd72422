"""lucid.autograd: reverse-mode automatic differentiation (spec 000/001).

The engine is C++ (engine/autograd/); this module parses arguments the way PyTorch does."""
from lucid import _C
from lucid.autograd.grad_mode import (no_grad, enable_grad, set_grad_enabled, inference_mode, is_grad_enabled,
                                      is_inference_mode_enabled)

from lucid.autograd.function import Function, FunctionCtx, once_differentiable
from lucid.autograd.gradcheck import gradcheck, gradgradcheck, GradcheckError

from lucid.utils.checkpoint import checkpoint, checkpoint_sequential
from lucid.autograd import functional
from lucid.autograd import graph
from lucid.autograd.anomaly_mode import detect_anomaly, set_detect_anomaly, is_anomaly_enabled, \
    is_anomaly_check_nan_enabled

Node = _C.Node


def _as_list(x):
    if x is None:
        return []
    if isinstance(x, _C.Tensor):
        return [x]
    return list(x)


def _make_grads(outputs, grad_outputs, fn_name):
    grads = _as_list(grad_outputs) if grad_outputs is not None else [None] * len(outputs)
    if len(grads) != len(outputs):
        raise ValueError(f"{fn_name}: got {len(outputs)} tensors and {len(grads)} gradients")
    out = []
    for t, g in zip(outputs, grads):
        if g is None:
            if t.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs "
                                   f"(got a tensor of shape {tuple(t.shape)}); pass `gradient`")
            g = _C.ones(list(t.shape), t.dtype, t.device)
        elif not isinstance(g, _C.Tensor):
            g = _C.full(list(t.shape), g, t.dtype, t.device)
        out.append(g)
    return out


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulates gradients of `tensors` into the .grad of the leaves (or of `inputs` only)."""
    tensors = _as_list(tensors)
    if retain_graph is None:
        retain_graph = create_graph
    inputs = _as_list(inputs)
    grads = _make_grads(tensors, grad_tensors, "backward")
    _C._run_backward(tensors, grads, inputs, bool(retain_graph), bool(create_graph), True, False)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, allow_unused=False,
         materialize_grads=False):
    """Returns the gradients of `outputs` with respect to `inputs` (nothing is added to .grad)."""
    single = isinstance(inputs, _C.Tensor)
    outputs, inputs_l = _as_list(outputs), _as_list(inputs)
    if retain_graph is None:
        retain_graph = create_graph
    grads = _make_grads(outputs, grad_outputs, "grad")
    res = _C._run_backward(outputs, grads, inputs_l, bool(retain_graph), bool(create_graph), False,
                           bool(allow_unused or materialize_grads))
    if materialize_grads:
        res = [r if r is not None else _C.zeros(list(i.shape), i.dtype, i.device) for r, i in zip(res, inputs_l)]
    return tuple(res)


__all__ = ["Function", "FunctionCtx", "once_differentiable", "gradcheck", "gradgradcheck", "GradcheckError",
           "backward", "grad", "no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "is_grad_enabled",
           "is_inference_mode_enabled", "Node"]
