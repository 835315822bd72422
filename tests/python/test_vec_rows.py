"""The vectorised float32 row kernels (backend/cpu/vec_rows.h, built per ISA): softmax, log_softmax,
layer_norm, logsumexp, max/min (values and first index) over the last and first dims, and sums over
the first dim give PyTorch's values on every supported ISA path, on row lengths that exercise the
vector bodies and tails, and with NaN, infinities and ties."""
import numpy as np
import pytest

import lucid
import lucid.nn.functional as LF

torch = pytest.importorskip("torch")

ISAS = ["baseline", "avx2", "avx512"]
NAN, INF = float("nan"), float("inf")


def _supported_isas():
    detected = lucid._C._cpu_isa_detected()
    return ISAS[: ISAS.index(detected) + 1]


def _inputs():
    rng = np.random.default_rng(5)
    out = []
    for shape in [(3, 1), (4, 5), (6, 17), (5, 33), (3, 64), (2, 1029), (40, 300)]:
        out.append((rng.standard_normal(shape) * 4).astype(np.float32))
    special = np.array([[1, 3, 3, 2, 3] * 7, [NAN, 1, NAN, 5, 1] * 7, [-INF] * 35, [2, INF, 1, INF, 0] * 7,
                        [0.0, -0.0, 0.0, -1, -2] * 7, [-INF, 1, -INF, 2, -INF] * 7], dtype=np.float32)
    out.append(special)
    return out


def _check(got, want, rtol, atol, what):
    got = got.numpy() if hasattr(got, "numpy") else got
    want = want.numpy()
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True, err_msg=what)


@pytest.mark.parametrize("isa", ISAS)
def test_softmax_log_softmax_layer_norm(isa):
    if isa not in _supported_isas():
        pytest.skip(f"{isa} not supported here")
    lucid._C._set_cpu_isa(isa)
    for x in _inputs():
        L, T = lucid.tensor(x), torch.tensor(x)
        _check(LF.softmax(L, -1), torch.softmax(T, -1), 1e-6, 1e-7, f"softmax {x.shape} {isa}")
        _check(LF.log_softmax(L, -1), torch.log_softmax(T, -1), 1e-6, 2e-6, f"log_softmax {x.shape} {isa}")
        if np.isfinite(x).all():
            d = x.shape[-1]
            w = np.linspace(-1, 2, d).astype(np.float32)
            b = np.linspace(0.5, -0.5, d).astype(np.float32)
            for wa, ba in [(None, None), (w, None), (None, b), (w, b)]:
                got = LF.layer_norm(L, (d,), None if wa is None else lucid.tensor(wa), None if ba is None else lucid.tensor(ba))
                want = torch.nn.functional.layer_norm(T, (d,), None if wa is None else torch.tensor(wa),
                                                      None if ba is None else torch.tensor(ba))
                _check(got, want, 1e-5, 1e-5, f"layer_norm {x.shape} {isa}")


def test_layer_norm_large_offset():
    """A row with a large common offset: the variance must not cancel catastrophically."""
    rng = np.random.default_rng(1)
    x = (1000.0 + rng.standard_normal((4, 4099))).astype(np.float32)
    got = LF.layer_norm(lucid.tensor(x), (4099,))
    want = torch.nn.functional.layer_norm(torch.tensor(x).double(), (4099,)).float()
    _check(got, want, 1e-3, 1e-3, "layer_norm offset")


@pytest.mark.parametrize("isa", ISAS)
def test_reductions(isa):
    if isa not in _supported_isas():
        pytest.skip(f"{isa} not supported here")
    lucid._C._set_cpu_isa(isa)
    for x in _inputs():
        L, T = lucid.tensor(x), torch.tensor(x)
        for d in (0, 1):
            for name in ("amax", "amin", "argmax", "argmin"):
                got, want = getattr(L, name)(d), getattr(T, name)(d)
                np.testing.assert_array_equal(got.numpy(), want.numpy(), err_msg=f"{name} {x.shape} dim={d} {isa}")
            for name in ("max", "min"):
                got, want = getattr(L, name)(d), getattr(T, name)(d)
                np.testing.assert_array_equal(got.values.numpy(), want.values.numpy(), err_msg=f"{name} {x.shape} {d}")
                np.testing.assert_array_equal(got.indices.numpy(), want.indices.numpy(), err_msg=f"{name} idx {x.shape} {d}")
            _check(L.logsumexp(d), T.logsumexp(d), 1e-6, 1e-6, f"logsumexp {x.shape} dim={d} {isa}")
            _check(L.sum(d), T.sum(d), 1e-6, 1e-5, f"sum {x.shape} dim={d} {isa}")
        if not np.isnan(x).any():
            assert L.argmax().item() == T.argmax().item()


def test_first_dim_reductions_on_two_threads_match_one_thread():
    """Row-group schedule of float32 first-dim max/min/sum (several threads, one output row): the
    same values and first indices as PyTorch, and the same sums whatever the thread count."""
    rng = np.random.default_rng(9)
    x = rng.standard_normal((1000, 300)).astype(np.float32)
    x[5, :] = INF
    x[700, 1] = NAN
    x[:, 2] = -INF
    x[:, 3] = 7.0
    x[:, 4] = rng.integers(0, 3, 1000)          # ties across groups
    L, T = lucid.tensor(x), torch.tensor(x)
    y = rng.standard_normal((1000, 300)).astype(np.float32)
    sums = []
    for threads in (1, 2):
        lucid.set_num_threads(threads)
        for name in ("amax", "amin", "argmax", "argmin"):
            np.testing.assert_array_equal(getattr(L, name)(0).numpy(), getattr(T, name)(0).numpy(), err_msg=name)
        for name in ("max", "min"):
            got, want = getattr(L, name)(0), getattr(T, name)(0)
            np.testing.assert_array_equal(got.values.numpy(), want.values.numpy(), err_msg=name)
            np.testing.assert_array_equal(got.indices.numpy(), want.indices.numpy(), err_msg=name)
        sums.append(lucid.tensor(y).sum(0).numpy())
        np.testing.assert_allclose(sums[-1], y.astype(np.float64).sum(0), rtol=1e-6, atol=1e-5)
    np.testing.assert_array_equal(sums[0], sums[1])
