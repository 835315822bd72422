"""Accuracy of the unary math family on the CPU (the vectorised float/double functions of
engine/backend/cpu/vmath_*.h): the max error in ulps over dense grids, against NumPy long double
references (float32 results against float64 ones), within the bounds of PyTorch's SLEEF functions
(1 ulp for its "u10" functions); exact special values (+-0, denormals, +-inf, NaN, domain edges);
strided inputs; float16/bfloat16 through their float computation."""
import math

import numpy as np
import pytest

import lucid

LD = np.longdouble
RNG = np.random.default_rng(5)


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


# name: (reference on long double, domains, max ulp for float32, max ulp for float64). A domain is
# (lo, hi) sampled uniformly ((lo, hi, "f64"): float64 only) or "log": positive, log-uniform over the
# whole range of the dtype.
FUNCS = {
    "exp": (np.exp, [(-103, 88.7), (-1e-3, 1e-3), (-745, 709.7, "f64")], 1.0, 1.0),
    "exp2": (np.exp2, [(-149, 127.9), (-1e-3, 1e-3), (-1074, 1023.9, "f64")], 1.0, 1.0),
    "expm1": (np.expm1, [(-20, 88.7), (-1e-3, 1e-3), (-1, 1), (-40, 709.7, "f64")], 1.0, 1.0),
    "log": (np.log, [(0, 10), "log"], 1.0, 1.0),
    # (0.65, 0.72), (1.3, 1.42): the worst spots of the float kernels (x = 2^e (1 + f), f near its ends)
    "log2": (np.log2, [(0, 10), "log", (0.65, 0.72), (1.3, 1.42)], 1.0, 1.0),
    "log10": (np.log10, [(0, 10), "log", (0.65, 0.72), (1.3, 1.42)], 1.0, 1.0),
    "log1p": (np.log1p, [(-1, 10), (-1e-3, 1e-3), "log", (0.38, 0.42), (-0.3, -0.25)], 1.0, 1.0),
    "sqrt": (np.sqrt, [(0, 10), "log"], 0.5, 0.5),
    "rsqrt": (lambda x: 1 / np.sqrt(x), [(0, 10), "log"], 1.5, 1.5),  # two roundings, as PyTorch
    # (0.85, 1.3): around the float kernel's switch from the polynomial to 1 - 2 / (e^{2|x|} + 1) at 0.98
    "tanh": (np.tanh, [(-10, 10), (-1, 1), (-1e-3, 1e-3), (0.85, 1.3), (-1.3, -0.85), (8.9, 9.2), (1.2, 1.3)],
             1.0, 1.0),
    "sinh": (np.sinh, [(-89, 89), (-2, 2), (-1e-3, 1e-3), (-710, 710, "f64")], 1.0, 1.0),
    "cosh": (np.cosh, [(-89, 89), (-2, 2), (-710, 710, "f64")], 1.0, 1.0),
    "atanh": (np.arctanh, [(-1, 1), (-0.01, 0.01)], 1.0, 1.0),
    "sigmoid": (_sigmoid, [(-80, 80), (-5, 5)], 2.5, 2.5),  # 1 / (1 + exp(-x)), as PyTorch
    "sin": (np.sin, [(-10, 10), (-12, 12), (-1e4, 1e4), (1.3e5, 1.32e5), (-1e6, 1e6), (-1e9, 1e9)], 1.0, 1.0),
    "cos": (np.cos, [(-10, 10), (-12, 12), (-1e4, 1e4), (1.3e5, 1.32e5), (-1e6, 1e6), (-1e9, 1e9)], 1.0, 1.0),
    "tan": (np.tan, [(-10, 10), (-1e4, 1e4), (-1e6, 1e6), (-1e9, 1e9)], 1.0, 1.0),
    "asin": (np.arcsin, [(-1, 1), (-1e-3, 1e-3), (0.97, 1), (0.45, 0.55)], 1.0, 1.0),
    "acos": (np.arccos, [(-1, 1), (-1e-3, 1e-3), (0.97, 1), (-1, -0.97), (0.45, 0.55), (-0.55, -0.45)], 1.0, 1.0),
    # (0.5, 0.6), (1.9, 2.1): the float kernel's range switches at 0.5464 and 2, and its worst spots
    # (max 0.83 ulp over all floats, at 0.549; 0.77 at 0.529)
    "atan": (np.arctan, [(-10, 10), (-1e-3, 1e-3), (-1e6, 1e6), (0.5, 0.6), (-0.6, -0.5), (1.9, 2.1), "log"],
             1.0, 1.0),
}
# float32 only (float64 keeps libm): reference per element
_erf = np.vectorize(math.erf, otypes=[np.float64])
_erfc = np.vectorize(math.erfc, otypes=[np.float64])


def _lgamma1(v):
    try:
        return math.lgamma(v)
    except ValueError:  # poles (0 and negative integers): +inf, as C's lgamma
        return math.inf


_lgamma = np.vectorize(_lgamma1, otypes=[np.float64])
FLOAT_ONLY = {
    "asinh": (np.arcsinh, [(-10, 10), (-1e-3, 1e-3), (-1e30, 1e30), "log"], 1.0),
    "acosh": (np.arccosh, [(1, 10), (1, 1.001), (1, 1e30), "log"], 1.0),
    # float erf (FMA builds): max 0.92 ulp over all floats, at |x| near 1 (the switch of its two fits)
    "erf": (_erf, [(-5, 5), (-1e-3, 1e-3), (0.5, 1), (0.9, 1.1), (-1.1, -0.9), (3.7, 3.95)], 1.0),
    # float erfc (FMA builds): max 0.84 ulp (AVX-512 table kernel) and 0.83 (AVX2) over all floats, at
    # small negative x (2 - erfc(-x)); the AVX2 fits switch at |x| = 1.5, the table's first intervals end
    # near 0.37 and 0.69; the double tail takes over at 4.5
    "erfc": (_erfc, [(-5, 11), (-1e-3, 1e-3), (3, 10.5), (-0.1, 0.1), (1.4, 1.6), (4.3, 4.7), (-4.7, -4.3),
                     (0.3, 0.8), (-0.8, -0.3)], 1.0),
    # lgamma (double, rounded once): max 0.501 ulp over all positive floats, the zeros at 1 and 2
    # included; negative x in test_lgamma_float32
    "lgamma": (_lgamma, [(0, 10), (0.99, 1.01), (1.99, 2.01), (0, 1e-3), (5, 1e6), "log"], 1.0),
}
ROUNDING = ["floor", "ceil", "trunc", "round", "frac"]


def _grid(dom, dt, n=40000):
    if dom == "log":
        tiny = 1e-45 if dt == np.float32 else 5e-324
        big = 3e38 if dt == np.float32 else 1e308
        x = np.exp(RNG.uniform(math.log(tiny), math.log(big), n))
    else:
        if len(dom) == 3 and dt != np.float64:
            return None
        x = RNG.uniform(dom[0], dom[1], n)
    return x.astype(dt)


def _ulps(y, ref, dt):
    """|y - ref| in units of the last place of ref in dtype dt (denormal spacing below the normals)."""
    ref = ref.astype(LD)
    ok = np.isfinite(ref) & (np.abs(ref) < np.finfo(dt).max)
    y, ref = y[ok].astype(LD), ref[ok]
    _, e = np.frexp(ref.astype(np.float64))
    fi = np.finfo(dt)
    e = np.maximum(e - 1, fi.minexp) - fi.nmant
    return np.abs(y - ref) / np.ldexp(LD(1), e)


def _run(name, x):
    return getattr(lucid, name)(lucid.tensor(x)).numpy()


@pytest.mark.parametrize("dt", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("name", list(FUNCS))
def test_max_ulp(name, dt):
    ref_fn, doms, b32, b64 = FUNCS[name]
    bound = b32 if dt == np.float32 else b64
    worst = 0.0
    for dom in doms:
        x = _grid(dom, dt)
        if x is None:
            continue
        ref = ref_fn(x.astype(np.float64 if dt == np.float32 else LD))
        with np.errstate(over="ignore"):
            err = _ulps(_run(name, x), ref, dt)
        worst = max(worst, float(err.max()))
    assert worst <= bound, f"{name} {dt.__name__}: max error {worst:.3f} ulp > {bound}"


@pytest.mark.parametrize("name", list(FLOAT_ONLY))
def test_max_ulp_float_only(name):
    ref_fn, doms, bound = FLOAT_ONLY[name]
    worst = 0.0
    for dom in doms:
        x = _grid(dom, np.float32, 20000)
        worst = max(worst, float(_ulps(_run(name, x), ref_fn(x.astype(np.float64)), np.float32).max()))
    assert worst <= bound, f"{name}: max error {worst:.3f} ulp > {bound}"


def test_erfinv_float32():
    """erfinv against mpmath: max 0.6634 ulp over all floats on the FMA builds (native float: exhaustive,
    scratch harness; the same bits on avx2 and avx512), 0.509 on the baseline build (double fits);
    PyTorch's float erfinv: 0.544 ulp (at 0.49999833, its max over all floats in [0, 1) against its
    float64 erfinv). Denser grids at the hard spots of the native kernel: its worst inputs, the
    switches of log's exponent (1 - y^2 = 2^-k sqrt(1/2)), the switch to the tail fit at |y| = 0.99,
    |y| near 2^-100 (below: one fma) and subnormals; edges exact."""
    mp = pytest.importorskip("mpmath")
    x = np.concatenate([RNG.uniform(-1, 1, 6000), 1 - np.exp(RNG.uniform(-16.6, -1, 3000)),
                        -(1 - np.exp(RNG.uniform(-16.6, -1, 1000))), RNG.uniform(0.98, 0.995, 2000),
                        RNG.uniform(-1e-3, 1e-3, 500), np.exp(RNG.uniform(-100, -5, 500)),
                        RNG.uniform(0.5, 0.62, 1500), RNG.uniform(0.985, 0.995, 1500),
                        np.exp2(RNG.uniform(-110, -90, 300)), RNG.uniform(0, 2.0 ** -125, 300)])
    switches = np.sqrt(1 - 2.0 ** -np.arange(0, 8) / np.sqrt(2))
    x = np.concatenate([x] + [s + RNG.uniform(-1e-4, 1e-4, 150) for s in switches]).astype(np.float32)
    hard = ["0x1.fa9318p-1", "0x1.09d8a6p-1", "0x1.fce65ep-1", "0x1.9b795ep-1", "0x1.90fbf2p-1", "0x1.d3e3bp-1",
            "0x1.20ba36p-125", "0x1.fae148p-1", "0x1p-100"]
    worst = np.array([float.fromhex(h) for h in hard], dtype=np.float32)
    x = np.concatenate([x, worst, -worst, np.float32(1) - np.arange(1, 200, dtype=np.float32) * np.float32(2 ** -24)])
    ref = np.array([float(mp.erfinv(mp.mpf(float(v)))) for v in x])
    assert _ulps(_run("erfinv", x), ref, np.float32).max() <= 0.664
    e = np.array([0.0, -0.0, 1.0, -1.0, 1.5, -2.0, np.nan, np.inf], dtype=np.float32)
    want = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, np.nan, np.nan, np.nan], dtype=np.float32)
    y = _run("erfinv", e)
    np.testing.assert_array_equal(y, want)
    assert np.array_equal(np.signbit(y[:2]), [False, True])


def test_lgamma_float32():
    """lgamma for x < 0 (reflection) and its special values. Away from the negative roots within 1 ulp
    (|lgamma| >= 0.01: 0.526 ulp over all negative floats); near them an absolute error of at most
    4.9e-10 over all floats (PyTorch's float lgamma, SLEEF: 1.7e-8 near -2.457, 4.8e-7 on [-10, 0])."""
    x = np.concatenate([RNG.uniform(-30, 0, 40000), RNG.uniform(-5, -2, 40000),
                        -np.exp(RNG.uniform(-100, 16, 5000))]).astype(np.float32)
    x = x[x != np.round(x)]
    ref = _lgamma(x.astype(np.float64))
    y = _run("lgamma", x)
    far = np.abs(ref) >= 0.01
    assert _ulps(y[far], ref[far], np.float32).max() <= 1.0
    assert np.abs(y[~far].astype(np.float64) - ref[~far]).max() <= 1e-8
    # the floats nearest the zeros at 1 and 2: a small relative error there too
    one, two = np.float32(1), np.float32(2)
    near = np.concatenate([one + np.arange(-300, 300, dtype=np.float32) * np.float32(2 ** -24),
                           two + np.arange(-300, 300, dtype=np.float32) * np.float32(2 ** -23)])
    assert _ulps(_run("lgamma", near), _lgamma(near.astype(np.float64)), np.float32).max() <= 1.0
    sp = np.array([0.0, -0.0, 1.0, 2.0, -1.0, -2.0, -3.0, -1e6, -3e38, 3e38, 1e37, 5e36, np.inf, -np.inf, np.nan,
                   1e-45, -1e-45, 1e-40, -1e-40], dtype=np.float32)
    want = np.array([np.inf, np.inf, 0.0, 0.0, np.inf, np.inf, np.inf, np.inf, np.inf, np.inf, np.inf, np.inf,
                     np.inf, np.inf, np.nan], dtype=np.float32)
    y = _run("lgamma", sp)
    np.testing.assert_array_equal(y[:15], want)
    assert not np.signbit(y[2:4]).any()  # +0 at 1 and 2
    assert _ulps(y[15:], _lgamma(sp[15:].astype(np.float64)), np.float32).max() <= 1.0
    # lgamma(4.08e36) is the largest finite float result: one float below the overflow, one above
    assert np.isfinite(_run("lgamma", np.array([4.0e36], np.float32)))[0]


def test_erfc_float32_fast_and_full_blocks():
    """erfc: blocks whose lanes all have |x| < 4.5 take the float kernel alone, the others add the
    double tail for those lanes; the results below 4.5 are the same either way."""
    x = RNG.uniform(-4.5, 4.5, 4096).astype(np.float32)
    mixed = x.copy()
    mixed[::1024] = np.float32(6.0)  # one tail lane in each block of 1024
    keep = np.ones(x.size, bool)
    keep[::1024] = False
    np.testing.assert_array_equal(_run("erfc", mixed)[keep], _run("erfc", x)[keep])
    assert _ulps(_run("erfc", mixed), _erfc(mixed.astype(np.float64)), np.float32).max() <= 1.0


# The starts of the AVX-512 table kernels' 32 intervals: erfc's where |x| (|x| + 2.5) passes an
# integer, tanh's (above 0.98) every 1/3.93 from 0.98 to 9.1.
_TABLE_STARTS = {"erfc": (np.sqrt(np.arange(32, dtype=np.float64) + 1.5625) - 1.25, _erfc),
                 "tanh": (np.append(0.98 + np.arange(32) / 3.93, [9.0, 9.01, 9.1, 12.0]), np.tanh)}


@pytest.mark.parametrize("name", sorted(_TABLE_STARTS))
@pytest.mark.parametrize("n", [1, 7, 15, 16, 17, 31, 33, 1037])
def test_table_kernel_vector_and_scalar_lanes(name, n):
    """erfc, tanh: a block's vector kernel (16 lanes at a time) and its scalar tail give the same bits,
    in every interval of the table kernel and on both signs; one element at a time takes the scalar
    code only."""
    a, ref = _TABLE_STARTS[name]
    pts = np.concatenate([a, -a, a + 0.01, -(a + 0.01), np.nextafter(a.astype(np.float32), 0), [0.5, -0.25]])
    x = np.resize(pts.astype(np.float32), n)
    x[n - 1 - n // 3] = np.float32(np.nan) if n > 1 else x[0]
    one = np.array([_run(name, x[i:i + 1])[0] for i in range(n)])
    got = _run(name, x)
    np.testing.assert_array_equal(got.view(np.uint32), one.view(np.uint32))
    ok = ~np.isnan(x)
    assert _ulps(got[ok], ref(x[ok].astype(np.float64)), np.float32).max() <= 1.0


def test_digamma_float32():
    """float digamma (computed in double, rounded once): within 1 ulp of mpmath on both sides of 0,
    near the root 1.4616 (where PyTorch's float32 digamma is thousands of ulps off), near the poles
    and far out; the blocks of positive lanes (one fraction for the shift, no loop) and the others
    (reflection) agree."""
    mpmath = pytest.importorskip("mpmath")
    rng = np.random.default_rng(3)
    x0 = 1.4616321449683623
    x = np.concatenate([rng.uniform(-12, 12, 3000), rng.uniform(x0 - 1e-5, x0 + 1e-5, 400), rng.uniform(0, 1e-3, 300),
                        rng.uniform(9.9, 10.1, 300), 10.0 ** rng.uniform(1, 30, 300), -3 + rng.uniform(-1e-4, 1e-4, 300),
                        rng.uniform(-1e5, -1e4, 300)]).astype(np.float32)
    x = x[(x != np.round(x)) | (x > 0)]
    ref = np.array([float(mpmath.digamma(mpmath.mpf(float(v)))) for v in x])
    got = _run("digamma", x)
    assert _ulps(got, ref, np.float32).max() <= 1.0
    pos = x[x > 0]  # blocks of positive lanes only: the fast version
    fast = _run("digamma", pos)
    mixed = pos.copy()
    mixed[::1000] = np.float32(-0.5)  # a reflected lane in each block of 1024: the full version
    keep = np.ones(pos.size, bool)
    keep[::1000] = False
    assert pos.size > 2048  # several blocks of 1024
    np.testing.assert_array_equal(_run("digamma", mixed)[keep], fast[keep])
    sp = _run("digamma", np.array([0.0, -0.0, -1.0, -2.0, np.inf, -np.inf, np.nan, 1e-45], np.float32))
    np.testing.assert_array_equal(sp[:2], [-np.inf, np.inf])
    assert np.isnan(sp[2]) and np.isnan(sp[3]) and sp[4] == np.inf and np.isnan(sp[5]) and np.isnan(sp[6])
    assert sp[7] == -np.inf


# The AVX-512 whole-block kernels of asin, acos and atanh take the last partial vector through masked
# loads and stores: points at their branch edges (|x| = 0.5, atanh's 2^-10, 1), beyond 1, +-0 and NaN.
_BLOCK_POINTS = {"asin": np.arcsin, "acos": np.arccos, "atanh": np.arctanh}


@pytest.mark.parametrize("name", sorted(_BLOCK_POINTS))
@pytest.mark.parametrize("n", [1, 7, 15, 16, 17, 31, 33, 1037])
def test_block_kernel_lanes(name, n):
    """asin, acos, atanh: a whole run gives, lane for lane, the bits of each element run alone (the
    vector body, the masked tail and single elements agree), within 1 ulp, with libm's special values."""
    edges = np.array([0.5, 2.0 ** -10, 1.0, 0.999, 0.25, 1e-30, 0.75], np.float32)
    pts = np.concatenate([edges, np.nextafter(edges, 0), np.nextafter(edges, 2)])
    pts = np.concatenate([pts, -pts, [0.0, -0.0, 1.5, -1.5, np.inf, np.nan]]).astype(np.float32)
    x = np.resize(pts, n)
    one = np.array([_run(name, x[i:i + 1])[0] for i in range(n)], np.float32)
    got = _run(name, x)
    np.testing.assert_array_equal(got.view(np.uint32)[~np.isnan(got)], one.view(np.uint32)[~np.isnan(one)])
    with np.errstate(invalid="ignore", divide="ignore"):
        ref = _BLOCK_POINTS[name](x.astype(np.float64))
    np.testing.assert_array_equal(np.isnan(got), np.isnan(ref))
    np.testing.assert_array_equal(got[np.isinf(ref)], ref[np.isinf(ref)])
    zero = ref == 0
    np.testing.assert_array_equal(np.signbit(got[zero]), np.signbit(ref[zero]))
    fin = np.isfinite(ref)
    assert _ulps(got[fin], ref[fin], np.float32).max() <= 1.0


SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 2.0, -2.0, 0.5, 100.0, -100.0, 1e30, -1e30, 1000.0, -1000.0]


def _specials(dt):
    den = 1e-40 if dt == np.float32 else 1e-310
    return np.array(SPECIAL + [den, -den], dtype=dt)


@pytest.mark.parametrize("dt", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("name", list(FUNCS) + ROUNDING + list(FLOAT_ONLY))
def test_special_values(name, dt):
    """Zeros (with their sign), infinities, NaN, denormals and domain edges give exactly what the
    correctly rounded function gives; other points are within the accuracy bound."""
    x = _specials(dt)
    y = _run(name, x)
    if name in ROUNDING:
        with np.errstate(invalid="ignore"):
            ref = {"floor": np.floor, "ceil": np.ceil, "trunc": np.trunc, "round": np.round,
                   "frac": lambda v: v - np.trunc(v)}[name](x)
        np.testing.assert_array_equal(y, ref)
        assert np.array_equal(np.signbit(y[y == 0]), np.signbit(ref[ref == 0]))
        return
    if name in FLOAT_ONLY:
        ref_fn, _, b32 = FLOAT_ONLY[name]
        b64 = b32
    else:
        ref_fn, _, b32, b64 = FUNCS[name]
    with np.errstate(all="ignore"):
        ref = ref_fn(x.astype(LD))
        exact = ref.astype(dt)
    edge = ~np.isfinite(exact) | (exact == 0) | ~np.isfinite(x) | (x == 0)
    np.testing.assert_array_equal(y[edge], exact[edge], err_msg=f"{name} at {x[edge]}")
    z = edge & (exact == 0)
    assert np.array_equal(np.signbit(y[z]), np.signbit(exact[z])), f"{name}: sign of zero at {x[z]}"
    rest = ~edge
    if name == "lgamma" and dt == np.float64:  # libm's against math.lgamma: a float64 reference, no finer
        return
    if name == "sigmoid":  # 1 / (1 + e^100) underflows to 0 in float32 (as in PyTorch)
        rest &= x > -80
    with np.errstate(over="ignore"):
        err = _ulps(y[rest], ref[rest], dt)
    assert err.max(initial=0) <= (b32 if dt == np.float32 else b64)


DOMAIN_EDGES = {
    "log": [(-1.0, np.nan), (0.0, -np.inf), (1.0, 0.0)],
    "log2": [(-1.0, np.nan), (0.0, -np.inf), (1.0, 0.0)],
    "log10": [(-1.0, np.nan), (0.0, -np.inf), (1.0, 0.0)],
    "log1p": [(-1.0, -np.inf), (-2.0, np.nan), (0.0, 0.0)],
    "atanh": [(1.0, np.inf), (-1.0, -np.inf), (1.5, np.nan), (-1.5, np.nan)],
    "sqrt": [(-1.0, np.nan), (0.0, 0.0)],
    "rsqrt": [(0.0, np.inf), (-0.0, -np.inf), (-1.0, np.nan)],
}


@pytest.mark.parametrize("dt", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("name", list(DOMAIN_EDGES))
def test_domain_edges(name, dt):
    x = np.array([a for a, _ in DOMAIN_EDGES[name]], dtype=dt)
    want = np.array([b for _, b in DOMAIN_EDGES[name]], dtype=dt)
    np.testing.assert_array_equal(_run(name, x), want)


@pytest.mark.parametrize("dt", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("name", list(FUNCS) + ROUNDING + list(FLOAT_ONLY) + ["erfinv"])
def test_strided_matches_contiguous(name, dt):
    x = RNG.uniform(-3, 3, (37, 41)).astype(dt)
    if name in ("log", "log2", "log10", "sqrt", "rsqrt"):
        x = np.abs(x)
    if name in ("atanh", "asin", "acos", "erfinv"):
        x = x / 3.5
    t = lucid.tensor(x)
    f = getattr(lucid, name)
    for view, npv in ((t.t(), x.T), (t[:, ::3], x[:, ::3]), (t[::2, 1::2], x[::2, 1::2])):
        assert not view.is_contiguous()
        np.testing.assert_array_equal(f(view).numpy(), f(lucid.tensor(np.ascontiguousarray(npv))).numpy())


@pytest.mark.parametrize("half", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", list(FUNCS) + ROUNDING + list(FLOAT_ONLY) + ["erfinv"])
def test_half_dtypes_compute_in_float(name, half):
    """float16/bfloat16 compute in float and round once: the same as the float32 op on the
    (exactly converted) inputs, rounded to the half type; strided too."""
    x = RNG.uniform(-4, 4, 3001).astype(np.float32)
    if name in ("log", "log2", "log10", "sqrt", "rsqrt"):
        x = np.abs(x) + 0.01
    if name in ("atanh", "asin", "acos", "erfinv"):
        x = x / 4.5
    dtype = getattr(lucid, half)
    xh = lucid.tensor(x).to(dtype)
    f = getattr(lucid, name)
    want = f(xh.to(lucid.float32)).to(dtype).to(lucid.float32).numpy()
    got = f(xh)
    assert got.dtype == dtype
    np.testing.assert_array_equal(got.to(lucid.float32).numpy(), want)
    np.testing.assert_array_equal(f(xh[::3]).to(lucid.float32).numpy(), want[::3])


@pytest.mark.parametrize("name", ["sqrt", "rsqrt"])
def test_sqrt_correctly_rounded_and_rsqrt_as_torch(name):
    """sqrt is the correctly rounded instruction; rsqrt is 1 / sqrt(x) (two roundings), as PyTorch."""
    for dt in (np.float32, np.float64):
        x = np.exp(RNG.uniform(-80, 80, 20000)).astype(dt)
        s = np.sqrt(x)  # correctly rounded (IEEE)
        want = s if name == "sqrt" else (dt(1) / s).astype(dt)
        np.testing.assert_array_equal(_run(name, x), want)


# ---- binary ops of the same math (float32: vmath_binary.h; computed in double, rounded once)

def _bin(name, a, b):
    return getattr(lucid, name)(lucid.tensor(a), lucid.tensor(b)).numpy()


def test_pow_float32_accuracy_scalar_exponent_and_specials():
    a = np.exp(RNG.uniform(-5, 5, 40000)).astype(np.float32)
    b = RNG.uniform(-20, 20, 40000).astype(np.float32)
    ref = np.power(a.astype(LD), b.astype(LD))
    with np.errstate(over="ignore"):
        assert _ulps(_bin("pow", a, b), ref, np.float32).max() <= 1.0
        for e in (2.5, -1.7, 0.3):  # tensor ** scalar (a broadcast operand)
            y = lucid.pow(lucid.tensor(a), e).numpy()
            assert _ulps(y, np.power(a.astype(LD), LD(np.float32(e))), np.float32).max() <= 1.0
        # exponent 3 is PyTorch's special case x * x * x (two roundings): test_arith_fastpaths.py
        np.testing.assert_array_equal(lucid.pow(lucid.tensor(a), 3.0).numpy(), a * a * a)
    # C99 special cases (as std::pow and PyTorch): zeros, infinities, NaN, negative bases
    sp = np.array([0, -0.0, 1, -1, 2, -2, 0.5, -0.5, np.inf, -np.inf, np.nan, 3, -3], dtype=np.float32)
    A, B = (v.ravel().copy() for v in np.meshgrid(sp, sp))
    y = _bin("pow", A, B)
    with np.errstate(all="ignore"):
        want = np.power(A.astype(np.float64), B.astype(np.float64)).astype(np.float32)
    np.testing.assert_array_equal(y, want)
    assert np.array_equal(np.signbit(y[y == 0]), np.signbit(want[want == 0]))
    # strided and float16
    M = RNG.uniform(0.1, 3, (31, 33)).astype(np.float32)
    t = lucid.tensor(M)
    np.testing.assert_array_equal(lucid.pow(t.t(), t.t()).numpy(), _bin("pow", M.T.copy(), M.T.copy()))
    h = t.to(lucid.float16)
    want = lucid.pow(h.to(lucid.float32), h.to(lucid.float32)).to(lucid.float16).to(lucid.float32).numpy()
    np.testing.assert_array_equal(lucid.pow(h, h).to(lucid.float32).numpy(), want)


def test_atan2_float32():
    y = RNG.uniform(-50, 50, 40000).astype(np.float32)
    x = RNG.uniform(-50, 50, 40000).astype(np.float32)
    assert _ulps(_bin("atan2", y, x), np.arctan2(y.astype(LD), x.astype(LD)), np.float32).max() <= 1.0
    sp = np.array([0, -0.0, 1, -1, np.inf, -np.inf, np.nan, 1e-40], dtype=np.float32)
    A, B = (v.ravel().copy() for v in np.meshgrid(sp, sp))
    got = _bin("atan2", A, B)
    want = np.arctan2(A.astype(np.float64), B.astype(np.float64)).astype(np.float32)
    np.testing.assert_array_equal(got, want)
    ok = ~np.isnan(want)
    assert np.array_equal(np.signbit(got[ok]), np.signbit(want[ok]))


@pytest.mark.parametrize("name", ["logaddexp", "logaddexp2"])
def test_logaddexp_float32(name):
    a = RNG.uniform(-50, 50, 40000).astype(np.float32)
    b = (a + RNG.uniform(-3, 3, 40000)).astype(np.float32)
    ref = getattr(np, name)(a.astype(LD), b.astype(LD))
    keep = np.abs(ref) > 0.5  # the formula max + log1p(.) cancels near 0 (as PyTorch's)
    assert _ulps(_bin(name, a, b)[keep], ref[keep], np.float32).max() <= 1.0
    sp = np.array([0, 1, -1, np.inf, -np.inf, np.nan, 100, -100], dtype=np.float32)
    A, B = (v.ravel().copy() for v in np.meshgrid(sp, sp))
    got = _bin(name, A, B)
    with np.errstate(all="ignore"):
        want = getattr(np, name)(A.astype(np.float64), B.astype(np.float64)).astype(np.float32)
    edge = ~np.isfinite(want) | ~np.isfinite(A) | ~np.isfinite(B)
    np.testing.assert_array_equal(got[edge], want[edge])


@pytest.mark.parametrize("name", ["sin", "cos", "tan"])
def test_trig_float32_near_quadrant_points(name):
    """float32 sin/cos/tan where the reduced argument cancels most: the floats nearest k pi/2 (small
    blocks below 12, the native reduction up to 2^17, and beyond), within 1 ulp of float64."""
    k = np.concatenate([np.arange(1, 8), np.arange(8, 83000, 97), np.arange(83000, 700000, 9973)])
    c = (k * (np.pi / 2)).astype(np.float32)
    x = np.concatenate([c, np.nextafter(c, np.float32(0)), np.nextafter(c, np.float32(np.inf)), -c])
    for xs in (x[x < 12], x):  # all-small blocks and mixed ones
        ref = getattr(np, name)(xs.astype(np.float64))
        assert _ulps(_run(name, xs), ref, np.float32).max() <= 1.0


# Ops whose CPU loop picks a cheaper version per block of 1024 when every lane is in its range, and
# the out-of-range lanes that send a block to the general code (vmath_unary.h run_block).
_BLOCK_CASES = {
    "sin": (1.0, [3.0e5, 1.0e7, np.inf, np.nan]), "cos": (1.0, [3.0e5, 1.0e7, -np.inf, np.nan]),
    "tan": (1.0, [3.0e5, -1.0e7, np.inf, np.nan]), "exp": (1.0, [100.0, -120.0, np.inf, np.nan]),
    "log": (1.0, [0.0, 1e-40, -1.0, np.nan]), "log2": (1.0, [0.0, 1e-40, np.inf, np.nan]),
    "log10": (1.0, [0.0, 1e-40, -np.inf, np.nan]), "sigmoid": (1.0, [-100.0, 100.0, np.inf, np.nan]),
    "erfc": (1.0, [5.0, -7.0, np.inf, np.nan]), "erfinv": (0.5, [0.9999, -1.0, 1.5, np.nan]),
    "lgamma": (1.0, [-2.5, 0.0, -np.inf, np.nan]),
}


@pytest.mark.parametrize("dt", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("name", list(_BLOCK_CASES))
def test_block_paths_agree(name, dt):
    """Out of place, in place, strided and out= give the same bits, on blocks all in the cheap range
    and on blocks with one lane outside it (first, middle or last lane of a block)."""
    scale, odd = _BLOCK_CASES[name]
    rng = np.random.default_rng(7)
    x = (rng.uniform(0.05, 1.0, 1024 * 9) * scale).astype(dt)
    for b, v in enumerate(odd):  # blocks 1, 3, 5, 7 get one odd lane each, at a different position
        x[1024 * (2 * b + 1) + [0, 511, 1023, 700][b]] = v
    f = getattr(lucid, name)
    want = f(lucid.tensor(x)).numpy()
    t = lucid.tensor(x)
    getattr(t, name + "_")()
    wide = np.zeros((x.size, 2), dt)
    wide[:, 0] = x
    out = lucid.empty(x.size, dtype=t.dtype)
    f(lucid.tensor(x), out=out)
    for got in (t.numpy(), f(lucid.tensor(wide)[:, 0]).numpy(), out.numpy()):
        np.testing.assert_array_equal(got.view(np.uint32 if dt == np.float32 else np.uint64)[np.isfinite(want)],
                                      want.view(np.uint32 if dt == np.float32 else np.uint64)[np.isfinite(want)])
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        np.testing.assert_array_equal(got[np.isinf(want)], want[np.isinf(want)])
    ref = getattr(np, name, None) if name in FUNCS else None  # numpy's, where the op has a 1-ulp bound
    if ref is not None:
        with np.errstate(all="ignore"):
            r = ref(x.astype(np.float64))
        ok = np.isfinite(r) & (np.abs(x) < 1e5) & (np.abs(r) >= np.finfo(dt).tiny)  # normal results
        assert _ulps(want[ok], r[ok], dt).max() <= 1.0


def test_erfinv_chunk_redo():
    """A block of 1024 with lanes outside erfinv_fast's range redoes only its chunks of 8 holding one
    (vmath_unary.h redo_chunks): the results are those of blocks all in range or all out of it, out of
    place, in place and strided, whatever the block's length and the odd lanes' positions."""
    rng = np.random.default_rng(11)
    x = rng.uniform(-1, 1, 5000).astype(np.float32)
    x[rng.integers(0, x.size, 200)] = rng.uniform(0.99, 1, 200).astype(np.float32) * rng.choice([-1, 1], 200)
    x[[7, 1023, 1024, 4999]] = [1.0, np.nan, 1e-40, -0.995]
    odd = ~((np.abs(x) <= np.float32(0.99)) & ((np.abs(x) >= 2.0 ** -100) | (x == 0)))
    want = np.empty_like(x)
    want[~odd] = lucid.erfinv(lucid.tensor(x[~odd])).numpy()
    want[odd] = lucid.erfinv(lucid.tensor(x[odd])).numpy()
    for n in (x.size, 1000, 1030, 13):
        t = lucid.tensor(x[:n])
        got = [lucid.erfinv(t).numpy(), lucid.erfinv(lucid.tensor(np.stack([x[:n], x[:n]], 1))[:, 0]).numpy()]
        t.erfinv_()
        got.append(t.numpy())
        for g in got:
            np.testing.assert_array_equal(g.view(np.uint32), want[:n].view(np.uint32))
