"""Random numbers: seeding and reproducibility, generator objects, RNG state round trips, and the
statistics of rand/randn/randint/randperm/normal/bernoulli; CUDA draws equal CPU draws for a seed."""
import numpy as np
import pytest

import lucid
from helpers import to_numpy

FLOATS = [lucid.float32, lucid.float64, lucid.float16, lucid.bfloat16]


@pytest.fixture(autouse=True)
def _restore_rng():
    state = lucid.get_rng_state()
    yield
    lucid.set_rng_state(state)


def test_manual_seed_reproducible():
    g = lucid.manual_seed(1234)
    assert g is lucid.default_generator
    a = [lucid.rand(5), lucid.randn(3, 2), lucid.randint(0, 100, (4,)), lucid.randperm(7),
         lucid.normal(1.0, 2.0, (3,)), lucid.bernoulli(lucid.full((6,), 0.5))]
    lucid.manual_seed(1234)
    b = [lucid.rand(5), lucid.randn(3, 2), lucid.randint(0, 100, (4,)), lucid.randperm(7),
         lucid.normal(1.0, 2.0, (3,)), lucid.bernoulli(lucid.full((6,), 0.5))]
    for x, y in zip(a, b):
        assert x.tolist() == y.tolist()
    assert lucid.initial_seed() == 1234


def test_draws_differ_after_and_between_seeds():
    lucid.manual_seed(0)
    first = lucid.rand(100).tolist()
    second = lucid.rand(100).tolist()
    assert first != second
    lucid.manual_seed(1)
    assert lucid.rand(100).tolist() != first
    lucid.manual_seed(0)
    assert lucid.rand(100).tolist() == first


def test_draws_do_not_depend_on_how_they_are_split():
    """One Philox stream: the same seed gives the same sequence to equal-sized draws (CPU)."""
    lucid.manual_seed(7)
    a = lucid.rand(64).tolist()
    lucid.manual_seed(7)
    b = lucid.rand(8, 8).reshape(-1).tolist()
    assert a == b


@pytest.mark.parametrize("d", FLOATS, ids=lambda d: d.name)
def test_seeded_draws_per_dtype(d):
    lucid.manual_seed(3)
    x = lucid.rand(50, dtype=d)
    lucid.manual_seed(3)
    y = lucid.rand(50, dtype=d)
    assert x.dtype is d and to_numpy(x).tolist() == to_numpy(y).tolist()


def test_generator_objects_are_independent():
    g1 = lucid.Generator().manual_seed(42)
    g2 = lucid.Generator().manual_seed(42)
    lucid.manual_seed(0)
    a = lucid.rand(10, generator=g1)
    lucid.rand(10)                                   # draws from the default generator in between
    b = lucid.rand(10, generator=g2)
    assert a.tolist() == b.tolist()
    assert lucid.rand(10, generator=g1).tolist() != a.tolist()
    g3 = lucid.Generator().manual_seed(43)
    assert lucid.rand(10, generator=g3).tolist() != a.tolist()
    # a generator's draws leave the default generator alone
    lucid.manual_seed(5)
    want = lucid.rand(4).tolist()
    lucid.manual_seed(5)
    lucid.randn(100, generator=g1)
    assert lucid.rand(4).tolist() == want


def test_generator_with_every_sampler():
    def draw(g):
        return [lucid.rand(3, generator=g), lucid.randn(3, generator=g), lucid.randint(0, 9, (3,), generator=g),
                lucid.randperm(5, generator=g), lucid.normal(0.0, 1.0, (3,), generator=g),
                lucid.bernoulli(lucid.full((4,), 0.3), generator=g)]
    a = draw(lucid.Generator().manual_seed(11))
    b = draw(lucid.Generator().manual_seed(11))
    for x, y in zip(a, b):
        assert x.tolist() == y.tolist()


def test_rng_state_round_trip():
    lucid.manual_seed(99)
    lucid.rand(17)
    state = lucid.get_rng_state()
    assert state.dtype is lucid.uint8 and state.shape == (16,)
    a = lucid.randn(20).tolist()
    b = lucid.rand(5).tolist()
    lucid.set_rng_state(state)
    assert lucid.randn(20).tolist() == a
    assert lucid.rand(5).tolist() == b
    # a state read back from bytes works too
    lucid.set_rng_state(state.to_bytes())
    assert lucid.randn(20).tolist() == a
    g = lucid.Generator().manual_seed(1)
    s = g.get_state()
    x = lucid.rand(4, generator=g).tolist()
    g.set_state(s)
    assert lucid.rand(4, generator=g).tolist() == x


def test_seed_and_initial_seed():
    s = lucid.seed()
    assert isinstance(s, int) and lucid.initial_seed() == s
    lucid.manual_seed(2 ** 64 - 1)
    lucid.manual_seed(-1)                  # any Python int maps onto 64 bits
    a = lucid.rand(3).tolist()
    lucid.manual_seed(2 ** 64 - 1)
    assert lucid.rand(3).tolist() == a


# ---------------------------------------------------------------------------------------------
# distributions

@pytest.mark.parametrize("d", FLOATS, ids=lambda d: d.name)
def test_rand_range_and_mean(d):
    lucid.manual_seed(0)
    x = to_numpy(lucid.rand(100_000, dtype=d)).astype(np.float64)
    assert x.min() >= 0.0 and x.max() < 1.0
    assert abs(x.mean() - 0.5) < 0.01
    assert abs(x.var() - 1 / 12) < 0.005
    hist, _ = np.histogram(x, bins=10, range=(0, 1))
    assert hist.min() > 9000 and hist.max() < 11000         # roughly uniform


@pytest.mark.parametrize("d", [lucid.float32, lucid.float64, lucid.float16, lucid.bfloat16], ids=lambda d: d.name)
def test_randn_moments(d):
    lucid.manual_seed(0)
    x = to_numpy(lucid.randn(100_000, dtype=d)).astype(np.float64)
    assert abs(x.mean()) < 0.02
    assert abs(x.std() - 1.0) < 0.02
    assert abs(np.mean(np.abs(x) < 1.0) - 0.6827) < 0.01     # the normal's one-sigma mass
    assert np.all(np.isfinite(x))


def test_randn_shapes():
    assert lucid.randn(2, 3).shape == (2, 3)
    assert lucid.randn((4,)).shape == (4,)
    assert lucid.randn(()).shape == ()
    assert lucid.randn(0, 3).shape == (0, 3)
    assert lucid.rand(2, 3).dtype is lucid.float32


def test_random_follows_default_dtype():
    lucid.set_default_dtype(lucid.float64)
    try:
        assert lucid.rand(2).dtype is lucid.float64
        assert lucid.randn(2).dtype is lucid.float64
    finally:
        lucid.set_default_dtype(lucid.float32)


def test_randn_complex():
    lucid.manual_seed(0)
    z = to_numpy(lucid.randn(10_000, dtype=lucid.complex64))
    assert abs(z.imag.std() - np.sqrt(0.5)) < 0.02
    assert abs(np.mean(np.abs(z) ** 2) - 1.0) < 0.05


def test_randint():
    lucid.manual_seed(0)
    x = lucid.randint(-3, 7, (20_000,))
    assert x.dtype is lucid.int64 and x.shape == (20_000,)
    v = to_numpy(x)
    assert v.min() == -3 and v.max() == 6
    counts = np.bincount(v + 3)
    assert len(counts) == 10 and counts.min() > 1700 and counts.max() < 2300
    y = lucid.randint(5, (3, 4))                                   # randint(high, size)
    assert y.shape == (3, 4) and 0 <= to_numpy(y).min() and to_numpy(y).max() < 5
    z = lucid.randint(0, 3, (100,), dtype=lucid.int8)
    assert z.dtype is lucid.int8 and set(z.tolist()) <= {0, 1, 2}
    big = to_numpy(lucid.randint(0, 2 ** 40, (1000,)))
    assert big.max() >= 2 ** 32 and big.min() >= 0                # more than 32 bits of range
    with pytest.raises(ValueError):
        lucid.randint(5, 5, (3,))
    with pytest.raises(TypeError):
        lucid.randint(5)


def test_randint_vs_torch_dtype(torch):
    assert lucid.randint(0, 5, (3,)).dtype.name == str(torch.randint(0, 5, (3,)).dtype)[6:]
    assert lucid.randperm(4).dtype.name == str(torch.randperm(4).dtype)[6:]


@pytest.mark.parametrize("n", [0, 1, 2, 10, 1000])
def test_randperm_is_a_permutation(n):
    lucid.manual_seed(n)
    p = lucid.randperm(n)
    assert p.dtype is lucid.int64 and p.shape == (n,)
    assert sorted(p.tolist()) == list(range(n))
    if n >= 10:
        assert p.tolist() != list(range(n))
    assert lucid.randperm(n, dtype=lucid.int32).dtype is lucid.int32


def test_randperm_is_uniform_over_positions():
    lucid.manual_seed(0)
    first = [lucid.randperm(4)[0].item() for _ in range(4000)]
    counts = np.bincount(first, minlength=4)
    assert counts.min() > 850 and counts.max() < 1150


def test_normal_with_floats():
    lucid.manual_seed(0)
    x = to_numpy(lucid.normal(3.0, 0.5, (100_000,))).astype(np.float64)
    assert abs(x.mean() - 3.0) < 0.01 and abs(x.std() - 0.5) < 0.01
    assert lucid.normal(0.0, 1.0, (2, 3), dtype=lucid.float64).dtype is lucid.float64
    with pytest.raises(TypeError):
        lucid.normal(0.0, 1.0)


def test_normal_with_tensors():
    lucid.manual_seed(0)
    mean = lucid.tensor([[-10.0], [0.0], [10.0]]).expand(3, 20_000).contiguous()
    std = lucid.tensor([0.1, 1.0, 3.0]).reshape(3, 1)
    x = lucid.normal(mean, std)
    assert x.shape == (3, 20_000) and x.dtype is lucid.float32
    v = to_numpy(x).astype(np.float64)
    np.testing.assert_allclose(v.mean(axis=1), [-10.0, 0.0, 10.0], atol=0.08)
    np.testing.assert_allclose(v.std(axis=1), [0.1, 1.0, 3.0], rtol=0.03)
    y = lucid.normal(lucid.zeros(1000) + 5.0, 2.0)
    assert y.shape == (1000,) and abs(to_numpy(y).mean() - 5.0) < 0.3
    z = lucid.normal(1.0, lucid.full((1000,), 0.5))
    assert z.shape == (1000,) and abs(to_numpy(z).std() - 0.5) < 0.05
    b = lucid.normal(lucid.zeros(3), lucid.ones(2, 1))
    assert b.shape == (2, 3)


def test_bernoulli():
    lucid.manual_seed(0)
    p = lucid.tensor([0.0, 0.25, 0.5, 1.0]).reshape(4, 1).expand(4, 20_000).contiguous()
    x = lucid.bernoulli(p)
    assert x.shape == p.shape and x.dtype is p.dtype
    v = to_numpy(x)
    assert set(np.unique(v).tolist()) <= {0.0, 1.0}
    np.testing.assert_allclose(v.mean(axis=1), [0.0, 0.25, 0.5, 1.0], atol=0.015)
    y = to_numpy(lucid.bernoulli(lucid.zeros(20_000, dtype=lucid.float64), p=0.3))
    assert abs(y.mean() - 0.3) < 0.015
    t = lucid.bernoulli(lucid.full((2, 3), 0.5).T)
    assert t.shape == (3, 2)


def test_bernoulli_rejects_bad_probabilities():
    with pytest.raises((ValueError, RuntimeError)):
        lucid.bernoulli(lucid.full((3,), 2.0))


def test_like_samplers():
    x = lucid.zeros(3, 4, dtype=lucid.float64)
    for f in [lucid.rand_like, lucid.randn_like]:
        y = f(x)
        assert y.shape == (3, 4) and y.dtype is lucid.float64
    r = lucid.rand_like(x)
    assert 0 <= to_numpy(r).min() and to_numpy(r).max() < 1
    i = lucid.randint_like(lucid.zeros(5, dtype=lucid.int32), 3)
    assert i.dtype is lucid.int32 and set(i.tolist()) <= {0, 1, 2}
    j = lucid.randint_like(x, 2, 4)
    assert j.dtype is lucid.float64 and set(j.reshape(-1).tolist()) <= {2.0, 3.0}
    assert lucid.rand_like(x, dtype=lucid.float32).dtype is lucid.float32
    lucid.manual_seed(4)
    a = lucid.randn_like(x).tolist()
    lucid.manual_seed(4)
    assert lucid.randn_like(x).tolist() == a


# ---------------------------------------------------------------------------------------------
# CUDA: a seed gives the same numbers on both devices

@pytest.mark.cuda
@pytest.mark.parametrize("d", [lucid.float32, lucid.float64], ids=lambda d: d.name)
def test_cuda_same_seed_same_numbers(d):
    for make in [lambda dev: lucid.rand(1000, dtype=d, device=dev), lambda dev: lucid.randn(33, 7, dtype=d, device=dev),
                 lambda dev: lucid.normal(1.0, 2.0, (100,), dtype=d, device=dev)]:
        lucid.manual_seed(123)
        cpu = make("cpu")
        lucid.manual_seed(123)
        gpu = make("cuda")
        assert gpu.is_cuda
        np.testing.assert_allclose(to_numpy(gpu), to_numpy(cpu), rtol=1e-6, atol=1e-6)
    lucid.manual_seed(9)
    a = lucid.randint(0, 1000, (500,))
    lucid.manual_seed(9)
    b = lucid.randint(0, 1000, (500,), device="cuda")
    assert b.cpu().tolist() == a.tolist()
    lucid.manual_seed(9)
    assert lucid.randperm(100, device="cuda").cpu().tolist() == (lucid.manual_seed(9), lucid.randperm(100))[1].tolist()


@pytest.mark.cuda
def test_cuda_rand_statistics():
    lucid.manual_seed(0)
    x = to_numpy(lucid.rand(100_000, device="cuda")).astype(np.float64)
    assert x.min() >= 0 and x.max() < 1 and abs(x.mean() - 0.5) < 0.01
    y = to_numpy(lucid.randn(100_000, device="cuda")).astype(np.float64)
    assert abs(y.mean()) < 0.02 and abs(y.std() - 1) < 0.02


# ---- multinomial

def test_multinomial_with_replacement_frequencies():
    lucid.manual_seed(11)
    p = [0.2, 0.0, 0.3, 0.5]
    s = lucid.multinomial(lucid.tensor(p), 200000, replacement=True)
    assert s.dtype is lucid.int64 and s.shape == (200000,)
    freq = np.bincount(s.numpy(), minlength=4) / 200000
    assert freq[1] == 0.0                                   # a zero weight is never drawn
    np.testing.assert_allclose(freq, p, atol=0.005)
    w = lucid.tensor([[1.0, 3.0], [5.0, 0.0]])             # unnormalised rows
    s = lucid.multinomial(w, 50000, True).numpy()
    assert s.shape == (2, 50000) and (s[1] == 0).all()
    assert abs((s[0] == 1).mean() - 0.75) < 0.01


def test_multinomial_without_replacement():
    lucid.manual_seed(12)
    w = lucid.tensor([[4.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0, 1.0]])
    draws = np.array([lucid.multinomial(w, 2).numpy() for _ in range(3000)])
    assert draws.shape == (3000, 2, 2)
    assert (draws[:, 0, 0] != draws[:, 0, 1]).all() and (draws[:, 1, 0] != draws[:, 1, 1]).all()
    first = np.bincount(draws[:, 0, 0], minlength=4) / 3000
    np.testing.assert_allclose(first, [0.8, 0, 0, 0.2], atol=0.025)   # P(first = i) = w_i / sum w
    assert set(draws[:, 0, 1]) <= {0, 3}                               # then the other positive weight
    full = lucid.multinomial(lucid.tensor([0.1, 0.0, 0.9]), 3)         # all categories: a permutation
    assert sorted(full.tolist()) == [0, 1, 2] and full.tolist()[-1] == 1


def test_multinomial_generator_and_method():
    g = lucid.Generator()
    g.manual_seed(3)
    a = lucid.multinomial(lucid.ones(6), 6, generator=g)
    g.manual_seed(3)
    b = lucid.ones(6).multinomial(6, generator=g)
    assert a.tolist() == b.tolist() and sorted(a.tolist()) == list(range(6))


def test_multinomial_errors():
    with pytest.raises(ValueError, match="sum of probabilities"):
        lucid.multinomial(lucid.zeros(3), 1)
    with pytest.raises(ValueError, match="element < 0"):
        lucid.multinomial(lucid.tensor([-1.0, 2.0]), 1)
    with pytest.raises(ValueError, match="inf"):
        lucid.multinomial(lucid.tensor([float("inf"), 1.0]), 1)
    with pytest.raises(ValueError, match="n_sample <= 0"):
        lucid.multinomial(lucid.ones(3), 0)
    with pytest.raises(ValueError, match="without replacement"):
        lucid.multinomial(lucid.ones(3), 4)
    with pytest.raises(TypeError, match="floating-point"):
        lucid.multinomial(lucid.tensor([1, 2]), 1)
    with pytest.raises(lucid.ShapeMismatch, match="1 or 2 dim"):
        lucid.multinomial(lucid.ones(2, 2, 2), 1)


def test_bernoulli_tensor_probabilities():
    lucid.manual_seed(13)
    p = lucid.tensor(np.linspace(0, 1, 11).astype(np.float32)).expand(20000, 11)
    b = lucid.bernoulli(p)
    assert b.dtype is lucid.float32 and set(np.unique(b.numpy())) <= {0.0, 1.0}
    np.testing.assert_allclose(b.numpy().mean(0), np.linspace(0, 1, 11), atol=0.015)
    assert b.numpy()[:, 0].sum() == 0 and b.numpy()[:, -1].min() == 1
    assert lucid.tensor([0.5]).bernoulli().shape == (1,)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        lucid.bernoulli(lucid.tensor([1.5]))
