"""Checkpoints: lucid.save / lucid.load (a zip of a JSON tree plus raw tensor bytes; no pickle, nothing
runs on load) and save_safetensors / load_safetensors (the safetensors format). The formats, and
what a loader checks before it builds anything, are in docs/notes/checkpoint-format.md.
"""
import base64
import io
import json
import math
import os
import struct
import sys
import zipfile
from collections import Counter, OrderedDict

from lucid import _C
from lucid.errors import LucidError

Tensor = _C.Tensor

__all__ = ["save", "load", "save_safetensors", "load_safetensors", "safetensors_metadata", "CheckpointError"]

FORMAT = "lucid-checkpoint"
VERSION = 1
_DATA = "checkpoint/data.json"
_TENSOR_DIR = "checkpoint/tensors/"
_MAX_JSON = 1 << 30


class CheckpointError(LucidError, ValueError):
    """A checkpoint that can't be read: truncated, corrupted, hostile, or of an unknown format/version.
    Nothing is returned (or modified) when it is raised."""


_DTYPES = {d.name: d for d in (_C.bool, _C.uint8, _C.int8, _C.int16, _C.int32, _C.int64, _C.float16, _C.bfloat16,
                               _C.float32, _C.float64, _C.complex64, _C.complex128)}


# ---------------------------------------------------------------------------------------------- save
class _Encoder:
    def __init__(self):
        self.tensors = []           # (tensor, key)
        self.by_id = {}             # id(tensor) -> index (a tensor stored twice is stored once)
        self.active = set()         # containers on the current path (cycles can't be stored)

    def enc(self, obj):
        if obj is None or isinstance(obj, (bool, str)):
            return obj
        if isinstance(obj, int):
            return obj
        if isinstance(obj, float):
            if math.isfinite(obj):
                return obj
            return {"$": "float", "v": repr(obj)}  # 'nan', 'inf', '-inf'
        if isinstance(obj, complex):
            return {"$": "complex", "re": self.enc(obj.real), "im": self.enc(obj.imag)}
        if isinstance(obj, Tensor):
            return self._tensor(obj)
        if isinstance(obj, bytes):
            return {"$": "bytes", "v": base64.b64encode(obj).decode("ascii")}
        if isinstance(obj, _C.dtype):
            return {"$": "dtype", "v": obj.name}
        if isinstance(obj, _C.device):
            return {"$": "device", "v": str(obj)}
        if type(obj).__module__ == "numpy" and hasattr(obj, "dtype"):
            return self.enc(_numpy_to_tensor(obj)) if getattr(obj, "ndim", 0) else self.enc(obj.item())
        if isinstance(obj, (list, tuple, dict, set, frozenset)):
            if id(obj) in self.active:
                raise ValueError("lucid.save: the object contains a reference cycle")
            self.active.add(id(obj))
            try:
                return self._container(obj)
            finally:
                self.active.discard(id(obj))
        raise TypeError(f"lucid.save can't store an object of type {type(obj).__module__}.{type(obj).__qualname__}: "
                        "checkpoints hold tensors, dicts, lists, tuples, sets, str, bytes, int, float, complex, bool "
                        "and None (no pickled objects; save a state_dict() instead of a module or optimizer)")

    def _container(self, obj):
        if isinstance(obj, tuple) and hasattr(obj, "_fields"):  # namedtuple: kept as a plain tuple
            return {"$": "tuple", "v": [self.enc(v) for v in obj]}
        if isinstance(obj, tuple):
            return {"$": "tuple", "v": [self.enc(v) for v in obj]}
        if isinstance(obj, list):
            return [self.enc(v) for v in obj]
        if isinstance(obj, (set, frozenset)):
            return {"$": "frozenset" if isinstance(obj, frozenset) else "set", "v": [self.enc(v) for v in obj]}
        kind = "counter" if isinstance(obj, Counter) else "odict" if isinstance(obj, OrderedDict) else "dict"
        out = {"$": kind, "v": [[self.enc(k), self.enc(v)] for k, v in obj.items()]}
        meta = getattr(obj, "_metadata", None)
        if isinstance(meta, dict):
            out["meta"] = self.enc(meta)
        return out

    def _tensor(self, t):
        from lucid.nn.parameter import Parameter
        key = self.by_id.get(id(t))
        if key is None:
            key = len(self.tensors)
            self.by_id[id(t)] = key
            self.tensors.append(t)
        return {"$": "tensor", "id": key, "dtype": t.dtype.name, "shape": list(t.shape), "device": str(t.device),
                "requires_grad": bool(t.requires_grad), "parameter": isinstance(t, Parameter)}


def _numpy_to_tensor(a):
    import numpy as np
    return _C.from_numpy(np.ascontiguousarray(a))


def save(obj, f, pickle_module=None, pickle_protocol=None, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False):
    """Saves `obj` (tensors, state dicts, optimizer states, nested dicts/lists/tuples of plain values)
    to a path or a binary file object, in lucid's checkpoint format (a zip: checkpoint/data.json and one
    raw little-endian file per tensor). Views are saved as their values; a tensor that appears twice is
    stored once and loads as one tensor."""
    if pickle_module is not None:
        raise TypeError("lucid.save never pickles: pickle_module is not supported")
    enc = _Encoder()
    tree = enc.enc(obj)
    doc = {"format": FORMAT, "version": VERSION, "byteorder": "little", "tensors": len(enc.tensors), "root": tree}
    data = json.dumps(doc, allow_nan=False, separators=(",", ":")).encode("utf-8")

    def write(fh):
        with zipfile.ZipFile(fh, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as z:
            z.writestr(_DATA, data)
            for i, t in enumerate(enc.tensors):
                raw = t.detach().to_bytes()
                if sys.byteorder != "little" and t.element_size() > 1:
                    raw = _swap(raw, t.dtype)
                z.writestr(f"{_TENSOR_DIR}{i}", raw)

    if isinstance(f, (str, os.PathLike)):
        tmp = os.fspath(f) + ".tmp"
        try:
            with open(tmp, "wb") as fh:
                write(fh)
            os.replace(tmp, f)
        finally:
            if os.path.exists(tmp):
                os.remove(tmp)
    else:
        write(f)


def _swap(raw, dtype):
    import numpy as np
    size = _C.empty([0], dtype, _C.device("cpu")).element_size()
    step = size // 2 if dtype.is_complex else size
    return np.frombuffer(raw, dtype=f"u{step}").byteswap().tobytes()


# ---------------------------------------------------------------------------------------------- load
def _fail(msg):
    raise CheckpointError(f"lucid.load: {msg}")


def _map_device(saved, map_location):
    if map_location is None:
        dev = saved
    elif callable(map_location) and not isinstance(map_location, (str, _C.device)):
        return map_location  # called per tensor below
    elif isinstance(map_location, dict):
        dev = map_location.get(saved, saved)
    else:
        dev = map_location
    return _C.device(str(dev)) if not isinstance(dev, _C.device) else dev


class _Decoder:
    def __init__(self, tensors):
        self.tensors = tensors
        self.depth = 0

    def dec(self, node):
        if node is None or isinstance(node, (bool, str, int, float)):
            return node
        self.depth += 1
        if self.depth > 1000:
            _fail("the object tree is nested too deeply")
        try:
            if isinstance(node, list):
                return [self.dec(v) for v in node]
            if not isinstance(node, dict) or not isinstance(node.get("$"), str):
                _fail(f"malformed node {str(node)[:80]!r}")
            kind = node["$"]
            if kind == "tensor":
                i = node.get("id")
                if not isinstance(i, int) or isinstance(i, bool) or not 0 <= i < len(self.tensors):
                    _fail(f"tensor reference {i!r} out of range")
                return self.tensors[i]
            if kind == "tuple":
                return tuple(self.dec(v) for v in self._items(node))
            if kind in ("set", "frozenset"):
                vals = [self.dec(v) for v in self._items(node)]
                try:
                    return set(vals) if kind == "set" else frozenset(vals)
                except TypeError:
                    _fail("unhashable set element")
            if kind in ("dict", "odict", "counter"):
                out = {"dict": dict, "odict": OrderedDict, "counter": Counter}[kind]()
                for pair in self._items(node):
                    if not isinstance(pair, list) or len(pair) != 2:
                        _fail("malformed dict entry")
                    k = self.dec(pair[0])
                    try:
                        out[k] = self.dec(pair[1])
                    except TypeError:
                        _fail("unhashable dict key")
                if "meta" in node:
                    meta = self.dec(node["meta"])
                    if isinstance(out, OrderedDict) and isinstance(meta, dict):
                        out._metadata = meta
                return out
            if kind == "float":
                v = node.get("v")
                if v not in ("nan", "inf", "-inf"):
                    _fail(f"bad float {v!r}")
                return float(v)
            if kind == "complex":
                re, im = self.dec(node.get("re")), self.dec(node.get("im"))
                if not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (re, im)):
                    _fail("bad complex")
                return complex(re, im)
            if kind == "bytes":
                try:
                    return base64.b64decode(node.get("v", ""), validate=True)
                except Exception:
                    _fail("bad base64 bytes")
            if kind == "dtype":
                d = _DTYPES.get(node.get("v"))
                if d is None:
                    _fail(f"unknown dtype {node.get('v')!r}")
                return d
            if kind == "device":
                try:
                    return _C.device(str(node.get("v")))
                except Exception:
                    _fail(f"bad device {node.get('v')!r}")
            _fail(f"unknown node type {kind!r}")
        finally:
            self.depth -= 1

    @staticmethod
    def _items(node):
        v = node.get("v")
        if not isinstance(v, list):
            _fail("malformed container")
        return v


def _collect_tensor_specs(node, specs, depth=0):
    """Walks the JSON tree and returns {id: spec} of every tensor node (validated)."""
    if depth > 1000:
        _fail("the object tree is nested too deeply")
    if isinstance(node, list):
        for v in node:
            _collect_tensor_specs(v, specs, depth + 1)
    elif isinstance(node, dict):
        if node.get("$") == "tensor":
            i = node.get("id")
            if not isinstance(i, int) or isinstance(i, bool):
                _fail(f"bad tensor id {i!r}")
            spec = (node.get("dtype"), node.get("shape"), node.get("device"), node.get("requires_grad"),
                    node.get("parameter"))
            if i in specs and specs[i] != spec:
                _fail(f"tensor {i} is described twice, differently")
            specs[i] = spec
            return
        for v in node.values():
            _collect_tensor_specs(v, specs, depth + 1)


def load(f, map_location=None, pickle_module=None, *, weights_only=True, mmap=None, **pickle_load_args):
    """Loads what lucid.save wrote. map_location: None (the saved devices), a device or string, a dict
    {saved device: device}, or a callable (tensor, saved device string) -> tensor. Raises
    CheckpointError for anything that isn't a well-formed checkpoint, before building any object."""
    if pickle_module is not None:
        raise TypeError("lucid.load never unpickles: pickle_module is not supported")
    try:
        if isinstance(f, (str, os.PathLike)):
            with open(f, "rb") as fh:
                return _load(fh, map_location)
        if isinstance(f, (bytes, bytearray)):
            return _load(io.BytesIO(f), map_location)
        return _load(f, map_location)
    except CheckpointError:
        raise
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, struct.error, UnicodeDecodeError,
            json.JSONDecodeError, OverflowError, RecursionError) as e:
        raise CheckpointError(f"lucid.load: not a readable lucid checkpoint ({type(e).__name__}: {e})") from None


def _load(fh, map_location):
    head = fh.read(4)
    fh.seek(0)
    if head[:2] != b"PK":
        if head[:1] == b"\x80":
            _fail("this looks like a pickle (e.g. a torch.save file); lucid.load reads only lucid checkpoints, "
                  "and never unpickles")
        _fail("not a lucid checkpoint (no zip signature)")
    with zipfile.ZipFile(fh, "r") as z:
        infos = {i.filename: i for i in z.infolist()}
        if _DATA not in infos:
            _fail(f"missing {_DATA}")
        for info in infos.values():
            if info.compress_type != zipfile.ZIP_STORED:
                _fail(f"member {info.filename!r} is compressed; lucid checkpoints store members uncompressed")
        if infos[_DATA].file_size > _MAX_JSON:
            _fail("data.json is implausibly large")
        doc = json.loads(z.read(_DATA).decode("utf-8"))
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            _fail("not a lucid checkpoint (bad format tag)")
        if doc.get("version") != VERSION:
            _fail(f"unsupported checkpoint version {doc.get('version')!r} (this lucid reads version {VERSION})")
        if doc.get("byteorder", "little") != "little":
            _fail("unsupported byte order")
        n = doc.get("tensors")
        if not isinstance(n, int) or isinstance(n, bool) or n < 0:
            _fail("bad tensor count")
        specs = {}
        _collect_tensor_specs(doc.get("root"), specs)
        if any(not 0 <= i < n for i in specs):
            _fail("a tensor reference is out of range")
        if len(specs) != n:
            _fail(f"the header announces {n} tensors but references {len(specs)}")
        # validate every tensor before reading any
        plan = []
        for i in range(n):
            dtype_name, shape, device, requires_grad, parameter = specs[i]
            dtype = _DTYPES.get(dtype_name)
            if dtype is None:
                _fail(f"tensor {i} has an unknown dtype {dtype_name!r}")
            if not isinstance(shape, list) or not all(isinstance(s, int) and not isinstance(s, bool) and s >= 0
                                                      for s in shape) or len(shape) > 64:
                _fail(f"tensor {i} has a bad shape {shape!r}")
            numel = math.prod(shape)
            nbytes = numel * _itemsize(dtype)
            name = f"{_TENSOR_DIR}{i}"
            info = infos.get(name)
            if info is None:
                _fail(f"tensor {i} ({name}) is missing")
            if info.file_size != nbytes:
                _fail(f"tensor {i} has {info.file_size} bytes but dtype {dtype_name} and shape {tuple(shape)} need "
                      f"{nbytes}")
            if not isinstance(device, str):
                _fail(f"tensor {i} has a bad device {device!r}")
            plan.append((name, dtype, shape, device, bool(requires_grad), bool(parameter)))
        tensors = []
        for name, dtype, shape, device, requires_grad, parameter in plan:
            raw = z.read(name)  # checks the CRC
            if len(raw) != math.prod(shape) * _itemsize(dtype):
                _fail(f"{name} holds {len(raw)} bytes, not the {math.prod(shape) * _itemsize(dtype)} announced")
            if sys.byteorder != "little" and _itemsize(dtype) > 1:
                raw = _swap(raw, dtype)
            t = _C._from_buffer(raw, shape, dtype, _C.device("cpu"))
            t = _place(t, device, map_location)
            if parameter:
                from lucid.nn.parameter import Parameter
                t = Parameter(t, requires_grad)
            elif requires_grad:
                t.requires_grad = True
            tensors.append(t)
        return _Decoder(tensors).dec(doc.get("root"))


def _place(t, saved_device, map_location):
    if map_location is not None and callable(map_location) and not isinstance(map_location, (str, _C.device, dict)):
        out = map_location(t, saved_device)
        return t if out is None else out
    try:
        target = _map_device(saved_device, map_location)
    except Exception:
        _fail(f"bad device {saved_device!r}")
    if target.type == "cuda":
        from lucid import cuda
        if not cuda.is_available():
            raise RuntimeError("Attempting to deserialize object on a CUDA device but lucid.cuda.is_available() is "
                               "False. Pass map_location='cpu' to lucid.load to map the tensors to the CPU.")
    return t if target.type == "cpu" else t.to(target)


def _itemsize(dtype):
    return {"bool": 1, "uint8": 1, "int8": 1, "int16": 2, "int32": 4, "int64": 8, "float16": 2, "bfloat16": 2,
            "float32": 4, "float64": 8, "complex64": 8, "complex128": 16}[dtype.name]


# ---------------------------------------------------------------------------------------------- safetensors
_ST_NAMES = {"bool": "BOOL", "uint8": "U8", "int8": "I8", "int16": "I16", "int32": "I32", "int64": "I64",
             "float16": "F16", "bfloat16": "BF16", "float32": "F32", "float64": "F64", "complex64": "C64"}
_ST_DTYPES = {v: _DTYPES[k] for k, v in _ST_NAMES.items()}
_ST_MAX_HEADER = 100 * 1000 * 1000  # the safetensors package's own limit


def _st_fail(msg):
    raise CheckpointError(f"safetensors: {msg}")


def save_safetensors(tensors, path, metadata=None):
    """Writes {name: tensor} in the safetensors format: an 8-byte little-endian header size, a JSON header
    ({name: {dtype, shape, data_offsets}}, optional "__metadata__" of str -> str), then the raw
    little-endian bytes, tightly packed (ordered by alignment, then name, as the safetensors package)."""
    if not isinstance(tensors, dict):
        raise TypeError(f"save_safetensors expects a dict of name -> Tensor, got {type(tensors).__name__}")
    if metadata is not None:
        if not isinstance(metadata, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                                     for k, v in metadata.items()):
            raise TypeError("save_safetensors: metadata must be a dict of str -> str")
    for k, v in tensors.items():
        if not isinstance(k, str):
            raise TypeError(f"save_safetensors: tensor names must be str, got {type(k).__name__}")
        if k == "__metadata__":
            raise ValueError("save_safetensors: '__metadata__' is reserved")
        if not isinstance(v, Tensor):
            raise TypeError(f"save_safetensors: {k!r} is a {type(v).__name__}, not a Tensor")
        if v.dtype.name not in _ST_NAMES:
            raise TypeError(f"save_safetensors: {k!r} has dtype {v.dtype.name}, which the safetensors format "
                            "can't hold (no complex128)")
    order = sorted(tensors, key=lambda k: (-_itemsize(tensors[k].dtype), k))
    header = {}
    if metadata:
        header["__metadata__"] = dict(metadata)
    offset = 0
    for k in order:  # the header first (sizes are known), then one tensor's bytes at a time
        t = tensors[k]
        n = t.numel() * _itemsize(t.dtype)
        header[k] = {"dtype": _ST_NAMES[t.dtype.name], "shape": list(t.shape), "data_offsets": [offset, offset + n]}
        offset += n
    hb = json.dumps(header, separators=(",", ":")).encode("utf-8")
    hb += b" " * (-len(hb) % 8)
    tmp = os.fspath(path) + ".tmp"
    try:
        with open(tmp, "wb") as fh:
            fh.write(struct.pack("<Q", len(hb)))
            fh.write(hb)
            for k in order:
                t = tensors[k]
                raw = t.detach().to_bytes()
                if sys.byteorder != "little" and _itemsize(t.dtype) > 1:
                    raw = _swap(raw, t.dtype)
                fh.write(raw)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def _st_header(fh, file_size):
    if file_size < 8:
        _st_fail(f"file of {file_size} bytes is too small to hold a header size")
    (n,) = struct.unpack("<Q", fh.read(8))
    if n > _ST_MAX_HEADER:
        _st_fail(f"header size {n} is too large (limit {_ST_MAX_HEADER})")
    if n > file_size - 8:
        _st_fail(f"header size {n} runs past the end of the file ({file_size} bytes): truncated?")
    raw = fh.read(n)
    if len(raw) != n:
        _st_fail("truncated header")
    if not raw.startswith(b"{"):
        _st_fail("the header is not a JSON object")
    try:
        header = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        _st_fail(f"the header is not valid JSON ({e})")
    if not isinstance(header, dict):
        _st_fail("the header is not a JSON object")
    metadata = header.pop("__metadata__", None)
    if metadata is not None and (not isinstance(metadata, dict) or
                                 not all(isinstance(k, str) and isinstance(v, str) for k, v in metadata.items())):
        _st_fail("__metadata__ must map str to str")
    buffer_len = file_size - 8 - n
    entries = []
    for name, info in header.items():
        if not isinstance(info, dict) or set(info) != {"dtype", "shape", "data_offsets"}:
            _st_fail(f"entry {name!r} must have exactly dtype, shape and data_offsets")
        dtype = _ST_DTYPES.get(info["dtype"])
        if dtype is None:
            _st_fail(f"entry {name!r} has an unsupported dtype {info['dtype']!r}")
        shape, offs = info["shape"], info["data_offsets"]
        if not isinstance(shape, list) or not all(isinstance(s, int) and not isinstance(s, bool) and s >= 0
                                                  for s in shape):
            _st_fail(f"entry {name!r} has a bad shape {shape!r}")
        if not isinstance(offs, list) or len(offs) != 2 or not all(isinstance(o, int) and not isinstance(o, bool)
                                                                   for o in offs):
            _st_fail(f"entry {name!r} has bad data_offsets {offs!r}")
        begin, end = offs
        if not 0 <= begin <= end:
            _st_fail(f"entry {name!r} has bad data_offsets {offs!r}")
        if end > buffer_len:
            _st_fail(f"entry {name!r} ends at byte {end}, past the end of the data ({buffer_len} bytes): truncated?")
        need = math.prod(shape) * _itemsize(dtype)
        if end - begin != need:
            _st_fail(f"entry {name!r} spans {end - begin} bytes but {info['dtype']} {tuple(shape)} needs {need}")
        entries.append((begin, end, name, dtype, shape))
    entries.sort()
    pos = 0
    for begin, end, name, _, _ in entries:
        if begin < pos:
            _st_fail(f"entry {name!r} overlaps the previous tensor's data")
        if begin > pos:
            _st_fail(f"there is a gap in the data before entry {name!r}")
        pos = end
    if pos != buffer_len:
        _st_fail(f"the data section has {buffer_len} bytes but the tensors cover {pos}")
    return metadata, entries, 8 + n


def safetensors_metadata(path):
    """The "__metadata__" dict of a safetensors file (None when it has none)."""
    with open(path, "rb") as fh:
        return _st_header(fh, os.fstat(fh.fileno()).st_size)[0]


def load_safetensors(path, device="cpu"):
    """Reads a safetensors file into {name: tensor} (in file order). The header is fully validated (sizes,
    dtypes, offsets in range, no overlap, no gap) before any tensor is built."""
    dev = _C.device(str(device)) if not isinstance(device, _C.device) else device
    out = {}
    with open(path, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        _, entries, start = _st_header(fh, size)
        for begin, end, name, dtype, shape in entries:  # one tensor's bytes in memory at a time
            fh.seek(start + begin)
            raw = fh.read(end - begin)
            if len(raw) != end - begin:
                _st_fail("the file changed while it was read")
            if sys.byteorder != "little" and _itemsize(dtype) > 1:
                raw = _swap(raw, dtype)
            t = _C._from_buffer(raw, shape, dtype, _C.device("cpu"))
            out[name] = t if dev.type == "cpu" else t.to(dev)
    return out
