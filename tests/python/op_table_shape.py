"""Op-table entries: shape and movement ops (cat, stack, split, flip, roll, pad, tril/triu, ...). See op_table.py for the fields of an entry."""
import numpy as np

import lucid
from helpers import ALL_DTYPES
from op_table import OpInfo, Sample  # noqa: F401

REAL = [d for d in ALL_DTYPES if not d.is_complex]


def _same(d, **_):
    return d


def _n_same(n):
    """out_dtype of an op with n outputs of the input's dtype."""
    return lambda d, **_: (d,) * n


S = Sample


# ---- joining: the op packs the sample's tensors into a list

def _cat_samples(d):
    return [
        S(((2, 3), (4, 3)), dict(dim=0)),
        S(((2, 3), (2, 1), (2, 4)), dict(dim=1)),
        S(((2, 3), (2, 5)), dict(dim=-1)),
        S(((3, 2, 2),), dict(dim=1)),
        S(((2, 3, 4), (2, 1, 4), (2, 2, 4)), dict(dim=1)),
        S(((4,), (0,), (3,)), dict(dim=0), kind="empty"),
        S(((2, 3), (0,), (1, 3)), dict(dim=0), kind="empty"),     # legacy: a 1-D empty input is skipped
        S(((0, 3), (2, 3)), dict(dim=0), kind="empty"),
        S(((2, 0), (2, 0)), dict(dim=1), kind="empty"),
        S(((40, 33), (27, 33)), dict(dim=0), kind="large"),
        S(((33, 40), (33, 27)), dict(dim=1), kind="large"),
    ]


def _stack_samples(d):
    return [
        S(((2, 3), (2, 3)), dict(dim=0)),
        S(((2, 3), (2, 3), (2, 3)), dict(dim=1)),
        S(((2, 3), (2, 3)), dict(dim=-1)),
        S(((4,),), dict(dim=0)),
        S(((), ()), dict(dim=0), kind="zerodim"),
        S(((0, 3), (0, 3)), dict(dim=1), kind="empty"),
        S(((30, 40), (30, 40)), dict(dim=1), kind="large"),
    ]


def _cat_ref(*args, dim=0):
    *arrs, out = args
    arrs = [a for a in arrs if not (a.ndim == 1 and a.size == 0) or all(b.ndim == 1 for b in arrs)]
    return np.concatenate(arrs, axis=dim)


def _stack_ref(*args, dim=0):
    *arrs, out = args
    return np.stack(arrs, axis=dim)


def _list_entry(name, fn, ref, samples, torch_name, variants=None, cuda=True, dtypes=ALL_DTYPES):
    # looked up at call time (so lucid.<name> patched by a test, e.g. test_out, is the one called)
    fname = getattr(fn, "__name__", name)
    call = (lambda *ts, **kw: getattr(lucid, fname)(list(ts), **kw)) if getattr(lucid, fname, None) is fn else \
        (lambda *ts, **kw: fn(list(ts), **kw))
    return OpInfo(name, call, ref, _same, dtypes, samples,
                  torch_op=lambda torch, *ts, **kw: getattr(torch, torch_name)(list(ts), **kw),
                  variants=variants or {}, kinds=("default",) * 3, cuda=cuda)


# ---- flip and triangles

def _flip_samples(d):
    return [
        S(((3, 4),), dict(dims=(0,))),
        S(((3, 4),), dict(dims=(1,))),
        S(((3, 4),), dict(dims=(0, 1))),
        S(((2, 3, 4),), dict(dims=(-1, 0))),
        S(((2, 3, 4),), dict(dims=(1,))),
        S(((2, 3, 4),), dict(dims=())),
        S(((),), dict(dims=(0,)), kind="zerodim"),
        S(((0, 3),), dict(dims=(1,)), kind="empty"),
        S(((1031,),), dict(dims=(0,)), kind="large"),
        S(((67, 129),), dict(dims=(0, 1)), kind="large"),
    ]


def _flip_ref(a, out, dims):
    if a.ndim == 0:
        return a.copy()
    return np.flip(a, axis=dims).copy()


def _tri_samples(d):
    return [
        S(((3, 4),), dict(diagonal=0)),
        S(((4, 3),), dict(diagonal=1)),
        S(((4, 3),), dict(diagonal=-1)),
        S(((2, 3, 3),), dict(diagonal=0)),
        S(((3, 4),), dict(diagonal=5)),
        S(((3, 4),), dict(diagonal=-5)),
        S(((0, 3),), dict(diagonal=0), kind="empty"),
        S(((2, 0, 3),), dict(diagonal=0), kind="empty"),
        S(((67, 129),), dict(diagonal=3), kind="large"),
    ]


OPS = [
    _list_entry("cat", lucid.cat, _cat_ref, _cat_samples, "cat",
                variants={"concat": lambda *ts, **kw: lucid.concat(list(ts), **kw),
                          "concatenate": lambda *ts, dim=0: lucid.concatenate(list(ts), axis=dim),
                          "tuple": lambda *ts, **kw: lucid.cat(ts, **kw)}),
    _list_entry("stack", lucid.stack, _stack_ref, _stack_samples, "stack"),
    OpInfo("flip", lambda a, dims: lucid.flip(a, dims), lambda a, out, dims: _flip_ref(a, out, dims), _same, ALL_DTYPES,
           _flip_samples, torch_op=lambda torch, a, dims: torch.flip(a, dims),
           variants={"method": lambda a, dims: a.flip(dims), "method_varargs": lambda a, dims: a.flip(*dims)},
           cuda=False),
    OpInfo("tril", lambda a, diagonal: lucid.tril(a, diagonal), lambda a, out, diagonal: np.tril(a, diagonal),
           _same, ALL_DTYPES, _tri_samples, torch_op=lambda torch, a, diagonal: torch.tril(a, diagonal),
           variants={"method": lambda a, diagonal: a.tril(diagonal)}, cuda=False),
    OpInfo("triu", lambda a, diagonal: lucid.triu(a, diagonal), lambda a, out, diagonal: np.triu(a, diagonal),
           _same, ALL_DTYPES, _tri_samples, torch_op=lambda torch, a, diagonal: torch.triu(a, diagonal),
           variants={"method": lambda a, diagonal: a.triu(diagonal=diagonal)}, cuda=False),
]


# ---- splitting (views; several outputs: the sample's `n` says how many, the op ignores it)

def _pieces(a, dim, bounds):
    idx = [slice(None)] * a.ndim
    out = []
    for b, e in bounds:
        idx[dim] = slice(b, e)
        out.append(a[tuple(idx)].copy())
    return tuple(out)


def _split_bounds(n, size):
    if size == 0:
        return [(0, 0)]
    return [(i, min(i + size, n)) for i in range(0, max(n, 1), size)]


def _split_ref(a, out, split_size, dim=0, n=None):
    d = dim % a.ndim
    if isinstance(split_size, int):
        return _pieces(a, d, _split_bounds(a.shape[d], split_size))
    starts = np.cumsum([0] + list(split_size))
    return _pieces(a, d, list(zip(starts[:-1], starts[1:])))


def _split_samples(d):
    return [
        S(((5, 4),), dict(split_size=2, dim=0, n=3)),
        S(((3, 7),), dict(split_size=3, dim=1, n=3)),
        S(((2, 3, 4),), dict(split_size=4, dim=-1, n=1)),
        S(((5, 4),), dict(split_size=[1, 3, 1], dim=0, n=3)),
        S(((2, 6),), dict(split_size=[0, 6], dim=1, n=2)),
        S(((0, 3),), dict(split_size=2, dim=0, n=1), kind="empty"),
        S(((1031,),), dict(split_size=500, dim=0, n=3), kind="large"),
    ]


def _chunk_ref(a, out, chunks, dim=0, n=None):
    d = dim % a.ndim
    size = -(-a.shape[d] // chunks)
    return _pieces(a, d, _split_bounds(a.shape[d], size))


def _chunk_samples(d):
    return [
        S(((5, 4),), dict(chunks=3, dim=0, n=3)),
        S(((6,),), dict(chunks=4, dim=0, n=3)),
        S(((3, 4),), dict(chunks=2, dim=-1, n=2)),
        S(((2, 3, 4),), dict(chunks=1, dim=1, n=1)),
        S(((0, 3),), dict(chunks=1, dim=0, n=1), kind="empty"),
    ]


def _tensor_split_ref(a, out, indices_or_sections, dim=0, n=None):
    d = dim % a.ndim
    size = a.shape[d]
    if isinstance(indices_or_sections, int):
        k = indices_or_sections
        lens = [size // k + (1 if i < size % k else 0) for i in range(k)]
        starts = np.cumsum([0] + lens)
        return _pieces(a, d, list(zip(starts[:-1], starts[1:])))
    bounds, start = [], 0
    for i in indices_or_sections:
        e = min(max(i + size if i < 0 else i, 0), size)
        bounds.append((start, max(e, start)))
        start = e
    bounds.append((start, size))
    return _pieces(a, d, bounds)


def _tensor_split_samples(d):
    return [
        S(((7, 3),), dict(indices_or_sections=3, dim=0, n=3)),
        S(((2, 5),), dict(indices_or_sections=2, dim=1, n=2)),
        S(((6, 4),), dict(indices_or_sections=[1, 4], dim=0, n=3)),
        S(((6,),), dict(indices_or_sections=[-2, 1, 10], dim=0, n=4)),
        S(((3, 6),), dict(indices_or_sections=(4, 2), dim=-1, n=3)),
        S(((0, 2),), dict(indices_or_sections=2, dim=0, n=2), kind="empty"),
    ]


def _unbind_ref(a, out, dim=0, n=None):
    return tuple(np.take(a, i, axis=dim).copy() for i in range(a.shape[dim]))


def _unbind_samples(d):
    return [
        S(((3, 4),), dict(dim=0, n=3)),
        S(((3, 4),), dict(dim=1, n=4)),
        S(((2, 3, 2),), dict(dim=-1, n=2)),
        S(((1, 0),), dict(dim=0, n=1), kind="empty"),
    ]


def _dir_split_samples(which):
    def f(d):
        base = {"h": [S(((6,),), dict(ios=3, n=3)), S(((2, 6),), dict(ios=2, n=2)), S(((2, 6),), dict(ios=[1, 4], n=3))],
                "v": [S(((4, 3),), dict(ios=2, n=2)), S(((5, 2, 2),), dict(ios=[2], n=2))],
                "d": [S(((2, 2, 4),), dict(ios=2, n=2)), S(((1, 2, 5, 2),), dict(ios=[1, 3], n=3))]}[which]
        return base
    return f


def _multi(name, fn, ref, samples, torch_fn, method=None):
    variants = {"method": lambda a, n, **kw: method(a, **kw)} if method else {}
    return OpInfo(name, lambda a, n, **kw: fn(a, **kw), ref, lambda d, n, **_: (d,) * n, ALL_DTYPES, samples,
                  torch_op=lambda torch, a, n, **kw: torch_fn(torch, a, **kw), variants=variants, view=True)


def _torch_split(torch, a, split_size, dim=0):
    return torch.split(a, list(split_size) if isinstance(split_size, (list, tuple)) else split_size, dim)


OPS += [
    _multi("split", lambda a, split_size, dim: lucid.split(a, split_size, dim), _split_ref, _split_samples,
           _torch_split, method=lambda a, split_size, dim: a.split(split_size, dim)),
    _multi("chunk", lambda a, chunks, dim: lucid.chunk(a, chunks, dim), _chunk_ref, _chunk_samples,
           lambda torch, a, chunks, dim: torch.chunk(a, chunks, dim), method=lambda a, chunks, dim: a.chunk(chunks, dim)),
    _multi("tensor_split", lambda a, indices_or_sections, dim: lucid.tensor_split(a, indices_or_sections, dim),
           _tensor_split_ref, _tensor_split_samples,
           lambda torch, a, indices_or_sections, dim: torch.tensor_split(a, indices_or_sections, dim),
           method=lambda a, indices_or_sections, dim: a.tensor_split(indices_or_sections, dim=dim)),
    _multi("hsplit", lambda a, ios: lucid.hsplit(a, ios), lambda a, out, ios, n: _tensor_split_ref(
               a, out, ios, 1 if a.ndim > 1 else 0), _dir_split_samples("h"), lambda torch, a, ios: torch.hsplit(a, ios),
           method=lambda a, ios: a.hsplit(ios)),
    _multi("vsplit", lambda a, ios: lucid.vsplit(a, ios), lambda a, out, ios, n: _tensor_split_ref(a, out, ios, 0),
           _dir_split_samples("v"), lambda torch, a, ios: torch.vsplit(a, ios), method=lambda a, ios: a.vsplit(ios)),
    _multi("dsplit", lambda a, ios: lucid.dsplit(a, ios), lambda a, out, ios, n: _tensor_split_ref(a, out, ios, 2),
           _dir_split_samples("d"), lambda torch, a, ios: torch.dsplit(a, ios), method=lambda a, ios: a.dsplit(ios)),
    _multi("unbind", lambda a, dim: lucid.unbind(a, dim), _unbind_ref, _unbind_samples,
           lambda torch, a, dim: torch.unbind(a, dim), method=lambda a, dim: a.unbind(dim)),
]


# ---- reshaping and reordering (views)

def _unflatten_ref(a, out, dim, sizes):
    d = dim % a.ndim
    sizes = list(sizes)
    if -1 in sizes:
        known = int(np.prod([s for s in sizes if s != -1]))
        sizes[sizes.index(-1)] = a.shape[d] // known if known else 0
    return a.reshape(a.shape[:d] + tuple(sizes) + a.shape[d + 1:]).copy()


def _unflatten_samples(d):
    return [
        S(((2, 12),), dict(dim=1, sizes=(3, 4))),
        S(((6,),), dict(dim=0, sizes=(2, -1))),
        S(((6, 5),), dict(dim=-2, sizes=(3, 1, 2))),
        S(((0, 4),), dict(dim=1, sizes=(2, 2)), kind="empty"),
    ]


def _movedim_samples(d):
    return [
        S(((2, 3, 4),), dict(source=0, destination=-1)),
        S(((2, 3, 4),), dict(source=(0, 1), destination=(2, 0))),
        S(((2, 3, 4, 5),), dict(source=(-1,), destination=(1,))),
        S(((3, 4),), dict(source=1, destination=1)),
        S(((),), dict(source=0, destination=0), kind="zerodim"),
        S(((0, 3, 2),), dict(source=0, destination=2), kind="empty"),
    ]


def _swap_samples(d):
    return [
        S(((3, 4),), dict(a=0, b=1)),
        S(((2, 3, 4),), dict(a=0, b=-1)),
        S(((2, 3, 4),), dict(a=1, b=1)),
        S(((0, 3),), dict(a=0, b=1), kind="empty"),
    ]


def _ravel_samples(d):
    return [S(((3, 4),)), S(((2, 3, 4),)), S(((),), kind="zerodim"), S(((0, 3),), kind="empty"),
            S(((67, 129),), kind="large")]


OPS += [
    OpInfo("unflatten", lambda a, dim, sizes: lucid.unflatten(a, dim, sizes), _unflatten_ref, _same, ALL_DTYPES,
           _unflatten_samples, torch_op=lambda torch, a, dim, sizes: torch.unflatten(a, dim, sizes),
           variants={"method": lambda a, dim, sizes: a.unflatten(dim, sizes)}, view=True),
    OpInfo("ravel", lambda a: lucid.ravel(a), lambda a, out: a.ravel().copy(), _same, ALL_DTYPES, _ravel_samples,
           torch_op=lambda torch, a: torch.ravel(a), variants={"method": lambda a: a.ravel()}, view=True),
    OpInfo("movedim", lambda a, source, destination: lucid.movedim(a, source, destination),
           lambda a, out, source, destination: np.moveaxis(a, source, destination).copy() if a.ndim else a.copy(), _same, ALL_DTYPES,
           _movedim_samples, torch_op=lambda torch, a, source, destination: torch.movedim(a, source, destination),
           variants={"moveaxis": lambda a, source, destination: lucid.moveaxis(a, source, destination),
                     "method": lambda a, source, destination: a.movedim(source, destination),
                     "method_moveaxis": lambda a, source, destination: a.moveaxis(source, destination)}, view=True),
    OpInfo("swapaxes", lambda a, a0, a1: lucid.swapaxes(a, a0, a1), lambda a, out, a0, a1: np.swapaxes(a, a0, a1).copy(),
           _same, ALL_DTYPES, lambda d: [S(s.shapes, dict(a0=s.kwargs["a"], a1=s.kwargs["b"]), s.kind)
                                         for s in _swap_samples(d)],
           torch_op=lambda torch, a, a0, a1: torch.swapaxes(a, a0, a1),
           variants={"swapdims": lambda a, a0, a1: lucid.swapdims(a, a0, a1),
                     "method": lambda a, a0, a1: a.swapaxes(a0, a1),
                     "method_swapdims": lambda a, a0, a1: a.swapdims(a0, a1)}, view=True),
]


# ---- flips, rolls, rotations (copies)

def _roll_ref(a, out, shifts, dims=None):
    if a.ndim == 0:
        return a.copy()
    return np.roll(a, shifts, axis=dims).copy()


def _roll_samples(d):
    return [
        S(((3, 4),), dict(shifts=1, dims=0)),
        S(((3, 4),), dict(shifts=-5, dims=1)),
        S(((3, 4),), dict(shifts=(1, 2), dims=(0, 1))),
        S(((2, 3, 4),), dict(shifts=(2, -1), dims=(-1, 0))),
        S(((3, 4),), dict(shifts=5, dims=None)),
        S(((2, 3, 4),), dict(shifts=(4,), dims=(1,))),
        S(((),), dict(shifts=2, dims=None), kind="zerodim"),
        S(((0, 3),), dict(shifts=1, dims=1), kind="empty"),
        S(((67, 129),), dict(shifts=(30, -70), dims=(0, 1)), kind="large"),
    ]


def _rot90_samples(d):
    return [S(((3, 4),), dict(k=k, dims=(0, 1))) for k in (0, 1, 2, 3, -1, 5)] + [
        S(((2, 3, 4),), dict(k=1, dims=(1, 2))),
        S(((2, 3, 4),), dict(k=1, dims=(2, 0))),
        S(((0, 3),), dict(k=1, dims=(0, 1)), kind="empty"),
        S(((67, 129),), dict(k=1, dims=(0, 1)), kind="large"),
    ]


def _flip1_samples(dim):
    def f(d):
        out = [S(((3, 4),)), S(((2, 3, 4),)), S(((0, 3),), kind="empty"), S(((67, 129),), kind="large")]
        if dim == 0:
            out.append(S(((5,),)))
        return out
    return f


OPS += [
    OpInfo("fliplr", lambda a: lucid.fliplr(a), lambda a, out: np.fliplr(a).copy(), _same, ALL_DTYPES,
           _flip1_samples(1), torch_op=lambda torch, a: torch.fliplr(a), variants={"method": lambda a: a.fliplr()},
           cuda=False),
    OpInfo("flipud", lambda a: lucid.flipud(a), lambda a, out: np.flipud(a).copy(), _same, ALL_DTYPES,
           _flip1_samples(0), torch_op=lambda torch, a: torch.flipud(a), variants={"method": lambda a: a.flipud()},
           cuda=False),
    OpInfo("roll", lambda a, shifts, dims: lucid.roll(a, shifts, dims), _roll_ref, _same, ALL_DTYPES, _roll_samples,
           torch_op=lambda torch, a, shifts, dims: torch.roll(a, shifts, dims),
           variants={"method": lambda a, shifts, dims: a.roll(shifts, dims)}),
    OpInfo("rot90", lambda a, k, dims: lucid.rot90(a, k, dims), lambda a, out, k, dims: np.rot90(a, k, dims).copy(),
           _same, ALL_DTYPES, _rot90_samples, torch_op=lambda torch, a, k, dims: torch.rot90(a, k, dims),
           variants={"method": lambda a, k, dims: a.rot90(k, dims)}, cuda=False),
]


# ---- repeating

def _repeat_samples(d):
    return [
        S(((2, 3),), dict(repeats=(2, 1))),
        S(((2, 3),), dict(repeats=(1, 2, 3))),
        S(((3,),), dict(repeats=(2, 0))),
        S(((2, 1, 3),), dict(repeats=(1, 4, 1))),
        S(((),), dict(repeats=(3,)), kind="zerodim"),
        S(((),), dict(repeats=()), kind="zerodim"),
        S(((0, 2),), dict(repeats=(2, 2)), kind="empty"),
        S(((33, 40),), dict(repeats=(3, 2)), kind="large"),
    ]


def _tile_samples(d):
    return [
        S(((2, 3),), dict(dims=(2,))),
        S(((2, 3),), dict(dims=(2, 1, 2))),
        S(((3,),), dict(dims=(2, 2))),
        S(((),), dict(dims=(3,)), kind="zerodim"),
        S(((0, 2),), dict(dims=(2,)), kind="empty"),
    ]


def _ri_ref(a, out, repeats, dim=None, output_size=None):
    return np.repeat(a, repeats, axis=dim)


def _ri_samples(d):
    return [
        S(((2, 3),), dict(repeats=2, dim=0)),
        S(((2, 3),), dict(repeats=3, dim=1)),
        S(((2, 3),), dict(repeats=2, dim=None)),
        S(((2, 3),), dict(repeats=2, dim=-1, output_size=6)),
        S(((2, 3),), dict(repeats=0, dim=0)),
        S(((),), dict(repeats=3, dim=None), kind="zerodim"),
        S(((0, 3),), dict(repeats=2, dim=1), kind="empty"),
        S(((67, 129),), dict(repeats=3, dim=0), kind="large"),
    ]


def _ri_tensor_samples(d):
    return [
        S(((2, 3),), dict(repeats=(1, 0, 2), dim=1)),
        S(((3, 2),), dict(repeats=(2, 1, 3), dim=0)),
        S(((3, 2),), dict(repeats=(3,), dim=0)),
        S(((2, 2),), dict(repeats=(1, 2, 0, 1), dim=None)),
        S(((3, 2),), dict(repeats=(1, 2, 1), dim=0, output_size=4)),
        S(((0, 2),), dict(repeats=(), dim=0), kind="empty"),
    ]


def _ri_tensor(a, repeats, dim, output_size=None):
    return lucid.repeat_interleave(a, lucid.tensor(list(repeats), dtype=lucid.int64), dim, output_size=output_size)


OPS += [
    OpInfo("repeat", lambda a, repeats: a.repeat(*repeats), lambda a, out, repeats: np.tile(a, repeats), _same,
           ALL_DTYPES, _repeat_samples, torch_op=lambda torch, a, repeats: a.repeat(*repeats),
           variants={"tuple": lambda a, repeats: a.repeat(repeats)}),
    OpInfo("tile", lambda a, dims: lucid.tile(a, dims), lambda a, out, dims: np.tile(a, dims), _same, ALL_DTYPES,
           _tile_samples, torch_op=lambda torch, a, dims: torch.tile(a, dims),
           variants={"method": lambda a, dims: a.tile(*dims), "method_tuple": lambda a, dims: a.tile(dims)}),
    OpInfo("repeat_interleave", lambda a, **kw: lucid.repeat_interleave(a, **kw), _ri_ref, _same, ALL_DTYPES,
           _ri_samples, torch_op=lambda torch, a, **kw: torch.repeat_interleave(a, **kw),
           variants={"method": lambda a, **kw: a.repeat_interleave(**kw)}),
    OpInfo("repeat_interleave_tensor", _ri_tensor,
           lambda a, out, repeats, dim, output_size=None: np.repeat(a, list(repeats) or 0, axis=dim), _same,
           ALL_DTYPES, _ri_tensor_samples,
           torch_op=lambda torch, a, repeats, dim, output_size=None: torch.repeat_interleave(
               a, torch.tensor(list(repeats), dtype=torch.int64), dim, output_size=output_size),
           cuda=False),
]


# ---- padding

def _pad_ref(a, out, pad, mode="constant", value=None):
    k = len(pad) // 2
    width = [(0, 0)] * (a.ndim - k) + [(pad[2 * i], pad[2 * i + 1]) for i in reversed(range(k))]
    if mode == "constant":
        # negative pads crop
        sl = tuple(slice(max(0, -lo), a.shape[j] - max(0, -hi)) for j, (lo, hi) in enumerate(width))
        a = a[sl]
        width = [(max(lo, 0), max(hi, 0)) for lo, hi in width]
        return np.pad(a, width, mode="constant", constant_values=0 if value is None else value)
    np_mode = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}[mode]
    return np.pad(a, width, mode=np_mode)


def _pad_constant_samples(d):
    v = True if d is lucid.bool_ else 2
    return [
        S(((3, 4),), dict(pad=(1, 2))),
        S(((3, 4),), dict(pad=(1, 0, 0, 2), value=v)),
        S(((2, 3, 4),), dict(pad=(0, 1, 2, 0, 1, 1))),
        S(((3, 4),), dict(pad=(-1, 2))),
        S(((3, 4),), dict(pad=(-1, -2, 1, -1))),
        S(((3, 4),), dict(pad=())),
        S(((0, 3),), dict(pad=(1, 1, 1, 1)), kind="empty"),
        S(((67, 129),), dict(pad=(3, 5, 7, 1)), kind="large"),
    ]


def _pad_mode_samples(mode):
    def f(d):
        out = [
            S(((2, 4),), dict(pad=(1, 2), mode=mode)),
            S(((2, 3, 4),), dict(pad=(3, 0), mode=mode)),
            S(((1, 3, 4),), dict(pad=(1, 2, 2, 1), mode=mode)),
            S(((2, 3, 4, 5),), dict(pad=(1, 1, 0, 2), mode=mode)),
            S(((1, 2, 3, 4),), dict(pad=(1, 2, 1, 0, 1, 1), mode=mode)),
            S(((0, 3, 4),), dict(pad=(1, 2), mode=mode), kind="empty"),
            S(((3, 67, 129),), dict(pad=(5, 3, 2, 7), mode=mode), kind="large"),
        ]
        return out
    return f


def _pad_entry(name, samples, cuda):
    return OpInfo(name, lambda a, **kw: lucid.pad(a, **kw), _pad_ref, _same, ALL_DTYPES, samples,
                  torch_op=lambda torch, a, **kw: torch.nn.functional.pad(a, **kw), cuda=cuda)


OPS += [
    _pad_entry("pad_constant", _pad_constant_samples, True),
    _pad_entry("pad_reflect", _pad_mode_samples("reflect"), False),
    _pad_entry("pad_replicate", _pad_mode_samples("replicate"), False),
    _pad_entry("pad_circular", _pad_mode_samples("circular"), False),
]


# ---- diagonals

def _diag_ref(a, out, diagonal=0):
    return np.diag(a, diagonal).copy()


def _diag_samples(d):
    return [
        S(((4,),), dict(diagonal=0)),
        S(((3,),), dict(diagonal=2)),
        S(((3,),), dict(diagonal=-1)),
        S(((3, 4),), dict(diagonal=0)),
        S(((3, 4),), dict(diagonal=1)),
        S(((4, 3),), dict(diagonal=-2)),
        S(((3, 4),), dict(diagonal=7)),
        S(((0,),), dict(diagonal=1), kind="empty"),
        S(((129,),), dict(diagonal=0), kind="large"),
    ]


def _diag_embed_ref(a, out, offset=0, dim1=-2, dim2=-1):
    n = a.shape[-1] + abs(offset)
    res = np.zeros(a.shape[:-1] + (n, n), dtype=a.dtype)
    i = np.arange(a.shape[-1])
    r, c = (i, i + offset) if offset >= 0 else (i - offset, i)
    res[..., r, c] = a
    nd = a.ndim + 1
    d1, d2 = dim1 % nd, dim2 % nd
    # res has the diagonal dims last; move them to (d1, d2)
    return np.moveaxis(res, (nd - 2, nd - 1), (d1, d2)).copy()


def _diag_embed_samples(d):
    return [
        S(((3,),), dict()),
        S(((2, 3),), dict(offset=1)),
        S(((2, 3),), dict(offset=-2, dim1=0, dim2=2)),
        S(((2, 3, 2),), dict(offset=0, dim1=-1, dim2=1)),
        S(((2, 3),), dict(offset=0, dim1=2, dim2=0)),
        S(((0, 3),), dict(), kind="empty"),
    ]


def _diagflat_samples(d):
    return [S(((3,),), dict(offset=0)), S(((2, 2),), dict(offset=1)), S(((2, 3),), dict(offset=-1)),
            S(((),), dict(offset=0), kind="zerodim"), S(((0,),), dict(offset=0), kind="empty")]


def _block_diag_ref(*args):
    *arrs, out = args
    mats = [a.reshape(1, -1) if a.ndim == 1 else a.reshape(1, 1) if a.ndim == 0 else a for a in arrs]
    R, C = sum(m.shape[0] for m in mats), sum(m.shape[1] for m in mats)
    res = np.zeros((R, C), dtype=np.result_type(*arrs))
    r = c = 0
    for m in mats:
        res[r:r + m.shape[0], c:c + m.shape[1]] = m
        r, c = r + m.shape[0], c + m.shape[1]
    return res


def _block_diag_samples(d):
    return [
        S(((2, 3),)),
        S(((2, 3), (1, 2))),
        S(((2, 2), (3,), ())),
        S(((), ()), kind="zerodim"),
        S(((2, 0), (0,), (1, 1)), kind="empty"),
        S(((30, 20), (17, 33)), kind="large"),
    ]


OPS += [
    OpInfo("diag", lambda a, **kw: lucid.diag(a, **kw), _diag_ref, _same, ALL_DTYPES, _diag_samples,
           torch_op=lambda torch, a, **kw: torch.diag(a, **kw), variants={"method": lambda a, **kw: a.diag(**kw)}),
    OpInfo("diag_embed", lambda a, **kw: lucid.diag_embed(a, **kw), _diag_embed_ref, _same, ALL_DTYPES,
           _diag_embed_samples, torch_op=lambda torch, a, **kw: torch.diag_embed(a, **kw),
           variants={"method": lambda a, **kw: a.diag_embed(**kw)}),
    OpInfo("diagflat", lambda a, **kw: lucid.diagflat(a, **kw),
           lambda a, out, offset=0: np.diagflat(a, offset), _same, ALL_DTYPES, _diagflat_samples,
           torch_op=lambda torch, a, **kw: torch.diagflat(a, **kw), variants={"method": lambda a, **kw: a.diagflat(**kw)}),
    OpInfo("block_diag", lambda *ts: lucid.block_diag(*ts), _block_diag_ref, _same, ALL_DTYPES, _block_diag_samples,
           torch_op=lambda torch, *ts: torch.block_diag(*ts), variants={"list": lambda *ts: lucid.block_diag(list(ts))},
           kinds=("default",) * 3),
]


# ---- the stack family, broadcasting helpers, combinatorics

def _hvd_samples(d):
    return [
        S(((3,), (2,))),
        S(((2, 3), (2, 1))),
        S(((), ()), kind="zerodim"),
        S(((2, 3, 2), (2, 1, 2), (2, 2, 2))),
        S(((3,),)),
    ]


def _vstack_samples(d):
    return [S(((3,), (3,))), S(((2, 3), (1, 3), (3,))), S(((), ()), kind="zerodim"), S(((2, 3, 2), (1, 3, 2))),
            S(((0, 3), (2, 3)), kind="empty")]


def _dstack_samples(d):
    return [S(((3,), (3,))), S(((2, 3), (2, 3))), S(((), ()), kind="zerodim"), S(((2, 3, 2), (2, 3, 1), (2, 3)))]


def _column_stack_samples(d):
    return [S(((3,), (3, 2))), S(((3,), (3,), (3,))), S(((), ()), kind="zerodim"), S(((2, 3), (2, 1))),
            S(((0,), (0, 2)), kind="empty")]


def _np_list(fn):
    def ref(*args):
        *arrs, out = args
        return fn(arrs)
    return ref


def _meshgrid_ref(*args, indexing="ij", n=None):
    *arrs, out = args
    return tuple(g.copy() for g in np.meshgrid(*[np.atleast_1d(a) for a in arrs], indexing=indexing))


def _meshgrid_samples(d):
    return [
        S(((3,), (4,)), dict(indexing="ij", n=2)),
        S(((3,), (4,)), dict(indexing="xy", n=2)),
        S(((2,), (3,), (4,)), dict(indexing="xy", n=3)),
        S(((2,), (), (3,)), dict(indexing="ij", n=3)),
        S(((5,),), dict(indexing="xy", n=1)),
        S(((0,), (3,)), dict(indexing="ij", n=2), kind="empty"),
        S(((), ()), dict(indexing="xy", n=2), kind="zerodim"),
    ]


def _bt_samples(d):
    return [
        S(((3, 1), (1, 4)), dict(n=2)),
        S(((2, 3, 4), (4,), ()), dict(n=3)),
        S(((3,),), dict(n=1)),
        S(((), ()), dict(n=2), kind="zerodim"),
        S(((0, 1), (1, 3)), dict(n=2), kind="empty"),
    ]


def _atleast_samples(d):
    return [S(((),), kind="zerodim"), S(((3,),)), S(((2, 3),)), S(((2, 3, 4),)), S(((0,),), kind="empty")]


def _cp_ref(*args, flat=False):
    *arrs, out = args
    arrs = [a.ravel() for a in arrs]
    grids = np.meshgrid(*arrs, indexing="ij")
    return np.stack([g.ravel() for g in grids], axis=1)


def _cp_samples(d):
    # cartesian_prod takes 1-D tensors only: `flat` samples pass reshape(-1) of 2-D ones (transposed layouts)
    return [S(((3,), (2,))), S(((2,), (3,), (2,))), S(((2, 3), (2,)), dict(flat=True)),
            S(((0,), (3,)), kind="empty")]


def _views_entry(name, fn, ref, samples, torch_fn, variants=None):
    return OpInfo(name, lambda *ts, n: fn(*ts), ref, lambda d, n, **_: (d,) * n, ALL_DTYPES, samples,
                  torch_op=lambda torch, *ts, n: torch_fn(torch, *ts), variants=variants or {}, view=True,
                  kinds=("default",) * 3)


OPS += [
    _list_entry("hstack", lucid.hstack, _np_list(np.hstack), _hvd_samples, "hstack"),
    _list_entry("vstack", lucid.vstack, _np_list(np.vstack), _vstack_samples, "vstack",
                variants={"row_stack": lambda *ts: lucid.row_stack(list(ts))}),
    _list_entry("dstack", lucid.dstack, _np_list(np.dstack), _dstack_samples, "dstack"),
    _list_entry("column_stack", lucid.column_stack, _np_list(np.column_stack), _column_stack_samples, "column_stack"),
    OpInfo("meshgrid", lambda *ts, indexing, n: lucid.meshgrid(*ts, indexing=indexing), _meshgrid_ref,
           lambda d, n, **_: (d,) * n, ALL_DTYPES, _meshgrid_samples,
           torch_op=lambda torch, *ts, indexing, n: torch.meshgrid(*ts, indexing=indexing),
           variants={"list": lambda *ts, indexing, n: lucid.meshgrid(list(ts), indexing=indexing)}, view=True,
           kinds=("default",) * 3),
    _views_entry("broadcast_tensors", lucid.broadcast_tensors,
                 lambda *args, n: tuple(x.copy() for x in np.broadcast_arrays(*args[:-1])), _bt_samples,
                 lambda torch, *ts: torch.broadcast_tensors(*ts)),
    OpInfo("atleast_1d", lambda a: lucid.atleast_1d(a), lambda a, out: np.atleast_1d(a).copy(), _same, ALL_DTYPES,
           _atleast_samples, torch_op=lambda torch, a: torch.atleast_1d(a), view=True),
    OpInfo("atleast_2d", lambda a: lucid.atleast_2d(a), lambda a, out: np.atleast_2d(a).copy(), _same, ALL_DTYPES,
           _atleast_samples, torch_op=lambda torch, a: torch.atleast_2d(a), view=True),
    OpInfo("atleast_3d", lambda a: lucid.atleast_3d(a), lambda a, out: np.atleast_3d(a).copy(), _same, ALL_DTYPES,
           _atleast_samples, torch_op=lambda torch, a: torch.atleast_3d(a), view=True),
    OpInfo("cartesian_prod", lambda *ts, flat=False: lucid.cartesian_prod(*[t.reshape(-1) for t in ts]), _cp_ref,
           _same, ALL_DTYPES, _cp_samples,
           torch_op=lambda torch, *ts, flat=False: torch.cartesian_prod(*[t.reshape(-1) for t in ts]),
           kinds=("default",) * 3),
]


# ---- the existing views and copies

OPS += [
    OpInfo("flatten", lambda a, **kw: lucid.flatten(a, **kw),
           lambda a, out, start_dim=0, end_dim=-1: a.reshape(
               a.shape[:start_dim % max(a.ndim, 1)] + (-1,) + a.shape[end_dim % max(a.ndim, 1) + 1:]).copy()
           if a.ndim else a.reshape(1), _same, ALL_DTYPES,
           lambda d: [S(((2, 3, 4),)), S(((2, 3, 4),), dict(start_dim=1)), S(((2, 3, 4, 5),), dict(start_dim=1, end_dim=2)),
                      S(((),), kind="zerodim"), S(((0, 3),), kind="empty")],
           torch_op=lambda torch, a, **kw: torch.flatten(a, **kw), variants={"method": lambda a, **kw: a.flatten(**kw)},
           view=True),
    OpInfo("clone", lambda a: lucid.clone(a), lambda a, out: a.copy(), _same, ALL_DTYPES,
           lambda d: [S(((3, 4),)), S(((),), kind="zerodim"), S(((0, 3),), kind="empty"), S(((67, 129),), kind="large")],
           torch_op=lambda torch, a: torch.clone(a), variants={"method": lambda a: a.clone()}),
]


# ---- combinations (index_select of host-enumerated index rows)

def _comb_ref(a, out, r=2, with_replacement=False):
    import itertools
    if r == 0:
        return np.zeros((0,), dtype=a.dtype)
    fn = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    rows = [list(c) for c in fn(range(a.shape[0]), r)]
    if not rows:
        return np.zeros((0, r), dtype=a.dtype)
    return a[np.array(rows)]


def _comb_samples(d):
    return [
        S(((4,),), dict(r=2)),
        S(((4,),), dict(r=3, with_replacement=True)),
        S(((3,),), dict(r=1)),
        S(((3,),), dict(r=4)),
        S(((3,),), dict(r=0)),
        S(((5,),), dict(r=2, with_replacement=True)),
        S(((0,),), dict(r=2), kind="empty"),
    ]


OPS += [
    OpInfo("combinations", lambda a, **kw: lucid.combinations(a, **kw), _comb_ref, _same, ALL_DTYPES, _comb_samples,
           torch_op=lambda torch, a, **kw: torch.combinations(a, **kw), cuda=False),
]
