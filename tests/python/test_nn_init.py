"""nn.init and the in-place sampling methods (Tensor.uniform_, normal_, ...): statistics, shapes,
formulas against torch.nn.init's, generator reproducibility."""
import math

import numpy as np
import pytest

import lucid
from lucid import nn


def test_calculate_gain_matches_torch(torch):
    for nl, p in (("linear", None), ("conv2d", None), ("sigmoid", None), ("tanh", None), ("relu", None),
                  ("leaky_relu", None), ("leaky_relu", 0.2), ("selu", None)):
        assert nn.init.calculate_gain(nl, p) == torch.nn.init.calculate_gain(nl, p)
    with pytest.raises(ValueError):
        nn.init.calculate_gain("nope")
    with pytest.raises(ValueError):
        nn.init.calculate_gain("leaky_relu", "x")


def test_fans_match_torch(torch):
    for shape in ((3, 5), (4, 2, 3, 3), (6, 1, 5)):
        assert nn.init._calculate_fan_in_and_fan_out(lucid.empty(*shape)) == \
            torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(*shape))
    with pytest.raises(ValueError):
        nn.init._calculate_fan_in_and_fan_out(lucid.empty(3))


def _bounds_check(t, bound):
    a = t.numpy()
    assert np.abs(a).max() <= bound + 1e-6 and np.abs(a).max() > 0.8 * bound


def test_uniform_family_bounds():
    w = lucid.empty(200, 300)
    _bounds_check(nn.init.xavier_uniform_(w), math.sqrt(6 / 500))
    _bounds_check(nn.init.xavier_uniform_(w, gain=2.0), 2 * math.sqrt(6 / 500))
    _bounds_check(nn.init.kaiming_uniform_(w, a=math.sqrt(5)), math.sqrt(6 / (1 + 5) / 300))
    _bounds_check(nn.init.kaiming_uniform_(w, mode="fan_out", nonlinearity="relu"), math.sqrt(6 / 200))
    _bounds_check(nn.init.uniform_(w, -0.5, 0.5), 0.5)
    with pytest.raises(ValueError):
        nn.init.kaiming_uniform_(w, mode="fan_sideways")


def test_normal_family_std():
    w = lucid.empty(400, 500, dtype=lucid.float64)
    assert abs(nn.init.xavier_normal_(w).numpy().std() - math.sqrt(2 / 900)) < 0.02 * math.sqrt(2 / 900)
    assert abs(nn.init.kaiming_normal_(w, nonlinearity="relu").numpy().std() - math.sqrt(2 / 500)) < 0.01
    a = nn.init.normal_(w, 3.0, 0.5).numpy()
    assert abs(a.mean() - 3.0) < 0.01 and abs(a.std() - 0.5) < 0.01


def test_trunc_normal():
    w = lucid.empty(100000, dtype=lucid.float64)
    a = nn.init.trunc_normal_(w, mean=0.5, std=1.0, a=-1.0, b=2.0).numpy()
    assert a.min() >= -1.0 and a.max() <= 2.0
    # mean of N(0.5, 1) truncated to [-1, 2] is 0.5 (symmetric)
    assert abs(a.mean() - 0.5) < 0.01
    # variance of a truncated standard normal on [-1.5, 1.5]
    from math import erf, exp, pi, sqrt
    phi = exp(-1.5 ** 2 / 2) / sqrt(2 * pi)
    z = erf(1.5 / sqrt(2))
    var = 1 - 2 * 1.5 * phi / z
    assert abs(a.var() - var) < 0.01
    f = nn.init.trunc_normal_(lucid.empty(10, 10), std=0.02, a=-0.04, b=0.04).numpy()
    assert np.abs(f).max() <= 0.04 and f.dtype == np.float32


def test_constant_ones_zeros_eye_dirac(torch):
    p = nn.Parameter(lucid.empty(3, 4))
    assert nn.init.constant_(p, 0.3) is p and np.allclose(p.numpy(), 0.3) and p.requires_grad
    assert nn.init.ones_(p).numpy().sum() == 12 and nn.init.zeros_(p).numpy().sum() == 0
    np.testing.assert_array_equal(nn.init.eye_(p).numpy(), torch.nn.init.eye_(torch.empty(3, 4)).numpy())
    np.testing.assert_array_equal(nn.init.eye_(lucid.empty(4, 2)).numpy(), np.eye(4, 2))
    with pytest.raises(ValueError):
        nn.init.eye_(lucid.empty(2, 2, 2))
    for shape, groups in (((4, 2, 3), 1), ((4, 2, 3, 3), 2), ((3, 5, 1, 3, 2), 1), ((6, 2, 3), 3)):
        a = nn.init.dirac_(lucid.empty(*shape), groups).numpy()
        b = torch.nn.init.dirac_(torch.empty(*shape), groups).numpy()
        np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError):
        nn.init.dirac_(lucid.empty(3, 3))
    with pytest.raises(ValueError):
        nn.init.dirac_(lucid.empty(3, 3, 3), groups=2)


@pytest.mark.parametrize("shape", [(5, 5), (3, 7), (7, 3), (4, 2, 3)])
def test_orthogonal(shape):
    w = nn.init.orthogonal_(lucid.empty(*shape, dtype=lucid.float64), gain=2.0).numpy().reshape(shape[0], -1)
    rows, cols = w.shape
    if rows <= cols:
        np.testing.assert_allclose(w @ w.T, 4 * np.eye(rows), atol=1e-10)
    else:
        np.testing.assert_allclose(w.T @ w, 4 * np.eye(cols), atol=1e-10)
    with pytest.raises(ValueError):
        nn.init.orthogonal_(lucid.empty(3))


def test_householder_qr_matches_numpy():
    a = np.random.default_rng(0).standard_normal((6, 4))
    q, d = nn.init._householder_qr(a)
    q2, r2 = np.linalg.qr(a)
    s = np.sign(np.diag(r2)) * np.sign(d)
    np.testing.assert_allclose(q * s, q2, atol=1e-12)
    np.testing.assert_allclose(np.abs(d), np.abs(np.diag(r2)), atol=1e-12)


def test_sparse():
    w = nn.init.sparse_(lucid.empty(10, 6), sparsity=0.3, std=0.1).numpy()
    assert ((w == 0).sum(axis=0) >= 3).all()
    with pytest.raises(ValueError):
        nn.init.sparse_(lucid.empty(3), 0.5)


def test_generator_reproducible():
    fns = [lambda t, g: nn.init.uniform_(t, generator=g), lambda t, g: nn.init.normal_(t, generator=g),
           lambda t, g: nn.init.xavier_uniform_(t, generator=g), lambda t, g: nn.init.kaiming_normal_(t, generator=g),
           lambda t, g: nn.init.trunc_normal_(t, generator=g), lambda t, g: nn.init.orthogonal_(t, generator=g),
           lambda t, g: nn.init.sparse_(t, 0.5, generator=g)]
    for fn in fns:
        outs = []
        for _ in range(2):
            g = lucid.Generator()
            g.manual_seed(42)
            outs.append(fn(lucid.empty(4, 5), g).numpy().copy())
        np.testing.assert_array_equal(outs[0], outs[1])
        lucid.manual_seed(1)
        a = fn(lucid.empty(4, 5), None).numpy().copy()
        lucid.manual_seed(1)
        np.testing.assert_array_equal(a, fn(lucid.empty(4, 5), None).numpy())


def test_init_on_parameter_is_not_recorded():
    p = nn.Parameter(lucid.empty(3, 3))
    nn.init.kaiming_uniform_(p)
    assert p.is_leaf and p.grad_fn is None and p.requires_grad


def test_zero_element_warns():
    with pytest.warns(UserWarning):
        nn.init.kaiming_uniform_(lucid.empty(0, 3))


def test_deprecated_aliases():
    with pytest.warns(FutureWarning):
        nn.init.uniform(lucid.empty(2))


# ---------------------------------------------------------------- Tensor in-place samplers
def test_uniform_normal_methods():
    x = lucid.empty(20000, dtype=lucid.float64)
    assert x.uniform_(2, 5) is x
    a = x.numpy()
    assert a.min() >= 2 and a.max() < 5 and abs(a.mean() - 3.5) < 0.05
    a = x.normal_(1.0, 2.0).numpy()
    assert abs(a.mean() - 1.0) < 0.05 and abs(a.std() - 2.0) < 0.05
    assert x.uniform_(**{"from": -1, "to": 0}).numpy().max() < 0
    with pytest.raises(ValueError):
        x.uniform_(3, 2)
    with pytest.raises(ValueError):
        x.normal_(0, -1)
    with pytest.raises(TypeError):
        lucid.empty(3, dtype=lucid.int64).normal_()
    v0 = x._version
    x.normal_()
    assert x._version == v0 + 1


def test_bernoulli_exponential_random_methods():
    x = lucid.empty(20000, dtype=lucid.float64)
    a = x.bernoulli_(0.3).numpy()
    assert set(np.unique(a)) <= {0.0, 1.0} and abs(a.mean() - 0.3) < 0.02
    b = lucid.empty(3).bernoulli_(lucid.tensor([0.0, 1.0, 0.0])).tolist()
    assert b == [0.0, 1.0, 0.0]
    with pytest.raises(ValueError):
        x.bernoulli_(1.5)
    a = x.exponential_(2.0).numpy()
    assert a.min() >= 0 and abs(a.mean() - 0.5) < 0.02
    with pytest.raises(ValueError):
        x.exponential_(0)
    a = x.random_(10).numpy()
    assert set(np.unique(a)) == set(range(10))
    a = x.random_(-3, 3).numpy()
    assert a.min() == -3 and a.max() == 2
    i = lucid.empty(1000, dtype=lucid.uint8).random_().numpy()
    assert i.max() > 200
    bl = lucid.empty(100, dtype=lucid.bool).random_().numpy()
    assert bl.any() and not bl.all()
    with pytest.raises(ValueError):
        x.random_(3, 3)
    a = x.geometric_(0.5).numpy()
    assert a.min() >= 1 and abs(a.mean() - 2.0) < 0.1
    a = x.log_normal_(0.0, 0.5).numpy()
    assert a.min() > 0 and abs(np.log(a).std() - 0.5) < 0.02
    a = x.cauchy_().numpy()
    assert abs(np.median(a)) < 0.05
    z = lucid.ones(3)
    assert z.zero_().tolist() == [0.0, 0.0, 0.0]


def test_samplers_generator_and_leaf_check():
    g1, g2 = lucid.Generator(), lucid.Generator()
    g1.manual_seed(5)
    g2.manual_seed(5)
    assert lucid.empty(5).uniform_(generator=g1).tolist() == lucid.empty(5).uniform_(generator=g2).tolist()
    p = lucid.empty(3, requires_grad=True)
    with pytest.raises(lucid.LucidError):
        p.uniform_()
    with lucid.no_grad():
        p.uniform_()
    t = lucid.zeros(3, 4).T  # non-contiguous
    t.normal_()
    assert (t.numpy() != 0).all()
