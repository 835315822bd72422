"""Views: every view op allocates no data, shares the base's storage and version counter, reads the
right elements (checked against NumPy and PyTorch's shapes/strides/offsets) and writes through to the
base; reshape copies only when the strides forbid a view; overlapping windows refuse writes.

The base tensors hold their own flat indices (arange), so a view's values name the base elements it
references: that makes the write-through check exact for every view op."""
import numpy as np
import pytest

import lucid
from helpers import ALL_DTYPES, to_numpy

swv = np.lib.stride_tricks.sliding_window_view


def np_as_strided(a, size, stride, offset=0):
    flat = np.ascontiguousarray(a).reshape(-1)
    return np.lib.stride_tricks.as_strided(flat[offset:], shape=size, strides=[s * flat.itemsize for s in stride])


# (id, base shape, lucid fn, numpy fn, torch fn or None (same as lucid), overlapping?)
VIEW_CASES = [
    ("T", (4, 5), lambda x: x.T, lambda a: a.T, None, False),
    ("T_3d", (3, 4, 5), lambda x: x.T, lambda a: a.transpose(2, 1, 0), lambda t: t.permute(2, 1, 0), False),
    ("t", (4, 5), lambda x: x.t(), lambda a: a.T, None, False),
    ("mT", (3, 4, 5), lambda x: x.mT, lambda a: np.swapaxes(a, -1, -2), None, False),
    ("permute", (3, 4, 5), lambda x: x.permute(2, 0, 1), lambda a: a.transpose(2, 0, 1), None, False),
    ("permute_neg", (3, 4, 5), lambda x: x.permute(-1, -3, -2), lambda a: a.transpose(2, 0, 1), None, False),
    ("permute_fn", (3, 4, 5), lambda x: lucid.permute(x, (1, 2, 0)), lambda a: a.transpose(1, 2, 0),
     lambda t: t.permute(1, 2, 0), False),
    ("transpose", (3, 4, 5), lambda x: x.transpose(0, 2), lambda a: np.swapaxes(a, 0, 2), None, False),
    ("transpose_neg", (3, 4, 5), lambda x: x.transpose(-1, 1), lambda a: np.swapaxes(a, -1, 1), None, False),
    ("swapaxes", (3, 4, 5), lambda x: x.swapaxes(0, 1), lambda a: np.swapaxes(a, 0, 1), None, False),
    ("squeeze_all", (3, 1, 5, 1), lambda x: x.squeeze(), lambda a: a.squeeze(), None, False),
    ("squeeze_dim", (3, 1, 5, 1), lambda x: x.squeeze(1), lambda a: a.squeeze(1), None, False),
    ("squeeze_neg", (3, 1, 5, 1), lambda x: x.squeeze(-1), lambda a: a.squeeze(-1), None, False),
    ("squeeze_tuple", (1, 3, 1, 5), lambda x: x.squeeze((0, 2)), lambda a: a.squeeze((0, 2)), None, False),
    ("squeeze_noop", (3, 4), lambda x: x.squeeze(0), lambda a: a, None, False),
    ("unsqueeze", (3, 4), lambda x: x.unsqueeze(1), lambda a: a[:, None], None, False),
    ("unsqueeze_neg", (3, 4), lambda x: x.unsqueeze(-1), lambda a: a[..., None], None, False),
    ("unsqueeze_0", (3, 4), lambda x: lucid.unsqueeze(x, 0), lambda a: a[None], lambda t: t.unsqueeze(0), False),
    ("expand", (3, 1), lambda x: x.expand(3, 4), lambda a: np.broadcast_to(a, (3, 4)), None, True),
    ("expand_new_dims", (3, 1), lambda x: x.expand(2, 3, 4), lambda a: np.broadcast_to(a, (2, 3, 4)), None, True),
    ("expand_minus1", (3, 1), lambda x: x.expand(2, -1, 5), lambda a: np.broadcast_to(a, (2, 3, 5)), None, True),
    ("expand_noop", (3, 4), lambda x: x.expand(3, 4), lambda a: a, None, False),
    ("expand_as", (1, 4), lambda x: x.expand_as(lucid.zeros(3, 4)), lambda a: np.broadcast_to(a, (3, 4)),
     lambda t: t.expand(3, 4), True),
    ("broadcast_to", (4,), lambda x: x.broadcast_to((2, 3, 4)), lambda a: np.broadcast_to(a, (2, 3, 4)), None,
     True),
    ("broadcast_to_fn", (3, 1), lambda x: lucid.broadcast_to(x, (3, 5)), lambda a: np.broadcast_to(a, (3, 5)),
     lambda t: t.broadcast_to((3, 5)), True),
    ("narrow", (4, 6), lambda x: x.narrow(1, 2, 3), lambda a: a[:, 2:5], None, False),
    ("narrow_neg_dim", (4, 6), lambda x: x.narrow(-2, 1, 2), lambda a: a[1:3], None, False),
    ("select", (3, 4, 5), lambda x: x.select(1, 2), lambda a: a[:, 2], None, False),
    ("select_neg", (3, 4, 5), lambda x: x.select(-1, -1), lambda a: a[..., -1], None, False),
    ("int", (3, 4, 5), lambda x: x[1], lambda a: a[1], None, False),
    ("neg_int", (3, 4, 5), lambda x: x[-1, -2], lambda a: a[-1, -2], None, False),
    ("slice", (6, 5), lambda x: x[1:4], lambda a: a[1:4], None, False),
    ("slice_step", (7, 8), lambda x: x[1::2, ::3], lambda a: a[1::2, ::3], None, False),
    ("slice_neg", (7, 8), lambda x: x[-5:-1, -3:], lambda a: a[-5:-1, -3:], None, False),
    ("slice_oob", (4, 5), lambda x: x[2:100, -100:2], lambda a: a[2:100, -100:2], None, False),
    ("slice_empty", (4, 5), lambda x: x[3:1], lambda a: a[3:1], None, False),
    ("none", (3, 4), lambda x: x[None, :, None], lambda a: a[None, :, None], None, False),
    ("ellipsis", (3, 4, 5), lambda x: x[..., 1:3], lambda a: a[..., 1:3], None, False),
    ("ellipsis_mid", (3, 4, 5), lambda x: x[1, ..., 2], lambda a: a[1, ..., 2], None, False),
    ("mixed", (3, 4, 5, 6), lambda x: x[-1, None, ::2, ..., 1:5:3], lambda a: a[-1, None, ::2, ..., 1:5:3], None,
     False),
    ("ellipsis_only", (3, 4), lambda x: x[...], lambda a: a[...], None, False),
    ("full_slice", (3, 4), lambda x: x[:], lambda a: a[:], None, False),
    ("unfold_overlap", (10,), lambda x: x.unfold(0, 3, 1), lambda a: swv(a, 3), None, True),
    ("unfold_2d", (4, 7), lambda x: x.unfold(1, 3, 2), lambda a: swv(a, 3, axis=1)[:, ::2], None, True),
    ("unfold_disjoint", (10,), lambda x: x.unfold(0, 2, 3), lambda a: swv(a, 2)[::3], None, False),
    ("unfold_exact", (3, 6), lambda x: x.unfold(1, 2, 2), lambda a: swv(a, 2, axis=1)[:, ::2], None, False),
    ("unfold_dim0", (5, 3), lambda x: x.unfold(0, 2, 1), lambda a: swv(a, 2, axis=0), None, True),
    ("as_strided", (4, 6), lambda x: x.as_strided((3, 2), (6, 2), 1), lambda a: np_as_strided(a, (3, 2), (6, 2), 1),
     None, False),
    ("as_strided_overlap", (4, 6), lambda x: x.as_strided((3, 3), (1, 1)), lambda a: np_as_strided(a, (3, 3), (1, 1)),
     None, True),
    ("as_strided_fn", (10,), lambda x: lucid.as_strided(x, (2, 2), (3, 1), 4),
     lambda a: np_as_strided(a, (2, 2), (3, 1), 4), lambda t: t.as_strided((2, 2), (3, 1), 4), False),
    ("diagonal", (4, 5), lambda x: x.diagonal(), lambda a: np.diagonal(a), None, False),
    ("diagonal_off", (4, 5), lambda x: x.diagonal(1), lambda a: np.diagonal(a, 1), None, False),
    ("diagonal_neg_off", (4, 5), lambda x: x.diagonal(-2), lambda a: np.diagonal(a, -2), None, False),
    ("diagonal_dims", (3, 4, 5), lambda x: x.diagonal(0, 2, 0), lambda a: np.diagonal(a, 0, 2, 0), None, False),
    ("diagonal_3d", (3, 4, 5), lambda x: x.diagonal(1, 1, 2), lambda a: np.diagonal(a, 1, 1, 2), None, False),
    ("diagonal_fn", (4, 4), lambda x: lucid.diagonal(x, -1), lambda a: np.diagonal(a, -1),
     lambda t: t.diagonal(-1), False),
    ("diagonal_empty", (3, 4), lambda x: x.diagonal(10), lambda a: np.diagonal(a, 10), None, False),
    ("view", (4, 6), lambda x: x.view(3, 8), lambda a: a.reshape(3, 8), None, False),
    ("view_minus1", (4, 6), lambda x: x.view(-1, 2), lambda a: a.reshape(-1, 2), None, False),
    ("view_tuple", (4, 6), lambda x: x.view((2, 12)), lambda a: a.reshape(2, 12), None, False),
    ("view_of_slice", (4, 6), lambda x: x[1:3].view(12), lambda a: a[1:3].reshape(12), None, False),
    ("view_split_dim_of_transpose", (4, 6), lambda x: x.T.view(2, 3, 4), lambda a: a.T.reshape(2, 3, 4), None,
     False),
    ("view_as", (4, 6), lambda x: x.view_as(lucid.zeros(8, 3)), lambda a: a.reshape(8, 3),
     lambda t: t.view(8, 3), False),
    ("reshape_contig", (4, 6), lambda x: x.reshape(2, 2, 6), lambda a: a.reshape(2, 2, 6), None, False),
    ("reshape_fn", (4, 6), lambda x: lucid.reshape(x, (24,)), lambda a: a.reshape(24), lambda t: t.reshape(24),
     False),
    ("reshape_as", (4, 6), lambda x: x.reshape_as(lucid.zeros(6, 4)), lambda a: a.reshape(6, 4),
     lambda t: t.reshape(6, 4), False),
    ("flatten", (2, 3, 4), lambda x: x.flatten(), lambda a: a.reshape(-1), None, False),
    ("flatten_range", (2, 3, 4, 5), lambda x: x.flatten(1, 2), lambda a: a.reshape(2, 12, 5), None, False),
    ("flatten_fn", (2, 3, 4), lambda x: lucid.flatten(x, 1), lambda a: a.reshape(2, 12), lambda t: t.flatten(1),
     False),
    ("detach", (3, 4), lambda x: x.detach(), lambda a: a, None, False),
    ("contiguous_noop", (3, 4), lambda x: x.contiguous(), lambda a: a, None, False),
    ("chain", (4, 5, 6), lambda x: x.permute(2, 0, 1)[1:5:2].unsqueeze(1).narrow(3, 1, 3).transpose(0, 3),
     lambda a: np.swapaxes(a.transpose(2, 0, 1)[1:5:2][:, None][..., 1:4], 0, 3), None, False),
]
VIEW_IDS = [c[0] for c in VIEW_CASES]


def _base(shape, dtype=lucid.float64):
    n = int(np.prod(shape))
    return lucid.arange(n, dtype=dtype).reshape(*shape) if shape else lucid.tensor(0.0, dtype=dtype)


@pytest.mark.parametrize("name,shape,fn,np_fn,torch_fn,overlap", VIEW_CASES, ids=VIEW_IDS)
def test_view_values_and_no_allocation(name, shape, fn, np_fn, torch_fn, overlap):
    x = _base(shape)
    before = lucid.memory_allocated("cpu")
    v = fn(x)
    assert lucid.memory_allocated("cpu") == before, f"{name} allocated data"
    assert v._is_view_of(x)
    assert v._storage_ptr() == x._storage_ptr()
    expected = np_fn(np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape))
    assert v.shape == expected.shape
    np.testing.assert_array_equal(to_numpy(v), expected)
    assert v._has_internal_overlap() == overlap


@pytest.mark.parametrize("name,shape,fn,np_fn,torch_fn,overlap", VIEW_CASES, ids=VIEW_IDS)
def test_view_geometry_vs_torch(torch, name, shape, fn, np_fn, torch_fn, overlap):
    x = _base(shape)
    t = torch.arange(int(np.prod(shape)), dtype=torch.float64).reshape(shape)
    v = fn(x)
    tv = (torch_fn or fn)(t)
    assert v.shape == tuple(tv.shape)
    assert v.stride() == tv.stride()
    assert v.storage_offset() == tv.storage_offset()
    assert v.is_contiguous() == tv.is_contiguous()
    np.testing.assert_array_equal(to_numpy(v), tv.numpy())


@pytest.mark.parametrize("name,shape,fn,np_fn,torch_fn,overlap", VIEW_CASES, ids=VIEW_IDS)
def test_view_writes_reach_base(name, shape, fn, np_fn, torch_fn, overlap):
    x = _base(shape)
    v = fn(x)
    referenced = np.unique(to_numpy(v)).astype(np.int64)
    version = x._version
    if overlap:
        with pytest.raises(lucid.LucidError, match="single memory location"):
            v.fill_(-1.0)
        with pytest.raises(lucid.LucidError):
            v.copy_(lucid.zeros(*v.shape, dtype=v.dtype))
        if v.dim() > 0:
            with pytest.raises(lucid.LucidError):
                v[...] = 3.0
        np.testing.assert_array_equal(to_numpy(x).reshape(-1), np.arange(x.numel()))   # nothing written
        return
    v.fill_(-1.0)
    assert x._version == version + 1 and v._version == x._version
    expected = np.arange(x.numel(), dtype=np.float64)
    expected[referenced] = -1.0
    np.testing.assert_array_equal(to_numpy(x).reshape(-1), expected)
    # copy_ and __setitem__ through the view too
    if v.numel():
        src = lucid.arange(v.numel(), dtype=lucid.float64).reshape(*v.shape) + 1000
        v.copy_(src)
        np.testing.assert_array_equal(to_numpy(v), to_numpy(src))
        v[...] = 7.0
        assert set(to_numpy(x).reshape(-1)[referenced].tolist()) == {7.0}


@pytest.mark.parametrize("d", ALL_DTYPES, ids=lambda d: d.name)
def test_views_for_every_dtype(d):
    x = lucid.zeros(4, 6, dtype=d)
    before = lucid.memory_allocated("cpu")
    views = [x.T, x[1:, ::2], x.unsqueeze(0), x.view(24), x.diagonal(), x.unfold(1, 2, 2), x.narrow(0, 1, 2)]
    assert lucid.memory_allocated("cpu") == before
    assert all(v._is_view_of(x) and v.dtype is d for v in views)
    x[1:, ::2] = 1
    got = to_numpy(x)
    want = np.zeros((4, 6))
    want[1:, ::2] = 1
    np.testing.assert_array_equal(got.astype(np.float64) if d.is_complex is False else got.real, want)


# ---------------------------------------------------------------------------------------------
# reshape copies only when the strides forbid a view; view refuses instead

RESHAPE_CASES = [  # (id, make, target shape, is a view)
    ("contiguous", lambda: lucid.arange(24.0).reshape(4, 6), (2, 12), True),
    ("contiguous_minus1", lambda: lucid.arange(24.0).reshape(4, 6), (-1,), True),
    ("t_flat", lambda: lucid.arange(24.0).reshape(4, 6).t(), (-1,), False),
    ("T_other_shape", lambda: lucid.arange(24.0).reshape(4, 6).T, (4, 6), False),
    ("T_split_dim", lambda: lucid.arange(24.0).reshape(4, 6).T, (2, 3, 4), True),
    ("T_same_shape", lambda: lucid.arange(24.0).reshape(4, 6).T, (6, 4), True),
    ("row_step", lambda: lucid.arange(24.0).reshape(4, 6)[::2], (-1,), False),
    ("col_step", lambda: lucid.arange(24.0).reshape(4, 6)[:, ::2], (-1,), True),      # strides (6, 2) merge
    ("col_slice", lambda: lucid.arange(24.0).reshape(4, 6)[:, 1:4], (-1,), False),
    ("col_step_split_rows", lambda: lucid.arange(24.0).reshape(4, 6)[:, ::2], (2, 2, 3), True),
    ("row_slice", lambda: lucid.arange(24.0).reshape(4, 6)[1:3], (-1,), True),
    ("expand_flat", lambda: lucid.arange(3.0).reshape(3, 1).expand(3, 4), (12,), False),
    ("expand_split", lambda: lucid.arange(3.0).reshape(3, 1).expand(3, 4), (3, 2, 2), True),
    ("permute_merge", lambda: lucid.arange(24.0).reshape(2, 3, 4).permute(1, 0, 2), (3, 8), False),
    ("permute_keep_last", lambda: lucid.arange(24.0).reshape(2, 3, 4).permute(1, 0, 2), (6, 4), False),
    ("unsqueezed", lambda: lucid.arange(6.0).reshape(2, 3).unsqueeze(1), (6,), True),
    ("zero_dim", lambda: lucid.tensor(5.0), (1, 1), True),
    ("empty", lambda: lucid.zeros(0, 3), (3, 0), True),
    ("unfold", lambda: lucid.arange(10.0).unfold(0, 3, 1), (-1,), False),
]


@pytest.mark.parametrize("name,make,shape,is_view", RESHAPE_CASES, ids=[c[0] for c in RESHAPE_CASES])
def test_reshape_copies_only_when_needed(name, make, shape, is_view):
    x = make()
    ref = to_numpy(x)
    before = lucid.memory_allocated("cpu")
    y = x.reshape(*shape)
    np.testing.assert_array_equal(to_numpy(y), ref.reshape(shape))
    assert y._is_view_of(x) == is_view
    if is_view:
        assert lucid.memory_allocated("cpu") == before
        assert x.view(*shape)._is_view_of(x)
    else:
        assert lucid.memory_allocated("cpu") == before + y.nbytes
        with pytest.raises(lucid.ShapeMismatch, match="view"):
            x.view(*shape)
        y.fill_(-1.0)                    # a copy: the source is untouched
        np.testing.assert_array_equal(to_numpy(x), ref)


@pytest.mark.parametrize("name,make,shape,is_view", RESHAPE_CASES, ids=[c[0] for c in RESHAPE_CASES])
def test_reshape_view_or_copy_matches_torch(torch, name, make, shape, is_view):
    x = make()
    t = _torch_like(torch, x)         # the same storage contents, shape, strides and offset
    ty = t.reshape(*shape)
    shares = ty.untyped_storage().data_ptr() == t.untyped_storage().data_ptr()
    assert shares == is_view
    assert x.reshape(*shape)._is_view_of(x) == shares


def _torch_like(torch, x):
    """A torch tensor with x's storage contents, shape, strides and offset."""
    assert x.dtype is lucid.float32
    n = x._storage_nbytes() // x.element_size()
    storage = torch.from_numpy(np.frombuffer(x.as_strided((n,), (1,), 0).to_bytes(), dtype=np.float32).copy())
    return storage.as_strided(x.shape, x.stride(), x.storage_offset())


def test_view_errors():
    x = lucid.arange(24.0).reshape(4, 6)
    with pytest.raises(lucid.ShapeMismatch, match=r"view.*\(4, 6\)|view"):
        x.view(5, 5)
    with pytest.raises(lucid.ShapeMismatch):
        x.view(-1, -1)
    with pytest.raises(lucid.ShapeMismatch, match="reshape|invalid"):
        x.reshape(7, -1)
    with pytest.raises(lucid.ShapeMismatch) as info:
        x.t().view(-1)
    assert "view" in str(info.value) and "reshape" in str(info.value)      # points at .reshape()
    with pytest.raises(lucid.ShapeMismatch):
        x[:, 1:4].view(12)


def test_view_dtype():
    x = lucid.tensor([1.0, -2.0])
    y = x.view(lucid.int32)
    assert y.dtype is lucid.int32 and y._is_view_of(x)
    assert y.tolist() == np.array([1.0, -2.0], dtype=np.float32).view(np.int32).tolist()
    with pytest.raises(lucid.DtypeMismatch):
        x.view(lucid.float16)


# ---------------------------------------------------------------------------------------------
# errors of the view ops

@pytest.mark.parametrize("call,exc", [
    (lambda x: x.permute(0, 0, 1), ValueError),
    (lambda x: x.permute(0, 1), (ValueError, lucid.ShapeMismatch, RuntimeError)),
    (lambda x: x.transpose(0, 3), IndexError),
    (lambda x: x.squeeze(5), IndexError),
    (lambda x: x.unsqueeze(4), IndexError),
    (lambda x: x.unsqueeze(-5), IndexError),
    (lambda x: x.expand(2, 3, 5), lucid.ShapeMismatch),
    (lambda x: x.expand(3, 4), (lucid.ShapeMismatch, RuntimeError)),
    (lambda x: x.narrow(2, 3, 2), IndexError),
    (lambda x: x.narrow(3, 0, 1), IndexError),
    (lambda x: x.select(1, 3), IndexError),
    (lambda x: x.select(1, -4), IndexError),
    (lambda x: x[2], IndexError),
    (lambda x: x[0, 0, 0, 0], IndexError),
    (lambda x: x[..., 0, ...], IndexError),
    (lambda x: x[:, ::-1], ValueError),
    (lambda x: x[:, ::0], ValueError),
    (lambda x: x.unfold(0, 3, 1), lucid.ShapeMismatch),
    (lambda x: x.unfold(2, 2, 0), (ValueError, RuntimeError)),
    (lambda x: x.as_strided((2, 2), (1, 2), 100), IndexError),
    (lambda x: x.diagonal(0, 1, 1), (ValueError, RuntimeError)),
    (lambda x: x.t(), lucid.ShapeMismatch),
    (lambda x: x[[0, 5]], IndexError),
    (lambda x: x[lucid.tensor([True, False, True])], IndexError),
    (lambda x: x["a"], (NotImplementedError, TypeError)),
], ids=["permute_dup", "permute_len", "transpose_oob", "squeeze_oob", "unsqueeze_oob", "unsqueeze_neg_oob",
        "expand_bad", "expand_fewer_dims", "narrow_past_end", "narrow_dim_oob", "select_oob", "select_neg_oob",
        "index_oob", "too_many", "two_ellipses", "neg_step", "zero_step", "unfold_too_big", "unfold_step0",
        "as_strided_oob", "diagonal_same_dim", "t_3d", "list_index", "bool_index", "str_index"])
def test_view_op_errors(call, exc):
    x = lucid.arange(24.0).reshape(2, 3, 4)
    with pytest.raises(exc):
        call(x)


def test_lucid_index_errors_are_builtin_index_errors():
    x = lucid.zeros(2, 3)
    with pytest.raises(lucid.errors.IndexError):
        x[5]
    with pytest.raises(IndexError, match="out of bounds|out of range"):
        x[:, 3]


def test_getitem_none_alone():
    x = lucid.arange(6.0).reshape(2, 3)
    assert x[None].shape == (1, 2, 3)
    assert lucid.tensor(5.0)[None].shape == (1,)
    x[None] = 1.0
    assert x.tolist() == [[1.0] * 3] * 2


def test_index_with_one_element_tensor_is_not_an_int():
    x = lucid.arange(6.0).reshape(2, 3)
    try:
        r = x[lucid.tensor([1])]
    except NotImplementedError:
        return
    assert r.shape == (1, 3)


def test_index_with_zero_dim_int_tensor_is_an_int():
    x = lucid.arange(6.0).reshape(2, 3)
    assert x[lucid.tensor(1)].tolist() == [3.0, 4.0, 5.0]


# ---------------------------------------------------------------------------------------------
# unfold / expand writes, as_strided, diagonal and contiguous specifics

def test_unfold_write_through_disjoint_windows():
    b = lucid.arange(10.0)
    u = b.unfold(0, 2, 3)            # windows [0,1], [3,4], [6,7]
    assert u.shape == (3, 2) and u.stride() == (3, 1)
    u.fill_(-1.0)
    assert b.tolist() == [-1, -1, 2, -1, -1, 5, -1, -1, 8, 9]
    u[1] = lucid.tensor([30.0, 40.0])
    assert b.tolist()[3:5] == [30.0, 40.0]


def test_unfold_overlapping_windows_refuse_writes():
    b = lucid.arange(10.0)
    u = b.unfold(0, 3, 1)
    for write in [lambda: u.fill_(1.0), lambda: u.zero_(), lambda: u.copy_(lucid.zeros(8, 3)),
                  lambda: u.add_(1.0), lambda: u.mul_(2), lambda: u.__setitem__(slice(None), 5.0),
                  lambda: u.__setitem__(Ellipsis, lucid.zeros(8, 3)), lambda: u.__setitem__(slice(1, 3), 0.0),
                  lambda: u.fill_(lucid.tensor(2.0))]:
        with pytest.raises(lucid.LucidError, match="single memory location"):
            write()
    assert b.tolist() == list(range(10))          # nothing was written
    assert b._version == 0
    # a part of the windows that does not overlap itself can be written
    u[:, 0] = 7.0
    assert b.tolist() == [7.0] * 8 + [8.0, 9.0]
    u[2].fill_(0.5)
    assert b.tolist()[2:5] == [0.5, 0.5, 0.5]


def test_unfold_values_vs_torch(torch):
    for shape, args in [((10,), (0, 3, 1)), ((10,), (0, 4, 3)), ((3, 8), (1, 3, 2)), ((5, 4), (0, 2, 2)),
                        ((2, 3, 7), (-1, 7, 1)), ((6,), (0, 1, 1))]:
        x = lucid.arange(float(np.prod(shape))).reshape(*shape)
        t = torch.arange(float(np.prod(shape))).reshape(shape)
        u, tu = x.unfold(*args), t.unfold(*args)
        assert u.shape == tuple(tu.shape) and u.stride() == tu.stride()
        np.testing.assert_array_equal(to_numpy(u), tu.numpy())


def test_expand_refuses_writes_but_base_writes_show():
    b = lucid.zeros(3, 1)
    e = b.expand(3, 4)
    with pytest.raises(lucid.LucidError, match="single memory location"):
        e.fill_(1.0)
    with pytest.raises(lucid.LucidError):
        e[0] = 1.0
    b[1, 0] = 5.0
    assert e.tolist()[1] == [5.0] * 4


def test_as_strided_and_diagonal_vs_torch(torch):
    x = lucid.arange(30.0).reshape(5, 6)
    t = torch.arange(30.0).reshape(5, 6)
    for args in [((2, 3), (6, 1), 0), ((3, 3), (7, 1), 2), ((4,), (7,), 0), ((2, 2, 2), (12, 6, 1), 3),
                 ((3, 2), (0, 1), 5)]:
        np.testing.assert_array_equal(to_numpy(x.as_strided(*args)), t.as_strided(*args).numpy())
    v = x[1:, 2:]
    assert v.as_strided((2,), (1,)).storage_offset() == v.storage_offset()   # default: the view's own offset
    np.testing.assert_array_equal(to_numpy(v.as_strided((2,), (1,))), t[1:, 2:].as_strided((2,), (1,)).numpy())
    for off, d1, d2 in [(0, 0, 1), (2, 0, 1), (-3, 0, 1), (1, 1, 0), (7, 0, 1)]:
        np.testing.assert_array_equal(to_numpy(x.diagonal(off, d1, d2)), t.diagonal(off, d1, d2).numpy())


def test_diagonal_write_through():
    x = lucid.zeros(3, 4)
    x.diagonal().fill_(1.0)
    x.diagonal(1)[0] = 2.0
    np.testing.assert_array_equal(to_numpy(x), np.array([[1, 2, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]], np.float32))


def test_contiguous():
    x = lucid.arange(12.0).reshape(3, 4)
    assert x.contiguous() is x or x.contiguous()._is_view_of(x)
    before = lucid.memory_allocated("cpu")
    c = x.T.contiguous()
    assert c.is_contiguous() and not c._is_view_of(x)
    assert lucid.memory_allocated("cpu") == before + c.nbytes
    np.testing.assert_array_equal(to_numpy(c), np.arange(12.0).reshape(3, 4).T)
    c.fill_(0)
    assert x.sum().item() == 66.0


def test_clone_is_a_copy():
    x = lucid.arange(6.0).reshape(2, 3)
    y = lucid.clone(x.T)
    assert not y._is_view_of(x) and y.is_contiguous()
    y.fill_(0)
    assert x.sum().item() == 15.0


def test_setitem_variants():
    x = lucid.zeros(3, 4)
    x[0] = 1.0                                   # a row from a scalar
    x[1] = lucid.arange(4.0)                     # a row from a tensor
    x[2, 1:3] = lucid.tensor([7.0, 8.0])
    x[:, 3] = lucid.tensor([9.0])                # broadcast source
    x[-1, 0] = 5
    assert x.tolist() == [[1, 1, 1, 9], [0, 1, 2, 9], [5, 7, 8, 9]]
    x[...] = lucid.tensor(2.0)
    assert x.tolist() == [[2.0] * 4] * 3
    i = lucid.zeros(3, dtype=lucid.int32)
    i[1] = 2.7                                   # cast to the destination dtype (truncation)
    assert i.tolist() == [0, 2, 0]
    with pytest.raises(lucid.ShapeMismatch):
        x[0] = lucid.ones(3)


def test_copy_broadcasts_casts_and_writes_strided():
    y = lucid.zeros(2, 3, dtype=lucid.float16)
    y.copy_(lucid.tensor([1.5, 2.5, 3.5], dtype=lucid.float64))      # broadcast + cast
    assert y.tolist() == [[1.5, 2.5, 3.5]] * 2
    z = lucid.zeros(3, 4)
    z.T.copy_(lucid.arange(12.0).reshape(4, 3))                     # into a transposed view
    np.testing.assert_array_equal(to_numpy(z), np.arange(12.0, dtype=np.float32).reshape(4, 3).T)
    w = lucid.zeros(2, 2)
    w.copy_(lucid.tensor([[1 + 2j]]))                                # complex -> real drops the imaginary part
    assert w.tolist() == [[1.0, 1.0], [1.0, 1.0]]
    with pytest.raises(lucid.ShapeMismatch):
        w.copy_(lucid.ones(3))


def test_copy_from_overlapping_source_reads_a_snapshot():
    """lucid defines the partially overlapping copy (PyTorch refuses it): every element reads the
    source as it was before the copy."""
    x = lucid.arange(6.0)
    x[1:].copy_(x[:-1])
    assert x.tolist() == [0.0, 0.0, 1.0, 2.0, 3.0, 4.0]
    h = lucid.arange(9.0).reshape(3, 3)
    h.copy_(h.T)
    np.testing.assert_array_equal(to_numpy(h), np.arange(9.0).reshape(3, 3).T)
    k = lucid.arange(9.0).reshape(3, 3)
    k.add_(k.T)
    np.testing.assert_array_equal(to_numpy(k), np.arange(9.0).reshape(3, 3) + np.arange(9.0).reshape(3, 3).T)
