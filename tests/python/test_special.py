"""lucid.special (and the top-level i0 / igamma / igammac / softmax / log_softmax): values against
closed forms and PyTorch, the gradients the op table cannot check (igamma/igammac/zeta have none
for their first operand, as in PyTorch), out= and in-place forms, edge values and typed errors."""
import math

import numpy as np
import pytest

import lucid
import lucid.special as S

F64 = lucid.float64


def t64(v, rg=False):
    return lucid.tensor(np.asarray(v, dtype=np.float64), requires_grad=rg)


# ---- closed forms (no PyTorch needed)

def test_closed_forms():
    x = np.array([0.1, 0.7, 2.0, 5.5, 20.0])
    assert np.allclose(lucid.igamma(t64(np.ones(5)), t64(x)).numpy(), 1 - np.exp(-x), rtol=1e-14)   # P(1, x)
    assert np.allclose(lucid.igammac(t64(np.ones(5)), t64(x)).numpy(), np.exp(-x), rtol=1e-13)
    erf = np.vectorize(math.erf)
    assert np.allclose(lucid.igamma(t64(np.full(5, 0.5)), t64(x)).numpy(), erf(np.sqrt(x)), rtol=1e-13)  # P(1/2, x)
    assert np.allclose(S.zeta(t64([2.0, 4.0]), 1.0).numpy(), [math.pi ** 2 / 6, math.pi ** 4 / 90], rtol=1e-14)
    assert np.allclose(S.ndtr(t64([0.0, 1.0, -2.0])).numpy(), [0.5, 0.8413447460685429, 0.022750131948179195],
                       rtol=1e-14)
    assert np.allclose(S.ndtri(t64([0.5, 0.8413447460685429, 0.022750131948179195])).numpy(), [0.0, 1.0, -2.0],
                       atol=1e-14)
    assert np.allclose(S.log_ndtr(t64([-40.0])).numpy(), [-804.6084420137538], rtol=1e-14)   # left tail
    assert np.allclose(S.erfcx(t64([1e3, -1.0])).numpy(), [5.641893011272566e-04, 5.00898008076228346], rtol=1e-13)
    assert lucid.i0(t64([0.0])).item() == 1.0 and S.i1(t64([0.0])).item() == 0.0
    assert np.allclose(S.i0e(t64([1.0])).numpy(), [1.2660658777520082 * math.exp(-1)], rtol=1e-15)
    assert np.allclose(S.entr(t64([0.0, 1.0, 0.5, -1.0])).numpy(), [0.0, 0.0, 0.5 * math.log(2), -math.inf])
    assert np.isnan(S.entr(t64([math.nan])).item())
    assert np.allclose(S.xlog1py(t64([0.0, 2.0]), t64([-1.0, 1.0])).numpy(), [0.0, 2 * math.log(2)])
    assert np.isnan(S.xlog1py(t64([0.0]), t64([math.nan])).item())
    assert np.allclose(S.multigammaln(t64([3.0]), 2).numpy(), [0.5 * math.log(math.pi) + math.lgamma(3) +
                                                               math.lgamma(2.5)])


def test_edge_values():
    inf, nan = math.inf, math.nan
    a = t64([0.0, 0.0, -1.0, 2.0, inf, inf, 2.0, nan])
    x = t64([1.0, 0.0, 1.0, 0.0, 3.0, inf, inf, 1.0])
    p, q = lucid.igamma(a, x).numpy(), lucid.igammac(a, x).numpy()
    np.testing.assert_array_equal(p, [1.0, nan, nan, 0.0, 0.0, nan, 1.0, nan])
    np.testing.assert_array_equal(q, [0.0, nan, nan, 1.0, 1.0, nan, 0.0, nan])
    np.testing.assert_array_equal(S.ndtri(t64([0.0, 1.0, -0.5, 1.5])).numpy(), [-inf, inf, nan, nan])
    np.testing.assert_array_equal(S.zeta(t64([1.0, 0.5, 2.0]), t64([1.0, 1.0, 0.0])).numpy(), [inf, nan, inf])
    np.testing.assert_array_equal(S.erfcx(t64([inf, -inf, -30.0])).numpy(), [0.0, inf, inf])


# ---- gradients

def test_gradcheck_second_operand():
    a = t64([0.7, 1.5, 3.0, 12.0])
    x = t64([0.4, 2.0, 2.5, 11.0], rg=True)
    for f in (lucid.igamma, lucid.igammac):
        assert lucid.autograd.gradcheck(lambda x: f(a, x), (x,))
        assert lucid.autograd.gradgradcheck(lambda x: f(a, x), (x,))
    s = t64([1.5, 2.0, 3.5, 5.0])
    assert lucid.autograd.gradcheck(lambda q: S.zeta(s, q), (x,))
    assert lucid.autograd.gradgradcheck(lambda q: S.zeta(s, q), (x,))
    # broadcast: the second operand's gradient sums over the broadcast dim
    xb = t64([0.5, 1.5], rg=True)
    assert lucid.autograd.gradcheck(lambda x: lucid.igamma(t64([[1.0], [2.0], [4.0]]), x), (xb,))


def test_composites_gradcheck():
    x = t64([0.3, 0.9, 1.7], rg=True)
    for f in (S.ndtr, S.entr, lambda v: S.xlog1py(v, v), lambda v: S.multigammaln(v + 1, 3)):
        assert lucid.autograd.gradcheck(f, (x,))


@pytest.mark.parametrize("f", [lucid.igamma, lucid.igammac, S.zeta])
def test_first_operand_has_no_gradient(f):
    a = t64([1.5, 2.0], rg=True)
    y = f(a, t64([1.0, 3.0]))
    assert y.requires_grad
    with pytest.raises(NotImplementedError, match="derivative"):
        y.sum().backward()


def test_grad_fn_names():
    x = t64([0.5], rg=True)
    assert lucid.i0(x).grad_fn.name() == "I0Backward0"
    assert S.ndtri(x).grad_fn.name() == "SpecialNdtriBackward0"
    assert lucid.igamma(t64([1.0]), x).grad_fn.name() == "IgammaBackward0"


# ---- against PyTorch

_UNARY = ["i0", "i0e", "i1", "i1e", "erfcx", "log_ndtr", "ndtr", "entr", "expit", "psi", "digamma", "gammaln",
          "erf", "erfc", "exp2", "expm1", "log1p", "sinc", "modified_bessel_i0", "modified_bessel_i1"]


@pytest.mark.parametrize("name", _UNARY)
@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_unary_matches_torch(torch, name, dt):
    x = np.concatenate([np.linspace(-12, 12, 97), [0.0, 1e-8, -3e-5, 30.0, -30.0]]).astype(dt)
    if name == "modified_bessel_i0" or name == "modified_bessel_i1":
        x = x[np.abs(x) < 12]
    got = getattr(S, name)(lucid.tensor(x)).numpy()
    want = getattr(torch.special, name)(torch.from_numpy(x)).numpy()
    assert got.dtype == want.dtype
    # absolute slack for results near a root or in an underflowing tail, where PyTorch's float32
    # digamma and its ndtr (1 + erf(x / sqrt 2)) / 2 lose relative accuracy (lucid's ndtr uses erfc)
    rtol, atol = (2e-6, 1e-6) if dt == "float32" else (1e-12, 1e-15)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


def test_ndtri_matches_torch(torch):
    p = np.concatenate([np.linspace(0, 1, 201), [1e-300, 1e-20, 1 - 1e-12]])
    np.testing.assert_allclose(S.ndtri(t64(p)).numpy(), torch.special.ndtri(torch.from_numpy(p)).numpy(), rtol=1e-14)


def test_igamma_matches_torch(torch):
    rng = np.random.default_rng(3)
    a = np.concatenate([rng.uniform(0, 5, 200), rng.uniform(5, 300, 200), [1e3, 1e4, 1e5, 1e6]])
    x = np.concatenate([rng.uniform(0, 8, 200), a[200:400] * rng.uniform(0.7, 1.3, 200), [1010, 9900, 1e5 + 300,
                                                                                          1e6 - 1e3]])
    for name in ("igamma", "igammac"):
        got = getattr(lucid, name)(t64(a), t64(x)).numpy()
        want = getattr(torch, name)(torch.from_numpy(a), torch.from_numpy(x)).numpy()
        # PyTorch's uniform asymptotic expansion for a ~ x > 20 is good to about 2e-9 there (lucid's
        # series / continued fraction: 1e-14 against mpmath), so the float64 tolerance is 5e-9
        np.testing.assert_allclose(got, want, rtol=5e-9, atol=1e-300)
        got32 = getattr(lucid, name)(lucid.tensor(a.astype(np.float32)), lucid.tensor(x.astype(np.float32))).numpy()
        np.testing.assert_allclose(got32, getattr(torch, name)(torch.from_numpy(a.astype(np.float32)),
                                                            torch.from_numpy(x.astype(np.float32))).numpy(),
                                   rtol=3e-5, atol=1e-30)


def test_zeta_and_xlog1py_match_torch(torch):
    x, q = np.linspace(1.1, 9, 40), np.linspace(0.05, 30, 40)
    np.testing.assert_allclose(S.zeta(t64(x), t64(q)).numpy(),
                               torch.special.zeta(torch.from_numpy(x), torch.from_numpy(q)).numpy(), rtol=1e-13)
    np.testing.assert_allclose(S.zeta(t64(x), 2.5).numpy(), torch.special.zeta(torch.from_numpy(x), 2.5).numpy(),
                               rtol=1e-13)
    y = np.linspace(-0.9, 5, 40)
    np.testing.assert_allclose(S.xlog1py(t64(x), t64(y)).numpy(),
                               torch.special.xlog1py(torch.from_numpy(x), torch.from_numpy(y)).numpy(), rtol=1e-15)
    i = lucid.tensor([1, 2, 3])
    assert S.xlog1py(i, 2).dtype is torch_dtype_name(torch.special.xlog1py(torch.tensor([1, 2, 3]), 2))


def torch_dtype_name(t):
    return getattr(lucid, str(t.dtype).replace("torch.", ""))


def test_softmax_family_matches_torch(torch):
    x = np.random.default_rng(0).standard_normal((3, 5))
    for ns in (lucid, S):
        np.testing.assert_allclose(ns.softmax(t64(x), 1).numpy(), torch.softmax(torch.from_numpy(x), 1).numpy(),
                                   rtol=1e-14)
        np.testing.assert_allclose(ns.log_softmax(t64(x), 0).numpy(),
                                   torch.log_softmax(torch.from_numpy(x), 0).numpy(), rtol=1e-14)
    assert lucid.softmax(t64(x), 1, dtype=lucid.float32).dtype is lucid.float32
    np.testing.assert_allclose(S.logsumexp(t64(x), 1).numpy(),
                               torch.special.logsumexp(torch.from_numpy(x), 1).numpy(), rtol=1e-14)


def test_gradients_match_torch(torch):
    x = np.array([-2.5, -0.3, 0.0, 0.4, 3.0])
    for name in ("i0", "i0e", "i1", "i1e", "erfcx", "log_ndtr"):
        lx, tx = t64(x, rg=True), torch.tensor(x, requires_grad=True)
        getattr(S, name)(lx).sum().backward()
        getattr(torch.special, name)(tx).sum().backward()
        np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), rtol=1e-12, err_msg=name)
    p = np.array([0.01, 0.3, 0.5, 0.97])
    lx, tx = t64(p, rg=True), torch.tensor(p, requires_grad=True)
    S.ndtri(lx).sum().backward()
    torch.special.ndtri(tx).sum().backward()
    np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), rtol=1e-12)


# ---- forms: out=, in place, methods, dtypes

def test_out_and_inplace():
    x = t64([0.5, 1.5])
    out = lucid.empty(2, dtype=F64)
    r = S.i0e(x, out=out)
    assert r is out and np.allclose(out.numpy(), S.i0e(x).numpy())
    out = lucid.empty(2, dtype=F64)
    assert lucid.igamma(x, 2.0, out=out) is out and np.allclose(out.numpy(), lucid.igamma(x, 2.0).numpy())
    y = x.clone()
    assert y.i0_() is y and np.allclose(y.numpy(), lucid.i0(x).numpy())
    y = x.clone()
    y.igamma_(t64([1.0, 2.0]))
    assert np.allclose(y.numpy(), lucid.igamma(x, t64([1.0, 2.0])).numpy())
    y = x.clone()
    y.igammac_(2.0)
    assert np.allclose(y.numpy(), x.igammac(2.0).numpy())
    with pytest.raises(lucid.DtypeMismatch, match="can't be cast"):
        lucid.tensor([1, 2]).i0_()
    with pytest.raises(lucid.ShapeMismatch, match="broadcast shape"):
        x.clone().igamma_(t64([[1.0], [2.0]]))


def test_dtypes():
    assert lucid.i0(lucid.tensor([1, 2])).dtype is lucid.float32
    assert S.i1(lucid.tensor([1.0], dtype=lucid.float16)).dtype is lucid.float16
    assert lucid.igamma(lucid.tensor([1, 2]), 2.0).dtype is lucid.float32
    assert lucid.igamma(lucid.tensor([1.0], dtype=lucid.bfloat16), lucid.tensor(2.0)).dtype is lucid.bfloat16
    assert lucid.igamma(t64([1.0]), lucid.tensor([2.0])).dtype is F64
    # float16 computes in double and rounds once
    h = S.erfcx(lucid.tensor([0.5, 2.0], dtype=lucid.float16)).float().numpy()
    assert np.allclose(h, np.float16(S.erfcx(t64([0.5, 2.0])).numpy()))


def test_errors():
    c = lucid.tensor([1 + 1j])
    for f in (lucid.i0, S.i0e, S.i1, S.erfcx, S.ndtri, S.log_ndtr):
        with pytest.raises(NotImplementedError, match="complex64"):
            f(c)
    with pytest.raises(NotImplementedError, match=r"igamma.*complex"):
        lucid.igamma(c, c)
    with pytest.raises(lucid.ShapeMismatch, match=r"igammac"):
        lucid.igammac(t64([1.0, 2.0]), t64([1.0, 2.0, 3.0]))
    with pytest.raises(TypeError):
        lucid.igamma(1.0, 2.0)
    with pytest.raises(ValueError, match="greater than"):
        S.multigammaln(t64([0.2]), 2)
    with pytest.raises(ValueError, match="positive integer"):
        S.multigammaln(t64([3.0]), 0)


def test_cuda_tensors_are_refused_cleanly(cuda_device):
    x = lucid.tensor([1.0], device=cuda_device)
    with pytest.raises(NotImplementedError):
        lucid.i0(x)
    with pytest.raises(NotImplementedError):
        lucid.igamma(x, x)


# ---- Airy Ai, the Bessel J/Y/K functions, spherical j0 and the orthogonal polynomials (no derivatives)

_BESSEL = ["airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_k0", "modified_bessel_k1",
           "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "spherical_bessel_j0"]
_POLY = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
         "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
         "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l",
         "legendre_polynomial_p"]


def test_bessel_closed_forms():
    x = np.array([0.3, 1.0, 2.5, 4.9, 5.1, 7.0, 12.0, 40.0])
    j0, j1, y0, y1 = (getattr(S, n)(t64(x)).numpy() for n in ("bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1"))
    # the Wronskian J1 Y0 - J0 Y1 = 2 / (pi x) (to PyTorch's accuracy near x = 5: ~5e-8, see special_math2.h)
    np.testing.assert_allclose(j1 * y0 - j0 * y1, 2 / (math.pi * x), rtol=2e-7)
    np.testing.assert_allclose(j0[:2], [0.9776262465382961, 0.7651976865579666], rtol=1e-14)
    np.testing.assert_allclose(y1[:2], [-2.2931051383885293, -0.7812128213002887], rtol=1e-14)
    k0, k1 = S.modified_bessel_k0(t64(x)).numpy(), S.modified_bessel_k1(t64(x)).numpy()
    i0, i1 = lucid.i0(t64(x)).numpy(), S.i1(t64(x)).numpy()
    np.testing.assert_allclose(i0 * k1 + i1 * k0, 1 / x, rtol=1e-13)   # the Wronskian of I and K
    np.testing.assert_allclose(k0[:2], [1.3724600605442974, 0.42102443824070834], rtol=1e-14)
    np.testing.assert_allclose(S.scaled_modified_bessel_k0(t64(x)).numpy(), k0 * np.exp(x), rtol=1e-14)
    np.testing.assert_allclose(S.scaled_modified_bessel_k1(t64(x)).numpy(), k1 * np.exp(x), rtol=1e-14)
    np.testing.assert_allclose(S.scaled_modified_bessel_k1(t64([800.0])).numpy(), [0.04433210911141211], rtol=1e-13)
    s = np.array([-7.0, -0.4, 1e-5, 0.3, 0.6, 3.0, 1e3])
    np.testing.assert_allclose(S.spherical_bessel_j0(t64(s)).numpy(), np.sin(s) / s, rtol=1e-15)
    a = S.airy_ai(t64([0.0, 1.0, -1.0, 2.5, 10.0, -10.0, 100.0])).numpy()
    np.testing.assert_allclose(a, [0.3550280538878172, 0.1352924163128814, 0.5355608832923521, 0.01572592338047049,
                                   1.1047532552898686e-10, 0.04024123848644319, 2.6344821520881846e-291], rtol=1e-13)


def test_bessel_against_mpmath():
    mpmath = pytest.importorskip("mpmath")
    fns = {"bessel_j0": lambda v: mpmath.besselj(0, v), "bessel_j1": lambda v: mpmath.besselj(1, v),
           "bessel_y0": lambda v: mpmath.bessely(0, v), "bessel_y1": lambda v: mpmath.bessely(1, v),
           "modified_bessel_k0": lambda v: mpmath.besselk(0, v), "modified_bessel_k1": lambda v: mpmath.besselk(1, v),
           "airy_ai": mpmath.airyai}
    x = np.array([0.1, 0.7, 1.9, 3.3, 5.01, 6.2, 9.7, 15.5, 31.0, 77.0])
    for name, f in fns.items():
        pts = np.concatenate([-x, x]) if name in ("bessel_j0", "bessel_j1", "airy_ai") else x
        pts = np.concatenate([pts, [-2.1, -2.5, -3.0]]) if name == "airy_ai" else pts
        want = np.array([float(f(v)) for v in pts])
        # Cephes' accuracy everywhere (special_math2.h: the p1evl denominators PyTorch gets wrong near
        # x = 5 for J and Y and below -2.09 for Ai); K to a few ulps
        rtol, atol = (1e-14, 1e-300) if name.startswith("modified") else (5e-14, 1e-15)
        np.testing.assert_allclose(getattr(S, name)(t64(pts)).numpy(), want, rtol=rtol, atol=atol, err_msg=name)


def test_bessel_special_values():
    inf, nan = math.inf, math.nan
    x = t64([inf, -inf, nan, 0.0, -0.0, -2.0])
    want = {"airy_ai": [nan, nan, nan, 0.3550280538878172, 0.3550280538878172, 0.22740742820168557],
            "bessel_j0": [nan, nan, nan, 1.0, 1.0, 0.22389077914123567],
            "bessel_j1": [nan, nan, nan, 0.0, -0.0, -0.5767248077568734],
            "bessel_y0": [nan, nan, nan, -inf, -inf, nan], "bessel_y1": [nan, nan, nan, -inf, -inf, nan],
            "modified_bessel_k0": [0.0, nan, nan, inf, inf, nan], "modified_bessel_k1": [0.0, nan, nan, inf, inf, nan],
            "scaled_modified_bessel_k0": [0.0, nan, nan, inf, inf, nan],
            "scaled_modified_bessel_k1": [0.0, nan, nan, inf, inf, nan],
            "spherical_bessel_j0": [0.0, 0.0, nan, 1.0, 1.0, 0.45464871341284085]}
    for name, w in want.items():
        np.testing.assert_allclose(getattr(S, name)(x).numpy(), w, rtol=5e-14, err_msg=name)
    assert S.airy_ai(t64([103.9, -1e6])).numpy()[0] == 0.0
    assert np.signbit(S.bessel_j1(t64([-0.0])).numpy()[0])


def test_polynomial_closed_forms():
    th = np.linspace(0.05, 3.1, 25)
    c = t64(np.cos(th))
    for n in (0, 1, 2, 5, 6, 7, 8, 9, 30, 1000):   # the recurrences and the trigonometric forms
        np.testing.assert_allclose(S.chebyshev_polynomial_t(c, n).numpy(), np.cos(n * th), atol=1e-13 * max(n, 1))
        np.testing.assert_allclose(S.chebyshev_polynomial_u(c, n).numpy(), np.sin((n + 1) * th) / np.sin(th),
                                   rtol=1e-11, atol=1e-12 * n)
        np.testing.assert_allclose(S.chebyshev_polynomial_v(c, n).numpy(),
                                   np.cos((n + 0.5) * th) / np.cos(th / 2), rtol=1e-11, atol=1e-12 * n)
        np.testing.assert_allclose(S.chebyshev_polynomial_w(c, n).numpy(),
                                   np.sin((n + 0.5) * th) / np.sin(th / 2), rtol=1e-11, atol=1e-12 * n)
        h = t64((np.cos(th) + 1) / 2)   # shifted: P*(x) = P(2x - 1)
        for k in "tuvw":
            np.testing.assert_allclose(getattr(S, f"shifted_chebyshev_polynomial_{k}")(h, n).numpy(),
                                       getattr(S, f"chebyshev_polynomial_{k}")(t64(2 * h.numpy() - 1), n).numpy(),
                                       rtol=1e-9, atol=1e-11 * max(n, 1))
    x = np.linspace(-3, 3, 13)
    np.testing.assert_allclose(S.hermite_polynomial_h(t64(x), 3).numpy(), 8 * x ** 3 - 12 * x, atol=1e-12)
    np.testing.assert_allclose(S.hermite_polynomial_he(t64(x), 4).numpy(), x ** 4 - 6 * x ** 2 + 3, atol=1e-12)
    np.testing.assert_allclose(S.laguerre_polynomial_l(t64(x), 2).numpy(), (x * x - 4 * x + 2) / 2, atol=1e-13)
    np.testing.assert_allclose(S.legendre_polynomial_p(t64(x), 3).numpy(), (5 * x ** 3 - 3 * x) / 2, atol=1e-12)
    # x and n both tensors, broadcast; orders from any dtype
    n = lucid.tensor([[0], [1], [2], [3]])
    want = np.stack([np.ones_like(x), x, (3 * x * x - 1) / 2, (5 * x ** 3 - 3 * x) / 2])
    np.testing.assert_allclose(S.legendre_polynomial_p(t64(x), n).numpy(), want, atol=1e-12)


def test_polynomial_large_orders():
    mpmath = pytest.importorskip("mpmath")
    np.testing.assert_allclose(S.legendre_polynomial_p(t64([0.5, -0.3]), 1000).numpy(),
                               [float(mpmath.legendre(1000, 0.5)), float(mpmath.legendre(1000, -0.3))], rtol=1e-12)
    np.testing.assert_allclose(S.laguerre_polynomial_l(t64([0.5]), 1000).numpy(),
                               [float(mpmath.laguerre(1000, 0, 0.5))], rtol=1e-12)
    np.testing.assert_allclose(S.hermite_polynomial_h(t64([3.0]), 150).numpy(), [float(mpmath.hermite(150, 3.0))],
                               rtol=1e-12)
    he = float(mpmath.hermite(100, 3.0 / mpmath.sqrt(2)) * mpmath.mpf(2) ** -50)
    np.testing.assert_allclose(S.hermite_polynomial_he(t64([3.0]), 100).numpy(), [he], rtol=1e-12)
    # Hermite: NaN past order 512 in float64 and 128 in the narrower dtypes (PyTorch's limits)
    assert np.isnan(S.hermite_polynomial_h(t64([0.1]), 513).item())
    assert np.isfinite(S.hermite_polynomial_h(t64([0.1]), 100).item())
    for dt in (lucid.float32, lucid.float16, lucid.bfloat16):
        assert np.isnan(S.hermite_polynomial_he(lucid.tensor([0.1], dtype=dt), 129).float().item())
        assert not np.isnan(S.hermite_polynomial_he(lucid.tensor([0.1], dtype=dt), 128).float().item())
    # past the overflow the recurrence stops at the first NaN (|x| > 1): no endless loop on huge orders
    assert np.isnan(S.chebyshev_polynomial_t(t64([3.0]), 2.0 ** 62).item())


def test_polynomial_orders():
    x = t64([-1.0, 1.0, 0.0, 0.3, 2.0, -2.5])
    inf, nan = math.inf, math.nan
    for name in _POLY:
        f = getattr(S, name)
        ref = f(x, 2).numpy()
        # a floating order is truncated toward zero (2.7 -> 2, -0.5 -> 0); negative orders give 0, and so do
        # NaN, +-inf and orders beyond int64 (PyTorch's cast of them on x86)
        np.testing.assert_array_equal(f(x, 2.7).numpy(), ref)
        np.testing.assert_array_equal(f(x, -0.5).numpy(), f(x, 0).numpy())
        np.testing.assert_array_equal(f(x, 0).numpy(), np.ones(6))
        for n in (-1, -2.5, -7, nan, inf, -inf, 1e30, -1e30):
            np.testing.assert_array_equal(f(x, n).numpy(), np.zeros(6), err_msg=f"{name} n={n}")
        # a NaN x gives NaN (PyTorch reads an uninitialized value for some of them)
        assert np.isnan(f(t64([nan, nan, nan]), t64([1.0, 3.0, 12.0])).numpy()).all(), name
        assert f(t64([0.5]), t64([3.0])).dtype is F64
    # the special points
    n = t64([0.0, 1.0, 2.0, 3.0, 4.0, 11.0])
    np.testing.assert_array_equal(S.chebyshev_polynomial_t(-1.0, n).numpy(), [1, -1, 1, -1, 1, -1])
    np.testing.assert_array_equal(S.chebyshev_polynomial_u(-1.0, n).numpy(), [1, -2, 3, -4, 5, -12])
    np.testing.assert_array_equal(S.chebyshev_polynomial_v(1.0, n).numpy(), [1, 1, 1, 1, 1, 1])
    np.testing.assert_array_equal(S.chebyshev_polynomial_v(-1.0, n).numpy(), [1, -3, 5, -7, 9, -23])
    np.testing.assert_array_equal(S.chebyshev_polynomial_w(1.0, n).numpy(), [1, 3, 5, 7, 9, 23])
    np.testing.assert_array_equal(S.shifted_chebyshev_polynomial_w(0.0, n).numpy(), [1, -1, 1, -1, 1, -1])
    np.testing.assert_array_equal(S.shifted_chebyshev_polynomial_u(1.0, n).numpy(), [1, 2, 3, 4, 5, 12])
    np.testing.assert_array_equal(S.legendre_polynomial_p(-1.0, n).numpy(), [1, -1, 1, -1, 1, -1])
    np.testing.assert_array_equal(S.laguerre_polynomial_l(0.0, n).numpy(), np.ones(6))


@pytest.mark.parametrize("name", _BESSEL)
def test_bessel_matches_torch(torch, name):
    x = np.concatenate([np.linspace(-60, 60, 2401), np.linspace(-3, 3, 601), [0.0, 1e-7, -1e-7, 5.0, 2.09, -2.09,
                                                                          8.3203353, 103.8, 103.9, 700.0, 1e5]])
    got = getattr(S, name)(t64(x)).numpy()
    want = getattr(torch.special, name)(torch.from_numpy(x)).numpy()
    # the same algorithm: ~1e-13 apart (PyTorch's build contracts products and sums into FMAs), except
    # where PyTorch drops the leading 1 of Cephes' p1evl denominators (special_math2.h): Ai below
    # -2.09, J and Y above 2 (up to 3e-6 and 9e-7 there, lucid within 1e-15 of mpmath)
    off = (x < -2.09) if name == "airy_ai" else (np.abs(x) > 2) if name.startswith("bessel_") else np.zeros(x.shape, bool)
    np.testing.assert_allclose(got[~off], want[~off], rtol=2e-12, atol=1e-300)
    np.testing.assert_allclose(got[off], want[off], rtol=0, atol=4e-6)
    x32 = x.astype(np.float32)   # float32 computes in double here, in float there
    np.testing.assert_allclose(getattr(S, name)(lucid.tensor(x32)).numpy(),
                               getattr(torch.special, name)(torch.from_numpy(x32)).numpy(), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", _POLY)
def test_polynomial_matches_torch(torch, name):
    x, n = np.meshgrid(np.concatenate([np.linspace(-3, 3, 241), [-1.0, 1.0, 0.0, 1e3, -1e3]]),
                       np.concatenate([np.arange(0, 61.0), [2.5, 3.9, -0.5, -3.0, 100.0, 128.0, 129.0, 300.0]]),
                       indexing="ij")
    got = getattr(S, name)(t64(x), t64(n)).numpy()
    want = getattr(torch.special, name)(torch.from_numpy(x), torch.from_numpy(n)).numpy()
    # near a root the recurrences' rounding is relative to the largest term so far: compare at the
    # scale of max_k<=n |P_k(x)| (~1e-14 apart: PyTorch's build contracts into FMAs)
    scale = np.maximum.accumulate(np.where(np.isfinite(want), np.abs(want), 0.0)[:, :61], axis=1)
    np.testing.assert_array_equal(np.isfinite(got), np.isfinite(want))
    fin = np.isfinite(want)[:, :61]
    with np.errstate(invalid="ignore"):   # inf - inf where both overflow
        err = np.abs(got - want)[:, :61]
    assert (err[fin] <= 1e-13 * scale[fin] + 1e-300).all(), name
    np.testing.assert_allclose(got[:, 61:], want[:, 61:], rtol=1e-12, atol=1e-12)
    assert S.chebyshev_polynomial_t(0.5, lucid.tensor([2, 3])).dtype.name == str(
        torch.special.chebyshev_polynomial_t(0.5, torch.tensor([2, 3])).dtype).replace("torch.", "")


@pytest.mark.parametrize("name", _BESSEL + _POLY)
def test_narrow_dtypes_round_once(name):
    # float32/float16/bfloat16 compute in double and round once: exactly the float64 result, rounded
    x = np.linspace(0.05, 6, 40, dtype=np.float32)
    f = getattr(S, name)
    args = (lambda t: (t,)) if name in _BESSEL else (lambda t: (t, 5))
    for dt in (lucid.float32, lucid.float16, lucid.bfloat16):
        v = lucid.tensor(x).to(dt)
        got = f(*args(v))
        assert got.dtype is dt
        want = f(*args(v.to(F64))).to(dt)
        np.testing.assert_array_equal(got.float().numpy(), want.float().numpy())


@pytest.mark.parametrize("name", _BESSEL + _POLY)
def test_no_derivative(name):
    f = getattr(S, name)
    x = t64([0.5, 1.5], rg=True)
    y = f(x) if name in _BESSEL else f(x, 3)
    assert y.requires_grad and y.grad_fn is not None
    with pytest.raises(NotImplementedError, match=rf"the derivative for 'special.{name}' is not implemented"):
        y.sum().backward()
    if name in _POLY:   # the order's side too
        y = f(t64([0.5, 1.5]), t64([2.0, 3.0], rg=True))
        with pytest.raises(NotImplementedError, match="derivative"):
            y.sum().backward()
    with lucid.no_grad():
        assert not (f(x) if name in _BESSEL else f(x, 3)).requires_grad
    assert np.isfinite((f(x.detach()) if name in _BESSEL else f(x.detach(), 3)).numpy()).all()


def test_new_functions_forms_and_errors():
    assert S.bessel_j0(lucid.tensor([1, 2])).dtype is lucid.float32
    assert S.bessel_j0(lucid.tensor([True])).dtype is lucid.float32
    assert S.hermite_polynomial_h(lucid.tensor([1, 2]), lucid.tensor([2, 3])).dtype is lucid.float32
    assert S.hermite_polynomial_h(lucid.tensor([1.0], dtype=lucid.float16), 2).dtype is lucid.float16
    assert S.legendre_polynomial_p(t64([0.5]), lucid.tensor([2], dtype=lucid.float32)).dtype is F64
    assert S.legendre_polynomial_p(lucid.tensor([0.5]), t64(2.0)).dtype is lucid.float32   # a 0-d operand
    assert S.legendre_polynomial_p(2.0, lucid.tensor([2])).dtype is lucid.float32
    y = S.legendre_polynomial_p(2.0, lucid.tensor([2, 3]))
    np.testing.assert_allclose(y.numpy(), [5.5, 17.0])
    # out=
    x = t64([0.5, 1.5])
    out = lucid.empty(2, dtype=F64)
    assert S.bessel_y1(x, out=out) is out and np.array_equal(out.numpy(), S.bessel_y1(x).numpy())
    out = lucid.empty(0, dtype=F64)
    assert S.chebyshev_polynomial_u(x, 4, out=out) is out
    np.testing.assert_array_equal(out.numpy(), S.chebyshev_polynomial_u(x, 4).numpy())
    # a non-contiguous view
    m = t64(np.arange(12.0).reshape(3, 4) / 4).t()
    np.testing.assert_array_equal(S.modified_bessel_k1(m).numpy(), S.modified_bessel_k1(m.contiguous()).numpy())
    c = lucid.tensor([1 + 1j])
    for name in _BESSEL:
        with pytest.raises(NotImplementedError, match=rf"special.{name}.*complex64"):
            getattr(S, name)(c)
    for name in _POLY:
        with pytest.raises(NotImplementedError, match="complex"):
            getattr(S, name)(c, 2)
    with pytest.raises(lucid.ShapeMismatch, match="legendre_polynomial_p"):
        S.legendre_polynomial_p(t64([1.0, 2.0]), t64([1.0, 2.0, 3.0]))
    with pytest.raises(TypeError):
        S.chebyshev_polynomial_t(0.5, 2)
