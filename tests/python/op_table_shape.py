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
    return OpInfo(name, lambda *ts, **kw: fn(list(ts), **kw), ref, _same, dtypes, samples,
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
