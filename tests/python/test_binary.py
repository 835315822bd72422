"""Focused tests of the binary family: errors, edge values, semantics the op table can't see
(in-place variants, hashing after __eq__, Python-bool results, gradient conventions)."""
import math

import numpy as np
import pytest

import lucid
from helpers import to_numpy


def T(*a, **k):
    return lucid.tensor(*a, **k)


# ---------------------------------------------------------------------------------------------
# comparisons

def test_comparison_operators_and_reflection():
    x = T([1, 2, 3])
    assert (x == 2).tolist() == [False, True, False]
    assert (x != 2).tolist() == [True, False, True]
    assert (x < 2).tolist() == [True, False, False]
    assert (x <= 2).tolist() == [True, True, False]
    assert (x > 2).tolist() == [False, False, True]
    assert (x >= 2).tolist() == [False, True, True]
    assert (2 < x).tolist() == [False, False, True]      # reflected through __gt__
    assert (2.5 >= x).tolist() == [True, True, False]
    assert (x == 2).dtype is lucid.bool_
    assert (x == x.float()).tolist() == [True, True, True]
    assert (T([3, 4]) == 3.5).tolist() == [False, False]  # compared in float, as PyTorch


def test_tensor_stays_hashable_with_eq():
    a, b = T([1.0]), T([1.0])
    d = {a: 1, b: 2}
    assert d[a] == 1 and d[b] == 2
    assert len({a, b, a}) == 2
    assert a in [a] and (a == None) is False  # noqa: E711
    assert (a != "x") is True


def test_comparison_errors():
    with pytest.raises(lucid.ShapeMismatch):
        lucid.eq(lucid.ones(2), lucid.ones(3))
    with pytest.raises(NotImplementedError):
        T([1 + 1j]) < 1
    assert (T([1 + 1j]) == 1).tolist() == [False]


def test_inplace_comparisons_keep_dtype():
    x = T([1.0, 2.0, 3.0])
    y = x.lt_(2)
    assert y is x and x.tolist() == [1.0, 0.0, 0.0] and x.dtype is lucid.float32
    i = T([0, 1, 2])
    i.logical_and_(T([1, 1, 0]))
    assert i.tolist() == [0, 1, 0]
    with pytest.raises(lucid.ShapeMismatch):
        lucid.ones(3).eq_(lucid.ones(2, 3))


def test_logical_ops():
    a = T([0.0, 1.5, -2.0, 0.0])
    b = T([0, 0, 3, 7])
    assert lucid.logical_and(a, b).tolist() == [False, False, True, False]
    assert lucid.logical_or(a, b).tolist() == [False, True, True, True]
    assert lucid.logical_xor(a, b).tolist() == [False, True, False, True]
    assert lucid.logical_and(T([1 + 0j, 0j]), True).tolist() == [True, False]


def test_isclose_allclose_equal():
    a = T([1.0, float("nan"), float("inf"), 1.0])
    b = T([1.0, float("nan"), float("inf"), 1.0 + 1e-6])
    assert lucid.isclose(a, b).tolist() == [True, False, True, True]
    assert lucid.isclose(a, b, equal_nan=True).tolist() == [True, True, True, True]
    assert a.isclose(b, rtol=0, atol=0).tolist() == [True, False, True, False]
    assert lucid.allclose(T([1.0, 2.0]), T([1.0, 2.0 + 1e-7])) is True
    assert lucid.allclose(T([1.0, 2.0]), T([1.0, 2.1])) is False
    assert lucid.isclose(T([1, 2]), T([1, 3]), atol=1).tolist() == [True, True]
    with pytest.raises(lucid.DtypeMismatch):
        lucid.isclose(lucid.ones(2), lucid.ones(2, dtype=lucid.float64))
    with pytest.raises(ValueError, match="rtol"):
        lucid.isclose(lucid.ones(2), lucid.ones(2), rtol=-1)
    assert lucid.equal(T([1, 2]), T([1, 2])) is True
    assert lucid.equal(T([1, 2]), T([1, 3])) is False
    assert lucid.equal(lucid.ones(2), lucid.ones(3)) is False
    assert lucid.equal(lucid.ones(2), lucid.ones(2, dtype=lucid.int32)) is True
    assert T([1.0]).equal(T([1.0])) is True


# ---------------------------------------------------------------------------------------------
# division family

def test_integer_division_by_zero_raises():
    for f in (lambda: T([5, -5]) // 0, lambda: T([5, -5]) % 0, lambda: lucid.fmod(T([5]), T([0])),
              lambda: lucid.div(T([5]), 0, rounding_mode="trunc"), lambda: T([1, 2]).floor_divide_(T([1, 0]))):
        with pytest.raises(RuntimeError, match="ZeroDivisionError"):
            f()
    assert np.isinf((T([-7.5]) // 0.0).item())
    assert np.isnan(lucid.remainder(T([5.0]), 0.0).item())


def test_integer_division_edges():
    assert (T([-128], dtype=lucid.int8) // -1).tolist() == [-128]
    assert (T([-7]) // 2).tolist() == [-4]
    assert lucid.div(T([-7]), 2, rounding_mode="trunc").tolist() == [-3]
    assert lucid.remainder(T([5, -5]), -3).tolist() == [-1, -2]
    assert lucid.fmod(T([5, -5]), -3).tolist() == [2, -2]
    assert lucid.remainder(2, T([3, -3])).tolist() == [2, -1]
    assert lucid.remainder(T([-5.0, 5.0, -0.0]), 3).tolist() == [1.0, 2.0, -0.0]
    assert math.copysign(1, lucid.remainder(T([-0.0]), 3).item()) == -1
    assert (T([5, -5]) // 2.5).tolist() == [2.0, -2.0]
    with pytest.raises(ValueError, match="rounding_mode"):
        lucid.div(T([1.0]), 2, rounding_mode="round")


def test_division_refusals():
    with pytest.raises(NotImplementedError):
        T([True]) // T([True])
    with pytest.raises(NotImplementedError):
        T([1j]) % 2


# ---------------------------------------------------------------------------------------------
# pow

def test_pow_integer_rules():
    with pytest.raises(RuntimeError, match="negative integer powers"):
        T([2, 3]) ** -1
    assert (T([2, 3]) ** T([-1, -2])).tolist() == [0, 0]
    assert (T([1, -1]) ** T([-1, -3])).tolist() == [1, -1]
    assert lucid.pow(2, T([-1, 2])).tolist() == [0, 4]
    assert (2 ** T([1, 2])).tolist() == [2, 4]
    assert (T([2, 3]) ** 2.5).dtype is lucid.float32
    assert (2.5 ** T([1, 2])).tolist() == [2.5, 6.25]
    assert (T([True]) ** 2).tolist() == [1]
    assert (T([3], dtype=lucid.uint8) ** 6).tolist() == [(3 ** 6) % 256]
    with pytest.raises(NotImplementedError):
        T([True]) ** T([True])
    x = T([2.0])
    x **= 2
    assert x.tolist() == [4.0]
    with pytest.raises(lucid.DtypeMismatch):
        T([1, 2]).pow_(2.5)


def test_float_power():
    r = lucid.float_power(T([2]), 2)
    assert r.dtype is lucid.float64 and r.tolist() == [4.0]
    assert lucid.float_power(T([2.0]), 1j).dtype is lucid.complex128
    with pytest.raises(lucid.DtypeMismatch):
        T([2.0]).float_power_(2)
    y = T([2.0], dtype=lucid.float64)
    y.float_power_(3)
    assert y.tolist() == [8.0]


def test_pow_gradients_both_sides():
    a = T([0.5, 2.0, 0.0], dtype=lucid.float64, requires_grad=True)
    b = T([2.0, 0.5, 1.5], dtype=lucid.float64, requires_grad=True)
    (a ** b).sum().backward()
    np.testing.assert_allclose(to_numpy(a.grad), [2 * 0.5, 0.5 * 2.0 ** -0.5, 0.0])
    np.testing.assert_allclose(to_numpy(b.grad), [0.25 * math.log(0.5), math.sqrt(2) * math.log(2), 0.0])
    c = T([0.0, 3.0], dtype=lucid.float64, requires_grad=True)
    (c ** 0).sum().backward()
    assert c.grad.tolist() == [0.0, 0.0]
    d = T([1.0, 2.0], dtype=lucid.float64, requires_grad=True)
    (2 ** d).sum().backward()
    np.testing.assert_allclose(to_numpy(d.grad), [2 * math.log(2), 4 * math.log(2)])


# ---------------------------------------------------------------------------------------------
# maximum / minimum / fmax / fmin

def test_maximum_nan_and_ties():
    nan = float("nan")
    r = lucid.maximum(T([1.0, nan]), T([nan, 2.0]))
    assert all(math.isnan(v) for v in r.tolist())
    assert lucid.fmax(T([1.0, nan]), T([nan, nan])).tolist()[0] == 1.0
    assert lucid.fmin(T([1.0, nan, 3.0]), T([nan, 2.0, 1.0])).tolist() == [1.0, 2.0, 1.0]
    a = T([1.0, 2.0, 3.0], requires_grad=True)
    b = T([1.0, 5.0, 0.0], requires_grad=True)
    lucid.maximum(a, b).sum().backward()
    assert a.grad.tolist() == [0.5, 0.0, 1.0]
    assert b.grad.tolist() == [0.5, 1.0, 0.0]
    a.grad = None
    b.grad = None
    lucid.minimum(a, b).sum().backward()
    assert a.grad.tolist() == [0.5, 1.0, 0.0]
    assert b.grad.tolist() == [0.5, 0.0, 1.0]
    with pytest.raises(NotImplementedError):
        lucid.maximum(T([1j]), T([2j]))


# ---------------------------------------------------------------------------------------------
# bitwise

def test_bitwise_and_shifts():
    assert (T([12]) & 10).tolist() == [8]
    assert (T([12]) | 3).tolist() == [15]
    assert (T([12]) ^ 5).tolist() == [9]
    assert (6 & T([3])).tolist() == [2]
    assert (T([True, False]) & True).tolist() == [True, False]
    assert (T([1], dtype=lucid.int8) << T([8], dtype=lucid.int8)).tolist() == [0]
    assert (T([1, -1]) << T([64, -1])).tolist() == [0, 0]
    assert (T([-8, 8]) >> T([70, 64])).tolist() == [-1, 0]
    assert (T([-8, 8]) >> T([1, 3])).tolist() == [-4, 1]
    assert (T([True]) << 1).tolist() == [2]
    assert (1 << T([3])).tolist() == [8]
    x = T([5])
    x |= 2
    x <<= 1
    assert x.tolist() == [14]
    with pytest.raises(NotImplementedError):
        T([1.0]) & 1
    with pytest.raises(NotImplementedError):
        T([True]) << T([True])


# ---------------------------------------------------------------------------------------------
# floating functions

def test_floating_functions_values():
    assert lucid.atan2(T([1]), 2).dtype is lucid.float32
    assert lucid.arctan2(T([1.0]), T([1.0])).item() == pytest.approx(math.pi / 4)
    assert lucid.hypot(T([3.0]), 4).tolist() == [5.0]
    with pytest.raises(NotImplementedError):
        lucid.hypot(T([3]), T([4]))
    r = lucid.logaddexp(T([1000.0, -float("inf")]), T([1000.0, -float("inf")]))
    assert r.tolist()[0] == pytest.approx(1000 + math.log(2)) and r.tolist()[1] == -float("inf")
    assert lucid.logaddexp2(T([1.0]), T([1.0])).tolist() == [2.0]
    assert lucid.copysign(T([1, 2]), -1).tolist() == [-1.0, -2.0]
    assert lucid.copysign(T([3.0]), T([-0.0])).tolist() == [-3.0]
    r = lucid.xlogy(T([0.0, 0.0, 1.0]), T([0.0, float("nan"), 0.0])).tolist()
    assert r[0] == 0.0 and math.isnan(r[1]) and r[2] == -float("inf")
    assert lucid.xlogy(2, T([3.0])).item() == pytest.approx(2 * math.log(3))
    h = lucid.heaviside(T([-1.0, 0.0, 2.0, float("nan")]), T([0.5]))
    assert h.tolist() == [0.0, 0.5, 1.0, 0.0]
    assert lucid.heaviside(T([-1, 0, 2]), T([7])).tolist() == [0, 7, 1]
    with pytest.raises(lucid.DtypeMismatch):
        lucid.heaviside(T([1.0]), T([1]))


def test_heaviside_has_no_derivative():
    x = T([1.0, -1.0], requires_grad=True)
    y = lucid.heaviside(x, T([0.5]))
    with pytest.raises(NotImplementedError):
        y.sum().backward()


# ---------------------------------------------------------------------------------------------
# where

def test_where_forms():
    c = T([True, False, True])
    assert lucid.where(c, 1, 2).tolist() == [1, 2, 1]
    assert lucid.where(c, 1, 2).dtype is lucid.int64
    assert lucid.where(c, 1, 2.0).dtype is lucid.float32
    assert lucid.where(c, T([1, 2, 3]), 2.5).tolist() == [1.0, 2.5, 3.0]
    r = lucid.where(c, T(1.0, dtype=lucid.float64), T([1.0, 2.0, 3.0]))
    assert r.dtype is lucid.float32
    assert lucid.where(T([[True], [False]]), T([1, 2]), T([10, 20])).tolist() == [[1, 2], [10, 20]]
    with pytest.raises(lucid.DtypeMismatch, match="boolean"):
        lucid.where(T([1, 0]), 1.0, 2.0)
    with pytest.raises(lucid.ShapeMismatch):
        lucid.where(T([True, False]), lucid.ones(3), 0.0)


def test_where_gradients_to_both_branches():
    c = T([True, False, True])
    a = T([1.0, 2.0, 3.0], requires_grad=True)
    b = T([4.0], requires_grad=True)
    lucid.where(c, a, b).sum().backward()
    assert a.grad.tolist() == [1.0, 0.0, 1.0]
    assert b.grad.tolist() == [1.0]


# ---------------------------------------------------------------------------------------------
# lerp, addcmul, addcdiv

def test_lerp_addcmul_addcdiv():
    assert lucid.lerp(T([1.0]), T([3.0]), 0.5).tolist() == [2.0]
    assert lucid.lerp(T([1.0]), T([3.0]), 2).tolist() == [5.0]
    assert lucid.lerp(T([1.0]), T([3.0]), T([0.5])).tolist() == [2.0]
    with pytest.raises(lucid.DtypeMismatch):
        lucid.lerp(T([1.0]), T([3.0], dtype=lucid.float64), 0.5)
    with pytest.raises(NotImplementedError):
        lucid.lerp(T([1]), T([3]), 0.5)
    assert lucid.addcmul(T([1.0]), T([3.0]), T([2]), value=2).tolist() == [13.0]
    assert lucid.addcmul(T([1]), T([3]), T([2]), value=0.5).tolist() == [1]
    assert lucid.addcdiv(T([1.0]), T([3.0]), T([2.0]), value=2).tolist() == [4.0]
    with pytest.raises(TypeError, match="Integer division"):
        lucid.addcdiv(T([1.0]), T([3]), T([2]))
    x = T([1.0, 2.0])
    assert x.lerp_(T([3.0, 4.0]), 0.5) is x and x.tolist() == [2.0, 3.0]
    x.addcmul_(T([1.0, 1.0]), T([2.0, 2.0]), value=0.5)
    assert x.tolist() == [3.0, 4.0]
    x.addcdiv_(T([1.0, 1.0]), T([2.0, 4.0]))
    assert x.tolist() == [3.5, 4.25]


def test_lerp_gradients_all_inputs():
    s = T([1.0, 2.0], dtype=lucid.float64, requires_grad=True)
    e = T([3.0, 6.0], dtype=lucid.float64, requires_grad=True)
    w = T([0.25, 0.75], dtype=lucid.float64, requires_grad=True)
    lucid.lerp(s, e, w).sum().backward()
    assert s.grad.tolist() == [0.75, 0.25]
    assert e.grad.tolist() == [0.25, 0.75]
    assert w.grad.tolist() == [2.0, 4.0]


# ---------------------------------------------------------------------------------------------
# complex / polar

def test_complex_and_polar():
    z = lucid.complex(T([1.0]), T([2.0]))
    assert z.dtype is lucid.complex64 and z.tolist() == [1 + 2j]
    assert lucid.complex(T([1.0], dtype=lucid.float64), T([2.0], dtype=lucid.float64)).dtype is lucid.complex128
    inf = float("inf")
    assert lucid.complex(T([inf]), T([0.0])).tolist() == [complex(inf, 0)]
    with pytest.raises(lucid.DtypeMismatch):
        lucid.complex(T([1.0]), T([2.0], dtype=lucid.float64))
    with pytest.raises(lucid.DtypeMismatch):
        lucid.complex(T([1]), T([2]))
    p = lucid.polar(T([2.0]), T([0.5]))
    assert p.tolist()[0] == pytest.approx(2 * complex(math.cos(0.5), math.sin(0.5)))


def test_complex_gradients():
    r = T([1.0, 2.0], dtype=lucid.float64, requires_grad=True)
    i = T([3.0], dtype=lucid.float64, requires_grad=True)
    z = lucid.complex(r, i)
    z.backward(T([1 + 2j, 3 - 1j], dtype=lucid.complex128))
    assert r.grad.tolist() == [1.0, 3.0]
    assert i.grad.tolist() == [1.0]   # 2 + (-1), summed over the broadcast


def test_where_condition_only_is_nonzero_tuple():
    r = lucid.where(T([[True, False], [False, True]]))
    assert isinstance(r, tuple) and len(r) == 2
    assert r[0].tolist() == [0, 1] and r[1].tolist() == [0, 1]
    assert lucid.where(T([0, 3, 0, 5]))[0].tolist() == [1, 3]


def test_arithmetic_aliases():
    x = T([1.0, 2.0])
    assert lucid.multiply(x, 3).tolist() == [3.0, 6.0]
    assert lucid.subtract(x, 1, alpha=2).tolist() == [-1.0, 0.0]
    assert lucid.rsub(x, 1).tolist() == [0.0, -1.0]
    assert x.multiply(x).tolist() == [1.0, 4.0]
    assert lucid.true_divide(T([1, 2]), 2).tolist() == [0.5, 1.0]
    assert lucid.divide(T([7]), 2, rounding_mode="floor").tolist() == [3]
    y = T([4.0])
    y.subtract_(1)
    assert y.tolist() == [3.0]
