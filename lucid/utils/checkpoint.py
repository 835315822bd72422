"""Activation checkpointing: run a block without keeping its intermediate results, and recompute
them during backward (same gradients, less memory), as torch.utils.checkpoint."""
from lucid import _C
from lucid import _random
from lucid.autograd.function import Function
from lucid.autograd.grad_mode import enable_grad, no_grad


class _CheckpointFunction(Function):
    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        ctx.run_function = run_function
        ctx.preserve_rng_state = preserve_rng_state
        ctx.rng_state = _random.default_generator.get_state() if preserve_rng_state else None
        ctx.tensor_idx = [i for i, a in enumerate(args) if isinstance(a, _C.Tensor)]
        ctx.args = [None if isinstance(a, _C.Tensor) else a for a in args]
        ctx.save_for_backward(*[a for a in args if isinstance(a, _C.Tensor)])
        with no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *grads):
        from lucid import autograd
        saved = ctx.saved_tensors
        args = list(ctx.args)
        detached = []
        for i, t in zip(ctx.tensor_idx, saved):
            d = t.detach()
            d.requires_grad = t.requires_grad
            args[i] = d
            detached.append(d)
        if ctx.preserve_rng_state:
            current = _random.default_generator.get_state()
            _random.default_generator.set_state(ctx.rng_state)
        try:
            with enable_grad():
                outputs = ctx.run_function(*args)
        finally:
            if ctx.preserve_rng_state:
                _random.default_generator.set_state(current)
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        pairs = [(o, g) for o, g in zip(outputs, grads)
                 if isinstance(o, _C.Tensor) and o.requires_grad and g is not None]
        # backward() (not grad()) so parameters the block closes over get their gradients too.
        if pairs:
            autograd.backward([o for o, _ in pairs], [g for _, g in pairs])
        result = [None, None] + [None] * len(args)
        for i, d in zip(ctx.tensor_idx, detached):
            result[2 + i] = d.grad if d.requires_grad else None
        return tuple(result)


def checkpoint(function, *args, use_reentrant=None, preserve_rng_state=True, **kwargs):
    """Runs function(*args) without saving its intermediates; backward recomputes them."""
    if kwargs:
        raise ValueError(f"checkpoint: unexpected keyword arguments {sorted(kwargs)}")
    return _CheckpointFunction.apply(function, preserve_rng_state, *args)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, preserve_rng_state=True):  # noqa: A002
    """Splits a sequence of functions (or an nn.Sequential) into `segments` checkpointed chunks."""
    functions = list(functions.children()) if hasattr(functions, "children") else list(functions)
    n = len(functions)
    size = n // segments if segments > 0 else n

    def run(start, end):
        def f(x):
            for fn in functions[start:end + 1]:
                x = fn(x)
            return x
        return f

    # As PyTorch: segments-1 checkpointed chunks of n // segments functions, then the rest directly
    # (the last segment keeps its graph).
    end = -1
    x = input
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        x = checkpoint(run(start, end), x, preserve_rng_state=preserve_rng_state)
    return run(end + 1, n - 1)(x)
