"""The activation functions of lucid.nn.functional and their layers against PyTorch: values and
gradients (contiguous and strided inputs, float32/float64), float64 gradcheck and gradgradcheck
(second derivatives through the backward op's own vjp), half dtypes, in-place variants, module reprs
and defaults, typed errors."""
import numpy as np
import pytest

import lucid
import lucid.nn as nn
import lucid.nn.functional as F
from lucid.autograd import gradcheck, gradgradcheck
from helpers import close

RNG = np.random.default_rng(11)

# (name, kwargs, points where f or a derivative jumps: kept away from for finite differences)
CASES = [
    ("relu6", {}, [0, 6]),
    ("leaky_relu", {}, [0]),
    ("leaky_relu", {"negative_slope": 0.2}, [0]),
    ("elu", {}, [0]),
    ("elu", {"alpha": 0.5}, [0]),
    ("selu", {}, [0]),
    ("celu", {}, [0]),
    ("celu", {"alpha": 2.0}, [0]),
    ("gelu", {}, []),
    ("gelu", {"approximate": "tanh"}, []),
    ("silu", {}, []),
    ("mish", {}, []),
    ("softplus", {}, []),
    ("softplus", {"beta": 2.0, "threshold": 5.0}, [2.5]),
    ("softsign", {}, [0]),
    ("softshrink", {}, [-0.5, 0.5]),
    ("softshrink", {"lambd": 1.0}, [-1, 1]),
    ("hardshrink", {}, [-0.5, 0.5]),
    ("hardshrink", {"lambd": 1.5}, [-1.5, 1.5]),
    ("tanhshrink", {}, []),
    ("hardtanh", {}, [-1, 1]),
    ("hardtanh", {"min_val": -2.0, "max_val": 0.5}, [-2, 0.5]),
    ("hardsigmoid", {}, [-3, 3]),
    ("hardswish", {}, [-3, 3]),
    ("logsigmoid", {}, []),
    ("threshold", {"threshold": 0.1, "value": 20.0}, [0.1]),
    ("threshold", {"threshold": -1.0, "value": -3.0}, [-1]),
    ("sigmoid", {}, []),
    ("tanh", {}, []),
]
IDS = [f"{n}-{'-'.join(f'{k}={v}' for k, v in kw.items())}" for n, kw, _ in CASES]


def sample(shape, kinks, scale=3.5):
    x = np.asarray(RNG.standard_normal(shape) * scale).reshape(shape)
    for k in kinks:
        near = np.abs(x - k) < 0.05
        x[near] = k + 0.1 * np.sign(x[near] - k + 1e-12)
    return x


def tfn(torch, name):
    return getattr(torch.nn.functional, name)


@pytest.mark.parametrize("name,kw,kinks", CASES, ids=IDS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "sliced"])
def test_values_and_grads_match_torch(torch, name, kw, kinks, dtype, layout):
    x = sample((6, 7), kinks).astype(dtype)
    g = RNG.standard_normal((6, 7)).astype(dtype)
    tol = 1e-5 if dtype == "float32" else 1e-12
    lx = lucid.tensor(x, requires_grad=True)
    tx = torch.tensor(x, requires_grad=True)
    if layout == "transposed":
        lin, tin, gg = lx.mT, tx.mT, g.T
    elif layout == "sliced":
        lin, tin, gg = lx[:, ::2], tx[:, ::2], g[:, ::2]
    else:
        lin, tin, gg = lx, tx, g
    assert layout == "contiguous" or not lin.is_contiguous()
    y = getattr(F, name)(lin, **kw)
    ty = tfn(torch, name)(tin, **kw)
    assert y.dtype == lx.dtype
    close(y, ty, tol)
    y.backward(lucid.tensor(np.ascontiguousarray(gg)))
    ty.backward(torch.tensor(np.ascontiguousarray(gg)))
    close(lx.grad, tx.grad, tol)


@pytest.mark.parametrize("name,kw,kinks", CASES, ids=IDS)
def test_gradcheck_gradgradcheck(name, kw, kinks):
    x = lucid.tensor(sample((3, 5), kinks), requires_grad=True)
    f = lambda t: getattr(F, name)(t, **kw)  # noqa: E731
    assert gradcheck(f, (x,))
    assert gradgradcheck(f, (x,))


@pytest.mark.parametrize("name,kw,kinks", CASES, ids=IDS)
def test_second_derivative_matches_torch(torch, name, kw, kinks):
    x = sample((4, 5), kinks)
    g = RNG.standard_normal((4, 5))
    v = RNG.standard_normal((4, 5))
    lx, tx = lucid.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    lg, tg = lucid.tensor(g, requires_grad=True), torch.tensor(g, requires_grad=True)
    (ldx,) = lucid.autograd.grad(getattr(F, name)(lx, **kw), lx, lg, create_graph=True)
    (tdx,) = torch.autograd.grad(tfn(torch, name)(tx, **kw), tx, tg, create_graph=True)
    close(ldx, tdx, 1e-12)
    lxx, lgg = lucid.autograd.grad(ldx, (lx, lg), lucid.tensor(v), allow_unused=True)
    if name == "hardsigmoid":
        tgg = torch.autograd.grad(tfn(torch, name)(tx, **kw), tx, torch.tensor(v))[0]   # v * f'(x)
        txx = None
    else:
        txx, tgg = torch.autograd.grad(tdx, (tx, tg), torch.tensor(v), allow_unused=True)
    close(lgg, tgg, 1e-12)
    if name == "hardsigmoid":                                 # PyTorch has no double backward here: 0 a.e.
        assert lxx is None or np.all(lxx.numpy() == 0)
    elif txx is None:
        assert lxx is None or np.all(lxx.numpy() == 0)
    else:
        close(lxx if lxx is not None else np.zeros_like(x), txx, 1e-10)


@pytest.mark.parametrize("name,kw,kinks", CASES, ids=IDS)
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_dtypes_compute_in_float32(torch, name, kw, kinks, dtype):
    x = sample((4, 6), kinks).astype(np.float32)
    lx = lucid.tensor(x).to(getattr(lucid, dtype))
    tx = torch.tensor(x).to(getattr(torch, dtype))
    y = getattr(F, name)(lx, **kw)
    ty = tfn(torch, name)(tx, **kw)
    assert y.dtype == getattr(lucid, dtype)
    tol = 1e-2 if dtype == "float16" else 2e-2
    np.testing.assert_allclose(y.float().numpy(), ty.float().numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("name", sorted({n for n, _, _ in CASES} - {"sigmoid", "tanh"}))
def test_integer_inputs_raise_naming_the_op(name):
    kw = {"threshold": 0.0, "value": 0.0} if name == "threshold" else {}
    # torch runs hardtanh/relu6/threshold/softsign/tanhshrink on integers (test_nn_parity.py); bool still raises
    ints = () if name in ("hardtanh", "relu6", "threshold", "softsign", "tanhshrink") else (lucid.int64, lucid.int32)
    for dt in ints + (lucid.bool,):
        with pytest.raises(NotImplementedError, match=name.replace("relu6", "relu6")):
            getattr(F, name)(lucid.zeros(3, dtype=dt), **kw)


def test_edge_values(torch):
    x = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e30, -1e30, 88.0, -88.0, 1e-40], dtype=np.float32)
    for name, kw, _ in CASES:
        y = getattr(F, name)(lucid.tensor(x), **kw).numpy()
        ty = tfn(torch, name)(torch.tensor(x), **kw).numpy()
        if name == "gelu" and not kw:       # PyTorch's vectorised erf gelu gives NaN at +inf; lucid gives inf
            assert y[1] == np.inf
            y, ty = np.delete(y, 1), np.delete(ty, 1)
            x_ = np.delete(x, 1)
        else:
            x_ = x
        if x_ is not x:
            np.testing.assert_allclose(y, ty, rtol=1e-6, atol=1e-30, err_msg=name)
            continue
        np.testing.assert_allclose(y, ty, rtol=1e-6, atol=1e-30, err_msg=name)
        np.testing.assert_array_equal(np.signbit(y[3:5]), np.signbit(ty[3:5]), err_msg=name)


def test_empty_and_zerodim(torch):
    for name, kw, _ in CASES:
        e = getattr(F, name)(lucid.zeros(0, 3), **kw)
        assert e.shape == (0, 3)
        z = getattr(F, name)(lucid.tensor(0.7), **kw)
        assert z.shape == ()
        close(z, tfn(torch, name)(torch.tensor(0.7, dtype=torch.float32), **kw), 1e-6)


def test_large_parallel(torch):
    x = RNG.standard_normal(300_001).astype(np.float32) * 4
    for name, kw, _ in CASES:
        close(getattr(F, name)(lucid.tensor(x), **kw), tfn(torch, name)(torch.tensor(x), **kw), 1e-5)


# ---- in-place

INPLACE = [
    ("relu6", {"inplace": True}, None), ("leaky_relu", {"inplace": True}, "leaky_relu_"),
    ("elu", {"inplace": True}, "elu_"), ("selu", {"inplace": True}, "selu_"), ("celu", {"inplace": True}, "celu_"),
    ("silu", {"inplace": True}, None), ("mish", {"inplace": True}, None), ("hardtanh", {"inplace": True}, "hardtanh_"),
    ("hardsigmoid", {"inplace": True}, None), ("hardswish", {"inplace": True}, None),
    ("threshold", {"threshold": 0.2, "value": -1.0, "inplace": True}, "threshold_"),
    ("rrelu", {"inplace": True}, "rrelu_"),
]


@pytest.mark.parametrize("name,kw,uname", INPLACE)
def test_inplace_semantics(torch, name, kw, uname):
    x = sample((4, 5), [0, 0.2, -3, 3, 6, 1, -1])
    lx = lucid.tensor(x)
    out = getattr(F, name)(lx, **kw)
    assert out is lx
    ref = tfn(torch, name)(torch.tensor(x), **{k: v for k, v in kw.items() if k != "inplace"})
    close(lx, ref, 1e-12)
    if uname is not None:
        lx2 = lucid.tensor(x)
        args = {k: v for k, v in kw.items() if k != "inplace"}
        assert getattr(F, uname)(lx2, **args) is lx2
        close(lx2, ref, 1e-12)
    # a non-leaf written in place carries the gradient of the activation
    a = lucid.tensor(x, requires_grad=True)
    ta = torch.tensor(x, requires_grad=True)
    b = a * 1.0
    tb = ta * 1.0
    getattr(F, name)(b, **kw)
    tfn(torch, name)(tb, **kw)
    (b * b).sum().backward()
    (tb * tb).sum().backward()
    close(a.grad, ta.grad, 1e-12)
    # a leaf that requires grad refuses the in-place write
    with pytest.raises(RuntimeError):
        getattr(F, name)(lucid.tensor(x, requires_grad=True), **kw)


def test_inplace_strided_view():
    x = lucid.tensor(sample((4, 6), [0]))
    expect = F.elu(x.mT.contiguous(), 0.7).mT.numpy()
    v = x.mT
    F.elu_(v, 0.7)
    np.testing.assert_allclose(x.numpy(), expect, rtol=1e-12)
    h = lucid.tensor(sample((5,), [0])).to(lucid.float16)
    ref = F.silu(h)
    F.silu(h, inplace=True)
    np.testing.assert_array_equal(h.float().numpy(), ref.float().numpy())


# ---- glu, prelu, rrelu, gumbel_softmax

@pytest.mark.parametrize("shape,dim", [((4, 6), -1), ((4, 6), 0), ((2, 4, 3), 1), ((6,), 0)])
def test_glu(torch, shape, dim):
    x = RNG.standard_normal(shape)
    g = RNG.standard_normal(tuple(s // 2 if i == dim % len(shape) else s for i, s in enumerate(shape)))
    lx, tx = lucid.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    y, ty = F.glu(lx, dim), torch.nn.functional.glu(tx, dim)
    close(y, ty, 1e-12)
    y.backward(lucid.tensor(g))
    ty.backward(torch.tensor(g))
    close(lx.grad, tx.grad, 1e-12)
    assert gradcheck(lambda t: F.glu(t, dim), (lucid.tensor(x, requires_grad=True),))
    assert gradgradcheck(lambda t: F.glu(t, dim), (lucid.tensor(x, requires_grad=True),))


@pytest.mark.parametrize("xshape,wshape", [((2, 3, 4), (3,)), ((2, 3, 4), (1,)), ((5, 3), (3,)), ((3,), (1,)),
                                           ((2, 3, 2, 2), ()), ((), (1,))])
def test_prelu(torch, xshape, wshape):
    x = sample(xshape, [0])
    w = RNG.standard_normal(wshape)
    lx, tx = lucid.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    lw, tw = lucid.tensor(w, requires_grad=True), torch.tensor(w, requires_grad=True)
    y, ty = F.prelu(lx, lw), torch.nn.functional.prelu(tx, tw)
    close(y, ty, 1e-12)
    g = RNG.standard_normal(ty.shape)
    y.backward(lucid.tensor(g))
    ty.backward(torch.tensor(g))
    close(lx.grad, tx.grad, 1e-12)
    close(lw.grad, tw.grad, 1e-12)
    ins = (lucid.tensor(x, requires_grad=True), lucid.tensor(w, requires_grad=True))
    assert gradcheck(F.prelu, ins)
    assert gradgradcheck(F.prelu, ins)


def test_prelu_errors():
    with pytest.raises(lucid.ShapeMismatch, match="channel size"):
        F.prelu(lucid.randn(2, 3, 4), lucid.randn(4))
    with pytest.raises(lucid.ShapeMismatch, match="1D"):
        F.prelu(lucid.randn(2, 3, 4), lucid.randn(3, 1))
    with pytest.raises(NotImplementedError, match="prelu"):
        F.prelu(lucid.zeros(3, dtype=lucid.int64), lucid.randn(1))


def test_prelu_module(torch):
    m, t = nn.PReLU(), torch.nn.PReLU()
    assert repr(m) == repr(t) and m.weight.shape == (1,) and float(m.weight[0]) == 0.25
    m3 = nn.PReLU(3, init=0.1)
    assert repr(m3) == "PReLU(num_parameters=3)" and np.allclose(m3.weight.numpy(), 0.1)
    assert [n for n, _ in m3.named_parameters()] == ["weight"]
    x = sample((2, 3, 4), [0])
    y = m3(lucid.tensor(x))
    y.sum().backward()
    ty = torch.nn.PReLU(3, init=0.1).double()
    tyy = ty(torch.tensor(x))
    tyy.sum().backward()
    close(y, tyy, 1e-6)
    close(m3.weight.grad, ty.weight.grad, 1e-6)


def test_rrelu_eval_is_mean_slope(torch):
    x = sample((5, 6), [0])
    for lower, upper in [(1 / 8, 1 / 3), (0.1, 0.5)]:
        close(F.rrelu(lucid.tensor(x), lower, upper), torch.nn.functional.rrelu(torch.tensor(x), lower, upper), 1e-12)


def test_rrelu_training_random_slopes():
    x = lucid.tensor(sample((200, 50), [0]), requires_grad=True)
    lucid.manual_seed(3)
    y = F.rrelu(x, 0.1, 0.3, training=True)
    xn, yn = x.detach().numpy(), y.detach().numpy()
    pos = xn > 0
    np.testing.assert_array_equal(yn[pos], xn[pos])
    slopes = yn[~pos] / xn[~pos]
    assert slopes.min() >= 0.1 and slopes.max() <= 0.3
    assert abs(slopes.mean() - 0.2) < 0.01 and slopes.std() > 0.05      # uniform, one draw per element
    y.backward(lucid.ones_like(y))
    np.testing.assert_allclose(x.grad.numpy(), np.where(pos, 1.0, yn / np.where(pos, 1, xn)), rtol=1e-12)
    lucid.manual_seed(3)
    np.testing.assert_array_equal(F.rrelu(x, 0.1, 0.3, training=True).detach().numpy(), yn)   # the generator's
    m = nn.RReLU(0.1, 0.3)
    assert m.training and repr(m) == "RReLU(lower=0.1, upper=0.3)"
    assert not np.allclose(m(x).detach().numpy(), F.rrelu(x, 0.1, 0.3).detach().numpy())
    m.eval()
    np.testing.assert_allclose(m(x).detach().numpy(), F.rrelu(x, 0.1, 0.3).detach().numpy())
    assert gradgradcheck(lambda t: F.rrelu(t, 0.1, 0.3), (x[:3, :3].detach().contiguous().requires_grad_(),))
    with pytest.raises(ValueError):
        F.rrelu(x, 0.5, 0.1, training=True)


def test_gumbel_softmax(torch):
    lucid.manual_seed(0)
    logits = lucid.tensor(RNG.standard_normal((64, 5)), requires_grad=True)
    y = F.gumbel_softmax(logits, tau=0.5)
    np.testing.assert_allclose(y.detach().numpy().sum(-1), 1.0, rtol=1e-12)
    assert (y.detach().numpy() >= 0).all()
    h = F.gumbel_softmax(logits, tau=1.0, hard=True, dim=-1)
    hn = h.detach().numpy()
    assert set(np.unique(hn)) <= {0.0, 1.0} and (hn.sum(-1) == 1).all()
    h.backward(lucid.tensor(RNG.standard_normal((64, 5))))
    assert logits.grad is not None and np.abs(logits.grad.numpy()).sum() > 0
    y0 = F.gumbel_softmax(logits, dim=0)
    np.testing.assert_allclose(y0.detach().numpy().sum(0), 1.0, rtol=1e-12)
    # the sampled argmax follows softmax(logits): a dominant class wins most draws
    big = lucid.tensor(np.array([[4.0, 0.0, 0.0]] * 2000))
    frac = F.gumbel_softmax(big, hard=True).numpy()[:, 0].mean()
    p = np.exp(4) / (np.exp(4) + 2)
    assert abs(frac - p) < 0.03


# ---- modules

def test_module_reprs_defaults_and_outputs(torch):
    specs = [("ReLU6", (), ()), ("ReLU6", (True,), ()), ("LeakyReLU", (), ()), ("LeakyReLU", (0.2, True), ()),
             ("ELU", (), ()), ("ELU", (0.5, True), ()), ("SELU", (), ()), ("SELU", (True,), ()), ("CELU", (), ()),
             ("CELU", (1.5,), ()), ("GELU", (), ()), ("GELU", ("tanh",), ()), ("SiLU", (), ()), ("SiLU", (True,), ()),
             ("Mish", (), ()), ("Softplus", (), ()), ("Softplus", (2.0, 10.0), ()), ("Softsign", (), ()),
             ("Softshrink", (), ()), ("Softshrink", (0.3,), ()), ("Hardshrink", (), ()), ("Tanhshrink", (), ()),
             ("Hardtanh", (), ()), ("Hardtanh", (-2.0, 2.0, True), ()), ("Hardsigmoid", (), ()),
             ("Hardsigmoid", (True,), ()), ("Hardswish", (), ()), ("Hardswish", (True,), ()), ("LogSigmoid", (), ()),
             ("Threshold", (0.1, 20.0), ()), ("Threshold", (0.1, 2.0, True), ()), ("GLU", (), ()), ("GLU", (0,), ()),
             ("Sigmoid", (), ()), ("Tanh", (), ()), ("RReLU", (), ()), ("RReLU", (0.1, 0.3, True), ())]
    for cls, args, _ in specs:
        m, t = getattr(nn, cls)(*args), getattr(torch.nn, cls)(*args)
        assert repr(m) == repr(t), cls
        for k, v in vars(t).items():
            if not k.startswith("_") and k != "training":
                assert getattr(m, k) == v, (cls, k)
        x = sample((4, 6), [0, 6, -3, 3, 0.1, 0.5, -0.5, 1, -1, 2, -2, 0.3, -0.3])
        m.eval(), t.eval()
        close(m(lucid.tensor(x)), t(torch.tensor(x)), 1e-12)
    assert isinstance(nn.ReLU6(), nn.Hardtanh)
    assert "GELU(approximate='tanh')" in repr(nn.Sequential(nn.Linear(2, 2), nn.GELU("tanh")))


def test_module_inplace_writes_input():
    x = lucid.tensor(sample((3, 4), [0]))
    assert nn.LeakyReLU(0.1, inplace=True)(x) is x
    assert nn.Hardswish(inplace=True)(x) is x
    y = lucid.tensor(sample((3, 4), [0]))
    assert nn.ELU()(y) is not y


# ---- typed errors

def test_argument_errors():
    x = lucid.randn(3, 4)
    with pytest.raises(ValueError, match="min_val cannot be greater than max_val"):
        F.hardtanh(x, 2.0, 1.0)
    with pytest.raises(ValueError, match="lambda"):
        F.softshrink(x, -1.0)
    with pytest.raises(ValueError, match="approximate"):
        F.gelu(x, approximate="fast")
    with pytest.raises(ValueError, match="alpha"):
        F.celu(x, 0.0)
    with pytest.raises(lucid.ShapeMismatch, match="even"):
        F.glu(lucid.randn(3, 3))
    with pytest.raises(lucid.ShapeMismatch, match="scalars"):
        F.glu(lucid.tensor(1.0))
    with pytest.raises(IndexError):
        F.glu(x, 2)
    with pytest.raises(NotImplementedError, match="glu"):
        F.glu(lucid.zeros(4, dtype=lucid.int64))
    with pytest.raises(NotImplementedError, match="rrelu"):
        F.rrelu(lucid.zeros(4, dtype=lucid.int64))
    with pytest.raises(NotImplementedError, match=r"\[gelu\]"):
        F.gelu(lucid.zeros(4, dtype=lucid.int64), approximate="tanh")
    with pytest.raises(NotImplementedError, match=r"\[selu\]"):
        F.selu(lucid.zeros(4, dtype=lucid.int32))


def test_backward_node_names():
    x = lucid.randn(3, requires_grad=True)
    assert F.gelu(x).grad_fn.name() == "GeluBackward0"
    assert F.leaky_relu(x).grad_fn.name() == "LeakyReluBackward0"
    assert F.relu6(x).grad_fn.name() == "HardtanhBackward0"


@pytest.mark.parametrize("name,kw", [("elu_", {"alpha": 0.7}), ("leaky_relu_", {"negative_slope": 0.3}),
                                     ("hardtanh_", {}), ("threshold_", {"threshold": 0.2, "value": -1.0})])
def test_inplace_gradgradcheck(name, kw):
    x = lucid.tensor(sample((3, 4), [0, 0.2, -1, 1]), requires_grad=True)

    def f(t):
        u = t * 1.0
        getattr(F, name)(u, **kw)
        return u * u
    assert gradcheck(f, (x,))
    assert gradgradcheck(f, (x,))


def test_third_order_of_smooth_activation_is_refused():
    x = lucid.tensor([0.3, -0.2], requires_grad=True)
    (g,) = lucid.autograd.grad(F.gelu(x).sum(), x, create_graph=True)
    (gg,) = lucid.autograd.grad(g.sum(), x, create_graph=True)
    np.testing.assert_allclose(gg.detach().numpy(), np.exp(-0.5 * x.detach().numpy() ** 2) / np.sqrt(2 * np.pi) *
                               (2 - x.detach().numpy() ** 2), rtol=1e-6)
    with pytest.raises(NotImplementedError, match="order 3"):
        lucid.autograd.grad(gg.sum(), x)


def test_relu_passes_nan_and_negative_zero_as_torch():
    """relu(NaN) is NaN and relu(-0.0) is -0.0 (torch's clamp_min semantics), on the vector body and the tail."""
    vals = [float("nan"), -0.0, -1.0, 2.0, float("inf"), -float("inf")] * 7
    y = lucid.relu(lucid.tensor(vals))
    got = np.array(y.tolist())
    want = np.array([np.nan, -0.0, 0.0, 2.0, np.inf, 0.0] * 7)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
