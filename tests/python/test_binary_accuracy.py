"""Accuracy of the float32 binary math on the CPU (engine/backend/cpu/vmath_binary.h): pow, atan2,
logaddexp, logaddexp2. Max error in ulps over dense grids (hard spots included: pow with x near 1
and large y, results near overflow / underflow and denormal, negative x with integer y; atan2 near
|y| = |x| / 2 and |y| = |x|, all quadrants, extreme ratios; logaddexp with close and far operands)
against float64 / long double references, within PyTorch's SLEEF u10 bound (1 ulp); C99's special
values exactly; the same bits on every ISA path, through the fast and the full kernels (a block with a
special value in it), strided, broadcast and in place."""
import math

import numpy as np
import pytest

import lucid

LD = np.longdouble
RNG = np.random.default_rng(11)
F32 = np.float32


def _ulps(y, ref):
    """|y - ref| in float32 ulps of ref (denormal spacing below the normals); ref float64/long double."""
    ref = np.asarray(ref).astype(LD)
    y = np.asarray(y).astype(LD)
    ok = np.isfinite(ref) & (np.abs(ref) < LD(np.finfo(F32).max))
    _, e = np.frexp(ref[ok].astype(np.float64))
    e = np.maximum(e - 1, -126) - 23
    return np.abs(y[ok] - ref[ok]) / np.ldexp(LD(1), e)


def _run(name, a, b):
    return getattr(lucid, name)(lucid.tensor(a), lucid.tensor(b)).numpy()


def _f32(*xs):
    return [np.asarray(x, dtype=F32) for x in xs]


# ---------------------------------------------------------------------------------------------
# pow

def _pow_grids(n=60000):
    g = []
    x = np.exp(RNG.uniform(-20, 20, n))
    g.append((x, RNG.uniform(-8, 8, n)))                                    # moderate
    g.append((RNG.uniform(0, 4, n), RNG.uniform(-30, 30, n)))
    k = RNG.integers(-30000, 30000, n)
    g.append((1 + k * 2.0 ** -23, RNG.uniform(-2e6, 2e6, n)))                # x near 1, large y
    g.append((1 + k * 2.0 ** -24, RNG.uniform(-1e4, 1e4, n)))
    # results near the float range's ends: y log2(x) near 128, -126 (denormal edge), -149
    x = np.exp(RNG.uniform(-80, 80, n)).astype(F32).astype(np.float64)
    x = x[np.abs(np.log2(x)) > 1e-3]
    for t in (127.9, 128.1, -125.9, -126.1, -140.0, -149.0, -149.9, 64.0):
        y = (t + RNG.uniform(-0.5, 0.5, x.size)) / np.log2(x)
        g.append((x, y))
    x = -np.exp(RNG.uniform(-10, 10, n))                                     # negative x, integer y
    g.append((x, np.round(RNG.uniform(-40, 40, n))))
    g.append((np.exp(RNG.uniform(-103, -87, n)), RNG.uniform(0.01, 1.5, n)))  # denormal x
    return [_f32(a, b) for a, b in g]


def test_pow_max_ulp():
    worst = 0.0
    for x, y in _pow_grids():
        ref = np.power(x.astype(np.float64), y.astype(np.float64))
        with np.errstate(over="ignore"):
            err = _ulps(_run("pow", x, y), ref)
        worst = max(worst, float(err.max()))
    assert worst <= 1.0, f"pow: max error {worst:.3f} ulp"


def test_pow_scalar_exponent_max_ulp():
    x = np.concatenate([np.exp(RNG.uniform(-30, 30, 50000)), RNG.uniform(0, 3, 50000)]).astype(F32)
    for e in [2.5, -1.5, 0.3, 1 / 3, 7.0, -13.0, 31.5, 100.25]:
        ref = np.power(x.astype(np.float64), float(F32(e)))  # the exponent is rounded to float, as PyTorch
        with np.errstate(over="ignore"):
            y = lucid.pow(lucid.tensor(x), e).numpy()
        worst = float(_ulps(y, ref).max())
        assert worst <= 1.0, f"pow(x, {e}): max error {worst:.3f} ulp"
        # the same bits as the tensor exponent
        np.testing.assert_array_equal(y, _run("pow", x, np.full_like(x, e)))


PSPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, -3.0, 2.5, -2.5, np.inf, -np.inf, np.nan, 1e-45, -1e-45,
            1e-40, 3e38, -3e38, 16777216.0, -16777215.0, 16777215.0, 0.99999994, 1.0000001, 1e20, -1e20, 127.0,
            128.0, -149.0, -150.0, 0.1, -0.1]


def _same_class(y, ref, what):
    """Specials of ref (NaN, infinities, exact zeros with their sign) exactly; other values (results
    rounding to zero too) within 1 ulp."""
    ref32 = ref.astype(F32)
    special = np.isnan(ref32) | np.isinf(ref32) | (ref == 0)
    np.testing.assert_array_equal(np.isnan(y), np.isnan(ref32), err_msg=what)
    s = special & ~np.isnan(ref32)
    np.testing.assert_array_equal(y[s], ref32[s], err_msg=what)
    np.testing.assert_array_equal(np.signbit(y[s]), np.signbit(ref32[s]), err_msg=what)
    assert _ulps(y[~special], ref[~special]).max(initial=0) <= 1.0, what


def test_pow_special_values():
    v = np.array(PSPECIAL, dtype=F32)
    x, y = np.meshgrid(v, v, indexing="ij")
    x, y = x.ravel(), y.ravel()
    with np.errstate(all="ignore"):
        ref = np.power(x.astype(np.float64), y.astype(np.float64))
    _same_class(_run("pow", x, y), ref, "pow specials")


# ---------------------------------------------------------------------------------------------
# atan2

def _atan2_grids(n=60000):
    g = [(RNG.uniform(-10, 10, n), RNG.uniform(-10, 10, n))]
    x = RNG.uniform(0.5, 2, n) * RNG.choice([-1, 1], n)
    for lo, hi in [(0.45, 0.55), (0.9, 1.1), (0.0, 0.1), (1.8, 2.2), (8, 12)]:
        g.append((x * RNG.uniform(lo, hi, n) * RNG.choice([-1, 1], n), x))
    # extreme magnitudes and ratios (tiny / huge quotients, denormals)
    g.append((np.exp(RNG.uniform(-103, 88, n)) * RNG.choice([-1, 1], n),
              np.exp(RNG.uniform(-103, 88, n)) * RNG.choice([-1, 1], n)))
    g.append((np.exp(RNG.uniform(-103, -80, n)), np.exp(RNG.uniform(-103, -80, n)) * RNG.choice([-1, 1], n)))
    g.append((np.exp(RNG.uniform(80, 88.7, n)), np.exp(RNG.uniform(80, 88.7, n)) * RNG.choice([-1, 1], n)))
    return [_f32(a, b) for a, b in g]


def test_atan2_max_ulp():
    worst = 0.0
    for y, x in _atan2_grids():
        ref = np.arctan2(y.astype(np.float64), x.astype(np.float64))
        worst = max(worst, float(_ulps(_run("atan2", y, x), ref).max()))
    assert worst <= 1.0, f"atan2: max error {worst:.3f} ulp"


ASPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 3e-45, 1e-40, 3e38,
            -3e38, 3.4028235e38, -3.4028235e38, 1e20, 1e-20, 1e30, -1e-30]


def test_atan2_special_values():
    v = np.array(ASPECIAL, dtype=F32)
    y, x = np.meshgrid(v, v, indexing="ij")
    y, x = y.ravel(), x.ravel()
    ref = np.arctan2(y.astype(np.float64), x.astype(np.float64))
    _same_class(_run("atan2", y, x), ref, "atan2 specials")


# ---------------------------------------------------------------------------------------------
# logaddexp, logaddexp2

def _lae_ref(name, a, b):
    a, b = a.astype(LD), b.astype(LD)
    return np.logaddexp(a, b) if name == "logaddexp" else np.logaddexp2(a, b)


def _lae_grids(n=60000):
    g = [(RNG.uniform(-100, 100, n), RNG.uniform(-100, 100, n))]
    a = RNG.uniform(-5, 30, n)
    g.append((a, a - RNG.uniform(0, 3, n)))                                  # close
    g.append((a, a - RNG.uniform(0, 200, n)))                                # far (tiny, denormal terms)
    z = RNG.uniform(0, 160, n)
    g.append((np.zeros(n), -z))                                              # log1p(e^-z) alone
    g.append((RNG.uniform(-1e-3, 1e-3, n), -z))
    g.append((np.exp(RNG.uniform(-20, 80, n)), np.exp(RNG.uniform(-20, 80, n))))
    g.append((RNG.uniform(1e30, 3e38, n), RNG.uniform(-3e38, 3e38, n)))
    return [_f32(a, b) for a, b in g]


@pytest.mark.parametrize("name", ["logaddexp", "logaddexp2"])
def test_logaddexp_max_ulp(name):
    """Where max(a, b) >= 0 or <= -2 (no cancellation with the log term, below)."""
    worst = 0.0
    for a, b in _lae_grids():
        m = np.maximum(a, b)
        k = (m >= 0) | (m <= -2)
        worst = max(worst, float(_ulps(_run(name, a[k], b[k]), _lae_ref(name, a[k], b[k])).max()))
    assert worst <= 1.0, f"{name}: max error {worst:.3f} ulp"


@pytest.mark.parametrize("name", ["logaddexp", "logaddexp2"])
def test_logaddexp_cancellation(name):
    """-2 < max(a, b) < 0 cancelling the log term L (the result can be far smaller than L): half an
    ulp of the result plus 2^-25 L (PyTorch's float formula: up to 2^-22 L)."""
    n = 100000
    a = -RNG.uniform(0, 2, n)
    b = a - np.concatenate([RNG.uniform(0, 3, n // 2), RNG.uniform(0, 0.01, n - n // 2)])
    a, b = _f32(a, b)
    ref = _lae_ref(name, a, b)
    y = _run(name, a, b).astype(LD)
    log_term = ref - np.maximum(a, b).astype(LD)
    half_ulp = np.ldexp(LD(1), np.maximum(np.frexp(ref.astype(np.float64))[1] - 1, -126) - 24)
    assert np.all(np.abs(y - ref) <= half_ulp + LD(2.0 ** -25) * np.abs(log_term))


LSPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, 2.0, -2.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 1e-40, 3e38, -3e38,
            3.4028235e38, -3.4028235e38, 88.0, -88.0, -103.0, -104.0, -150.0, -149.0, 100.0, 1e20, -1e20]


@pytest.mark.parametrize("name", ["logaddexp", "logaddexp2"])
def test_logaddexp_special_values(name):
    v = np.array(LSPECIAL, dtype=F32)
    a, b = np.meshgrid(v, v, indexing="ij")
    a, b = a.ravel(), b.ravel()
    with np.errstate(invalid="ignore"):
        ref = _lae_ref(name, a, b)
    _same_class(_run(name, a, b), ref, f"{name} specials")
    r = getattr(lucid, name)(lucid.tensor([np.inf, -np.inf, -np.inf, 0.0], dtype=lucid.float32),
                             lucid.tensor([np.inf, -np.inf, 0.0, -np.inf], dtype=lucid.float32)).numpy()
    np.testing.assert_array_equal(r, [np.inf, -np.inf, 0.0, 0.0])
    assert not np.signbit(r[2:]).any()


# ---------------------------------------------------------------------------------------------
# paths: ISAs, fast / full blocks, strides, broadcast, in place

OPS = ["pow", "atan2", "logaddexp", "logaddexp2"]


def _inputs(name, n=5000):
    if name == "pow":
        return _f32(np.exp(RNG.uniform(-5, 5, n)), RNG.uniform(-6, 6, n))
    return _f32(RNG.uniform(-20, 20, n), RNG.uniform(-20, 20, n))


@pytest.fixture
def restore_isa():
    isa = lucid._C._cpu_isa()
    yield
    lucid._C._set_cpu_isa(isa)


@pytest.mark.parametrize("name", OPS)
def test_isas_agree(name, restore_isa):
    """avx2 and avx512 give the same bits (the baseline computes in double: within 1 ulp of them)."""
    a, b = _inputs(name, 3001)
    a[7], b[1500] = np.nan, np.inf  # full kernel in some blocks
    out = {}
    for isa in ["baseline", "avx2", "avx512"]:
        try:
            lucid._C._set_cpu_isa(isa)
        except Exception:
            continue
        out[isa] = _run(name, a, b)
    if "avx2" in out and "avx512" in out:
        np.testing.assert_array_equal(out["avx2"], out["avx512"])
    if "baseline" in out and "avx2" in out:
        ref = {"pow": lambda: np.power(a.astype(np.float64), b.astype(np.float64)),
               "atan2": lambda: np.arctan2(a.astype(np.float64), b.astype(np.float64))}.get(
                   name, lambda: _lae_ref(name, a, b))()
        with np.errstate(over="ignore"):
            assert _ulps(out["avx2"], ref).max() <= 1.0


@pytest.mark.parametrize("name", OPS)
def test_fast_and_full_blocks_agree(name):
    """A special value in a block sends it through the full kernel: the other elements keep their bits."""
    a, b = _inputs(name, 4096)
    y0 = _run(name, a, b)
    a2 = a.copy()
    a2[5] = np.nan
    a2[2000] = -np.inf if name != "pow" else -2.0
    y1 = _run(name, a2, b)
    keep = np.ones(a.size, bool)
    keep[[5, 2000]] = False
    np.testing.assert_array_equal(y1[keep], y0[keep])


@pytest.mark.parametrize("name", OPS)
def test_strided_broadcast_inplace(name):
    a, b = _inputs(name, 6000)
    y = _run(name, a, b)
    ta, tb = lucid.tensor(a), lucid.tensor(b)
    f = getattr(lucid, name)
    np.testing.assert_array_equal(f(ta[::2], tb[::2]).numpy(), y[::2])                  # strided
    np.testing.assert_array_equal(f(ta.reshape(60, 100).T, tb.reshape(60, 100).T).numpy(),
                                  y.reshape(60, 100).T)
    s = float(b[3])
    np.testing.assert_array_equal(f(ta, s).numpy(), _run(name, a, np.full_like(b, s)))  # broadcast scalar
    np.testing.assert_array_equal(f(lucid.tensor(a[:1]), tb).numpy(), _run(name, np.full_like(a, a[0]), b))
    if hasattr(ta, name + "_"):
        t = lucid.tensor(a)
        getattr(t, name + "_")(tb)                                                    # in place
        np.testing.assert_array_equal(t.numpy(), y)
    h = f(ta.to(lucid.float16), tb.to(lucid.float16)).numpy()                          # half: via float
    ref = getattr(lucid, name)(ta.to(lucid.float16).float(), tb.to(lucid.float16).float()).to(lucid.float16).numpy()
    np.testing.assert_array_equal(h, ref)
