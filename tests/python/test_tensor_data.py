"""Tensor.data: reading gives the values outside autograd; assigning swaps in another tensor's data
while the tensor (a Parameter, say) keeps its identity and autograd fields."""
import pytest

import lucid


def test_data_reads_without_autograd_and_shares_memory():
    p = lucid.nn.Parameter(lucid.ones(2, 3))
    d = p.data
    assert not d.requires_grad and d.grad_fn is None
    assert type(d) is lucid.Tensor
    d.mul_(2)                               # writes reach the parameter
    assert p.tolist() == [[2.0] * 3] * 2
    assert p.requires_grad


def test_data_assignment_keeps_identity():
    p = lucid.nn.Parameter(lucid.ones(2, 3))
    ident = id(p)
    p.data = lucid.arange(4.0)
    assert id(p) == ident and isinstance(p, lucid.nn.Parameter)
    assert p.shape == (4,) and p.tolist() == [0.0, 1.0, 2.0, 3.0] and p.requires_grad
    (p * p).sum().backward()
    assert p.grad.tolist() == [0.0, 2.0, 4.0, 6.0]
    t = lucid.zeros(3)
    t.data = lucid.ones(2, dtype=lucid.int64)   # no grad required: any dtype
    assert t.dtype is lucid.int64 and t.tolist() == [1, 1]


def test_data_assignment_refuses_integers_on_grad_tensors():
    p = lucid.nn.Parameter(lucid.ones(2))
    with pytest.raises(lucid.DtypeMismatch, match="cannot require gradients"):
        p.data = lucid.zeros(2, dtype=lucid.int64)
    assert p.dtype is lucid.float32 and p.tolist() == [1.0, 1.0]
