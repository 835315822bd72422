"""Custom differentiable functions (lucid.autograd.Function), as torch.autograd.Function."""
import functools

from lucid import _C
from lucid.autograd.grad_mode import no_grad, is_grad_enabled
from lucid.errors import LucidError, VersionMismatch


class _Packed:
    def __init__(self, packed, unpack):
        self.packed, self._unpack = packed, unpack

    def unpack(self):
        return self._unpack(self.packed)


class FunctionCtx:
    """The `ctx` passed to forward and backward."""

    def __init__(self):
        self._saved = None
        self._released = False
        self._dirty = ()
        self._non_differentiable = ()
        self.materialize_grads = True
        self.needs_input_grad = ()

    def save_for_backward(self, *tensors):
        from lucid.autograd.graph import _current_hooks
        hooks = _current_hooks()
        if hooks is None:
            self._saved = [(t, t._version if t is not None else None) for t in tensors]
        else:  # pack now, unpack when backward reads them (autograd.graph.saved_tensors_hooks)
            pack, unpack = hooks
            self._saved = [(_Packed(pack(t.detach()), unpack), None) if t is not None else (None, None)
                           for t in tensors]

    @property
    def saved_tensors(self):
        if self._released:
            raise LucidError("Trying to backward through the graph a second time (or directly access saved tensors "
                             "after they have already been freed). Specify retain_graph=True if you need to backward "
                             "through the graph a second time.")
        out = []
        for t, v in self._saved or []:
            if isinstance(t, _Packed):
                out.append(t.unpack())
                continue
            if t is not None and t._version != v:
                raise VersionMismatch(f"one of the tensors needed for gradient computation has been modified by an "
                                      f"inplace operation: saved at version {v}, now at version {t._version}")
            out.append(t)
        return tuple(out)

    def mark_dirty(self, *tensors):
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors):
        self._non_differentiable = tensors

    def set_materialize_grads(self, value):
        self.materialize_grads = bool(value)

    def _release(self):
        had = bool(self._saved)
        self._saved = None
        self._released = True
        return had


def _sum_to(g, shape):
    """A gradient broadcast over `shape`, summed back to it (None when it does not broadcast)."""
    lead = g.dim() - len(shape)
    if lead < 0:
        return g
    dims = list(range(lead)) + [lead + i for i, s in enumerate(shape) if s == 1 and g.shape[lead + i] != 1]
    if any(s != 1 and g.shape[lead + i] != s for i, s in enumerate(shape)):
        return g
    return (g.sum(dims, keepdim=True) if dims else g).reshape(shape)


def _contains(seq, t):
    return any(s is t for s in seq)


class Function:
    """Subclass with static forward(ctx, *args) and backward(ctx, *grad_outputs); call Cls.apply(*args)."""

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("Function subclasses implement forward(ctx, ...)")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("Function subclasses implement backward(ctx, ...)")

    @classmethod
    def apply(cls, *args, **kwargs):
        ctx = FunctionCtx()
        tensor_inputs = [a for a in args if isinstance(a, _C.Tensor)]
        grad_on = is_grad_enabled()
        ctx.needs_input_grad = tuple(isinstance(a, _C.Tensor) and grad_on and a.requires_grad for a in args)
        with no_grad():
            outputs = cls.forward(ctx, *args, **kwargs)
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        if not (grad_on and any(t.requires_grad for t in tensor_inputs)):
            return outputs
        for t in ctx._dirty:
            if t.is_leaf and t.requires_grad:
                raise LucidError(f"{cls.__name__}: a leaf tensor that requires grad has been modified in place "
                                 "(mark_dirty)")
        # An input returned as it is (and not marked dirty) becomes a new tensor sharing its memory.
        outs = tuple(o.detach() if isinstance(o, _C.Tensor) and _contains(tensor_inputs, o) and
                     not _contains(ctx._dirty, o) else o for o in outs)
        diff = [i for i, o in enumerate(outs) if isinstance(o, _C.Tensor) and not _contains(ctx._non_differentiable, o)
                and (o.dtype.is_floating_point or o.dtype.is_complex)]
        n_out = len(outs)
        arg_tensor_pos = [i for i, a in enumerate(args) if isinstance(a, _C.Tensor)]

        def backward_fn(grads):
            full = [None] * n_out
            for slot, i in enumerate(diff):
                full[i] = grads[slot]
            if ctx.materialize_grads:
                for i, o in enumerate(outs):
                    if full[i] is None and isinstance(o, _C.Tensor):
                        full[i] = _C.zeros(list(o.shape), o.dtype, o.device)
            res = cls.backward(ctx, *full)
            if not isinstance(res, tuple):
                res = (res,)
            if len(res) < len(args) or any(g is not None for g in res[len(args):]):
                raise LucidError(f"function {cls.__name__}Backward returned an incorrect number of gradients "
                                 f"(expected {len(args)}, got {len(res)})")
            picked = []
            for i in arg_tensor_pos:
                g, a = res[i], args[i]
                if g is not None and tuple(g.shape) != tuple(a.shape):
                    g = _sum_to(g, tuple(a.shape))
                if g is not None and tuple(g.shape) != tuple(a.shape):
                    raise LucidError(f"function {cls.__name__}Backward returned an invalid gradient at index {i} - "
                                     f"got {list(g.shape)} but expected shape compatible with {list(a.shape)}")
                picked.append(g if (g is None or a.requires_grad) else None)
            return tuple(picked)

        _C._record_function(cls.__name__ + "Backward", backward_fn, ctx._release, tensor_inputs,
                            [outs[i] for i in diff], ctx.materialize_grads)
        return outs[0] if single else outs


def once_differentiable(fn):
    """Marks a backward as not differentiable itself: it runs without recording a graph."""
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with no_grad():
            return fn(ctx, *args)
    return wrapper
