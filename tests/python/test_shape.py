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
    with pytest.raises(lucid.LucidError, match="multiple times"):
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


# ---- views

@pytest.mark.parametrize("fn", [
    lambda x: lucid.split(x, 2, 1), lambda x: lucid.split(x, [1, 3], 1), lambda x: x.chunk(3, 0),
    lambda x: lucid.tensor_split(x, [1, 2], 1), lambda x: lucid.tensor_split(x, 2), lambda x: x.unbind(1),
    lambda x: (lucid.movedim(x, 0, 1),), lambda x: (lucid.swapaxes(x, 0, 1),), lambda x: (x.swapdims(1, 0),),
    lambda x: (x.unflatten(1, (2, 2)),), lambda x: (lucid.ravel(x),), lambda x: (x.moveaxis((0, 1), (1, 0)),),
    lambda x: lucid.broadcast_tensors(x, x[:1]), lambda x: (lucid.atleast_3d(x),),
])
def test_views_share_storage_and_writes(fn):
    x = lucid.arange(12.0).reshape(3, 4)
    parts = fn(x)
    for p in parts:
        assert p._is_view_of(x)
    parts[0].fill_(100.0)
    assert int((to_numpy(x) == 100.0).sum()) == parts[0].numel()


def test_ravel_of_noncontiguous_copies():
    x = lucid.arange(6.0).reshape(2, 3)
    r = x.T.ravel()
    assert not r._is_view_of(x)
    assert r.tolist() == [0, 3, 1, 4, 2, 5]


def test_split_views_under_autograd():
    x = lucid.arange(6.0).requires_grad_()
    a, b, c = x.split(2)
    (a * 1 + b * 2 + c * 3).sum().backward()
    assert x.grad.tolist() == [1, 1, 2, 2, 3, 3]
    y = lucid.arange(6.0).reshape(2, 3).requires_grad_()
    u0, u1 = y.unbind(0)
    (u0 * 2 + u1).sum().backward()
    assert y.grad.tolist() == [[2, 2, 2], [1, 1, 1]]


def test_split_errors():
    x = lucid.ones(4)
    with pytest.raises(lucid.ShapeMismatch, match=r"sum exactly to 4.*\(1, 2\)"):
        lucid.split(x, [1, 2])
    with pytest.raises(lucid.LucidError, match="non-negative"):
        lucid.split(x, [5, -1])
    with pytest.raises(lucid.LucidError, match="non-negative"):
        x.split(-1)
    with pytest.raises(lucid.ShapeMismatch, match="only be 0"):
        x.split(0)
    assert len(lucid.zeros(0).split(0)) == 1
    with pytest.raises(IndexError):
        x.split(2, 1)
    with pytest.raises(lucid.LucidError, match="greater than 0"):
        x.chunk(0)
    with pytest.raises(lucid.LucidError, match="larger than 0"):
        lucid.tensor_split(x, 0)
    with pytest.raises(lucid.DtypeMismatch):
        lucid.tensor_split(x, lucid.tensor([1.0]))
    with pytest.raises(lucid.ShapeMismatch):
        lucid.tensor_split(x, lucid.tensor([[1]]))
    with pytest.raises(IndexError, match="no dimensions"):
        lucid.unbind(lucid.tensor(1.0))
    with pytest.raises(lucid.LucidError):
        lucid.split(lucid.tensor(1.0), 1)


def test_tensor_split_with_tensor_argument(torch):
    x = lucid.arange(7)
    for arg in ([1, 5], 3):
        got = lucid.tensor_split(x, lucid.tensor(arg))
        want = torch.tensor_split(torch.arange(7), torch.tensor(arg))
        assert [g.tolist() for g in got] == [w.tolist() for w in want]


def test_chunk_of_empty_gives_chunks_pieces():
    assert len(lucid.chunk(lucid.zeros(0), 3)) == 3
    assert [tuple(p.shape) for p in lucid.chunk(lucid.ones(6), 4)] == [(2,), (2,), (2,)]


def test_reorder_errors():
    x = lucid.ones(2, 3)
    with pytest.raises(lucid.LucidError, match="repeated dim"):
        lucid.movedim(x, (0, 0), (1, 0))
    with pytest.raises(lucid.ShapeMismatch, match="same number"):
        lucid.movedim(x, (0, 1), (1,))
    with pytest.raises(IndexError):
        lucid.movedim(x, 2, 0)
    with pytest.raises(lucid.ShapeMismatch, match=r"\(2, 2\).*size 3"):
        lucid.unflatten(x, 1, (2, 2))
    with pytest.raises(lucid.ShapeMismatch, match="align"):
        lucid.roll(x, (1, 2), (0,))
    with pytest.raises(lucid.ShapeMismatch, match="align"):
        lucid.roll(x, (1, 2))
    with pytest.raises(lucid.LucidError, match="different"):
        lucid.rot90(x, 1, (0, 0))
    with pytest.raises(lucid.LucidError, match="== 2"):
        lucid.rot90(x, 1, (0,))
    with pytest.raises(lucid.ShapeMismatch, match=">= 2"):
        lucid.rot90(lucid.ones(3))
    with pytest.raises(lucid.ShapeMismatch):
        lucid.fliplr(lucid.ones(3))
    with pytest.raises(lucid.ShapeMismatch):
        lucid.flipud(lucid.tensor(1.0))


def test_roll_semantics(torch):
    x = lucid.arange(12).reshape(3, 4)
    tx = torch.arange(12).reshape(3, 4)
    for shifts, dims in [(1, None), (-13, None), ((1, 1), (0, 0)), ((2, -3), (1, 0)), (0, 1)]:
        assert lucid.roll(x, shifts, dims).tolist() == torch.roll(tx, shifts, dims).tolist()
    r = lucid.roll(x, 0, 0)
    assert not r._is_view_of(x)
    g = lucid.arange(4.0).requires_grad_()
    (lucid.roll(g, 1) * lucid.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
    assert g.grad.tolist() == [2.0, 3.0, 4.0, 1.0]


def test_repeat_errors_and_semantics(torch):
    x = lucid.ones(2, 3)
    with pytest.raises(lucid.ShapeMismatch, match="smaller"):
        x.repeat(2)
    with pytest.raises(lucid.LucidError, match="negative"):
        x.repeat(-1, 1)
    r = x.repeat(1, 1)
    assert not r._is_view_of(x) and r.is_contiguous()
    with pytest.raises(lucid.LucidError, match="negative"):
        lucid.repeat_interleave(x, -1)
    with pytest.raises(lucid.ShapeMismatch, match="same size"):
        lucid.repeat_interleave(x, lucid.tensor([1, 2]), 1)
    with pytest.raises(lucid.DtypeMismatch):
        lucid.repeat_interleave(x, lucid.tensor([1.0, 2.0]), 0)
    with pytest.raises(lucid.ShapeMismatch, match="output_size"):
        lucid.repeat_interleave(x, 2, 0, output_size=5)
    assert lucid.repeat_interleave(lucid.tensor([1, 0, 2])).tolist() == [0, 2, 2]
    assert lucid.repeat_interleave(lucid.tensor([2, 1], dtype=lucid.int32)).dtype is lucid.int32
    assert lucid.repeat_interleave(x, lucid.tensor(2), 0).shape == (4, 3)
    assert lucid.tile(lucid.arange(3), (2, 1)).tolist() == torch.tile(torch.arange(3), (2, 1)).tolist()


def test_repeat_interleave_tensor_gradient():
    x = lucid.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = lucid.repeat_interleave(x, lucid.tensor([3, 0]), 0)
    assert y.shape == (3, 2)
    (y * lucid.arange(6.0).reshape(3, 2)).sum().backward()
    assert x.grad.tolist() == [[6.0, 9.0], [0.0, 0.0]]


# ---- pad

def test_pad_errors():
    x = lucid.ones(1, 3)
    with pytest.raises(lucid.ShapeMismatch, match=r"padding \(3, 3\) at dimension 1 of input \(1, 3\)"):
        lucid.pad(x, (3, 3), mode="reflect")
    with pytest.raises(lucid.ShapeMismatch, match="wrapping around"):
        lucid.pad(x, (4, 3), mode="circular")
    with pytest.raises(lucid.ShapeMismatch, match="empty"):
        lucid.pad(lucid.ones(1, 0), (1, 1), mode="replicate")
    with pytest.raises(NotImplementedError, match="mode"):
        lucid.pad(x, (1, 1), mode="foo")
    with pytest.raises(lucid.ShapeMismatch, match="divisible by 2"):
        lucid.pad(x, (1,))
    with pytest.raises(lucid.ShapeMismatch, match="two times"):
        lucid.pad(x, (1, 1, 1, 1, 1, 1))
    with pytest.raises(NotImplementedError, match="1D input"):
        lucid.pad(lucid.ones(3), (1, 1), mode="reflect")
    with pytest.raises(lucid.ShapeMismatch, match="negative output size"):
        lucid.pad(x, (-3, -1))
    with pytest.raises(NotImplementedError, match="negative"):
        lucid.pad(x, (-1, 1), mode="reflect")


def test_pad_values_and_dtypes(torch):
    x = lucid.arange(6).reshape(2, 3)
    tx = torch.arange(6).reshape(2, 3)
    F = torch.nn.functional
    assert lucid.pad(x, (1, 1), value=7).tolist() == F.pad(tx, (1, 1), value=7).tolist()
    assert lucid.pad(x, (1, 1), value=7).dtype is lucid.int64
    assert lucid.pad(x, (-1, 0, 1, -1)).tolist() == F.pad(tx, (-1, 0, 1, -1)).tolist()
    b = lucid.tensor([[True, False]])
    assert lucid.pad(b, (1, 0), value=True).tolist() == [[True, True, False]]
    for mode in ("reflect", "replicate", "circular"):
        y = lucid.arange(24.0).reshape(2, 3, 4)
        ty = torch.arange(24.0).reshape(2, 3, 4)
        assert lucid.pad(y, (2, 1), mode=mode).tolist() == F.pad(ty, (2, 1), mode=mode).tolist()
        assert lucid.pad(y, (1, 3, 2, 0), mode=mode).tolist() == F.pad(ty, (1, 3, 2, 0), mode=mode).tolist()


def test_pad_reflect_gradient_accumulates(torch):
    x = lucid.arange(8.0).reshape(1, 2, 4).requires_grad_()
    tx = torch.arange(8.0).reshape(1, 2, 4).requires_grad_()
    w = np.random.default_rng(0).standard_normal((1, 2, 9))
    for mode in ("reflect", "replicate", "circular"):
        x.grad = None
        tx.grad = None
        (lucid.pad(x, (3, 2), mode=mode) * lucid.tensor(w, dtype=lucid.float32)).sum().backward()
        (torch.nn.functional.pad(tx, (3, 2), mode=mode) * torch.tensor(w, dtype=torch.float32)).sum().backward()
        np.testing.assert_allclose(to_numpy(x.grad), tx.grad.numpy(), rtol=1e-6, atol=1e-6)


# ---- triangles, diagonals, block_diag

@pytest.mark.parametrize("row,col,offset", [(3, 3, 0), (4, 3, 1), (3, 5, -1), (0, 3, 0), (3, 0, 0), (4, 4, 10),
                                             (4, 4, -10), (5, 2, -2)])
def test_tri_indices_match_torch(torch, row, col, offset):
    assert lucid.tril_indices(row, col, offset).tolist() == torch.tril_indices(row, col, offset).tolist()
    assert lucid.triu_indices(row, col, offset).tolist() == torch.triu_indices(row, col, offset).tolist()
    r = lucid.tril_indices(row, col, offset, dtype=lucid.int32)
    assert r.dtype is lucid.int32 and r.shape[0] == 2


def test_tri_indices_errors():
    with pytest.raises(lucid.LucidError, match="row"):
        lucid.tril_indices(-1, 3)
    with pytest.raises(lucid.DtypeMismatch):
        lucid.triu_indices(3, 3, dtype=lucid.float32)


def test_diag_errors():
    with pytest.raises(lucid.ShapeMismatch, match="1D or 2D"):
        lucid.diag(lucid.ones(2, 2, 2))
    with pytest.raises(lucid.LucidError, match="identical"):
        lucid.diag_embed(lucid.ones(2, 3), 0, 1, 1)
    with pytest.raises(lucid.ShapeMismatch, match="2 or fewer"):
        lucid.block_diag(lucid.ones(2), lucid.ones(2, 2, 2))


def test_block_diag_promotes_and_backprops(torch):
    a = lucid.ones(2, 2, dtype=lucid.float32, requires_grad=True)
    b = lucid.tensor([1, 2], dtype=lucid.int32)
    r = lucid.block_diag(a, b)
    want = torch.block_diag(torch.ones(2, 2), torch.tensor([1, 2], dtype=torch.int32))
    assert r.dtype.name == str(want.dtype).replace("torch.", "") and r.tolist() == want.tolist()
    (r * lucid.arange(12.0).reshape(3, 4)).sum().backward()
    assert a.grad.tolist() == [[0.0, 1.0], [4.0, 5.0]]
    assert tuple(lucid.block_diag().shape) == (1, 0)


def test_diag_of_matrix_is_a_copy():
    x = lucid.arange(9.0).reshape(3, 3)
    d = lucid.diag(x)
    assert not d._is_view_of(x) and d.tolist() == [0.0, 4.0, 8.0]


# ---- broadcasting helpers, meshgrid, atleast, cartesian_prod

def test_broadcast_shapes(torch):
    for shapes in [((2, 1), (3,)), ((), (4, 1)), (3, (2, 1)), ((0, 1), (1, 5)), ((5,),)]:
        assert tuple(lucid.broadcast_shapes(*shapes)) == tuple(torch.broadcast_shapes(*shapes))
    with pytest.raises(lucid.ShapeMismatch):
        lucid.broadcast_shapes((2, 3), (4,))
    with pytest.raises(lucid.ShapeMismatch):
        lucid.broadcast_tensors(lucid.ones(2, 3), lucid.ones(4))


def test_meshgrid_forms_and_errors():
    a, b = lucid.arange(2), lucid.arange(3)
    x, y = lucid.meshgrid(a, b)                # 'ij' by default
    assert x.shape == (2, 3) and y.shape == (2, 3)
    x2, y2 = lucid.meshgrid([a, b], indexing="xy")
    assert x2.shape == (3, 2) and x2.tolist() == [[0, 1]] * 3
    with pytest.raises(lucid.ShapeMismatch, match="0 or 1"):
        lucid.meshgrid(lucid.ones(2, 2))
    with pytest.raises(lucid.LucidError, match="indexing"):
        lucid.meshgrid(a, indexing="foo")
    with pytest.raises(lucid.DtypeMismatch, match="same dtype"):
        lucid.meshgrid(lucid.ones(2), lucid.ones(3, dtype=lucid.int32))


def test_atleast_forms():
    s = lucid.tensor(1.0)
    assert lucid.atleast_1d(s).shape == (1,)
    r = lucid.atleast_2d(s, lucid.ones(3))
    assert isinstance(r, tuple) and [tuple(t.shape) for t in r] == [(1, 1), (1, 3)]
    r = lucid.atleast_3d([lucid.ones(2, 3)])
    assert isinstance(r, tuple) and r[0].shape == (2, 3, 1)
    x = lucid.ones(2, 3, 4)
    assert lucid.atleast_3d(x) is x


def test_cartesian_prod_and_errors():
    a = lucid.arange(3)
    assert lucid.cartesian_prod(a) is a
    with pytest.raises(lucid.ShapeMismatch, match="1D"):
        lucid.cartesian_prod(lucid.ones(2, 2))


def test_stack_family_errors():
    with pytest.raises(lucid.ShapeMismatch):
        lucid.hstack([lucid.ones(2, 3), lucid.ones(3, 3)])
    with pytest.raises(lucid.ShapeMismatch):
        lucid.vstack([lucid.ones(3), lucid.ones(2)])
    with pytest.raises(lucid.LucidError):
        lucid.column_stack([])


def test_tensor_methods_exist():
    x = lucid.ones(2, 3)
    for name in ("split", "chunk", "tensor_split", "unbind", "unflatten", "ravel", "movedim", "moveaxis", "swapaxes",
                 "swapdims", "flip", "fliplr", "flipud", "roll", "rot90", "repeat", "tile", "repeat_interleave", "tril",
                 "triu", "tril_", "triu_", "diag", "diag_embed", "diagflat"):
        assert callable(getattr(x, name)), name
    for name in ("cat", "concat", "concatenate", "stack", "hstack", "vstack", "row_stack", "dstack", "column_stack",
                 "pad", "tril_indices", "triu_indices", "block_diag", "meshgrid", "broadcast_tensors",
                 "broadcast_shapes", "atleast_1d", "atleast_2d", "atleast_3d", "cartesian_prod"):
        assert callable(getattr(lucid, name)), name


def test_cat_and_stack_take_axis():
    a = lucid.arange(4).reshape(2, 2)
    assert lucid.cat([a, a], axis=1).shape == (2, 4)
    assert lucid.concat([a, a], axis=0).shape == (4, 2)
    assert lucid.concatenate([a, a], axis=1).shape == (2, 4)
    assert lucid.stack([a, a], axis=2).shape == (2, 2, 2)


def test_cat_real_input_with_complex_gets_real_gradient(torch):
    a = lucid.tensor([1.0, 2.0], requires_grad=True)
    b = lucid.tensor([1 + 1j], requires_grad=True)
    y = lucid.cat([a, b])
    assert y.dtype is lucid.complex64
    w = lucid.tensor([2 - 1j, 3 + 4j, 1j])
    (y * w).sum().backward()
    ta = torch.tensor([1.0, 2.0], requires_grad=True)
    tb = torch.tensor([1 + 1j], requires_grad=True)
    (torch.cat([ta, tb]) * torch.tensor([2 - 1j, 3 + 4j, 1j])).sum().real.backward()
    assert a.grad.dtype is lucid.float32
    np.testing.assert_allclose(to_numpy(a.grad), ta.grad.numpy())


def test_directional_split_errors():
    x = lucid.arange(12).reshape(2, 6)
    with pytest.raises(lucid.ShapeMismatch, match="size of the dimension 6 is not divisible by the split_size 4"):
        lucid.hsplit(x, 4)
    with pytest.raises(lucid.ShapeMismatch, match="at least 2"):
        lucid.vsplit(lucid.arange(3), 1)
    with pytest.raises(lucid.ShapeMismatch, match="at least 3"):
        x.dsplit(1)
    with pytest.raises(lucid.ShapeMismatch, match="at least 1"):
        lucid.hsplit(lucid.tensor(1), 1)
    assert [p.tolist() for p in lucid.hsplit(lucid.arange(6), 2)] == [[0, 1, 2], [3, 4, 5]]


def test_combinations_errors_and_gradient():
    with pytest.raises(lucid.ShapeMismatch, match="1D"):
        lucid.combinations(lucid.ones(2, 2))
    with pytest.raises(lucid.LucidError, match="non-negative"):
        lucid.combinations(lucid.ones(3), -1)
    x = lucid.tensor([1.0, 2.0, 3.0], requires_grad=True)
    lucid.combinations(x, 2).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0]


@pytest.mark.cuda
def test_joining_across_devices_is_refused(cuda_device):
    a, b = lucid.ones(2), lucid.ones(2).to(cuda_device)
    with pytest.raises(lucid.DeviceMismatch, match="tensor 1"):
        lucid.cat([a, b])
    with pytest.raises(lucid.DeviceMismatch):
        lucid.stack([a, b])
    with pytest.raises(lucid.DeviceMismatch):
        lucid.block_diag(a, b)
    with pytest.raises(NotImplementedError, match="flip_kernel"):
        b.flip(0)                       # CPU-only kernel for now: a typed error, no silent fallback
