"""Threads and per-ISA kernels: set/get_num_threads round trips, and every CPU ISA path (baseline,
AVX2, AVX-512) gives results identical to the default path for add/mul/div/sum (the paths must not
change results; sums may differ only by float reassociation, which they must not either: compared
exactly). The original settings are restored afterwards (conftest also restores them)."""
import numpy as np
import pytest

import lucid
from helpers import from_numpy_ref, random_array, to_numpy

ISAS = ["baseline", "avx2", "avx512"]
DTYPES = [lucid.float32, lucid.float64, lucid.int32, lucid.float16, lucid.int64, lucid.bfloat16, lucid.uint8,
          lucid.complex64]


@pytest.fixture
def restore_threads():
    n = lucid.get_num_threads()
    yield n
    lucid.set_num_threads(n)
    assert lucid.get_num_threads() == n


@pytest.fixture
def restore_isa():
    isa = lucid._C._cpu_isa()
    yield isa
    lucid._C._set_cpu_isa(isa)
    assert lucid._C._cpu_isa() == isa


def test_num_threads_round_trip(restore_threads):
    n = restore_threads
    assert isinstance(n, int) and n >= 1
    for k in [1, 2, 3, n]:
        lucid.set_num_threads(k)
        assert lucid.get_num_threads() == k


def test_results_do_not_depend_on_thread_count(restore_threads, rng):
    a = random_array((300, 257), lucid.float32, rng)
    b = random_array((257,), lucid.float32, rng)
    x, y = lucid.tensor(a), lucid.tensor(b)
    results = []
    for k in [1, 2, 4]:
        lucid.set_num_threads(k)
        results.append([to_numpy(x + y), to_numpy(x * y), to_numpy(x.sum(0)), to_numpy(x.sum(1)),
                        to_numpy(x.sum()), to_numpy(x @ x.T)])
    for other in results[1:]:
        for r0, r in zip(results[0], other):
            np.testing.assert_allclose(r, r0, rtol=1e-5, atol=1e-4)


def test_set_num_threads_rejects_nonsense(restore_threads):
    with pytest.raises((ValueError, RuntimeError, TypeError)):
        lucid.set_num_threads(0)
    assert lucid.get_num_threads() >= 1


def test_isa_names(restore_isa):
    detected = lucid._C._cpu_isa_detected()
    assert detected in ISAS
    assert lucid._C._cpu_isa() in ISAS
    with pytest.raises(ValueError):
        lucid._C._set_cpu_isa("sse9")
    assert lucid._C._cpu_isa() == restore_isa


def _supported_isas():
    detected = lucid._C._cpu_isa_detected()
    return ISAS[: ISAS.index(detected) + 1]


def _workload(d, rng):
    """Shapes that exercise vector bodies, tails and the strided / broadcast paths."""
    shapes = [(1031,), (67, 129), (3, 5, 7)]
    out = []
    for s in shapes:
        a = random_array(s, d, rng)
        b = random_array(s, d, rng, kind="nonzero")
        out.append((from_numpy_ref(a, d), from_numpy_ref(b, d)))
    a = random_array((64, 33), d, rng)
    b = random_array((33,), d, rng, kind="nonzero")
    out.append((from_numpy_ref(a, d), from_numpy_ref(b, d)))
    big = from_numpy_ref(random_array((40, 66), d, rng), d)
    out.append((big[:, ::2], from_numpy_ref(random_array((40, 33), d, rng, kind="nonzero"), d)))   # strided
    out.append((from_numpy_ref(random_array((9, 11), d, rng), d).T,
                from_numpy_ref(random_array((11, 9), d, rng, kind="nonzero"), d)))
    return out


def _compute(pairs):
    res = []
    for a, b in pairs:
        res += [a + b, a * b, a / b, a - b, a + 3, a * 2, a.sum(), a.sum(0), a.sum(-1)]
        c = a.clone()
        c += b
        res.append(c)
    return [to_numpy(r) for r in res]


@pytest.mark.parametrize("d", DTYPES, ids=lambda d: d.name)
def test_every_isa_matches_the_default_path(restore_isa, d):
    rng = np.random.default_rng(7)
    pairs = _workload(d, rng)
    reference = _compute(pairs)
    for isa in _supported_isas():
        got_isa = lucid._C._set_cpu_isa(isa)
        assert got_isa == isa
        assert lucid._C._cpu_isa() == isa
        got = _compute(pairs)
        for i, (g, r) in enumerate(zip(got, reference)):
            np.testing.assert_array_equal(g, r, err_msg=f"{d.name} isa={isa} result #{i}")
    lucid._C._set_cpu_isa(restore_isa)


def test_isa_above_detected_is_clamped_or_refused(restore_isa):
    detected = lucid._C._cpu_isa_detected()
    for isa in ISAS[ISAS.index(detected) + 1:]:
        try:
            got = lucid._C._set_cpu_isa(isa)
        except (ValueError, RuntimeError):
            continue
        assert ISAS.index(got) <= ISAS.index(detected)   # never runs instructions the CPU lacks
        x = lucid.ones(100) + 1
        assert x.sum().item() == 200.0


UNARY_NAMES = ["exp", "log1p", "sqrt", "tanh", "sigmoid", "sin", "atan", "erf", "abs", "floor", "relu", "square"]


@pytest.mark.parametrize("d", [lucid.float32, lucid.float64, lucid.float16, lucid.int32], ids=lambda d: d.name)
def test_unary_family_agrees_on_every_isa(restore_isa, d):
    """The per-ISA builds of the unary loops compute the same function as the baseline (within a few ulp:
    vectorised libm calls may round differently) on contiguous and strided inputs."""
    rng = np.random.default_rng(11)
    base = lucid.tensor(np.abs(rng.standard_normal((33, 17))) + 0.1).to(d)
    inputs = [base, base.T, base[::2, 1::3]]
    lucid._C._set_cpu_isa("baseline")
    reference = [[getattr(x, n)().double().tolist() for n in UNARY_NAMES] for x in inputs]
    for isa in _supported_isas():
        lucid._C._set_cpu_isa(isa)
        for x, ref in zip(inputs, reference):
            for n, r in zip(UNARY_NAMES, ref):
                got = np.array(getattr(x, n)().double().tolist())
                tol = 2e-3 if d is lucid.float16 else (1e-6 if d is lucid.float32 else 1e-13)
                np.testing.assert_allclose(got, np.array(r), rtol=tol, atol=tol, err_msg=f"{n} {d.name} isa={isa}")
    lucid._C._set_cpu_isa(restore_isa)
