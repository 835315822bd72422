"""Random numbers: one Philox generator state shared by CPU and CUDA, so a seed gives the same
numbers on both (engine/backend/common/philox.h)."""
from lucid import _C
from lucid._creation import _dt, _finish, _size
from lucid._device import resolve
from lucid._dtypes import to_dtype, int64

Generator = _C.Generator
default_generator = _C.default_generator()
_D = _C._RandomDist


def manual_seed(seed):
    """Seeds the default generator (CPU and CUDA draw from it alike); returns it."""
    return default_generator.manual_seed(int(seed))


def seed():
    return default_generator.seed()


def initial_seed():
    return default_generator.initial_seed()


def get_rng_state():
    """The generator state as a uint8 tensor of 16 bytes (seed, offset)."""
    return _C._from_buffer(default_generator.get_state(), [16], _C.uint8, _C.device("cpu"))


def set_rng_state(new_state):
    default_generator.set_state(new_state.to_bytes() if hasattr(new_state, "to_bytes") else bytes(new_state))


def _gen(generator):
    return generator if generator is not None else None


def rand(*size, generator=None, dtype=None, device=None, requires_grad=False):
    t = _C.empty(_size(size), _dt(dtype), resolve(device))
    return _finish(_C._random_into(t, _D.uniform, 0.0, 1.0, _gen(generator)), requires_grad)


def randn(*size, generator=None, dtype=None, device=None, requires_grad=False):
    t = _C.empty(_size(size), _dt(dtype), resolve(device))
    return _finish(_C._random_into(t, _D.normal, 0.0, 1.0, _gen(generator)), requires_grad)


def randint(low=0, high=None, size=None, *, generator=None, dtype=None, device=None, requires_grad=False):
    """randint(high, size) or randint(low, high, size): integers in [low, high)."""
    if size is None:
        if high is None:
            raise TypeError("randint() missing required argument 'size'")
        low, high, size = 0, low, high
    elif high is None:
        low, high = 0, low
    t = _C.empty(_size((size,)), to_dtype(dtype) or int64, resolve(device))
    return _finish(_C._random_into(t, _D.integer, float(low), float(high), _gen(generator)), requires_grad)


def randperm(n, *, generator=None, dtype=None, device=None, requires_grad=False):
    return _finish(_C._randperm(int(n), to_dtype(dtype) or int64, resolve(device), _gen(generator)), requires_grad)


def normal(mean=0.0, std=1.0, size=None, *, generator=None, dtype=None, device=None, requires_grad=False):
    """normal(mean, std, size) with floats, or with tensor mean and/or std (broadcast together)."""
    from lucid import _C as C
    if isinstance(mean, C.Tensor) or isinstance(std, C.Tensor):
        ref = mean if isinstance(mean, C.Tensor) else std
        shape = list(ref.shape)
        if isinstance(mean, C.Tensor) and isinstance(std, C.Tensor):
            shape = list((mean * 0 + std * 0).shape)
        z = _C._random_into(_C.empty(shape, ref.dtype, ref.device), _D.normal, 0.0, 1.0, _gen(generator))
        return _finish(z * std + mean, requires_grad)
    if size is None:
        raise TypeError("normal() with float mean and std needs a size")
    t = _C.empty(_size((size,)), _dt(dtype), resolve(device))
    return _finish(_C._random_into(t, _D.normal, float(mean), float(std), _gen(generator)), requires_grad)


def bernoulli(input, p=None, *, generator=None):
    """Draws 0/1 with probability `input` (a tensor of probabilities) or a float p."""
    if p is not None:
        out = _C.empty(list(input.shape), input.dtype, input.device)
        return _C._random_into(out, _D.bernoulli, float(p), 0.0, _gen(generator))
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise TypeError(f"bernoulli expects a floating point tensor of probabilities, got {input.dtype}")
    if input.numel() and not bool(((input >= 0) & (input <= 1)).all()):
        raise ValueError("bernoulli: all elements of the probability tensor must be in [0, 1]")
    u = _C._random_into(_C.empty(list(input.shape), input.dtype, input.device), _D.uniform, 0.0, 1.0, _gen(generator))
    return (u < input.detach()).to(input.dtype)


def multinomial(input, num_samples, replacement=False, *, generator=None):
    """Indices drawn from the categorical distribution(s) of each row of `input` (1-D or 2-D,
    non-negative weights, not necessarily normalised). With replacement: inverse-CDF sampling
    (searchsorted in the rows' cumulative sums, in float64); without: the exponential race, the
    num_samples categories with the largest w / E, E ~ Exp(1) (the sampling of PyTorch's kernel)."""
    from lucid.errors import ShapeMismatch
    if not input.dtype.is_floating_point:
        raise TypeError(f"multinomial only supports floating-point dtypes for input, got: {input.dtype}")
    if input.dim() not in (1, 2):
        raise ShapeMismatch(f"multinomial: prob_dist must be 1 or 2 dim (got shape {tuple(input.shape)})")
    n = int(num_samples)
    if n <= 0:
        raise ValueError(f"multinomial: cannot sample n_sample <= 0 samples (got {num_samples})")
    k = input.shape[-1]
    if not replacement and n > k:
        raise ValueError(f"multinomial: cannot sample n_sample > prob_dist.size(-1) samples without replacement "
                         f"({n} > {k})")
    w = input.detach().to(_C.float64)
    w = w if w.dim() == 2 else w.unsqueeze(0)
    if w.numel() == 0 or not bool(((w >= 0) & w.isfinite()).all()):
        raise ValueError("multinomial: probability tensor contains either `inf`, `nan` or element < 0")
    if not bool((w.sum(-1) > 0).all()):
        raise ValueError("multinomial: invalid multinomial distribution (sum of probabilities <= 0)")
    rows = w.shape[0]
    if replacement:
        cdf = w.cumsum(-1)
        u = rand(rows, n, generator=generator, dtype=_C.float64, device=input.device) * cdf[:, -1:]
        idx = _C.searchsorted(cdf.contiguous(), u, right=True).clamp(max=k - 1)
    else:
        e = _C.empty([rows, k], _C.float64, input.device)
        exponential_(e, generator=generator)
        idx = _C.topk(w / e, n, -1).indices
    return idx if input.dim() == 2 else idx.squeeze(0)


def rand_like(input, *, dtype=None, device=None, requires_grad=False):
    return rand(*input.shape, dtype=dtype or input.dtype, device=device or input.device, requires_grad=requires_grad)


def randn_like(input, *, dtype=None, device=None, requires_grad=False):
    return randn(*input.shape, dtype=dtype or input.dtype, device=device or input.device, requires_grad=requires_grad)


def randint_like(input, low=0, high=None, *, dtype=None, device=None, requires_grad=False):
    if high is None:
        low, high = 0, low
    return randint(low, high, tuple(input.shape), dtype=dtype or input.dtype, device=device or input.device,
                   requires_grad=requires_grad)


__all__ = ["Generator", "default_generator", "manual_seed", "seed", "initial_seed", "get_rng_state", "set_rng_state",
           "rand", "randn", "randint", "randperm", "normal", "bernoulli", "rand_like", "randn_like", "randint_like"]


# ---- in-place sampling methods (Tensor.uniform_ and friends), on top of _C._random_ (bumps the version)
def _check_float(self, name):
    if not (self.dtype.is_floating_point or self.dtype.is_complex):
        raise TypeError(f"{name} expects a floating point tensor, got {self.dtype}")


def uniform_(self, a=0.0, b=1.0, *, generator=None, **kwargs):
    """Fills self with numbers drawn uniformly from [a, b) (`from`/`to` are accepted as keywords)."""
    a = kwargs.pop("from", a)
    b = kwargs.pop("to", b)
    if kwargs:
        raise TypeError(f"uniform_() got unexpected keyword arguments {sorted(kwargs)}")
    _check_float(self, "uniform_")
    if a > b:
        raise ValueError(f"uniform_ expects to return a [from, to) range, but found from={a} > to={b}")
    return _C._random_(self, _D.uniform, float(a), float(b), generator)


def normal_(self, mean=0.0, std=1.0, *, generator=None):
    _check_float(self, "normal_")
    if std < 0:
        raise ValueError(f"normal_ expects std >= 0.0, but found std {std}")
    return _C._random_(self, _D.normal, float(mean), float(std), generator)


def bernoulli_(self, p=0.5, *, generator=None):
    """Fills self with 0/1 draws: probability p (a float, or a tensor broadcast to self)."""
    if isinstance(p, _C.Tensor):
        draws = bernoulli(p.to(_C.float64).broadcast_to(list(self.shape)).contiguous(), generator=generator)
        return self.copy_(draws)
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"bernoulli_ expects p to be in [0, 1], but got p={p}")
    return _C._random_(self, _D.bernoulli, float(p), 0.0, generator)


def _fill_from(self, values):
    from lucid.autograd.grad_mode import no_grad
    with no_grad():
        return self.copy_(values)


def exponential_(self, lambd=1.0, *, generator=None):
    """Fills self with draws from Exp(lambd): -log(1 - u) / lambd."""
    _check_float(self, "exponential_")
    if lambd <= 0:
        raise ValueError(f"exponential_ expects lambda > 0.0, but found lambda={lambd}")
    u = _C._random_into(_C.empty(list(self.shape), _C.float64, self.device), _D.uniform, 0.0, 1.0, generator)
    return self.copy_((u * -1.0).log1p() * (-1.0 / lambd))


def geometric_(self, p, *, generator=None):
    """Fills self with the number of Bernoulli(p) trials up to the first success."""
    if not 0.0 < p <= 1.0:
        raise ValueError(f"geometric_ expects p to be in (0, 1], got p={p}")
    import math
    u = _C._random_into(_C.empty(list(self.shape), _C.float64, self.device), _D.uniform, 0.0, 1.0, generator)
    if p == 1.0:
        return self.fill_(1)
    k = ((u * -1.0).log1p() * (1.0 / math.log1p(-p))).ceil()
    return self.copy_(k)


def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
    _check_float(self, "log_normal_")
    z = _C._random_into(_C.empty(list(self.shape), _C.float64, self.device), _D.normal, float(mean), float(std),
                        generator)
    return self.copy_(z.exp())


def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
    import math
    _check_float(self, "cauchy_")
    u = _C._random_into(_C.empty(list(self.shape), _C.float64, self.device), _D.uniform, 0.0, 1.0, generator)
    return self.copy_(((u - 0.5) * math.pi).tan() * float(sigma) + float(median))


_RANDOM_TO = {"bool": 2, "uint8": 2 ** 8, "int8": 2 ** 7, "int16": 2 ** 15, "int32": 2 ** 31, "int64": 2 ** 63,
              "float16": 2 ** 11 + 1, "bfloat16": 2 ** 8 + 1, "float32": 2 ** 24 + 1, "float64": 2 ** 53 + 1}


def random_(self, from_=0, to=None, *, generator=None, **kwargs):
    """random_(): integers in [0, 2**mantissa] (floats) or [0, max] (ints); random_(to): [0, to);
    random_(from, to): [from, to)."""
    if "from" in kwargs:
        from_ = kwargs.pop("from")
    if kwargs:
        raise TypeError(f"random_() got unexpected keyword arguments {sorted(kwargs)}")
    if self.dtype.is_complex:
        raise TypeError("random_ is not implemented for complex tensors")
    if to is None and from_ != 0:
        from_, to = 0, from_
    if to is None:
        lo, hi = 0, _RANDOM_TO[self.dtype.name]
    else:
        lo, hi = int(from_), int(to)
        if lo >= hi:
            raise ValueError(f"random_ expects 'from' to be less than 'to', but got from={lo} >= to={hi}")
    return _C._random_(self, _D.integer, float(lo), float(hi), generator)


def _bernoulli_method(self, p=None, *, generator=None):
    return bernoulli(self, p, generator=generator)


def _multinomial_method(self, num_samples, replacement=False, *, generator=None):
    return multinomial(self, num_samples, replacement, generator=generator)


for _name, _fn in dict(bernoulli=_bernoulli_method, multinomial=_multinomial_method, uniform_=uniform_, normal_=normal_, bernoulli_=bernoulli_, exponential_=exponential_,
                       geometric_=geometric_, log_normal_=log_normal_, cauchy_=cauchy_, random_=random_).items():
    setattr(_C.Tensor, _name, _fn)
