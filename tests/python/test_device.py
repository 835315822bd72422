"""Devices: parsing, equality, repr, the default device, tensor.device, and what happens when CUDA is
asked for on a machine without it."""
import pickle

import pytest

import lucid
from helpers import CUDA, to_numpy


@pytest.mark.parametrize("spec,type_,index,text", [
    ("cpu", "cpu", None, "cpu"),
    ("cuda", "cuda", 0, "cuda:0"),
    ("cuda:0", "cuda", 0, "cuda:0"),
    ("cuda:1", "cuda", 1, "cuda:1"),
    ("gpu", "cuda", 0, "cuda:0"),
])
def test_device_parsing(spec, type_, index, text):
    d = lucid.device(spec)
    assert d.type == type_
    assert d.index == index
    assert str(d) == text
    assert d == text
    assert d == spec
    assert d == lucid.device(text)


def test_device_repr():
    assert repr(lucid.device("cpu")) == "device(type='cpu')"
    assert repr(lucid.device("cuda:0")) == "device(type='cuda', index=0)"
    assert repr(lucid.device("gpu")) == "device(type='cuda', index=0)"
    assert repr(lucid.device("cuda", 2)) == "device(type='cuda', index=2)"


def test_device_repr_vs_torch(torch):
    for spec in ["cpu", "cuda:0", "cuda:3"]:
        assert repr(lucid.device(spec)) == repr(torch.device(spec))
        assert str(lucid.device(spec)) == str(torch.device(spec))


def test_device_equality_and_hash():
    assert lucid.device("cpu") == lucid.device("cpu")
    assert lucid.device("cpu") != lucid.device("cuda")
    assert lucid.device("cuda:0") != lucid.device("cuda:1")
    assert lucid.device("cuda:0") != "cuda:1"
    assert lucid.device("cpu") != "cuda"
    assert lucid.device("cpu") != 0 and lucid.device("cpu") != 1.5
    assert lucid.device("cpu") != "tpu"     # comparing with a bad string is False, not an error
    assert hash(lucid.device("cuda")) == hash(lucid.device("cuda:0"))
    assert len({lucid.device("cpu"), lucid.device("cpu"), lucid.device("cuda:0"), lucid.device("gpu")}) == 2
    assert lucid.device("cuda", 1) == lucid.device("cuda:1")


def test_device_compares_with_none():
    assert (lucid.device("cpu") == None) is False  # noqa: E711
    assert (lucid.device("cpu") != None) is True  # noqa: E711
    assert lucid.device("cpu") not in [None, "cuda"]


def test_device_pickles():
    for spec in ["cpu", "cuda:1"]:
        d = lucid.device(spec)
        assert pickle.loads(pickle.dumps(d)) == d


@pytest.mark.parametrize("bad", ["tpu", "cuda:x", "cuda:", "cuda:-1", "", "CPU", "metal", "cpu:1", "cuda:0:1",
                                 " cpu"])
def test_bad_device_strings_raise_value_error(bad):
    with pytest.raises(ValueError, match="device"):
        lucid.device(bad)


def test_bad_device_index():
    with pytest.raises(ValueError):
        lucid.device("cpu", 1)
    with pytest.raises(ValueError):
        lucid.device("cuda", -1)


def test_bad_device_in_factories():
    with pytest.raises(ValueError):
        lucid.zeros(2, device="tpu")
    with pytest.raises(TypeError):
        lucid.zeros(2, device=1.5)


def test_tensor_device_attributes():
    t = lucid.ones(2, 3)
    assert t.device == lucid.device("cpu")
    assert t.device == "cpu"
    assert isinstance(t.device, lucid.device)
    assert t.is_cpu and not t.is_cuda
    for v in [t.T, t[0], t.reshape(6), t + 1, t.sum()]:
        assert v.device == "cpu"
    assert lucid.zeros(2, device="cpu").device == "cpu"
    assert lucid.zeros(2, device=lucid.device("cpu")).device == "cpu"


def test_torch_device_objects_accepted(torch):
    assert lucid.zeros(2, device=torch.device("cpu")).device == "cpu"


def test_default_device_cpu_roundtrip():
    assert lucid.get_default_device() == "cpu"
    lucid.set_default_device("cpu")
    assert lucid.get_default_device() == "cpu"
    lucid.set_default_device(None)
    assert lucid.get_default_device() == "cpu"
    assert lucid.zeros(1).device == "cpu"


@pytest.mark.cuda
def test_default_device_cuda():
    try:
        lucid.set_default_device("cuda")
        assert lucid.get_default_device() == "cuda:0"
        for t in [lucid.zeros(2), lucid.ones(2), lucid.empty(2), lucid.full((2,), 3.0), lucid.arange(3),
                  lucid.tensor([1.0, 2.0]), lucid.rand(2), lucid.randn(2), lucid.eye(2)]:
            assert t.is_cuda, t
        assert lucid.zeros(2, device="cpu").is_cpu
    finally:
        lucid.set_default_device(None)
    assert lucid.zeros(2).is_cpu


# ---------------------------------------------------------------------------------------------
# without CUDA: clear, typed errors

no_cuda = pytest.mark.skipif(CUDA, reason="checks the behaviour of a machine without CUDA")


@no_cuda
def test_cuda_not_available():
    assert lucid.cuda.is_available() is False
    assert lucid.cuda.device_count() == 0
    assert isinstance(lucid.cuda.is_built(), bool)


@no_cuda
@pytest.mark.parametrize("make", [
    lambda: lucid.zeros(2, device="cuda"),
    lambda: lucid.ones(2, device="cuda:0"),
    lambda: lucid.empty(2, device="gpu"),
    lambda: lucid.tensor([1.0], device="cuda"),
    lambda: lucid.arange(3, device="cuda"),
    lambda: lucid.rand(2, device="cuda"),
    lambda: lucid.ones(2).cuda(),
    lambda: lucid.ones(2).to("cuda"),
    lambda: lucid.ones(2).to(lucid.device("cuda")),
    lambda: lucid.zeros(2, device=0),
    lambda: lucid.memory_allocated("cuda"),
    lambda: lucid.cuda.memory_allocated(),
    lambda: lucid.cuda.synchronize(),
], ids=["zeros", "ones", "empty-gpu", "tensor", "arange", "rand", "cuda()", "to-str", "to-device", "int-index",
        "memory_allocated", "cuda.memory_allocated", "synchronize"])
def test_asking_for_cuda_without_it_raises(make):
    with pytest.raises(lucid.LucidError) as info:
        make()
    msg = str(info.value)
    assert "cuda" in msg.lower() or "CUDA" in msg
    assert len(msg) > 20


@no_cuda
def test_cuda_error_message_is_clear():
    with pytest.raises(lucid.LucidError, match=r"(?i)cuda.*(not available|without CUDA|no CUDA)"):
        lucid.zeros(2, device="cuda")


@no_cuda
def test_set_default_device_cuda_raises():
    try:
        with pytest.raises(lucid.LucidError):
            lucid.set_default_device("cuda")
    finally:
        lucid.set_default_device(None)


@no_cuda
def test_failed_set_default_device_leaves_default_unchanged():
    try:
        with pytest.raises(lucid.LucidError):
            lucid.set_default_device("cuda")
        assert lucid.get_default_device() == "cpu"
        assert lucid.zeros(2).device == "cpu"
    finally:
        lucid.set_default_device(None)


@no_cuda
def test_cuda_helpers_without_cuda():
    lucid.cuda.empty_cache()              # a no-op without devices
    with pytest.raises(RuntimeError):
        lucid.cuda.current_device()
    assert lucid.cuda.manual_seed(3) is not None


# ---------------------------------------------------------------------------------------------
# with CUDA

@pytest.mark.cuda
def test_cuda_tensor_device():
    t = lucid.ones(2, 3, device="cuda")
    assert t.is_cuda and not t.is_cpu
    assert t.device == "cuda:0" and t.device == "cuda" and t.device == lucid.device("gpu")
    assert t.device.index == 0
    assert "device='cuda:0'" in repr(t)
    assert to_numpy(t).tolist() == [[1.0] * 3] * 2
    lucid.cuda.synchronize()
    assert lucid.cuda.device_count() >= 1
    assert lucid.cuda.current_device() == 0


@pytest.mark.cuda
def test_cuda_memory_stats():
    lucid.cuda.synchronize()
    before = lucid.cuda.memory_allocated()
    t = lucid.empty(1024, 1024, device="cuda")
    assert lucid.cuda.memory_allocated() >= before + t.nbytes
    assert lucid.cuda.max_memory_allocated() >= lucid.cuda.memory_allocated()
    assert lucid.cuda.memory_reserved() >= lucid.cuda.memory_allocated()
    del t
    assert lucid.cuda.memory_allocated() == before
    lucid.cuda.empty_cache()
