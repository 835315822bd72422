"""The tensor's metadata (shape, strides, offset, contiguity, sizes, data_ptr), the version counter,
host readers (item, tolist, to_bytes), repr, and CPU memory statistics."""
import gc

import numpy as np
import pytest

import lucid
from helpers import ALL_DTYPES, from_numpy_ref, random_array

dtype_ids = [d.name for d in ALL_DTYPES]


# ---------------------------------------------------------------------------------------------
# metadata

def test_metadata_of_contiguous_tensor():
    x = lucid.arange(24.0).reshape(2, 3, 4)
    assert x.shape == (2, 3, 4) and isinstance(x.shape, tuple)
    assert x.size() == (2, 3, 4) and x.size(0) == 2 and x.size(-1) == 4
    assert x.stride() == (12, 4, 1) and x.stride(1) == 4 and x.stride(-1) == 1
    assert x.storage_offset() == 0
    assert x.is_contiguous()
    assert x.numel() == x.nelement() == 24 and lucid.numel(x) == 24
    assert x.dim() == x.ndim == x.ndimension() == 3
    assert len(x) == 2
    assert x.element_size() == x.itemsize == 4
    assert x.nbytes == 96


@pytest.mark.parametrize("d", ALL_DTYPES, ids=dtype_ids)
def test_sizes_per_dtype(d):
    x = lucid.zeros(3, 5, dtype=d)
    assert x.element_size() == d.itemsize
    assert x.nbytes == 15 * d.itemsize
    assert x[:, ::2].nbytes == 9 * d.itemsize          # logical bytes of the view, not of the storage
    assert x._storage_nbytes() == 15 * d.itemsize


def test_metadata_vs_numpy_and_torch_for_views(torch):
    a = np.arange(120, dtype=np.float32).reshape(4, 5, 6)
    x = lucid.tensor(a)
    t = torch.from_numpy(a.copy())
    for f in [lambda v: v[1], lambda v: v[:, 1:4:2], lambda v: v.transpose(0, 2), lambda v: v[..., 3],
              lambda v: v[2:, :, ::3], lambda v: v.permute(1, 2, 0)[1:], lambda v: v[None, 1, :, 2]]:
        lv, tv = f(x), f(t)
        assert lv.shape == tuple(tv.shape)
        assert lv.stride() == tv.stride()
        assert lv.storage_offset() == tv.storage_offset()
        assert lv.is_contiguous() == tv.is_contiguous()
        assert lv.data_ptr() - x.data_ptr() == tv.data_ptr() - t.data_ptr()


def test_is_contiguous_edge_cases():
    assert lucid.zeros(0, 3).is_contiguous()
    assert lucid.zeros(()).is_contiguous()
    assert lucid.zeros(3, 1).T.is_contiguous()        # size-1 dims do not count
    assert not lucid.zeros(3, 4).T.is_contiguous()
    assert lucid.zeros(3, 4)[1:2].is_contiguous()
    assert not lucid.zeros(3, 4)[:, 1:3].is_contiguous()
    assert not lucid.zeros(3, 1).expand(3, 4).is_contiguous()


def test_data_ptr_of_views():
    x = lucid.zeros(4, 6, dtype=lucid.float64)
    assert x[1].data_ptr() == x.data_ptr() + 6 * 8
    assert x[2, 3:].data_ptr() == x.data_ptr() + (2 * 6 + 3) * 8
    assert x.T.data_ptr() == x.data_ptr()
    assert x[:, 1].storage_offset() == 1
    assert x[1:, 2:].storage_offset() == 8
    assert x[1]._storage_ptr() == x._storage_ptr()
    assert x.clone().data_ptr() != x.data_ptr()


def test_dim_size_errors():
    x = lucid.zeros(2, 3)
    with pytest.raises(IndexError):
        x.size(2)
    with pytest.raises(IndexError):
        x.stride(-3)
    with pytest.raises(TypeError):
        len(lucid.tensor(1.0))


# ---------------------------------------------------------------------------------------------
# the version counter

def test_version_starts_at_zero_for_factories():
    fs = [lambda: lucid.zeros(3), lambda: lucid.ones(3), lambda: lucid.empty(3), lambda: lucid.full((3,), 2.0),
          lambda: lucid.arange(3), lambda: lucid.linspace(0, 1, 3), lambda: lucid.logspace(0, 1, 3),
          lambda: lucid.eye(3), lambda: lucid.tensor([1, 2]), lambda: lucid.rand(3), lambda: lucid.randn(3),
          lambda: lucid.randint(0, 5, (3,)), lambda: lucid.randperm(4), lambda: lucid.zeros_like(lucid.ones(2)),
          lambda: lucid.from_numpy(np.ones(3)), lambda: lucid.ones(3).clone(), lambda: lucid.ones(3, 2).T.contiguous(),
          lambda: lucid.ones(3).to(lucid.float64), lambda: lucid.ones(3) + 1, lambda: lucid.ones(3).sum(),
          lambda: lucid.normal(0.0, 1.0, (3,)), lambda: lucid.bernoulli(lucid.full((3,), 0.5)),
          lambda: lucid.ones(2, 2) @ lucid.ones(2, 2)]
    for f in fs:
        t = f()
        assert t._version == 0, t


def test_version_bumped_by_inplace_and_shared_by_views():
    x = lucid.zeros(3, 4)
    views = [x.T, x[1], x.reshape(12), x.view(4, 3), x[:, ::2], x.unsqueeze(0), x.expand(2, 3, 4), x.detach()]
    assert all(v._version == 0 for v in views)
    steps = [
        lambda: x.fill_(1.0),
        lambda: x.zero_(),
        lambda: x.copy_(lucid.ones(3, 4)),
        lambda: x.__setitem__(0, 2.0),
        lambda: x.__setitem__((slice(None), 1), lucid.ones(3)),
        lambda: x.add_(1),
        lambda: x.sub_(lucid.ones(4)),
        lambda: x.mul_(2),
        lambda: x.div_(2),
        lambda: x[1].fill_(5.0),         # an in-place op on a view bumps the shared counter
        lambda: x.T.add_(1),
    ]
    for i, step in enumerate(steps, start=1):
        step()
        assert x._version == i
        assert all(v._version == i for v in views), i


def test_version_not_bumped_by_reads_and_out_of_place_ops():
    x = lucid.ones(3, 4)
    x.add_(1)
    _ = x + 1, x.sum(), x.T.contiguous(), x.clone(), x.tolist(), x.numpy(), x.to(lucid.float64), x[1:], x @ x.T
    assert x._version == 1


def test_version_independent_between_storages():
    a = lucid.zeros(3)
    b = a.clone()
    a.add_(1)
    assert b._version == 0 and a._version == 1


def test_augmented_assignment_bumps_version():
    x = lucid.zeros(3)
    x += 1
    x *= 3
    assert x._version == 2


# ---------------------------------------------------------------------------------------------
# item / tolist / to_bytes / Python scalar conversions

ITEM_CASES = {
    "bool": (True, bool), "uint8": (200, int), "int8": (-100, int), "int16": (-30000, int),
    "int32": (-2 ** 31, int), "int64": (2 ** 62 + 1, int), "float16": (1.5, float), "bfloat16": (-2.5, float),
    "float32": (0.1, float), "float64": (0.1, float), "complex64": (1.5 - 2j, complex),
    "complex128": (0.1 + 0.2j, complex),
}


@pytest.mark.parametrize("d", ALL_DTYPES, ids=dtype_ids)
def test_item(d):
    value, typ = ITEM_CASES[d.name]
    t = lucid.tensor(value, dtype=d)
    got = t.item()
    assert type(got) is typ
    if d is lucid.float32:
        assert got == float(np.float32(0.1))
    elif d is lucid.complex64:
        assert got == complex(np.complex64(value))
    else:
        assert got == value
    assert lucid.tensor([[value]], dtype=d).item() == got       # any single-element tensor
    assert lucid.tensor([value, value], dtype=d)[1].item() == got


def test_item_of_float16_values():
    # float16 / bfloat16 decode exactly
    assert lucid.tensor(65504.0, dtype=lucid.float16).item() == 65504.0
    assert lucid.tensor(2.0 ** -24, dtype=lucid.float16).item() == 2.0 ** -24   # smallest subnormal
    assert lucid.tensor(1 / 3, dtype=lucid.float16).item() == float(np.float16(1 / 3))
    assert lucid.tensor(float("inf"), dtype=lucid.float16).item() == float("inf")
    assert np.isnan(lucid.tensor(float("nan"), dtype=lucid.bfloat16).item())
    assert lucid.tensor(3.0e38, dtype=lucid.bfloat16).item() == pytest.approx(3.0e38, rel=1e-2)
    assert lucid.tensor(1 + 2 ** -8, dtype=lucid.bfloat16).item() == 1.0        # 8 bits of mantissa


def test_item_errors():
    with pytest.raises((ValueError, RuntimeError), match="2 elements"):
        lucid.ones(2).item()
    with pytest.raises((ValueError, RuntimeError)):
        lucid.ones(0).item()


@pytest.mark.parametrize("d", ALL_DTYPES, ids=dtype_ids)
def test_tolist_nested(d, rng):
    ref = random_array((2, 3, 2), d, rng)
    t = from_numpy_ref(ref, d)
    got = t.tolist()
    assert isinstance(got, list) and len(got) == 2 and len(got[0]) == 3 and len(got[0][0]) == 2
    assert got == ref.tolist()
    assert t.T.tolist() == ref.T.tolist()
    assert t[:, ::2, 1].tolist() == ref[:, ::2, 1].tolist()
    leaf = got[0][0][0]
    want_type = bool if d is lucid.bool_ else complex if d.is_complex else float if d.is_floating_point else int
    assert type(leaf) is want_type


def test_tolist_edge_cases():
    assert lucid.tensor(3).tolist() == 3
    assert lucid.tensor(2.5).tolist() == 2.5
    assert lucid.tensor(1 + 2j).tolist() == 1 + 2j
    assert lucid.tensor([[1 + 1j, 2]]).tolist() == [[1 + 1j, 2 + 0j]]
    assert lucid.zeros(0).tolist() == []
    assert lucid.zeros(2, 0).tolist() == [[], []]
    assert lucid.ones(2, 1).expand(2, 3).tolist() == [[1.0] * 3] * 2


def test_tolist_vs_torch(torch):
    for data in [[[1, 2], [3, 4]], [1.5, -2.25], [True, False], [[1 + 2j]]]:
        assert lucid.tensor(data).tolist() == torch.tensor(data).tolist()


@pytest.mark.parametrize("d", [d for d in ALL_DTYPES if d is not lucid.bfloat16], ids=lambda d: d.name)
def test_to_bytes_vs_numpy(d, rng):
    ref = random_array((3, 4), d, rng)
    t = from_numpy_ref(ref, d)
    assert t.to_bytes() == ref.tobytes()
    assert t.T.to_bytes() == ref.T.tobytes()            # row-major order of the view, not storage order
    assert t[1:, ::3].to_bytes() == np.ascontiguousarray(ref[1:, ::3]).tobytes()
    assert t[0, 0].to_bytes() == ref[0, 0].tobytes()
    assert lucid.zeros(0, dtype=d).to_bytes() == b""


def test_to_bytes_bfloat16():
    t = lucid.tensor([1.0, -2.0, 0.5], dtype=lucid.bfloat16)
    assert t.to_bytes() == np.array([0x3F80, 0xC000, 0x3F00], dtype=np.uint16).tobytes()


def test_python_scalar_conversions():
    assert float(lucid.tensor(2.5)) == 2.5
    assert int(lucid.tensor(2.7)) == 2
    assert int(lucid.tensor(-2.7)) == -2
    assert bool(lucid.tensor(0.0)) is False and bool(lucid.tensor([3])) is True
    assert complex(lucid.tensor(1j)) == 1j
    assert [10, 20, 30][lucid.tensor(1)] == 20           # __index__
    with pytest.raises(TypeError):
        [1, 2][lucid.tensor(1.0)]
    with pytest.raises(RuntimeError):
        bool(lucid.ones(2))
    with pytest.raises((ValueError, RuntimeError, TypeError)):
        float(lucid.ones(2))


def test_iteration():
    x = lucid.arange(6).reshape(3, 2)
    rows = list(x)
    assert len(rows) == 3 and all(isinstance(r, lucid.Tensor) for r in rows)
    assert [r.tolist() for r in rows] == [[0, 1], [2, 3], [4, 5]]
    assert rows[1]._is_view_of(x)
    with pytest.raises(TypeError):
        iter(lucid.tensor(1))


# ---------------------------------------------------------------------------------------------
# repr

REPR_CASES = [
    ([1, 2, 3], None, "tensor([1, 2, 3])"),
    ([[1, -2], [30, 4]], None, "tensor([[ 1, -2],\n        [30,  4]])"),
    ([1.5, 2.25, -3.0], None, "tensor([ 1.5000,  2.2500, -3.0000])"),
    ([1.0, 2.0, 3.0], None, "tensor([1., 2., 3.])"),
    ([[1.0, -2.5], [3.25, 4.0]], None, "tensor([[ 1.0000, -2.5000],\n        [ 3.2500,  4.0000]])"),
    ([True, False], None, "tensor([ True, False])"),
    (3, None, "tensor(3)"),
    (2.5, None, "tensor(2.5000)"),
    (-0.0, None, "tensor(-0.)"),
    ([1e-5, 1.0], None, "tensor([1.0000e-05, 1.0000e+00])"),
    ([0.1, 100.0], None, "tensor([  0.1000, 100.0000])"),
    ([1.123456789, 2.0], None, "tensor([1.1235, 2.0000])"),
    ([], None, "tensor([])"),
    ([1 + 2j, 3 - 4.5j], None, "tensor([1.+2.0000j, 3.-4.5000j])"),
    ([1, 2, 3], "int32", "tensor([1, 2, 3], dtype=lucid.int32)"),
    ([1.0, 2.0], "float64", "tensor([1., 2.], dtype=lucid.float64)"),
    ([1.5], "float16", "tensor([1.5000], dtype=lucid.float16)"),
    ([1.5, 2.0], "bfloat16", "tensor([1.5000, 2.0000], dtype=lucid.bfloat16)"),
    ([1, 2], "uint8", "tensor([1, 2], dtype=lucid.uint8)"),
    ([1j, 2], "complex128", "tensor([0.+1.j, 2.+0.j], dtype=lucid.complex128)"),
    (0.5, "float64", "tensor(0.5000, dtype=lucid.float64)"),
    ([[[1, 2]], [[3, 4]]], None, "tensor([[[1, 2]],\n\n        [[3, 4]]])"),
]


@pytest.mark.parametrize("data,dt,want", REPR_CASES, ids=[c[2].split("\n")[0][:40] for c in REPR_CASES])
def test_repr(data, dt, want):
    t = lucid.tensor(data, dtype=getattr(lucid, dt) if dt else None)
    assert repr(t) == want
    assert str(t) == want


@pytest.mark.parametrize("data,dt,want", REPR_CASES, ids=[c[2].split("\n")[0][:40] for c in REPR_CASES])
def test_repr_vs_torch(torch, data, dt, want):
    t = lucid.tensor(data, dtype=getattr(lucid, dt) if dt else None)
    tt = torch.tensor(data, dtype=getattr(torch, dt) if dt else None)
    assert repr(t) == repr(tt).replace("torch.", "lucid.")


def test_repr_empty_and_views(torch):
    cases = [(lucid.zeros(2, 0), torch.zeros(2, 0)),
             (lucid.zeros(0, dtype=lucid.int32), torch.zeros(0, dtype=torch.int32)),
             (lucid.zeros(2, 3, dtype=lucid.int64)[:, :0], torch.zeros(2, 3, dtype=torch.int64)[:, :0]),
             (lucid.arange(12.0).reshape(3, 4).T, torch.arange(12.0).reshape(3, 4).T),
             (lucid.arange(3)[1], torch.arange(3)[1]),
             (lucid.ones(2, 3, 4), torch.ones(2, 3, 4))]
    for lt, tt in cases:
        assert repr(lt) == repr(tt).replace("torch.", "lucid.")


def test_repr_large_tensor_is_summarised():
    r = repr(lucid.arange(2000))
    assert "..." in r
    assert r.startswith("tensor([   0,    1,    2,") and r.endswith("1997, 1998, 1999])")
    assert len(r) < 200
    r2 = repr(lucid.arange(2000).reshape(40, 50))
    assert r2.count("\n") == 6 and "..." in r2
    small = repr(lucid.arange(1000))       # 1000 elements: printed in full, as in PyTorch
    assert "..." not in small and "999])" in small


@pytest.mark.parametrize("make", ["arange(2000)", "arange(1001)", "arange(2000).reshape(40, 50)",
                                  "arange(1001.) * 0.5"])
def test_repr_summarised_vs_torch(torch, make):
    assert repr(eval("lucid." + make)) == repr(eval("torch." + make)).replace("torch.", "lucid.")


@pytest.mark.parametrize("data", [[1.0, 1001.0], [1e8, 1.0], [2.0, 5000.0, 3.0]])
def test_repr_integer_valued_floats_scientific_vs_torch(torch, data):
    assert repr(lucid.tensor(data)) == repr(torch.tensor(data))


def test_repr_nonfinite_vs_torch(torch):
    data = [float("nan"), float("inf"), -float("inf"), 1.0]
    assert repr(lucid.tensor(data)) == repr(torch.tensor(data))


def test_repr_nonfinite_values_present():
    r = repr(lucid.tensor([float("nan"), float("inf"), -float("inf"), 1.5]))
    assert "nan" in r and "inf" in r and "-inf" in r


def test_repr_follows_default_dtype():
    lucid.set_default_dtype(lucid.float64)
    try:
        assert repr(lucid.tensor([1.0, 2.0])) == "tensor([1., 2.])"
        assert repr(lucid.tensor([1.0], dtype=lucid.float32)) == "tensor([1.], dtype=lucid.float32)"
    finally:
        lucid.set_default_dtype(lucid.float32)


# ---------------------------------------------------------------------------------------------
# CPU memory statistics

def test_memory_allocated_tracks_tensors():
    gc.collect()
    base = lucid.memory_allocated("cpu")
    assert lucid.memory_allocated() == base                  # the default device is the CPU
    t = lucid.empty(1000, dtype=lucid.float32)
    assert lucid.memory_allocated("cpu") == base + t.nbytes == base + 4000
    u = lucid.zeros(10, 10, dtype=lucid.float64)
    assert lucid.memory_allocated("cpu") == base + 4000 + 800
    del t
    assert lucid.memory_allocated("cpu") == base + 800
    del u
    assert lucid.memory_allocated("cpu") == base


def test_memory_views_keep_storage_alive():
    base = lucid.memory_allocated("cpu")
    t = lucid.empty(256)
    v = t[10:20]
    del t
    assert lucid.memory_allocated("cpu") == base + 1024      # the view holds the whole storage
    del v
    assert lucid.memory_allocated("cpu") == base


def test_peak_memory():
    base = lucid.memory_allocated("cpu")
    lucid.reset_peak_memory_stats("cpu")
    assert lucid.max_memory_allocated("cpu") == base
    t = lucid.empty(5000)
    del t
    assert lucid.memory_allocated("cpu") == base
    assert lucid.max_memory_allocated("cpu") == base + 20000
    lucid.reset_peak_memory_stats("cpu")
    assert lucid.max_memory_allocated("cpu") == base


def test_memory_stats_dict():
    s = lucid.memory_stats("cpu")
    assert s["allocated_bytes.all.current"] == lucid.memory_allocated("cpu")
    assert s["allocated_bytes.all.peak"] == lucid.max_memory_allocated("cpu")
    assert lucid.memory_reserved("cpu") >= 0
    assert lucid.max_memory_reserved("cpu") >= lucid.memory_reserved("cpu")
    n = s["allocation.all.allocated"]
    t = lucid.empty(3)  # noqa: F841
    assert lucid.memory_stats("cpu")["allocation.all.allocated"] == n + 1


def test_numpy_import_does_not_count_as_lucid_memory():
    base = lucid.memory_allocated("cpu")
    a = np.ones(1000)
    t = lucid.from_numpy(a)     # borrowed memory: NumPy owns it
    assert lucid.memory_allocated("cpu") == base
    del t


def test_large_block_cache_reuses_and_releases():
    gc.collect()
    cpu = lucid.device("cpu")
    base = lucid.memory_allocated("cpu")
    t = lucid.ones(1 << 20)                      # 4 MiB: a cached size class
    p = t.data_ptr()
    assert lucid.memory_allocated("cpu") == base + (4 << 20)
    assert lucid.memory_reserved("cpu") >= lucid.memory_allocated("cpu")
    del t
    assert lucid.memory_allocated("cpu") == base  # live bytes only, the cached block not counted
    sys_allocs = lucid.memory_stats("cpu")["num_device_alloc"]
    u = lucid.full((1 << 20,), 2.0)              # the same class: the cached block comes back
    assert u.data_ptr() == p
    assert lucid.memory_stats("cpu")["num_device_alloc"] == sys_allocs
    assert float(u.sum()) == 2.0 * (1 << 20)     # a reused block holds the new values
    del u
    reserved = lucid.memory_reserved("cpu")
    lucid._C._empty_cache(cpu)                   # gives every cached block back to the system
    assert lucid.memory_reserved("cpu") <= reserved - (4 << 20)
    assert lucid.memory_allocated("cpu") == base
    assert lucid.memory_reserved("cpu") >= lucid.memory_allocated("cpu")


def test_small_block_free_lists_reuse_and_release():
    gc.collect()
    cpu = lucid.device("cpu")
    base = lucid.memory_allocated("cpu")
    t = lucid.ones(40)                           # 160 bytes: the 192-byte class
    p = t.data_ptr()
    assert lucid.memory_allocated("cpu") == base + 160
    del t
    assert lucid.memory_allocated("cpu") == base
    sys_allocs = lucid.memory_stats("cpu")["num_device_alloc"]
    u = lucid.full((45,), 3.0)                   # 180 bytes, the same class: the kept block comes back
    assert u.data_ptr() == p
    assert lucid.memory_stats("cpu")["num_device_alloc"] == sys_allocs
    assert u.tolist() == [3.0] * 45              # holding the new values
    del u
    reserved = lucid.memory_reserved("cpu")
    lucid._C._empty_cache(cpu)
    assert lucid.memory_reserved("cpu") <= reserved - 192
    assert lucid.memory_allocated("cpu") == base <= lucid.memory_reserved("cpu")


# ---------------------------------------------------------------------------------------------
# pickling (tensors travel as bytes + shape + dtype)

@pytest.mark.parametrize("d", ALL_DTYPES, ids=dtype_ids)
def test_pickle_round_trip(d, rng):
    import pickle
    ref = random_array((3, 4), d, rng)
    t = from_numpy_ref(ref, d)
    for x in [t, t.T, t[1:, ::2], t[0, 0]]:
        y = pickle.loads(pickle.dumps(x))
        assert y.dtype is d and y.shape == x.shape and y.device == x.device
        assert y.tolist() == x.tolist()
        assert not y._is_view_of(x)


def test_small_pytorch_methods():
    x = lucid.tensor([1.0, 2.0, 3.0])
    assert x.get_device() == -1
    assert x.clone().apply_(lambda v: v * v).tolist() == [1.0, 4.0, 9.0]
    y = x.clone()
    assert y.map_(lucid.tensor([10.0]), lambda a, b: a + b) is y and y.tolist() == [11.0, 12.0, 13.0]
    assert lucid.tensor([1, 2]).apply_(lambda v: v + 1).tolist() == [2, 3]
    with pytest.raises(RuntimeError, match="requires grad"):
        x.clone().requires_grad_().apply_(abs)
    assert x.hardshrink(1.5).tolist() == [0.0, 2.0, 3.0]
    assert lucid.tensor([-2.0, 2.0]).prelu(lucid.tensor([0.5])).tolist() == [-1.0, 2.0]
