"""lucid.save / lucid.load and save_safetensors / load_safetensors: round trips for every dtype,
containers, state dicts, map_location, and typed errors for truncated, corrupted and hostile files."""
import io
import json
import math
import struct
import zipfile
from collections import Counter, OrderedDict

import numpy as np
import pytest

import lucid
from lucid import nn, optim
from lucid.serialization import CheckpointError

ALL_DTYPES = [lucid.bool, lucid.uint8, lucid.int8, lucid.int16, lucid.int32, lucid.int64, lucid.float16,
              lucid.bfloat16, lucid.float32, lucid.float64, lucid.complex64, lucid.complex128]


def _sample(dtype, shape=(2, 3)):
    rng = np.random.default_rng(0)
    n = int(np.prod(shape))
    if dtype is lucid.bool:
        vals = rng.integers(0, 2, n).astype(bool)
    elif dtype.is_complex:
        vals = rng.standard_normal(n) + 1j * rng.standard_normal(n)
    elif dtype.is_floating_point:
        vals = rng.standard_normal(n) * 10
    else:
        vals = rng.integers(0, 100, n)
    return lucid.tensor(vals.reshape(shape).tolist(), dtype=dtype)


def _roundtrip(obj, **kw):
    buf = io.BytesIO()
    lucid.save(obj, buf)
    return lucid.load(io.BytesIO(buf.getvalue()), **kw)


def _same(a, b):
    assert type(a) is type(b) or (isinstance(a, lucid.Tensor) and isinstance(b, lucid.Tensor))
    assert a.dtype is b.dtype and a.shape == b.shape
    assert a.to_bytes() == b.to_bytes()


# ---------------------------------------------------------------- lucid.save / lucid.load
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: d.name)
def test_every_dtype_roundtrips(dtype):
    for shape in ((2, 3), (), (0, 4), (5,)):
        t = _sample(dtype, shape) if 0 not in shape else lucid.zeros(*shape, dtype=dtype)
        _same(_roundtrip(t), t)


def test_views_saved_as_values_and_shared_tensors():
    base = lucid.arange(12.0).reshape(3, 4)
    view = base.T[1:, ::2]
    out = _roundtrip({"v": view, "a": base, "again": base})
    assert out["v"].tolist() == view.tolist() and out["v"].is_contiguous()
    assert out["a"] is out["again"]  # one tensor stored once loads as one tensor
    assert out["v"].data_ptr() != out["a"].data_ptr()


def test_containers_and_plain_values():
    obj = {
        "none": None, "t": True, "f": False, "i": -(2 ** 70), "x": 1.25, "nan": float("nan"), "inf": float("-inf"),
        "s": "héllo", "b": b"\x00\xff", "c": 1 - 2j, "tuple": (1, (2, [3])), "list": [[], {}, ()],
        "intkeys": {0: "a", 5: "b"}, "odict": OrderedDict([("z", 1), ("a", 2)]), "counter": Counter({3: 2}),
        "set": {1, 2}, "fs": frozenset({"a"}), "dtype": lucid.float16, "device": lucid.device("cpu"),
        "np": np.float64(2.5), "npa": np.arange(3),
    }
    out = _roundtrip(obj)
    assert set(out) == set(obj)
    for k in ("none", "t", "f", "i", "x", "inf", "s", "b", "c", "tuple", "list", "intkeys", "set", "fs"):
        assert out[k] == obj[k] and type(out[k]) is type(obj[k]), k
    assert math.isnan(out["nan"])
    assert isinstance(out["odict"], OrderedDict) and list(out["odict"]) == ["z", "a"]
    assert isinstance(out["counter"], Counter) and out["counter"][3] == 2
    assert out["dtype"] is lucid.float16 and str(out["device"]) == "cpu"
    assert out["np"] == 2.5 and out["npa"].tolist() == [0, 1, 2]
    assert _roundtrip([1, "a"]) == [1, "a"] and _roundtrip(None) is None and _roundtrip(3) == 3


def test_model_and_optimizer_checkpoint_resume(tmp_path):
    lucid.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 5), nn.Linear(5, 2))
    model.register_buffer("steps", lucid.tensor([7]))
    opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    sched = optim.lr_scheduler.StepLR(opt, 2)
    x = lucid.randn(4, 3)
    for _ in range(2):
        opt.zero_grad()
        model(x).sum().backward()
        opt.step()
        sched.step()
    path = tmp_path / "ckpt.lucid"
    lucid.save({"model": model.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(), "epoch": 2}, path)
    ck = lucid.load(path)
    assert ck["epoch"] == 2 and list(ck["model"]) == list(model.state_dict())
    assert ck["model"]._metadata == model.state_dict()._metadata
    model2 = nn.Sequential(nn.Linear(3, 5), nn.Linear(5, 2))
    model2.register_buffer("steps", lucid.tensor([0]))
    opt2 = optim.SGD(model2.parameters(), lr=0.1, momentum=0.9)
    sched2 = optim.lr_scheduler.StepLR(opt2, 2)
    model2.load_state_dict(ck["model"])
    opt2.load_state_dict(ck["opt"])
    sched2.load_state_dict(ck["sched"])
    assert model2.steps.tolist() == [7]
    for m, o, s in ((model, opt, sched), (model2, opt2, sched2)):
        o.zero_grad()
        m(x).sum().backward()
        o.step()
        s.step()
    for a, b in zip(model.parameters(), model2.parameters()):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert sched.get_last_lr() == sched2.get_last_lr()
    assert not (tmp_path / "ckpt.lucid.tmp").exists()


def test_parameters_and_requires_grad_survive():
    p = nn.Parameter(lucid.ones(2))
    q = lucid.ones(3, requires_grad=True)
    out = _roundtrip({"p": p, "q": q, "r": lucid.ones(1)})
    assert isinstance(out["p"], nn.Parameter) and out["p"].requires_grad
    assert out["q"].requires_grad and not isinstance(out["q"], nn.Parameter) and out["q"].is_leaf
    assert not out["r"].requires_grad


def test_map_location():
    t = lucid.arange(3.0)
    seen = []
    for loc in (None, "cpu", lucid.device("cpu"), {"cpu": "cpu"}):
        assert _roundtrip(t, map_location=loc).tolist() == [0.0, 1.0, 2.0]

    def fn(storage, location):
        seen.append(location)
        return storage * 2
    assert _roundtrip(t, map_location=fn).tolist() == [0.0, 2.0, 4.0] and seen == ["cpu"]
    if not lucid.cuda.is_available():
        with pytest.raises(RuntimeError, match="map_location"):
            _roundtrip(t, map_location="cuda")


def test_save_refuses_arbitrary_objects():
    with pytest.raises(TypeError, match="state_dict"):
        lucid.save(nn.Linear(1, 1), io.BytesIO())
    with pytest.raises(TypeError, match="can't store"):
        lucid.save({"f": lambda: 1}, io.BytesIO())
    a = []
    a.append(a)
    with pytest.raises(ValueError, match="cycle"):
        lucid.save(a, io.BytesIO())
    with pytest.raises(TypeError, match="never pickles"):
        lucid.save(1, io.BytesIO(), pickle_module=object())


def test_format_is_a_plain_zip():
    buf = io.BytesIO()
    lucid.save({"w": lucid.tensor([1.0, 2.0], dtype=lucid.float32)}, buf)
    with zipfile.ZipFile(io.BytesIO(buf.getvalue())) as z:
        doc = json.loads(z.read("checkpoint/data.json"))
        assert doc["format"] == "lucid-checkpoint" and doc["version"] == 1 and doc["tensors"] == 1
        assert doc["root"] == {"$": "dict", "v": [["w", {"$": "tensor", "id": 0, "dtype": "float32", "shape": [2],
                                                        "device": "cpu", "requires_grad": False,
                                                        "parameter": False}]]}
        assert np.frombuffer(z.read("checkpoint/tensors/0"), "<f4").tolist() == [1.0, 2.0]


def _good_bytes():
    buf = io.BytesIO()
    lucid.save({"a": lucid.arange(10.0), "b": [lucid.ones(2, dtype=lucid.int64)], "c": "text"}, buf)
    return buf.getvalue()


def _rewrite(mutate_doc=None, mutate_members=None):
    src = zipfile.ZipFile(io.BytesIO(_good_bytes()))
    members = {n: src.read(n) for n in src.namelist()}
    if mutate_doc:
        doc = json.loads(members["checkpoint/data.json"])
        mutate_doc(doc)
        members["checkpoint/data.json"] = json.dumps(doc).encode()
    if mutate_members:
        mutate_members(members)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for n, d in members.items():
            z.writestr(n, d)
    return out.getvalue()


def test_truncated_files_raise_typed_errors():
    good = _good_bytes()
    for cut in (0, 3, 10, len(good) // 3, len(good) // 2, len(good) - 30, len(good) - 1):
        with pytest.raises(CheckpointError):
            lucid.load(io.BytesIO(good[:cut]))


def test_corrupted_bytes_raise_typed_errors():
    good = bytearray(_good_bytes())
    with zipfile.ZipFile(io.BytesIO(bytes(good))) as z:
        info = z.getinfo("checkpoint/tensors/0")
        start = info.header_offset + 30 + len(info.filename) + len(info.extra)
    bad = bytearray(good)
    bad[start + 5] ^= 0xFF  # a flipped bit in tensor data: CRC mismatch
    with pytest.raises(CheckpointError, match="CRC"):
        lucid.load(io.BytesIO(bytes(bad)))
    with pytest.raises(CheckpointError, match="no zip signature"):
        lucid.load(io.BytesIO(b"hello world"))
    with pytest.raises(CheckpointError, match="pickle"):
        lucid.load(io.BytesIO(b"\x80\x04\x95 pickled"))
    assert issubclass(CheckpointError, lucid.LucidError) and issubclass(CheckpointError, ValueError)


@pytest.mark.parametrize("mutate,match", [
    (lambda d: d.update(format="other"), "format"),
    (lambda d: d.update(version=99), "version"),
    (lambda d: d.update(tensors=5), "announces"),
    (lambda d: d["root"]["v"][0][1].update(dtype="float128"), "unknown dtype"),
    (lambda d: d["root"]["v"][0][1].update(shape=[11]), "need"),
    (lambda d: d["root"]["v"][0][1].update(shape=[-10]), "bad shape"),
    (lambda d: d["root"]["v"][0][1].update(id=7), "out of range"),
    (lambda d: d["root"].update({"$": "pickle"}), "unknown node"),
    (lambda d: d["root"]["v"].append([{"$": "float", "v": "1e308"}, 1]), "bad float"),
    (lambda d: d["root"]["v"].append([{"$": "dict", "v": []}, 1]), "unhashable"),
])
def test_hostile_headers_raise_typed_errors(mutate, match):
    with pytest.raises(CheckpointError, match=match):
        lucid.load(io.BytesIO(_rewrite(mutate_doc=mutate)))


def test_hostile_members():
    def drop(m):
        del m["checkpoint/tensors/1"]
    with pytest.raises(CheckpointError, match="missing"):
        lucid.load(io.BytesIO(_rewrite(mutate_members=drop)))

    def short(m):
        m["checkpoint/tensors/0"] = m["checkpoint/tensors/0"][:-4]
    with pytest.raises(CheckpointError, match="bytes"):
        lucid.load(io.BytesIO(_rewrite(mutate_members=short)))
    # a compressed member (a decompression bomb vector) is refused
    src = zipfile.ZipFile(io.BytesIO(_good_bytes()))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for n in src.namelist():
            z.writestr(n, src.read(n))
    with pytest.raises(CheckpointError, match="compressed"):
        lucid.load(io.BytesIO(out.getvalue()))
    deep = '{"format": "lucid-checkpoint", "version": 1, "tensors": 0, "root": ' + "[" * 100000 + "]" * 100000 + "}"
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("checkpoint/data.json", deep)
    with pytest.raises(CheckpointError):
        lucid.load(io.BytesIO(out.getvalue()))


def test_load_from_path_and_bytes(tmp_path):
    p = tmp_path / "x.pt"
    lucid.save([lucid.ones(1)], str(p))
    assert lucid.load(str(p))[0].tolist() == [1.0]
    assert lucid.load(p.read_bytes())[0].tolist() == [1.0]
    with pytest.raises(FileNotFoundError):
        lucid.load(tmp_path / "missing.pt")


# ---------------------------------------------------------------- safetensors
ST_DTYPES = [d for d in ALL_DTYPES if d is not lucid.complex128]


def test_safetensors_roundtrip_every_dtype(tmp_path):
    tensors = {f"t_{d.name}": _sample(d, (3, 2)) for d in ST_DTYPES}
    tensors["scalar"] = lucid.tensor(3.5)
    tensors["empty"] = lucid.zeros(0, 3)
    tensors["view"] = lucid.arange(12.0).reshape(3, 4).T
    path = tmp_path / "a.safetensors"
    lucid.save_safetensors(tensors, path, metadata={"format": "pt", "epoch": "3"})
    out = lucid.load_safetensors(path)
    assert set(out) == set(tensors)
    for k, t in tensors.items():
        _same(out[k], t.contiguous())
    assert lucid.serialization.safetensors_metadata(path) == {"format": "pt", "epoch": "3"}
    raw = path.read_bytes()
    n = struct.unpack("<Q", raw[:8])[0]
    assert n % 8 == 0 and raw[8:9] == b"{"
    header = json.loads(raw[8:8 + n])
    assert header["t_float32"]["dtype"] == "F32" and header["t_bfloat16"]["dtype"] == "BF16"
    assert header["t_bool"]["dtype"] == "BOOL" and header["t_complex64"]["dtype"] == "C64"
    with pytest.raises(TypeError, match="complex128"):
        lucid.save_safetensors({"c": lucid.zeros(1, dtype=lucid.complex128)}, tmp_path / "c.st")
    with pytest.raises(TypeError):
        lucid.save_safetensors({1: lucid.zeros(1)}, tmp_path / "c.st")
    with pytest.raises(TypeError):
        lucid.save_safetensors({"a": lucid.zeros(1)}, tmp_path / "c.st", metadata={"a": 1})


def test_safetensors_interop_with_package(tmp_path, torch):
    st = pytest.importorskip("safetensors")
    from safetensors.numpy import load_file as np_load, save_file as np_save
    from safetensors.torch import load_file as t_load, save_file as t_save
    # lucid -> safetensors
    tensors = {f"t_{d.name}": _sample(d, (2, 3)) for d in ST_DTYPES if d is not lucid.complex64}
    path = tmp_path / "lucid.safetensors"
    lucid.save_safetensors(tensors, path, metadata={"k": "v"})
    theirs = t_load(str(path))
    for k, t in tensors.items():
        tt = theirs[k]
        assert str(tt.dtype).split(".")[-1] == t.dtype.name and tuple(tt.shape) == t.shape
        assert tt.contiguous().view(torch.uint8).numpy().tobytes() == t.to_bytes()
    with st.safe_open(str(path), "np") as f:
        assert f.metadata() == {"k": "v"}
    # safetensors -> lucid (torch API for bfloat16, numpy API for the rest)
    src = {"w": torch.randn(3, 4), "h": torch.randn(2).to(torch.bfloat16), "i": torch.arange(5),
           "b": torch.tensor([True, False]), "u": torch.arange(4, dtype=torch.uint8), "e": torch.zeros(0, 2)}
    p2 = tmp_path / "torch.safetensors"
    t_save(src, str(p2), metadata={"a": "b"})
    ours = lucid.load_safetensors(p2)
    for k, t in src.items():
        assert ours[k].dtype.name == str(t.dtype).split(".")[-1] and ours[k].shape == tuple(t.shape)
        assert ours[k].to_bytes() == t.contiguous().view(torch.uint8).numpy().tobytes()
    assert lucid.serialization.safetensors_metadata(p2) == {"a": "b"}
    p3 = tmp_path / "np.safetensors"
    np_save({"x": np.arange(6, dtype=np.int16).reshape(2, 3)}, str(p3))
    assert lucid.load_safetensors(p3)["x"].tolist() == [[0, 1, 2], [3, 4, 5]]
    p4 = tmp_path / "lucid_np.safetensors"
    lucid.save_safetensors({"a": tensors["t_int16"], "c": _sample(lucid.complex64)}, p4)
    got = np_load(str(p4))
    assert got["a"].tolist() == tensors["t_int16"].tolist()
    np.testing.assert_array_equal(got["c"], _sample(lucid.complex64).numpy())


def _st_file(tmp_path, header, data, raw_size=None, name="h.safetensors"):
    hb = json.dumps(header).encode() if not isinstance(header, bytes) else header
    size = len(hb) if raw_size is None else raw_size
    p = tmp_path / name
    p.write_bytes(struct.pack("<Q", size) + hb + data)
    return p


@pytest.mark.parametrize("header,data,raw_size,match", [
    ({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}, b"\0" * 8, 10 ** 12, "too large"),
    ({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}, b"\0" * 8, 10 ** 6, "past the end"),
    ({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}, b"\0" * 4, None, "past the end"),
    ({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 12]}}, b"\0" * 12, None, "needs 8"),
    ({"a": {"dtype": "F32", "shape": [2], "data_offsets": [4, 0]}}, b"\0" * 8, None, "bad data_offsets"),
    ({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
      "b": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}}, b"\0" * 8, None, "overlaps"),
    ({"a": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}}, b"\0" * 8, None, "gap"),
    ({"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}, b"\0" * 8, None, "cover"),
    ({"a": {"dtype": "F128", "shape": [1], "data_offsets": [0, 16]}}, b"\0" * 16, None, "unsupported dtype"),
    ({"a": {"dtype": "F32", "shape": [-1], "data_offsets": [0, 4]}}, b"\0" * 4, None, "bad shape"),
    ({"a": {"dtype": "F32", "shape": [1]}}, b"\0" * 4, None, "exactly"),
    ({"__metadata__": {"a": 1}}, b"", None, "str to str"),
    (b"[1, 2]", b"", None, "not a JSON object"),
    (b"{not json", b"", None, "not valid JSON"),
])
def test_safetensors_hostile_files(tmp_path, header, data, raw_size, match):
    p = _st_file(tmp_path, header, data, raw_size)
    with pytest.raises(CheckpointError, match=match):
        lucid.load_safetensors(p)


def test_safetensors_truncated(tmp_path):
    path = tmp_path / "a.safetensors"
    lucid.save_safetensors({"a": lucid.arange(10.0), "b": lucid.ones(3, dtype=lucid.int64)}, path)
    raw = path.read_bytes()
    for cut in (0, 5, 8, 20, len(raw) - 1):
        p = tmp_path / f"cut{cut}.safetensors"
        p.write_bytes(raw[:cut])
        with pytest.raises(CheckpointError):
            lucid.load_safetensors(p)
