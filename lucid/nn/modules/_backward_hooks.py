"""Full backward hooks of nn.Module (register_full_backward_hook / _pre_hook), through autograd."""
from lucid import _C

Tensor = _C.Tensor


class _BackwardHookState:
    """Full backward hooks through autograd: inputs and outputs of forward pass through identity
    Functions; the output one sees grad_output (and runs the backward pre-hooks), the input one sees
    grad_input and runs the full backward hooks (as torch.utils.hooks.BackwardHook)."""

    def __init__(self, module, hooks, pre_hooks):
        self.module = module
        self.hooks = hooks
        self.pre_hooks = pre_hooks
        self.grad_outputs = None
        self.n_inputs = 0
        self.input_tensors_index = None

    def _run_hooks(self, grad_inputs):
        res = grad_inputs
        for hook in self.hooks:
            out = hook(self.module, res, self.grad_outputs)
            if out is None:
                continue
            if not isinstance(out, tuple):
                out = (out,)
            if len(out) != len(res):
                raise RuntimeError(f"Backward hook returned an invalid number of grad_input, got {len(out)}, but "
                                   f"expected {len(res)}")
            res = out
        return res

    def setup_input_hook(self, args):
        idx = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        self.n_inputs = len(idx)
        self.input_tensors_index = idx
        from lucid.autograd.grad_mode import is_grad_enabled
        if not idx or not is_grad_enabled() or not any(args[i].requires_grad for i in idx):
            self.input_tensors_index = None
            return args
        state = self

        from lucid.autograd.function import Function

        class _InputHook(Function):
            @staticmethod
            def forward(ctx, *ts):
                return tuple(t.detach() for t in ts)

            @staticmethod
            def backward(ctx, *grads):
                return tuple(state._run_hooks(tuple(grads)))

        new = _InputHook.apply(*[args[i] for i in idx])
        if not isinstance(new, tuple):
            new = (new,)
        args = list(args)
        for i, t in zip(idx, new):
            args[i] = t
        return tuple(args)

    def setup_output_hook(self, result):
        single = isinstance(result, Tensor)
        outs = (result,) if single else (result if isinstance(result, tuple) else None)
        if outs is None:
            return result
        idx = [i for i, o in enumerate(outs) if isinstance(o, Tensor)]
        from lucid.autograd.grad_mode import is_grad_enabled
        if not idx or not is_grad_enabled() or not any(outs[i].requires_grad for i in idx):
            return result
        state = self

        from lucid.autograd.function import Function

        class _OutputHook(Function):
            @staticmethod
            def forward(ctx, *ts):
                return tuple(t.detach() for t in ts)

            @staticmethod
            def backward(ctx, *grads):
                grads = tuple(grads)
                for hook in state.pre_hooks:
                    out = hook(state.module, grads)
                    if out is not None:
                        grads = out if isinstance(out, tuple) else (out,)
                state.grad_outputs = grads
                if state.input_tensors_index is None and state.hooks:
                    # no input needs a gradient: the hooks run now with grad_input of Nones
                    state._run_hooks(tuple(None for _ in range(max(state.n_inputs, 1))))
                return grads

        new = _OutputHook.apply(*[outs[i] for i in idx])
        if not isinstance(new, tuple):
            new = (new,)
        outs = list(outs)
        for i, t in zip(idx, new):
            outs[i] = t
        return outs[0] if single else tuple(outs)
