"""Accuracy of the vectorised float32 gelu (erf form), its gradient, silu and the batch-norm
statistics, against float64 references over dense grids with tails, on every CPU ISA path."""
import math

import numpy as np
import pytest

import lucid
import lucid.nn.functional as F


@pytest.fixture
def each_isa():
    """The ISA paths the CPU has (baseline, AVX2, AVX-512); the conftest fixture restores the path."""
    paths = []
    for name in ("baseline", "avx2", "avx512"):
        if lucid._C._set_cpu_isa(name) == name:
            paths.append(name)
    return paths


_erfc = np.vectorize(math.erfc)


def grid():
    # dense on [-10, 10] (an odd count: not a multiple of the vector width), the far tails where the
    # lower tail underflows, and large magnitudes
    return np.concatenate([np.linspace(-10, 10, 200_003), np.linspace(-14.5, -10, 20_001), np.linspace(10, 40, 3_001),
                           [-1e30, -1e4, -100.0, -20.0, 100.0, 1e4, 1e30]]).astype(np.float32)


def gelu_ref(x):
    x = x.astype(np.float64)
    return x * 0.5 * _erfc(-x / math.sqrt(2))


def gelu_grad_ref(x):
    x = x.astype(np.float64)
    return 0.5 * _erfc(-x / math.sqrt(2)) + x * np.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)


def errors(y, ref, floor):
    """(max abs error, max relative error where |ref| > floor)."""
    y = np.asarray(y, dtype=np.float64)
    ae = np.abs(y - ref)
    m = np.abs(ref) > floor
    return ae.max(), (ae[m] / np.abs(ref[m])).max()


# relative error bounds where |reference| > 1e-37 (AVX-512: the minimax erfc form, ~5 ulp at worst;
# AVX2 / baseline: Numerical Recipes' erfc)
GELU_REL = {"avx512": 1e-6, "avx2": 2e-5, "baseline": 2e-5}


def test_gelu_accuracy_against_float64(each_isa):
    x = grid()
    ref = gelu_ref(x)
    for isa in each_isa:
        lucid._C._set_cpu_isa(isa)
        y = F.gelu(lucid.tensor(x)).numpy()
        ae, re = errors(y, ref, 1e-37)
        assert ae <= 4e-7 * 10, (isa, ae)          # 1 ulp of the largest values (x up to 40)
        assert errors(y[np.abs(x) < 10], ref[np.abs(x) < 10], 0)[0] <= 4e-7, isa
        assert re <= GELU_REL[isa], (isa, re)
        # where the output is not tiny: a few ulp
        _, re3 = errors(y, ref, 1e-3)
        assert re3 <= (5e-7 if isa == "avx512" else 2e-6), (isa, re3)


def test_gelu_at_least_as_accurate_as_torch(torch, each_isa):
    x = grid()
    ref = gelu_ref(x)
    ty = torch.nn.functional.gelu(torch.tensor(x)).numpy()
    t_ae, t_re = errors(ty[np.isfinite(ty)], ref[np.isfinite(ty)], 1e-30)
    tx = torch.tensor(x, requires_grad=True)
    torch.nn.functional.gelu(tx).sum().backward()
    gref = gelu_grad_ref(x)
    tg = tx.grad.numpy()
    fin = np.isfinite(tg) & np.isfinite(gref)
    tg_ae = errors(tg[fin], gref[fin], 0)[0]
    for isa in each_isa:
        lucid._C._set_cpu_isa(isa)
        y = F.gelu(lucid.tensor(x)).numpy()
        ae, re = errors(y[np.isfinite(ty)], ref[np.isfinite(ty)], 1e-30)
        assert ae <= t_ae and re <= t_re, (isa, ae, t_ae, re, t_re)
        lx = lucid.tensor(x, requires_grad=True)
        F.gelu(lx).sum().backward()
        assert errors(lx.grad.numpy()[fin], gref[fin], 0)[0] <= tg_ae, isa


def test_gelu_gradient_accuracy_against_float64(each_isa):
    x = grid()
    gref = gelu_grad_ref(x)
    g = np.random.default_rng(0).standard_normal(x.size).astype(np.float32)
    fin = np.isfinite(gref)
    for isa in each_isa:
        lucid._C._set_cpu_isa(isa)
        # a broadcast gradient (the backward of a sum) and a dense one
        lx = lucid.tensor(x, requires_grad=True)
        F.gelu(lx).sum().backward()
        d = lx.grad.numpy()
        ae, _ = errors(d[fin], gref[fin], 0)
        assert ae <= 3e-7, (isa, ae)
        # relative, away from the zero of gelu' (x = -0.7518: Phi + x phi cancels there for any formula)
        m = fin & (np.abs(gref) > 1e-2)
        _, re = errors(d[m], gref[m], 0)
        assert re <= 2e-5, (isa, re)
        lx = lucid.tensor(x, requires_grad=True)
        F.gelu(lx).backward(lucid.tensor(g))
        dg = lx.grad.numpy().astype(np.float64)
        assert np.abs(dg[fin] - g[fin] * gref[fin]).max() <= 3e-7 * np.abs(g).max(), isa


def test_gelu_special_values_every_isa(each_isa):
    x = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e30, -1e30, 88.0, -88.0, -14.0, -13.0, 1e-40], np.float32)
    for isa in each_isa:
        lucid._C._set_cpu_isa(isa)
        y = F.gelu(lucid.tensor(x)).numpy()
        assert np.isnan(y[0]) and y[1] == np.inf and np.isnan(y[2]), isa
        assert y[3] == 0 and not np.signbit(y[3]) and y[4] == 0 and np.signbit(y[4]), isa
        assert y[5] == np.float32(1e30) and y[6] == 0 and y[7] == 88.0 and y[8] == 0, isa
        assert -1e-36 < y[9] <= 0 and -1e-36 < y[10] <= 0, isa
        lx = lucid.tensor(x, requires_grad=True)
        F.gelu(lx).sum().backward()
        d = lx.grad.numpy()
        assert np.isnan(d[0]) and abs(d[3] - 0.5) <= 1e-7 and abs(d[4] - 0.5) <= 1e-7, isa
        assert d[5] == 1.0 and d[7] == 1.0, isa
        assert d[6] == 0 and d[8] == 0, isa


def test_gelu_strided_and_inplace_match_contiguous(each_isa):
    x = np.random.default_rng(1).standard_normal((64, 37)).astype(np.float32) * 3
    for isa in each_isa:
        lucid._C._set_cpu_isa(isa)
        a = lucid.tensor(x)
        ref = F.gelu(a).numpy()
        np.testing.assert_allclose(F.gelu(a.t()).numpy(), ref.T, rtol=2e-6, atol=1e-7)
        lx = lucid.tensor(x.T.copy(), requires_grad=True)
        F.gelu(lx.t()).sum().backward()
        ly = lucid.tensor(x, requires_grad=True)
        F.gelu(ly).sum().backward()
        np.testing.assert_allclose(lx.grad.numpy().T, ly.grad.numpy(), rtol=2e-6, atol=1e-7)


def silu_ref(x):
    x = x.astype(np.float64)
    with np.errstate(over="ignore"):
        return x / (1 + np.exp(-x))


def test_silu_accuracy_against_float64(torch, each_isa):
    x = np.concatenate([np.linspace(-30, 30, 300_007), [-87.0, -80.0, -50.0, 50.0, 1e4]]).astype(np.float32)
    ref = silu_ref(x)
    ty = torch.nn.functional.silu(torch.tensor(x)).numpy()
    _, t_re = errors(ty, ref, 1e-37)
    for isa in each_isa:
        lucid._C._set_cpu_isa(isa)
        y = F.silu(lucid.tensor(x)).numpy()
        ae, re = errors(y, ref, 1e-37)
        assert re <= max(2.5e-7, 1.5 * t_re), (isa, re, t_re)  # ~2 ulp (torch's ~1.5)
        s = F.silu(lucid.tensor(np.array([np.nan, np.inf, -np.inf, -0.0, -100.0, 100.0], np.float32))).numpy()
        assert np.isnan(s[0]) and s[1] == np.inf and np.isnan(s[2]) and s[3] == 0 and np.signbit(s[3]), isa
        assert s[4] == 0 and s[5] == 100.0, isa


@pytest.mark.parametrize("shape", [(8, 5, 40), (4, 3, 6, 7), (16, 4, 1), (64, 24), (6, 3, 5)])
def test_batch_norm_train_statistics_against_float64(torch, each_isa, shape):
    rng = np.random.default_rng(2)
    # a large common offset: the variance must not lose its digits to it
    x = (1000.0 + rng.standard_normal(shape) * np.linspace(0.5, 2.0, shape[1]).reshape((1, -1) + (1,) * (len(shape) - 2)))
    x = x.astype(np.float32)
    w = rng.standard_normal(shape[1]).astype(np.float32)
    b = rng.standard_normal(shape[1]).astype(np.float32)
    axes = (0,) + tuple(range(2, len(shape)))
    xd = x.astype(np.float64)
    mu = xd.mean(axis=axes)
    var = xd.var(axis=axes)
    bshape = (1, -1) + (1,) * (len(shape) - 2)
    yref = (xd - mu.reshape(bshape)) / np.sqrt(var.reshape(bshape) + 1e-5) * w.reshape(bshape) + b.reshape(bshape)
    n = x.size // shape[1]
    for isa in each_isa:
        lucid._C._set_cpu_isa(isa)
        rm, rv = lucid.zeros(shape[1]), lucid.ones(shape[1])
        y = F.batch_norm(lucid.tensor(x), rm, rv, lucid.tensor(w), lucid.tensor(b), training=True).numpy()
        np.testing.assert_allclose(y, yref, rtol=0, atol=2e-4 * np.abs(yref).max(), err_msg=isa)
        np.testing.assert_allclose(rm.numpy(), 0.1 * mu, rtol=1e-6, err_msg=isa)
        np.testing.assert_allclose(rv.numpy(), 0.9 + 0.1 * var * n / (n - 1), rtol=1e-5, err_msg=isa)
        trm, trv = torch.zeros(shape[1]), torch.ones(shape[1])
        ty = torch.nn.functional.batch_norm(torch.tensor(x), trm, trv, torch.tensor(w), torch.tensor(b), training=True)
        np.testing.assert_allclose(y, ty.numpy(), rtol=0, atol=2e-4 * np.abs(yref).max(), err_msg=isa)
        # eval with the running statistics: the same apply loop
        ye = F.batch_norm(lucid.tensor(x), rm, rv, lucid.tensor(w), lucid.tensor(b), training=False).numpy()
        tye = torch.nn.functional.batch_norm(torch.tensor(x), trm, trv, torch.tensor(w), torch.tensor(b), training=False)
        np.testing.assert_allclose(ye, tye.numpy(), rtol=1e-5, atol=1e-3, err_msg=isa)
