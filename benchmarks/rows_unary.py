"""Unary math rows (engine/backend/cpu/vmath_*.h): the transcendental functions on 1M (quick) and
10M float32 elements, each on inputs inside its domain (drawn once, outside the timed call)."""
import lucid
import torch

from harness import Row
from rows import _pair

# name: the input, from a ~ N(0, 1): "x" as is, "pos" |a| + 0.1, "unit" 0.99 tanh(a) in (-1, 1),
# "ge1" |a| + 1
_OPS = [("exp2", "x"), ("expm1", "x"), ("log", "pos"), ("log2", "pos"), ("log10", "pos"), ("log1p", "pos"),
        ("sin", "x"), ("cos", "x"), ("tan", "x"), ("asin", "unit"), ("acos", "unit"), ("atan", "x"),
        ("sinh", "x"), ("cosh", "x"), ("tanh", "x"), ("asinh", "x"), ("acosh", "ge1"), ("atanh", "unit"),
        ("sigmoid", "x"), ("erf", "x"), ("erfc", "x"), ("erfinv", "unit"), ("lgamma", "pos"),
        ("digamma", "pos")]


def _inputs(a, lib):
    return {"x": a, "pos": a.abs() + 0.1, "unit": lib.tanh(a) * 0.99, "ge1": a.abs() + 1.0}


def unary_rows(device, quick):
    rows = []
    for n in ((1 << 20,) if quick else (1 << 20, 10_000_000)):
        a, ta = _pair((n,), device)
        li, ti = _inputs(a, lucid), _inputs(ta, torch)
        for name, dom in _OPS:
            x, tx, lf, tf = li[dom], ti[dom], getattr(lucid, name), getattr(torch, name)
            rows.append(Row("unary", f"{name} {n}", lambda lf=lf, x=x: lf(x), lambda tf=tf, tx=tx: tf(tx),
                            bytes_moved=8 * n))
    return rows
