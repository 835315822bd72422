"""Higher-level differentiation: vjp, jvp, jacobian, hessian, hvp, vhp (as torch.autograd.functional).

All are built on autograd.grad; jvp uses the double-backward trick. With create_graph=True the
results stay differentiable."""
from lucid import _C
from lucid.autograd.grad_mode import enable_grad


def _tuple(x):
    return (x, True) if isinstance(x, tuple) else ((x,), False)


def _prepare(inputs, create_graph):
    out = []
    for x in inputs:
        if not isinstance(x, _C.Tensor):
            raise TypeError(f"expected tensors as inputs, got {type(x).__name__}")
        if create_graph and x.requires_grad:
            out.append(x.view_as(x))  # keeps the graph to the caller's inputs
        else:
            y = x.detach()
            y.requires_grad = True
            out.append(y)
    return tuple(out)


def _zeros_like(t):
    return _C.zeros(list(t.shape), t.dtype, t.device)


def _grad(outputs, inputs, grad_outputs, create_graph, strict, what):
    from lucid import autograd
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o.requires_grad]
    if not pairs:
        if strict:
            raise RuntimeError(f"{what}: the outputs do not require grad (strict=True)")
        return tuple(None for _ in inputs)
    return autograd.grad([o for o, _ in pairs], list(inputs), [g for _, g in pairs], retain_graph=True,
                         create_graph=create_graph, allow_unused=True)


def _fill(grads, inputs, strict, what):
    res = []
    for i, (g, x) in enumerate(zip(grads, inputs)):
        if g is None:
            if strict:
                raise RuntimeError(f"{what}: output is independent of input {i} (strict=True)")
            g = _zeros_like(x)
        res.append(g)
    return tuple(res)


def _finish(ts, create_graph):
    return tuple(t if (create_graph or t is None) else t.detach() for t in ts)


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T J)."""
    inputs, in_tuple = _tuple(inputs)
    with enable_grad():
        xs = _prepare(inputs, create_graph)
        outs, out_tuple = _tuple(func(*xs))
        if v is None:
            if len(outs) != 1 or outs[0].numel() != 1:
                raise RuntimeError("vjp: v can be omitted only when func returns a single one-element tensor")
            v = (_C.ones(list(outs[0].shape), outs[0].dtype, outs[0].device),)
        else:
            v, _ = _tuple(v)
        grads = _fill(_grad(outs, xs, v, create_graph, strict, "vjp"), xs, strict, "vjp")
    outs = _finish(outs, create_graph)
    grads = _finish(grads, create_graph)
    return (outs if out_tuple else outs[0]), (grads if in_tuple else grads[0])


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), J v), by differentiating v^T-linear vjp's with respect to a dummy cotangent."""
    from lucid import autograd
    inputs, in_tuple = _tuple(inputs)
    with enable_grad():
        xs = _prepare(inputs, create_graph)
        outs, out_tuple = _tuple(func(*xs))
        if v is None:
            if len(xs) != 1 or xs[0].numel() != 1:
                raise RuntimeError("jvp: v can be omitted only when the input is a single one-element tensor")
            v = (_C.ones(list(xs[0].shape), xs[0].dtype, xs[0].device),)
        else:
            v, _ = _tuple(v)
        dummies = []
        for o in outs:
            u = _zeros_like(o)
            u.requires_grad = True
            dummies.append(u)
        g = _grad(outs, xs, dummies, True, strict, "jvp")
        if strict and any(gi is None for gi in g):
            raise RuntimeError("jvp: an output is independent of an input (strict=True)")
        used = [(gi, vi) for gi, vi in zip(g, v) if gi is not None and gi.requires_grad]
        if used:
            jv = autograd.grad([gi for gi, _ in used], dummies, [vi for _, vi in used], create_graph=create_graph,
                               allow_unused=True)
        else:
            jv = tuple(None for _ in dummies)
        jv = _fill(jv, outs, strict, "jvp")
    outs = _finish(outs, create_graph)
    jv = _finish(jv, create_graph)
    return (outs if out_tuple else outs[0]), (jv if out_tuple else jv[0])


def _stack_rows(rows, shape, like):
    """Tensor of shape `shape` whose flattened leading index j holds rows[j]; differentiable."""
    n = len(rows)
    total = None
    for j, r in enumerate(rows):
        e = _C.zeros([n], like.dtype, like.device)
        e[j] = 1.0
        term = e.reshape([n] + [1] * r.dim()) * r.unsqueeze(0)
        total = term if total is None else total + term
    return total.reshape(shape)


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    """d func(inputs) / d inputs: for each output and input, a tensor of shape output.shape + input.shape."""
    if strategy != "reverse-mode":
        raise NotImplementedError("jacobian: only strategy='reverse-mode' is implemented")
    inputs, in_tuple = _tuple(inputs)
    with enable_grad():
        xs = _prepare(inputs, create_graph)
        outs, out_tuple = _tuple(func(*xs))
        result = []
        for o in outs:
            per_input = [[] for _ in xs]
            for j in range(o.numel()):
                onehot = _C.zeros([o.numel()], o.dtype, o.device)
                onehot[j] = 1.0
                g = _fill(_grad([o], xs, [onehot.reshape(list(o.shape))], create_graph, strict, "jacobian"), xs,
                          strict, "jacobian")
                for i, gi in enumerate(g):
                    per_input[i].append(gi)
            row = []
            for i, x in enumerate(xs):
                shape = list(o.shape) + list(x.shape)
                if o.numel() == 0:
                    row.append(_C.zeros(shape, x.dtype, x.device))
                else:
                    row.append(_stack_rows(per_input[i], shape, x))
            result.append(tuple(_finish(row, create_graph)))
    if out_tuple and in_tuple:
        return tuple(result)
    if out_tuple:
        return tuple(r[0] for r in result)
    return result[0] if in_tuple else result[0][0]


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False, outer_jacobian_strategy="reverse-mode"):
    """Second derivatives of a scalar func: for each pair of inputs, shape input_i.shape + input_j.shape."""
    from lucid import autograd
    inputs_t, in_tuple = _tuple(inputs)

    def grad_fn(*xs):
        out = func(*xs)
        if not isinstance(out, _C.Tensor) or out.numel() != 1:
            raise RuntimeError("hessian: func must return a single one-element tensor")
        gs = autograd.grad(out, list(xs), create_graph=True, allow_unused=True)
        return tuple(g if g is not None else _zeros_like(x) for g, x in zip(gs, xs))

    h = jacobian(grad_fn, inputs_t, create_graph=create_graph, strict=strict)
    if in_tuple:
        return h
    return h[0][0] if isinstance(h[0], tuple) else h[0]


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), H v) for a scalar func."""
    from lucid import autograd
    inputs, in_tuple = _tuple(inputs)
    with enable_grad():
        xs = _prepare(inputs, create_graph)
        out = func(*xs)
        if out.numel() != 1:
            raise RuntimeError("hvp: func must return a single one-element tensor")
        v = _tuple(v)[0] if v is not None else tuple(_C.ones(list(x.shape), x.dtype, x.device) for x in xs)
        g = autograd.grad(out, list(xs), create_graph=True, allow_unused=True)
        pairs = [(gi, vi) for gi, vi in zip(g, v) if gi is not None and gi.requires_grad]
        hv = autograd.grad([p for p, _ in pairs], list(xs), [q for _, q in pairs], create_graph=create_graph,
                           allow_unused=True) if pairs else tuple(None for _ in xs)
        hv = _fill(hv, xs, strict, "hvp")
    out = out if create_graph else out.detach()
    hv = _finish(hv, create_graph)
    return out, (hv if in_tuple else hv[0])


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T H); equal to hvp for twice-differentiable functions."""
    return hvp(func, inputs, v, create_graph, strict)
