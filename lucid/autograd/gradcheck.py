"""Finite-difference checks of gradients (float64), as torch.autograd.gradcheck / gradgradcheck."""
from lucid import _C
from lucid.autograd.grad_mode import no_grad


class GradcheckError(RuntimeError):
    pass


def _as_tuple(x):
    return x if isinstance(x, tuple) else (x,)


def _flat(t):
    return t.contiguous().reshape(-1).tolist()


def _numerical(func, inputs, i, eps):
    """d(outputs)/d(inputs[i]) by central differences: a list over input elements of flat output lists."""
    x = inputs[i]
    cols = []
    flat = x.detach().reshape(-1) if x.is_contiguous() else None
    if flat is None:
        raise GradcheckError("gradcheck needs contiguous inputs")
    for k in range(x.numel()):
        with no_grad():
            orig = flat[k].item()
            flat[k] = orig + eps
        plus = [_flat(o.detach()) for o in _as_tuple(func(*inputs))]
        with no_grad():
            flat[k] = orig - eps
        minus = [_flat(o.detach()) for o in _as_tuple(func(*inputs))]
        with no_grad():
            flat[k] = orig
        cols.append([[(p - m) / (2 * eps) for p, m in zip(po, mo)] for po, mo in zip(plus, minus)])
    return cols


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, nondet_tol=0.0):
    """Compares autograd's gradients of func(*inputs) with central differences, element by element.

    Inputs that require grad should be float64 (or complex128) and contiguous."""
    from lucid import autograd
    inputs = _as_tuple(inputs)
    diff_idx = [i for i, x in enumerate(inputs) if isinstance(x, _C.Tensor) and x.requires_grad]
    outputs = _as_tuple(func(*inputs))
    for i in diff_idx:
        if inputs[i].dtype.is_complex:
            raise NotImplementedError("gradcheck: complex inputs are not supported yet (real inputs with complex "
                                      "outputs are)")
        if inputs[i].dtype.name not in ("float64", "complex128"):
            import warnings
            warnings.warn(f"gradcheck: input {i} is {inputs[i].dtype.name}, not float64; the check may be too coarse")
    # Analytical first: the numerical pass writes into the inputs (bumping their versions).
    analytical = {}
    for oi, out in enumerate(outputs):
        if not isinstance(out, _C.Tensor) or not (out.dtype.is_floating_point or out.dtype.is_complex):
            continue
        if not out.requires_grad:
            # A floating output without a graph must not depend on the inputs: its Jacobian is zero.
            for j in range(out.numel()):
                for i in diff_idx:
                    analytical[(oi, j, i)] = [0.0] * inputs[i].numel()
            continue
        # A complex output of real inputs is two real functions: grad_output 1 gives the gradient of
        # its real part, 1j that of its imaginary part (PyTorch's conjugate convention).
        parts = (1.0, 1j) if out.dtype.is_complex else (1.0,)
        for j in range(out.numel()):
            rows = []
            for unit in parts:
                onehot = _C.zeros([out.numel()], out.dtype, out.device)
                onehot[j] = unit
                grads = autograd.grad(out, [inputs[i] for i in diff_idx], onehot.reshape(list(out.shape)),
                                      retain_graph=True, allow_unused=True)
                rows.append([_flat(gi) if gi is not None else [0.0] * inputs[i].numel()
                             for gi, i in zip(grads, diff_idx)])
            for k, i in enumerate(diff_idx):
                if len(rows) == 1:
                    analytical[(oi, j, i)] = rows[0][k]
                else:
                    analytical[(oi, j, i)] = [complex(r, m) for r, m in zip(rows[0][k], rows[1][k])]
    num = {i: _numerical(func, inputs, i, eps) for i in diff_idx}
    for (oi, j, i), ana in analytical.items():
        for k in range(inputs[i].numel()):
            n = num[i][k][oi][j]
            a = ana[k]
            if abs(a - n) > atol + rtol * abs(n):
                msg = (f"Jacobian mismatch for output {oi} with respect to input {i}: element "
                       f"(input {k}, output {j}) numerical {n} vs analytical {a}")
                if raise_exception:
                    raise GradcheckError(msg)
                return False
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True):
    """gradcheck of the first-order gradients (computed with create_graph=True) of func."""
    from lucid import autograd
    inputs = _as_tuple(inputs)
    diff_idx = [i for i, x in enumerate(inputs) if isinstance(x, _C.Tensor) and x.requires_grad]
    outs = _as_tuple(func(*inputs))
    if grad_outputs is None:
        _C_gen = _C.Generator()
        _C_gen.manual_seed(0)
        grad_outputs = tuple(_C._random_into(_C.empty(list(o.shape), o.dtype, o.device), _C._RandomDist.normal, 0.0,
                                             1.0, _C_gen) for o in outs)
    grad_outputs = _as_tuple(grad_outputs)

    def first_order(*xs):
        o = _as_tuple(func(*xs))
        gs = autograd.grad(o, [xs[i] for i in diff_idx], grad_outputs, create_graph=True, allow_unused=True)
        return tuple(g for g in gs if g is not None)

    return gradcheck(first_order, inputs, eps=eps, atol=atol, rtol=rtol, raise_exception=raise_exception)
