"""The op-library functions the torch/lucid audit (scripts/op_audit.py) found missing, as thin
composites of existing lucid ops (so autograd and double backward come with them): module-level
in-place spellings (torch.abs_(x), ...), frexp/ldexp/gcd/lcm/mvlgamma, the *_scatter and *_copy
families, split_with_sizes and the unsafe_* aliases, cov/corrcoef/dist/trapezoid/renorm,
index_reduce, matrix_power/vander, adjoint/mH/H, sum_to_size, fill_diagonal_ and the is_* predicates.
Exported through lucid/_products.py (the last family module lucid/__init__.py star-imports)."""
import math
from collections import namedtuple

from lucid import _C
from lucid import _out

Tensor = _C.Tensor

_frexp_rt = namedtuple("frexp", ["mantissa", "exponent"])
_frexp_rt.__module__ = "lucid.return_types"


def _lucid():
    import lucid
    return lucid


# ---- module-level in-place spellings (torch.abs_(x) is x.abs_())

_INPLACE = ("abs", "absolute", "acos", "acosh", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctanh", "asin",
            "asinh", "atan", "atanh", "ceil", "clamp", "clamp_max", "clamp_min", "clip", "conj_physical", "cos", "cosh",
            "deg2rad", "erf", "erfc", "exp2", "exp", "expm1", "fix", "floor", "frac", "log10", "log1p", "log2", "log",
            "logit", "nan_to_num", "neg", "negative", "rad2deg", "reciprocal", "relu", "round", "rsqrt", "sigmoid",
            "sin", "sinc", "sinh", "sqrt", "square", "tan", "tanh", "trunc", "xlogy", "fill", "zero", "gcd", "lcm",
            "ldexp", "addmv", "detach", "as_strided")


def _module_inplace(name):
    def f(input, *args, **kwargs):
        return getattr(input, name + "_")(*args, **kwargs)
    f.__name__ = name + "_"
    f.__doc__ = f"In-place {name}: input.{name}_(...)."
    return f


__all__ = []
for _n in _INPLACE:
    globals()[_n + "_"] = _module_inplace(_n)
    __all__.append(_n + "_")


# ---- elementwise

def frexp(input):
    """(mantissa, exponent): input = mantissa * 2**exponent, |mantissa| in [0.5, 1) (0, inf and NaN kept
    with exponent 0); exponent int32."""
    lucid = _lucid()
    if not input.dtype.is_floating_point:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    with lucid.no_grad():
        x = input.detach()
        finite = lucid.isfinite(x) & (x != 0)
        ax = lucid.where(finite, x.abs(), lucid.ones_like(x)).double()
        e = lucid.floor(lucid.log2(ax)) + 1
        m = ax / lucid.exp2(e)
        # log2 rounding: bring |m| into [0.5, 1)
        hi, lo = m >= 1, m < 0.5
        e = lucid.where(hi, e + 1, lucid.where(lo, e - 1, e))
        m = lucid.where(hi, m / 2, lucid.where(lo, m * 2, m))
        mant = lucid.where(finite, (m * x.sign().double()).to(x.dtype), x)
        expo = lucid.where(finite, e, lucid.zeros_like(e)).to(lucid.int32)
    return _frexp_rt(mant, expo)


def ldexp(input, other):
    """input * 2**other (a floating result)."""
    lucid = _lucid()
    two = lucid.full((), 2.0, dtype=input.dtype if input.dtype.is_floating_point or input.dtype.is_complex
                     else lucid.get_default_dtype())
    return lucid.mul(input, lucid.pow(two, other))


def _check_int(name, a, b):
    dt = _lucid().result_type(a, b)
    if dt.is_floating_point or dt.is_complex or dt is _lucid().bool_:
        raise RuntimeError(f'"{name}_cpu" not implemented for \'{_out.scalar_type_name(dt)}\'')


def gcd(input, other):
    """Greatest common divisor, elementwise (integers; gcd(0, 0) = 0)."""
    lucid = _lucid()
    _check_int("gcd", input, other)
    dt = lucid.result_type(input, other)
    a, b = lucid.broadcast_tensors(input.to(dt).abs(), other.to(dt).abs())
    while bool((b != 0).any()):
        nz = b != 0
        a, b = lucid.where(nz, b, a), lucid.where(nz, lucid.remainder(a, lucid.where(nz, b, lucid.ones_like(b))),
                                                  lucid.zeros_like(b))
    return a


def lcm(input, other):
    """Least common multiple, elementwise (integers; 0 when either is 0)."""
    lucid = _lucid()
    _check_int("lcm", input, other)
    g = gcd(input, other)
    dt = g.dtype
    return lucid.where(g == 0, lucid.zeros_like(g),
                       (input.to(dt) // lucid.where(g == 0, lucid.ones_like(g), g) * other.to(dt)).abs())


def mvlgamma(input, p):
    """The multivariate log-gamma of dimension p: sum_j lgamma(x - j/2) + p(p-1)/4 log(pi)."""
    lucid = _lucid()
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    x = input if input.dtype.is_floating_point else input.to(lucid.get_default_dtype())
    r = lucid.lgamma(x)
    for j in range(1, p):
        r = r + lucid.lgamma(x - j / 2)
    return r + p * (p - 1) / 4 * math.log(math.pi)


def nextafter(input, other):
    """The next representable float after input toward other (float32/float64; through the bits)."""
    lucid = _lucid()
    a, b = lucid.broadcast_tensors(input, other)
    dt = lucid.promote_types(a.dtype, b.dtype)
    if dt not in (lucid.float32, lucid.float64):
        raise RuntimeError(f'"nextafter_cpu" not implemented for \'{_out.scalar_type_name(dt)}\'')
    idt = lucid.int32 if dt is lucid.float32 else lucid.int64
    with lucid.no_grad():
        x, y = a.to(dt).contiguous(), b.to(dt).contiguous()
        bits = x.view(idt)
        step = lucid.where((y > x) == (x > 0), lucid.ones_like(bits), -lucid.ones_like(bits))
        moved = (bits + step).view(dt)
        tiny = lucid.full_like(bits, 1).view(dt)
        r = lucid.where(x == 0, lucid.where(y > 0, tiny, -tiny), moved)
        r = lucid.where(x == y, y, r)
        r = lucid.where(lucid.isnan(x) | lucid.isnan(y), x + y, r)
    return r


__all__ += ["frexp", "ldexp", "gcd", "lcm", "mvlgamma", "nextafter"]


# ---- shape: scatter into views, copies of views, split spellings

def select_scatter(input, src, dim, index):
    out = input.clone()
    out.select(dim, index).copy_(src)
    return out


def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    out = input.clone()
    idx = [slice(None)] * input.dim()
    idx[dim] = slice(start, end, step)
    out[tuple(idx)] = src
    return out


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    out = input.clone()
    out.diagonal(offset, dim1, dim2).copy_(src)
    return out


def as_strided_scatter(input, src, size, stride, storage_offset=None):
    out = input.contiguous().clone()
    out.as_strided(size, stride, storage_offset).copy_(src)
    return out


def _copy_of(name, getter):
    def f(input, *args, **kwargs):
        r = getter(input, name)(*args, **kwargs)
        return type(r)(t.clone() for t in r) if isinstance(r, (tuple, list)) else r.clone()
    f.__name__ = name + "_copy"
    f.__doc__ = f"{name}(...) as a fresh tensor (no aliasing), as torch.{name}_copy."
    return f


def _method(t, name):
    return getattr(t, name)


_COPIES = ("alias", "as_strided", "detach", "diagonal", "expand", "permute", "select", "slice", "split",
           "split_with_sizes", "squeeze", "t", "transpose", "unbind", "unfold", "unsqueeze", "view", "narrow",
           "view_as_real", "view_as_complex")


def _alias(t):
    return lambda: t


def _slice(t):
    def f(dim=0, start=None, end=None, step=1):
        idx = [slice(None)] * t.dim()
        idx[dim] = slice(start, end, step)
        return t[tuple(idx)]
    return f


def split_with_sizes(input, split_sizes, dim=0):
    return input.split(list(split_sizes), dim)


def unsafe_split(input, split_size, dim=0):
    return input.split(split_size, dim)


def unsafe_split_with_sizes(input, split_sizes, dim=0):
    return input.split(list(split_sizes), dim)


def unsafe_chunk(input, chunks, dim=0):
    return input.chunk(chunks, dim)


def t(input):
    return input.t()


def adjoint(input):
    """The conjugate transpose of the last two dims."""
    return input.transpose(-2, -1).conj()


def _getter(t, name):
    special = {"alias": _alias, "slice": _slice}
    if name in special:
        return special[name](t)
    if name == "split_with_sizes":
        return lambda *a, **k: split_with_sizes(t, *a, **k)
    if name in ("view_as_real", "view_as_complex"):
        return lambda: getattr(_C, name)(t)
    return getattr(t, name)


for _n in _COPIES:
    globals()[_n + "_copy"] = _copy_of(_n, _getter)
__all__ += [n + "_copy" for n in _COPIES] + ["select_scatter", "slice_scatter", "diagonal_scatter",
                                             "as_strided_scatter", "split_with_sizes", "unsafe_split",
                                             "unsafe_split_with_sizes", "unsafe_chunk", "t", "adjoint"]


def sum_to_size(self, *size):
    """self summed to `size` (which self must broadcast to)."""
    if len(size) == 1 and isinstance(size[0], (list, tuple)):
        size = tuple(size[0])
    size = tuple(int(s) for s in size)
    lead = self.dim() - len(size)
    if lead < 0 or any(s != 1 and s != self.shape[lead + i] for i, s in enumerate(size)):
        raise RuntimeError(f"size {{{', '.join(map(str, size))}}} is not expandable to size "
                           f"{{{', '.join(map(str, self.shape))}}}.")
    dims = list(range(lead)) + [lead + i for i, s in enumerate(size) if s == 1 and self.shape[lead + i] != 1]
    r = self.sum(dims, keepdim=True) if dims else self
    return r.reshape(size)


def fill_diagonal_(self, fill_value, wrap=False):
    """Fills the main diagonal in place (all dims equal for >2-D; a tall matrix repeats the diagonal
    every cols+1 rows when wrap, as NumPy)."""
    if self.dim() < 2:
        raise RuntimeError("dimensions must larger than 1")
    if self.dim() > 2 and len(set(self.shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    if self.dim() == 2:
        rows, cols = self.shape
        if wrap and rows > cols + 1 and self.is_contiguous():
            self.view(-1)[::cols + 1].fill_(fill_value)
            return self
        self.diagonal().fill_(fill_value)
        return self
    n, d = self.shape[0], self.dim()
    idx = _lucid().arange(n)
    self[(idx,) * d] = fill_value
    return self


# ---- reductions and statistics

def cov(input, *, correction=1, fweights=None, aweights=None):
    """Covariance of the rows (variables) of a 1-D or 2-D input, as torch.cov (weights and correction)."""
    lucid = _lucid()
    if input.dim() > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an input with "
                           f"{input.dim()} dimensions")
    x = input.view(1, -1) if input.dim() < 2 else input
    if not (x.dtype.is_floating_point or x.dtype.is_complex):
        x = x.to(lucid.get_default_dtype())
    n = x.shape[1]
    w = None
    if fweights is not None:
        w = fweights
    if aweights is not None:
        w = aweights if w is None else w * aweights
    if w is None:
        avg = x.mean(1)
        w_sum = lucid.tensor(float(n), dtype=x.dtype if x.dtype.is_floating_point else lucid.float64)
        norm = w_sum - correction
    else:
        w = w.to(x.dtype if x.dtype.is_floating_point else lucid.float64)
        w_sum = w.sum()
        avg = (x * w).sum(1) / w_sum
        if aweights is None or correction == 0:
            norm = w_sum - correction
        else:
            norm = w_sum - correction * (w * aweights).sum() / w_sum
    norm = lucid.clamp(norm, min=0)
    xm = x - avg.unsqueeze(1)
    c = lucid.mm(xm * w if w is not None else xm, xm.t().conj())
    return (c / norm).squeeze()


def corrcoef(input):
    """Pearson correlation coefficients of the rows of input (clipped to [-1, 1] for real inputs)."""
    lucid = _lucid()
    c = cov(input)
    if c.dim() == 0:
        return c / c
    d = c.diagonal()
    stddev = lucid.sqrt(d.real if d.dtype.is_complex else d)
    c = c / stddev.unsqueeze(1)
    c = c / stddev.unsqueeze(0)
    if c.dtype.is_complex:
        return lucid.complex(lucid.clamp(c.real, -1, 1), lucid.clamp(c.imag, -1, 1))
    return lucid.clamp(c, -1, 1)


def frobenius_norm(input, dim=(), keepdim=False):
    """The 2-norm over dim (all dims when empty)."""
    lucid = _lucid()
    dims = [dim] if isinstance(dim, int) else (list(dim) or None)
    return lucid.linalg.vector_norm(input, 2, dims, keepdim)


def dist(input, other, p=2):
    """The p-norm of input - other."""
    lucid = _lucid()
    return lucid.linalg.vector_norm(input - other, p)


def _trapz_core(y, dx, dim):
    n = y.shape[dim]
    if n == 0:
        return y.sum(dim) * 0
    pairs = y.narrow(dim, 1, n - 1) + y.narrow(dim, 0, n - 1)
    if isinstance(dx, (int, float)):
        return pairs.sum(dim) * (dx / 2)
    return (pairs * dx).sum(dim) / 2


def _dx_of(x, y, dim):
    if x.dim() == 1:
        d = x[1:] - x[:-1]
        shape = [1] * y.dim()
        shape[dim] = d.shape[0]
        return d.view(shape)
    return x.diff(dim=dim)


def trapezoid(y, x=None, *, dx=None, dim=-1):
    """The trapezoidal rule along dim: with sample points x, or a constant spacing dx (default 1)."""
    if x is not None and dx is not None:
        raise RuntimeError("trapezoid: received both x and dx")
    dim = dim % max(y.dim(), 1)
    if x is None:
        return _trapz_core(y, 1.0 if dx is None else dx, dim)
    if not isinstance(x, Tensor):
        return _trapz_core(y, float(x), dim)
    return _trapz_core(y, _dx_of(x, y, dim), dim)


def trapz(y, x=None, *, dx=None, dim=-1):
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """The cumulative trapezoidal rule along dim (one fewer element than y there)."""
    lucid = _lucid()
    dim = dim % max(y.dim(), 1)
    n = y.shape[dim]
    s = y.narrow(dim, 1, max(n - 1, 0)) + y.narrow(dim, 0, max(n - 1, 0))
    if isinstance(x, Tensor):
        s = s * _dx_of(x, y, dim) / 2
    else:
        step = float(x) if x is not None else (1.0 if dx is None else dx)
        s = s * (step / 2)
    return lucid.cumsum(s, dim)


def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """Estimated derivatives along dims by central differences (one- or two-sided of edge_order at the
    edges), with uniform spacings or sample coordinates per dim, as torch.gradient / numpy.gradient."""
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    nd = input.dim()
    dims = list(range(nd)) if dim is None else ([dim] if isinstance(dim, int) else list(dim))
    dims = [d % nd for d in dims]
    if isinstance(spacing, (list, tuple)):
        if len(spacing) != len(dims):
            raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar or it's spacing and "
                               f"dim arguments to have the same length, but got a spacing argument of length "
                               f"{len(spacing)} and a dim argument of length {len(dims)}.")
        sp = list(spacing)
    else:
        sp = [spacing] * len(dims)
    x = input if (input.dtype.is_floating_point or input.dtype.is_complex) else input.to(_lucid().get_default_dtype())
    out = []
    for d, h in zip(dims, sp):
        n = x.shape[d]
        if n < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")
        out.append(_gradient_1d(x, d, h, edge_order))
    return tuple(out)


def _gradient_1d(f, d, h, edge_order):
    lucid = _lucid()
    n = f.shape[d]

    def sl(a, b):
        return f.narrow(d, a, b - a)

    def bshape(v):   # a 1-D coordinate tensor laid along dim d
        shape = [1] * f.dim()
        shape[d] = v.shape[0]
        return v.reshape(shape)

    if isinstance(h, Tensor):
        if h.dim() != 1 or h.shape[0] != n:
            raise RuntimeError("torch.gradient expected each tensor to be on the same device and of size "
                               "equal to the input along dim")
        x = h.to(f.dtype) if not h.dtype.is_floating_point else h
        dx = x[1:] - x[:-1]
        hl, hr = bshape(dx[:-1]), bshape(dx[1:])
        interior = (hl * hl * sl(2, n) - hr * hr * sl(0, n - 2) + (hr * hr - hl * hl) * sl(1, n - 1)) / \
            (hl * hr * (hl + hr))
        if edge_order == 1:
            first = (sl(1, 2) - sl(0, 1)) / dx[0]
            last = (sl(n - 1, n) - sl(n - 2, n - 1)) / dx[-1]
        else:
            a, b = dx[0], dx[1]
            first = (-(2 * a + b) / (a * (a + b)) * sl(0, 1) + (a + b) / (a * b) * sl(1, 2)
                     - a / (b * (a + b)) * sl(2, 3))
            a, b = dx[-2], dx[-1]
            last = (b / (a * (a + b)) * sl(n - 3, n - 2) - (a + b) / (a * b) * sl(n - 2, n - 1)
                    + (2 * b + a) / (b * (a + b)) * sl(n - 1, n))
    else:
        h = float(h)
        interior = (sl(2, n) - sl(0, n - 2)) / (2 * h)
        if edge_order == 1:
            first = (sl(1, 2) - sl(0, 1)) / h
            last = (sl(n - 1, n) - sl(n - 2, n - 1)) / h
        else:
            first = (-1.5 * sl(0, 1) + 2 * sl(1, 2) - 0.5 * sl(2, 3)) / h
            last = (0.5 * sl(n - 3, n - 2) - 2 * sl(n - 2, n - 1) + 1.5 * sl(n - 1, n)) / h
    return lucid.cat([first, interior, last], d)


def renorm(input, p, dim, maxnorm):
    """Each slice along dim whose p-norm exceeds maxnorm is scaled down to norm maxnorm."""
    lucid = _lucid()
    dim = dim % input.dim()
    others = [d for d in range(input.dim()) if d != dim]
    norms = lucid.linalg.vector_norm(input, p, others, keepdim=True)
    factor = lucid.where(norms > maxnorm, maxnorm / (norms + 1e-7), lucid.ones_like(norms))
    return input * factor


__all__ += ["gradient", "frobenius_norm", "cov", "corrcoef", "dist", "trapezoid", "trapz", "cumulative_trapezoid", "renorm"]


# ---- indexing

def index_reduce(input, dim, index, source, reduce, *, include_self=True):
    """self with source's slices reduced into the positions index names along dim ('prod', 'mean',
    'amax', 'amin'): scatter_reduce with index spread over source's shape."""
    lucid = _lucid()
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    dim = dim % max(input.dim(), 1)
    if index.dim() > 1:
        raise IndexError("index_reduce_(): Index is supposed to be a vector")
    if source.dim() and index.numel() != source.shape[dim]:
        raise IndexError(f"index_reduce_(): Number of indices ({index.numel()}) should be equal to "
                         f"source.size(dim) ({source.shape[dim]})")
    shape = [1] * source.dim()
    if source.dim():
        shape[dim] = index.numel()
    idx = index.reshape(shape).expand(*source.shape) if source.dim() else index.reshape(())
    return lucid.scatter_reduce(input, dim, idx, source, reduce, include_self=include_self)


__all__ += ["index_reduce"]


# ---- products

def matrix_power(input, n):
    """input @ input @ ... (n times) by repeated squaring; n = 0 gives the identity (negative n needs an
    inverse: NotImplementedError)."""
    lucid = _lucid()
    if input.dim() < 2 or input.shape[-1] != input.shape[-2]:
        raise RuntimeError(f"linalg.matrix_power: A must be batches of square matrices, but they are "
                           f"{input.shape[-2] if input.dim() >= 2 else input.shape} by "
                           f"{input.shape[-1] if input.dim() else ''} matrices")
    if n < 0:
        raise NotImplementedError("matrix_power with a negative exponent needs linalg.inv (not in lucid yet)")
    if n == 0:
        eye = lucid.eye(input.shape[-1], dtype=input.dtype)
        return eye.expand(*input.shape).clone()
    result, base = None, input
    while n:
        if n & 1:
            result = base if result is None else lucid.matmul(result, base)
        n >>= 1
        if n:
            base = lucid.matmul(base, base)
    return result if result is not input else input.clone()


def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of a 1-D x: columns x**(N-1), ..., x**0 (increasing: x**0 first)."""
    lucid = _lucid()
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    dt = x.dtype if (x.dtype.is_floating_point or x.dtype.is_complex) else lucid.int64
    if n == 0:
        return lucid.zeros(x.shape[0], 0, dtype=dt)
    cols = [lucid.ones_like(x, dtype=dt)]
    xx = x.to(dt)
    for _ in range(1, n):
        cols.append(cols[-1] * xx)
    if not increasing:
        cols = cols[::-1]
    return lucid.stack(cols, 1)


__all__ += ["matrix_power", "vander"]


def detach(input):
    return input.detach()


def fill(input, value):
    """A tensor like input filled with value (a number or a 0-d tensor; differentiable in the tensor)."""
    lucid = _lucid()
    if isinstance(value, Tensor):
        if value.dim() != 0:
            raise RuntimeError(f"fill only supports 0-dimension value tensor but got tensor with {value.dim()} "
                               "dimensions.")
        return value.to(input.dtype).expand(*input.shape).clone()
    return lucid.full_like(input, value)


def unravel_index(indices, shape):
    """The coordinates (one tensor per dim of shape) of flat indices into a tensor of that shape."""
    lucid = _lucid()
    if isinstance(indices, Tensor) and (indices.dtype.is_floating_point or indices.dtype.is_complex
                                        or indices.dtype is lucid.bool_):
        raise TypeError("expected 'indices' to be integer dtype, but got " + indices.dtype.name)
    shape = (shape,) if isinstance(shape, int) else tuple(int(s) for s in shape)
    if any(s < 0 for s in shape):
        raise ValueError("'shape' cannot have negative values, but got " + str(shape))
    idx = indices if isinstance(indices, Tensor) else lucid.tensor(indices)
    idx = idx.to(lucid.int64)
    out = []
    for s in reversed(shape):
        out.append(lucid.remainder(idx, s) if s else idx * 0)
        idx = lucid.floor_divide(idx, s) if s else idx
    return tuple(reversed(out))


def resize_as_(input, other, memory_format=None):
    return input.resize_as_(other)


__all__ += ["detach", "fill", "unravel_index", "resize_as_"]


# ---- predicates

def is_complex(input):
    return input.dtype.is_complex


def is_floating_point(input):
    return input.dtype.is_floating_point


def is_signed(input):
    return input.dtype.name not in ("uint8", "bool")


def is_nonzero(input):
    if input.numel() != 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous" if input.numel()
                           else "Boolean value of Tensor with no values is ambiguous")
    return bool(input.reshape(()).item() != 0)


def is_same_size(input, other):
    return tuple(input.shape) == tuple(other.shape)


def is_tensor(obj):
    return isinstance(obj, Tensor)


__all__ += ["is_complex", "is_floating_point", "is_signed", "is_nonzero", "is_same_size", "is_tensor"]


# ---- out= where PyTorch takes it, and the Tensor methods PyTorch has

_out.install(globals(), ("frexp", "ldexp", "gcd", "lcm", "mvlgamma", "nextafter", "frobenius_norm", "select_scatter", "slice_scatter",
                         "diagonal_scatter", "as_strided_scatter", "cov", "dist", "renorm", "index_reduce",
                         "matrix_power", "vander") + tuple(n + "_copy" for n in _COPIES if n != "alias"))
_out.install(globals(), ("alias_copy",))


def _inplace_of(fn, name):
    def method(self, *args, **kwargs):
        return self.copy_(fn(self, *args, **kwargs))
    method.__name__ = name + "_"
    return method


for _n in ("frexp", "ldexp", "gcd", "lcm", "mvlgamma", "nextafter", "select_scatter", "slice_scatter", "diagonal_scatter",
           "as_strided_scatter", "cov", "corrcoef", "dist", "renorm", "index_reduce", "matrix_power",
           "split_with_sizes", "unsafe_split", "unsafe_split_with_sizes", "unsafe_chunk", "adjoint", "is_complex",
           "is_floating_point", "is_signed", "is_nonzero", "is_same_size", "narrow_copy"):
    setattr(Tensor, _n, getattr(globals()[_n], "__wrapped__", globals()[_n]))
for _n in ("ldexp", "gcd", "lcm", "mvlgamma", "nextafter", "renorm", "index_reduce"):
    setattr(Tensor, _n + "_", _inplace_of(getattr(globals()[_n], "__wrapped__", globals()[_n]), _n))


def _inplace_view(name, make):
    def method(self, *args, **kwargs):
        return _C._inplace_view(self, make(self, *args, **kwargs), name + "_")
    method.__name__ = name + "_"
    method.__doc__ = f"In place: self becomes self.{name}(...) (a metadata change; recorded by autograd)."
    return method


for _n, _mk in (("t", lambda s: s.t()), ("transpose", lambda s, d0, d1: s.transpose(d0, d1)),
                ("swapaxes", lambda s, d0, d1: s.transpose(d0, d1)), ("swapdims", lambda s, d0, d1: s.transpose(d0, d1)),
                ("squeeze", lambda s, dim=None: s.squeeze(dim)), ("unsqueeze", lambda s, dim: s.unsqueeze(dim)),
                ("as_strided", lambda s, size, stride, storage_offset=None: s.as_strided(size, stride, storage_offset))):
    setattr(Tensor, _n + "_", _inplace_view(_n, _mk))


def resize_(self, *sizes, memory_format=None):
    """Reshapes self in place to `sizes` (contiguous), keeping the leading elements; a fresh buffer when
    the old one is too small (not differentiable, as in PyTorch)."""
    lucid = _lucid()
    if len(sizes) == 1 and isinstance(sizes[0], (list, tuple)):
        sizes = tuple(sizes[0])
    sizes = tuple(int(v) for v in sizes)
    if self.requires_grad and lucid.is_grad_enabled():
        raise RuntimeError("cannot resize variables that require grad")
    n = math.prod(sizes)
    with lucid.no_grad():
        new = lucid.empty(sizes, dtype=self.dtype, device=self.device)
        k = min(n, self.numel())
        if k:
            new.view(-1)[:k] = self.reshape(-1)[:k]
        self.data = new
    return self


Tensor.resize_ = resize_
Tensor.resize_as_ = lambda self, other, memory_format=None: resize_(self, tuple(other.shape))
Tensor.sum_to_size = sum_to_size
Tensor.fill_diagonal_ = fill_diagonal_
Tensor.mH = property(lambda self: self.transpose(-2, -1).conj())


def _H(self):
    if self.dim() > 2:
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {self.dim()}-D tensor.")
    return self.t().conj() if self.dim() == 2 else self.conj()


Tensor.H = property(_H)
del _n
