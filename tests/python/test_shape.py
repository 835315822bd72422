"""Focused tests of the shape family: errors, promotion across inputs, views, in-place variants and
semantics the op table cannot see."""
import numpy as np
import pytest

import lucid
from helpers import to_numpy


def t(x, dtype=None):
    return lucid.tensor(x, dtype=dtype)


# ---- cat / stack

def test_cat_promotes_across_inputs(torch):
    pairs = [(lucid.int32, lucid.float16), (lucid.uint8, lucid.int8), (lucid.bool_, lucid.int64),
             (lucid.float32, lucid.complex64), (lucid.float64, lucid.complex64), (lucid.bfloat16, lucid.float16)]
    for a, b in pairs:
        la, lb = lucid.ones(2, dtype=a), lucid.ones(3, dtype=b)
        want = torch.cat([torch.ones(2, dtype=getattr(torch, a.name)), torch.ones(3, dtype=getattr(torch, b.name))]).dtype
        got = lucid.cat([la, lb])
        assert got.dtype.name == str(want).replace("torch.", "")
        assert got.tolist() == [1] * 5
        assert lucid.stack([la, la.to(b)]).dtype.name == got.dtype.name


def test_cat_legacy_empty_skipped_but_promotes():
    r = lucid.cat([lucid.zeros(0, dtype=lucid.float64), lucid.ones(2, 3)])
    assert tuple(r.shape) == (2, 3) and r.dtype is lucid.float64
    r = lucid.cat([lucid.ones(2, 3), lucid.zeros(0)], 1)
    assert tuple(r.shape) == (2, 3)
    assert tuple(lucid.cat([lucid.zeros(0), lucid.zeros(0)]).shape) == (0,)


def test_cat_errors():
    with pytest.raises(lucid.ShapeMismatch, match=r"tensor number 1.*\(2, 3\) and \(3, 3\)"):
        lucid.cat([lucid.ones(2, 3), lucid.ones(3, 3)], 1)
    with pytest.raises(lucid.ShapeMismatch, match="number of dimensions"):
        lucid.cat([lucid.ones(2, 3), lucid.ones(3)])
    with pytest.raises(lucid.ShapeMismatch, match="zero-dimensional.*position 1"):
        lucid.cat([lucid.ones(1), lucid.ones(())])
    with pytest.raises(ValueError, match="non-empty"):
        lucid.cat([])
    with pytest.raises(IndexError, match="out of range"):
        lucid.cat([lucid.ones(2)], 1)
    with pytest.raises(TypeError):
        lucid.cat([lucid.ones(2), 3])


def test_stack_errors():
    with pytest.raises(lucid.ShapeMismatch, match=r"\(2,\) at entry 0 and \(3,\) at entry 1"):
        lucid.stack([lucid.ones(2), lucid.ones(3)])
    with pytest.raises(IndexError):
        lucid.stack([lucid.ones(2), lucid.ones(2)], 3)
    with pytest.raises(ValueError):
        lucid.stack([])


def test_cat_gradient_to_each_input_dtype():
    a = lucid.ones(2, dtype=lucid.float32, requires_grad=True)
    b = lucid.ones(3, dtype=lucid.float64, requires_grad=True)
    y = lucid.cat([a, b])
    assert y.dtype is lucid.float64
    (y * lucid.arange(5.0, dtype=lucid.float64)).sum().backward()
    assert a.grad.dtype is lucid.float32 and a.grad.tolist() == [0.0, 1.0]
    assert b.grad.tolist() == [2.0, 3.0, 4.0]


# ---- flip / tril / triu

def test_flip_errors():
    with pytest.raises(ValueError, match="multiple times"):
        lucid.flip(lucid.ones(2, 3), (0, -2))
    with pytest.raises(IndexError):
        lucid.flip(lucid.ones(2, 3), (2,))


def test_tril_triu_errors_and_inplace():
    with pytest.raises(lucid.ShapeMismatch, match="at least 2"):
        lucid.tril(lucid.ones(3))
    with pytest.raises(lucid.ShapeMismatch):
        lucid.ones(3).triu()
    x = lucid.arange(1.0, 10.0).reshape(3, 3)
    v = x._version
    assert x.tril_(-1) is x
    assert x.tolist() == [[0, 0, 0], [4, 0, 0], [7, 8, 0]]
    assert x._version == v + 1
    y = lucid.ones(2, 3, 3)
    assert y.triu_(1) is y
    np.testing.assert_array_equal(to_numpy(y), np.triu(np.ones((2, 3, 3)), 1))


def test_tril_keeps_nan_and_inf_out():
    x = lucid.tensor([[1.0, float("nan")], [float("inf"), 2.0]])
    assert lucid.tril(x).tolist()[0] == [1.0, 0.0]
    assert lucid.triu(x).tolist()[1] == [0.0, 2.0]
