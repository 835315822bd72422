"""Focused tests of the indexing family: __getitem__/__setitem__ semantics against PyTorch, in-place
variants, errors (out-of-range indices name the index and the size; nothing is written), duplicate
indices accumulating, autograd through setitem, and large parallel accumulation."""
import numpy as np
import pytest

import lucid

torch = pytest.importorskip("torch")


def L(a, dtype=None):
    return lucid.tensor(a, dtype=dtype)


def T(a):
    return torch.tensor(a)


def same(lt, tt):
    assert tuple(lt.shape) == tuple(tt.shape), (lt.shape, tt.shape)
    np.testing.assert_array_equal(np.asarray(lt.tolist()), np.asarray(tt.tolist()))


# ---------------------------------------------------------------------------------------------
# __getitem__

KEYS = [
    lambda m: (m.tensor([0, 1, 1]),),
    lambda m: ([1, 0],),
    lambda m: ([[0, 1], [1, 0]],),                 # legacy: a list of lists is a tuple of index lists
    lambda m: (m.tensor([[0, 1], [1, 0]]),),       # a 2-d index tensor
    lambda m: (slice(None), [2, -3]),
    lambda m: ([0, 1], slice(None), [1, 2]),       # separated: the broadcast dims go first
    lambda m: (slice(None), [0, 1], [1, 2]),       # adjacent: in place
    lambda m: (0, slice(None), [1, 2]),            # an int is a select (PyTorch, not NumPy)
    lambda m: (m.tensor(1), slice(None), [1, 2]),  # so is a 0-d integer tensor
    lambda m: (Ellipsis, [3, 0, -1]),
    lambda m: (None, [1], None, slice(None), [2]),
    lambda m: (True,), lambda m: (False,), lambda m: (None, True, Ellipsis, False),
    lambda m: (m.tensor(True),), lambda m: (m.tensor(False), 0),
    lambda m: (m.tensor([True, False]),),
    lambda m: (m.tensor([[True, False, True], [False, False, True]]),),
    lambda m: (slice(None), m.tensor([True, False, True])),
    lambda m: (slice(None), m.tensor([[True, False, True, True]] * 3)),
    lambda m: ([True, False],),
    lambda m: ([],),
    lambda m: (m.tensor([-1, -2]), slice(1, None, 2)),
    lambda m: (m.tensor([1, 0], dtype=m.int32), m.tensor([[0], [2]], dtype=m.int32)),
    lambda m: (m.tensor([1, 0], dtype=m.uint8),),  # uint8: a mask
]


@pytest.mark.parametrize("key", KEYS)
def test_getitem_matches_torch(key):
    a = np.arange(24).reshape(2, 3, 4)
    same(L(a)[key(lucid)], T(a)[key(torch)])


def test_getitem_list_of_ints_and_setitem_list():
    x = lucid.arange(10)
    assert x[[1, 3, 3]].tolist() == [1, 3, 3]
    x[[0, 9]] = 7
    assert x.tolist()[0] == 7 and x.tolist()[9] == 7


def test_getitem_copies_advanced_but_views_basic():
    x = lucid.arange(6.0).reshape(2, 3)
    v = x[:, 1:]
    assert v._is_view_of(x)
    c = x[:, [1, 2]]
    assert not c._is_view_of(x)
    c[0, 0] = 100.0
    assert x[0, 1].item() == 1.0


# ---------------------------------------------------------------------------------------------
# __setitem__

SETS = [
    (lambda m: ([0, 2],), lambda m: 5.0),
    (lambda m: ([0, 2],), lambda m: m.tensor([1.0, 2.0, 3.0, 4.0])),
    (lambda m: ([0, 1],), lambda m: m.ones(1, 1, 4)),                  # leading 1s dropped
    (lambda m: (slice(None), [1, 3]), lambda m: m.tensor([[9.0], [8.0], [7.0]])),
    (lambda m: (m.tensor([[True, False, True, False]] * 3),), lambda m: m.arange(6.0)),
    (lambda m: (m.tensor([True, False, True]),), lambda m: -1.0),
    (lambda m: (Ellipsis, [0]), lambda m: m.tensor(3.0)),
    (lambda m: ([0, 0, 0],), lambda m: m.tensor([1.0, 2.0, 3.0, 4.0])),
    (lambda m: (1,), lambda m: m.ones(1, 4)),
    (lambda m: (None, [2]), lambda m: 4.0),
    (lambda m: (True,), lambda m: 2.0),
]


def test_setitem_casts_tensor_values():
    # lucid casts a tensor value to self's dtype (PyTorch refuses dtypes that differ under advanced indexing)
    x = lucid.zeros(3, 4)
    x[[0, 2], 1:3] = lucid.tensor([5, 6])
    assert x.tolist()[2] == [0.0, 5.0, 6.0, 0.0]


@pytest.mark.parametrize("key,value", SETS)
def test_setitem_matches_torch(key, value):
    lx = lucid.zeros(3, 4)
    tx = torch.zeros(3, 4)
    lx[key(lucid)] = value(lucid)
    tx[key(torch)] = value(torch)
    same(lx, tx)


def test_setitem_casts_float_into_int():
    x = lucid.zeros(3, 4, dtype=lucid.int32)
    x[[0, 1]] = 2.7
    assert x.dtype is lucid.int32
    assert x.tolist()[0] == [2, 2, 2, 2] and x.tolist()[2] == [0, 0, 0, 0]


def test_setitem_through_view_writes_base():
    x = lucid.zeros(4, 5)
    x[1:3][:, [0, 4]] = 1.0
    assert x.sum().item() == 4.0
    assert x[1].tolist() == [1.0, 0.0, 0.0, 0.0, 1.0]


def test_setitem_shape_mismatch():
    x = lucid.zeros(3, 4)
    with pytest.raises(lucid.ShapeMismatch, match="cannot be broadcast"):
        x[[0, 1]] = lucid.ones(3, 4)


def test_setitem_autograd():
    x = lucid.randn(4, 3, dtype=lucid.float64, requires_grad=True)
    v = lucid.randn(2, 3, dtype=lucid.float64, requires_grad=True)

    def f(x, v):
        y = x * 2
        y[[3, 1]] = v * 3
        return y

    assert lucid.autograd.gradcheck(f, (x, v))
    assert lucid.autograd.gradgradcheck(f, (x, v))
    y = f(x, v)
    y.sum().backward()
    assert x.grad.tolist() == [[2.0] * 3, [0.0] * 3, [2.0] * 3, [0.0] * 3]
    assert v.grad.tolist() == [[3.0] * 3] * 2


def test_setitem_through_views_autograd():
    x = lucid.randn(4, 3, dtype=lucid.float64, requires_grad=True)
    v = lucid.randn(3, 2, dtype=lucid.float64, requires_grad=True)

    def f(x, v):
        y = x * 2
        y[1:, [0, 2]] = v * 3
        y[0, [True, False, True]] += v[0]
        return y

    assert lucid.autograd.gradcheck(f, (x, v))
    assert lucid.autograd.gradgradcheck(f, (x, v))


def test_setitem_on_leaf_requiring_grad_refused():
    x = lucid.zeros(3, requires_grad=True)
    with pytest.raises(RuntimeError):
        x[[0]] = 1.0


def test_getitem_backward_accumulates_duplicates():
    x = lucid.zeros(4, dtype=lucid.float64, requires_grad=True)
    x[[0, 0, 2, 0]].sum().backward()
    assert x.grad.tolist() == [3.0, 0.0, 1.0, 0.0]


# ---------------------------------------------------------------------------------------------
# errors: typed, naming the index and the size, nothing written

@pytest.mark.parametrize("call,match", [
    (lambda x: x[[0, 5]], "index 5 is out of bounds for dimension 0 with size 3"),
    (lambda x: x[:, [-5]], "index -5 is out of bounds for dimension 1 with size 4"),
    (lambda x: x.gather(1, lucid.tensor([[4]])), "index 4 is out of bounds for dimension 1 with size 4"),
    (lambda x: x.gather(1, lucid.tensor([[-1]])), "index -1 is out of bounds"),
    (lambda x: x.index_select(0, lucid.tensor([3])), "index 3 is out of bounds for dimension 0 with size 3"),
    (lambda x: x.index_add(0, lucid.tensor([7]), lucid.ones(1, 4)), "index 7"),
    (lambda x: x.scatter_add(0, lucid.tensor([[3]]), lucid.ones(1, 1)), "index 3"),
    (lambda x: x.take(lucid.tensor([12])), "index 12 on a tensor of 12 elements"),
    (lambda x: x.put(lucid.tensor([-13]), lucid.ones(1)), "index -13 on a tensor of 12 elements"),
    (lambda x: x.index_put((lucid.tensor([3]),), lucid.tensor(1.0)), "index 3"),
    (lambda x: x[lucid.tensor([True, False])], "mask"),
    (lambda x: x[0, 0, [0]], "too many indices"),
])
def test_index_errors(call, match):
    x = lucid.zeros(3, 4)
    with pytest.raises(IndexError, match=match):
        call(x)


@pytest.mark.parametrize("call", [
    lambda x: x.index_put_((lucid.tensor([0, 1, 3]),), lucid.tensor(1.0)),
    lambda x: x.index_add_(0, lucid.tensor([0, 9]), lucid.ones(2, 4)),
    lambda x: x.scatter_(1, lucid.tensor([[0, 1, 4]]), 1.0),
    lambda x: x.scatter_add_(1, lucid.tensor([[0, 1, 4]]), lucid.ones(1, 3)),
    lambda x: x.index_fill_(1, lucid.tensor([1, 4]), 1.0),
    lambda x: x.index_copy_(0, lucid.tensor([2, 3]), lucid.ones(2, 4)),
    lambda x: x.put_(lucid.tensor([0, 12]), lucid.ones(2)),
    lambda x: x.__setitem__(([0, 3],), 1.0),
])
def test_nothing_written_on_error(call):
    x = lucid.zeros(3, 4)
    with pytest.raises(IndexError):
        call(x)
    assert x.sum().item() == 0.0


@pytest.mark.parametrize("call,exc", [
    (lambda x: x.gather(1, lucid.tensor([[0]], dtype=lucid.int32)), lucid.DtypeMismatch),
    (lambda x: x.gather(1, lucid.tensor([0])), lucid.ShapeMismatch),
    (lambda x: x.scatter(0, lucid.tensor([[0]]), lucid.ones(1, 1, dtype=lucid.float64)), lucid.DtypeMismatch),
    (lambda x: x.index_add(0, lucid.tensor([0]), lucid.ones(2, 4)), lucid.ShapeMismatch),
    (lambda x: x.index_select(0, lucid.tensor([[0]])), IndexError),
    (lambda x: x.masked_fill(lucid.tensor([1, 0, 1, 0], dtype=lucid.uint8), 1.0), lucid.DtypeMismatch),
    (lambda x: x.masked_fill(lucid.ones(4, dtype=lucid.bool_), lucid.ones(2)), lucid.ShapeMismatch),
    (lambda x: x.masked_fill_(lucid.ones(2, 3, 4, dtype=lucid.bool_), 1.0), lucid.ShapeMismatch),
    (lambda x: x.masked_scatter(lucid.ones(3, 4, dtype=lucid.bool_), lucid.ones(5)), lucid.ShapeMismatch),
    (lambda x: x.scatter_reduce(0, lucid.tensor([[0]]), lucid.ones(1, 1), "median"), ValueError),
    (lambda x: x.scatter(0, lucid.tensor([[0]]), lucid.ones(1, 1), reduce="max"), ValueError),
    (lambda x: x.put(lucid.tensor([0, 1]), lucid.ones(3)), lucid.ShapeMismatch),
    (lambda x: x[lucid.tensor([0.0])], IndexError),
    (lambda x: x[lucid.tensor([0], dtype=lucid.int16)], IndexError),
    (lambda x: lucid.one_hot(lucid.tensor([0, 3]), 3), IndexError),
    (lambda x: lucid.one_hot(lucid.tensor([-1])), IndexError),
    (lambda x: lucid.one_hot(lucid.tensor([1.0])), lucid.DtypeMismatch),
    (lambda x: lucid.one_hot(lucid.zeros(0, dtype=lucid.int64)), ValueError),
])
def test_typed_errors(call, exc):
    with pytest.raises(exc):
        call(lucid.zeros(3, 4))


# ---------------------------------------------------------------------------------------------
# in-place variants agree with the out-of-place ops

INPLACE = [
    ("scatter_", lambda m, x: (1, m.tensor([[0, 2], [1, 3], [3, 0]]), m.ones(3, 2) * 5)),
    ("scatter_add_", lambda m, x: (0, m.tensor([[0, 0, 1, 2], [0, 2, 2, 2]]), m.ones(2, 4))),
    ("scatter_reduce_", lambda m, x: (0, m.tensor([[0, 0, 1, 2], [0, 2, 2, 2]]), m.ones(2, 4) * 3, "amax")),
    ("index_add_", lambda m, x: (0, m.tensor([0, 0, 2]), m.ones(3, 4))),
    ("index_copy_", lambda m, x: (1, m.tensor([3, 0]), m.ones(3, 2) * 2)),
    ("index_fill_", lambda m, x: (1, m.tensor([3, 0]), -1.0)),
    ("masked_fill_", lambda m, x: (m.tensor([True, False, False, True]), 7.0)),
    ("masked_scatter_", lambda m, x: (m.tensor([[True, False, False, True]] * 3), m.arange(12.0) + 100)),
    ("index_put_", lambda m, x: ((m.tensor([0, 0, 2]), m.tensor([1, 1, 3])), m.tensor([1.0, 2.0, 3.0]), True)),
    ("put_", lambda m, x: (m.tensor([0, -1, 5]), m.tensor([1.0, 2.0, 3.0]), True)),
]


@pytest.mark.parametrize("name,args", INPLACE, ids=[n for n, _ in INPLACE])
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_inplace_variants(name, args, layout):
    base = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    if layout == "contiguous":
        lx = lucid.tensor(base)
    else:
        lx = lucid.tensor(np.ascontiguousarray(base.T)).t()
    tx = torch.tensor(base)
    v = lx._version
    r = getattr(lx, name)(*args(lucid, lx))
    assert r is lx and lx._version > v
    getattr(tx, name)(*args(torch, tx))
    np.testing.assert_allclose(np.asarray(lx.tolist()), tx.numpy())
    # and the out-of-place op gives the same without touching its input
    y = lucid.tensor(base)
    if hasattr(y, name[:-1]):
        out = getattr(y, name[:-1])(*args(lucid, y))
        np.testing.assert_allclose(np.asarray(out.tolist()), tx.numpy())
        assert np.asarray(y.tolist()).tolist() == base.tolist()


def test_inplace_aliasing_source():
    x = lucid.arange(4.0)
    x.index_add_(0, lucid.tensor([1, 2, 3, 0]), x)
    assert x.tolist() == [3.0, 1.0, 3.0, 5.0]


def test_inplace_under_autograd():
    w = lucid.randn(3, 4, dtype=lucid.float64, requires_grad=True)
    s = lucid.randn(2, 4, dtype=lucid.float64, requires_grad=True)

    def f(w, s):
        y = w * 1
        y.index_add_(0, lucid.tensor([2, 2]), s, alpha=3)
        y.masked_fill_(lucid.tensor([True, False, False, False]), 0.0)
        return y

    assert lucid.autograd.gradcheck(f, (w, s))
    assert lucid.autograd.gradgradcheck(f, (w, s))


# ---------------------------------------------------------------------------------------------
# semantics

def test_duplicates_accumulate_in_large_parallel_writes():
    n = 1 << 18
    idx = lucid.tensor(np.arange(n) % 7)
    x = lucid.zeros(7, dtype=lucid.int64)
    x.index_put_((idx,), lucid.ones(n, dtype=lucid.int64), accumulate=True)
    want = np.bincount(np.arange(n) % 7)
    assert x.tolist() == want.tolist()
    y = lucid.zeros(7, 300, dtype=lucid.int64).index_add(0, lucid.tensor(np.arange(2000) % 7),
                                                          lucid.ones(2000, 300, dtype=lucid.int64))
    assert y.sum(1).tolist() == (np.bincount(np.arange(2000) % 7) * 300).tolist()
    z = lucid.zeros(3, 1000).scatter_add(0, lucid.tensor(np.arange(3000 * 1000).reshape(3000, 1000) % 3),
                                          lucid.ones(3000, 1000))
    assert z.sum().item() == 3_000_000.0 and z.max().item() == 1000.0 if hasattr(z, "max") else True


def test_scatter_reduce_matches_torch():
    src = np.array([[1.0, -2.0, 3.0, 4.0], [5.0, 6.0, -7.0, 8.0], [0.5, 1.5, 2.5, 3.5]])
    idx = np.array([[0, 1, 0, 1], [1, 1, 0, 0], [0, 0, 2, 2]])
    base = np.arange(12.0).reshape(3, 4) - 5
    for reduce in ["sum", "prod", "mean", "amax", "amin"]:
        for inc in [True, False]:
            got = lucid.tensor(base).scatter_reduce(0, lucid.tensor(idx), lucid.tensor(src), reduce, include_self=inc)
            want = torch.tensor(base).scatter_reduce(0, torch.tensor(idx), torch.tensor(src), reduce, include_self=inc)
            np.testing.assert_allclose(np.asarray(got.tolist()), want.numpy(), err_msg=f"{reduce} {inc}")
    ib = np.arange(12).reshape(3, 4) - 5
    got = lucid.tensor(ib).scatter_reduce(0, lucid.tensor(idx), lucid.tensor(ib * 3), "mean", include_self=True)
    want = torch.tensor(ib).scatter_reduce(0, torch.tensor(idx), torch.tensor(ib * 3), "mean", include_self=True)
    assert got.tolist() == want.tolist()


def test_scatter_reduce_gradients_vs_torch():
    src = np.array([[1.0, -2.0, 3.0, 4.0], [5.0, 6.0, -7.0, 8.0]])
    idx = np.array([[0, 1, 0, 1], [1, 1, 0, 0]])
    base = np.arange(12.0).reshape(3, 4) / 3 + 1
    for reduce in ["sum", "mean", "prod"]:
        for inc in [True, False]:
            ls, lb = lucid.tensor(src, requires_grad=True), lucid.tensor(base, requires_grad=True)
            ts, tb = torch.tensor(src, requires_grad=True), torch.tensor(base, requires_grad=True)
            g = np.arange(12.0).reshape(3, 4)
            (lb.scatter_reduce(0, lucid.tensor(idx), ls, reduce, include_self=inc) * lucid.tensor(g)).sum().backward()
            (tb.scatter_reduce(0, torch.tensor(idx), ts, reduce, include_self=inc) * torch.tensor(g)).sum().backward()
            np.testing.assert_allclose(np.asarray(ls.grad.tolist()), ts.grad.numpy(), err_msg=f"{reduce} {inc} src")
            np.testing.assert_allclose(np.asarray(lb.grad.tolist()), tb.grad.numpy(), err_msg=f"{reduce} {inc} self")


def test_nonzero_as_tuple_and_argwhere():
    a = np.array([[0, 1, 0], [2, 0, 3]])
    lt = lucid.nonzero(L(a), as_tuple=True)
    tt = torch.nonzero(T(a), as_tuple=True)
    assert len(lt) == len(tt) == 2
    for x, y in zip(lt, tt):
        assert x.tolist() == y.tolist()
    assert [t.tolist() for t in L(a).nonzero(as_tuple=True)] == [t.tolist() for t in tt]
    assert [t.tolist() for t in lucid.nonzero(L(5), as_tuple=True)] == [[0]]
    assert lucid.argwhere(L(a)).tolist() == torch.argwhere(T(a)).tolist()
    assert tuple(lucid.nonzero(L(5)).shape) == (1, 0)
    assert lucid.nonzero(lucid.tensor([0.0, float("nan"), -0.0])).tolist() == [[1]]


def test_one_hot():
    assert lucid.one_hot(L([2, 0])).tolist() == [[0, 0, 1], [1, 0, 0]]
    assert lucid.one_hot(L([[1]]), num_classes=3).tolist() == [[[0, 1, 0]]]
    assert lucid.one_hot(L([1, 2]), 3).dtype is lucid.int64
    assert tuple(lucid.one_hot(lucid.zeros(0, dtype=lucid.int64), 4).shape) == (0, 4)


def test_masked_fill_tensor_value_gradient():
    x = lucid.randn(3, 4, dtype=lucid.float64, requires_grad=True)
    v = lucid.tensor(2.0, dtype=lucid.float64, requires_grad=True)
    m = lucid.tensor([True, False, True, False])
    assert lucid.autograd.gradcheck(lambda x, v: x.masked_fill(m, v), (x, v))
    x.masked_fill(m, v).sum().backward()
    assert v.grad.item() == 6.0


def test_take_along_dim_and_put_vs_torch():
    a = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    i = np.array([[0, 3], [1, 1], [2, 0]])
    same(lucid.take_along_dim(L(a), L(i), dim=1), torch.take_along_dim(T(a), T(i), dim=1))
    same(lucid.take_along_dim(L(a), L([[5, 0]])), torch.take_along_dim(T(a), T([[5, 0]])))
    same(L(a).put(L([0, 0, -1]), L([1.0, 2.0, 3.0]), accumulate=True),
         T(a).put(T([0, 0, -1]), T([1.0, 2.0, 3.0]), accumulate=True))


@pytest.mark.parametrize("reduce", ["prod", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_zero_and_tie_gradients_vs_torch(reduce, include_self):
    src = np.array([[0.0, 2.0, 3.0, 0.0], [5.0, 2.0, 0.0, 4.0], [5.0, 0.0, 0.0, 4.0]])
    idx = np.array([[0, 1, 0, 1], [0, 1, 1, 0], [0, 0, 1, 0]])
    base = np.array([[5.0, 2.0, 0.0, 1.0], [0.0, 2.0, 3.0, 4.0]])
    g = np.arange(8.0).reshape(2, 4) + 1
    ls, lb = lucid.tensor(src, requires_grad=True), lucid.tensor(base, requires_grad=True)
    ts, tb = torch.tensor(src, requires_grad=True), torch.tensor(base, requires_grad=True)
    lo = lb.scatter_reduce(0, lucid.tensor(idx), ls, reduce, include_self=include_self)
    to = tb.scatter_reduce(0, torch.tensor(idx), ts, reduce, include_self=include_self)
    np.testing.assert_allclose(np.asarray(lo.tolist()), to.detach().numpy())
    (lo * lucid.tensor(g)).sum().backward()
    (to * torch.tensor(g)).sum().backward()
    np.testing.assert_allclose(np.asarray(ls.grad.tolist()), ts.grad.numpy(), err_msg="src")
    np.testing.assert_allclose(np.asarray(lb.grad.tolist()), tb.grad.numpy(), err_msg="self")


def test_one_hot_in_nn_functional():
    import lucid.nn.functional as F
    assert F.one_hot(lucid.tensor([1, 0]), num_classes=3).tolist() == [[0, 1, 0], [1, 0, 0]]
    assert F.one_hot(lucid.tensor([2])).tolist() == torch.nn.functional.one_hot(torch.tensor([2])).tolist()


def test_where_with_condition_only_is_nonzero_as_tuple():
    a = np.array([[1, 0, 3], [0, 5, 0]])
    got = lucid.where(L(a) > 0)
    want = torch.where(T(a) > 0)
    assert isinstance(got, tuple) and [t.tolist() for t in got] == [t.tolist() for t in want]
    assert lucid.where(L(a) > 0, L(a), -L(a)).tolist() == a.tolist()


@pytest.mark.parametrize("call", [
    lambda: lucid.zeros(3).masked_fill(lucid.tensor([True, False, True]), 1 + 2j),
    lambda: lucid.zeros(3).index_fill(0, lucid.tensor([0]), 1 + 2j),
    lambda: lucid.zeros(3).scatter(0, lucid.tensor([0]), 1 + 2j),
    lambda: lucid.zeros(3).masked_fill_(lucid.tensor([True, False, True]), lucid.tensor(1 + 2j)),
])
def test_complex_value_into_real_tensor_refused(call):
    with pytest.raises(RuntimeError, match="cannot be converted"):
        call()
    assert lucid.zeros(3, dtype=lucid.complex64).masked_fill(lucid.tensor([True, False, True]), 1 + 2j).tolist()[0] == 1 + 2j
    assert lucid.zeros(3, dtype=lucid.int64).masked_fill(lucid.tensor([True, False, True]), 1.7).tolist() == [1, 0, 1]


def test_nonzero_static():
    x = lucid.tensor([[0, 1], [2, 0], [0, 3]])
    assert lucid.nonzero_static(x, size=4).tolist() == [[0, 1], [1, 0], [2, 1], [-1, -1]]
    assert lucid.nonzero_static(x, size=2, fill_value=9).tolist() == [[0, 1], [1, 0]]
    assert x.nonzero_static(size=3, fill_value=5).tolist() == [[0, 1], [1, 0], [2, 1]]
    assert lucid.nonzero_static(lucid.tensor(5), size=2).shape == (2, 0)
    z = lucid.nonzero_static(lucid.tensor([1.0, 0.0]), size=0)
    assert z.shape == (0, 1) and z.dtype is lucid.int64
    with pytest.raises(ValueError, match="non-negative"):
        lucid.nonzero_static(x, size=-1)
