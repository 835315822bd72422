"""Op-table entries: products beyond matmul (mm, bmm, mv, dot, outer, tensordot, einsum, kron, cross, addmm, cdist, ...). See op_table.py for the fields of an entry."""
import numpy as np

import lucid
from helpers import ALL_DTYPES
from op_table import BOOL, F32, F64, OpInfo, Sample, category, wide  # noqa: F401

NO_BOOL = [d for d in ALL_DTYPES if d is not BOOL]
FLOATS = [F32, F64]
FLOAT_COMPLEX = [lucid.float16, lucid.bfloat16, F32, F64, lucid.complex64, lucid.complex128]
# Float tolerances of products follow the matmul entry's (sums over the inner dimension).
MM_TOL = {"float16": (4e-3, 4e-3), "bfloat16": (2e-2, 2e-2), "float32": (1e-4, 1e-4),
          "complex64": (1e-4, 1e-4), "float64": (1e-10, 1e-10), "complex128": (1e-10, 1e-10)}


def _same(d, **_):
    return d


def _w(x, out):
    """A reference operand in wide precision (bools as int64: products of bools are 'any of and')."""
    return np.asarray(x).astype(np.int64) if out is BOOL else wide(x, out)


def _fin(r, out):
    return np.asarray(r) != 0 if out is BOOL else r


def _ref(fn):
    def ref(*args, **kw):
        *arrays, out = args
        return _fin(fn(*[_w(a, out) for a in arrays], **kw), out)
    return ref


def _scales(d):
    """beta/alpha for the add-product family: integers take integral factors (PyTorch truncates floats)."""
    return (3, 2) if category(d) <= 1 else (0.5, 2.0)


def _add_ref(prod):
    def ref(inp, a, b, out, beta=1, alpha=1):
        p = prod(_w(a, out), _w(b, out))
        return p * alpha if beta == 0 else _w(inp, out) * beta + p * alpha
    return ref


# ---- samples

def _big(d, sample):
    """Large samples of chained or elementwise-then-summed products round every intermediate in
    float16/bfloat16 (as PyTorch does): too far from the exact reference for a fixed tolerance."""
    return [] if d in (lucid.float16, lucid.bfloat16) else [sample]


def mm_samples(d):
    return [Sample(((2, 3), (3, 4))), Sample(((1, 1), (1, 1))), Sample(((5, 1), (1, 4))),
            Sample(((0, 3), (3, 4)), kind="empty"), Sample(((2, 0), (0, 3)), kind="empty"),
            Sample(((3, 4), (4, 0)), kind="empty"), Sample(((33, 65), (65, 17)), kind="large")]


def bmm_samples(d):
    return [Sample(((2, 3, 4), (2, 4, 5))), Sample(((1, 2, 3), (1, 3, 2))), Sample(((3, 1, 4), (3, 4, 1))),
            Sample(((0, 2, 3), (0, 3, 4)), kind="empty"), Sample(((2, 0, 3), (2, 3, 4)), kind="empty"),
            Sample(((2, 3, 0), (2, 0, 4)), kind="empty"), Sample(((4, 30, 40), (4, 40, 20)), kind="large")]


def mv_samples(d):
    return [Sample(((3, 4), (4,))), Sample(((1, 5), (5,))), Sample(((0, 3), (3,)), kind="empty"),
            Sample(((3, 0), (0,)), kind="empty"), Sample(((67, 129), (129,)), kind="large")]


def dot_samples(d):
    return [Sample(((5,), (5,))), Sample(((1,), (1,))), Sample(((0,), (0,)), kind="empty"),
            Sample(((513,), (513,)), kind="large")]


def inner_samples(d):
    return [Sample(((3, 4), (5, 4))), Sample(((2, 3, 4), (4,))), Sample(((4,), (4,))),
            Sample(((2, 3), (2, 2, 3)), kind="broadcast"),
            Sample(((), (2, 3)), kind="zerodim"), Sample(((2, 3), ()), kind="zerodim"),
            Sample(((0, 4), (3, 4)), kind="empty"), Sample(((3, 0), (2, 0)), kind="empty"),
            Sample(((40, 64), (30, 64)), kind="large")]


def outer_samples(d):
    return [Sample(((3,), (4,))), Sample(((1,), (5,))), Sample(((0,), (3,)), kind="empty"),
            Sample(((129,), (67,)), kind="large")]


def tensordot_samples(d):
    return [Sample(((2, 3, 4), (3, 4, 5)), dict(dims=2)), Sample(((3, 4), (4, 5)), dict(dims=1)),
            Sample(((2, 3, 4), (4, 3, 5)), dict(dims=([1, 2], [1, 0]))),
            Sample(((3, 2), (3, 4)), dict(dims=([0], [0]))),
            Sample(((2, 3), (4, 2)), dict(dims=0)), Sample(((3, 4), (3, 4)), dict(dims=([0, 1], [0, 1]))),
            Sample(((), ()), dict(dims=0), kind="zerodim"),
            Sample(((0, 3), (3, 4)), dict(dims=1), kind="empty"), Sample(((3, 0), (0, 4)), dict(dims=1), kind="empty"),
            Sample(((8, 16, 12), (16, 12, 10)), dict(dims=2), kind="large")]


def einsum_samples(d):
    e = lambda shapes, eq, kind="basic": Sample(shapes, dict(equation=eq), kind)  # noqa: E731
    return [e(((3, 4), (4, 5)), "ij,jk->ik"), e(((3, 4), (5, 4)), "ij,kj"), e(((2, 3, 4), (2, 4, 5)), "bij,bjk->bik"),
            e(((3, 3),), "ii"), e(((3, 4),), "ij->"), e(((2, 3, 4),), "ijk->ki"), e(((3,), (4,)), "i,j->ij"),
            e(((3, 4), (3, 4)), "ij,ij->i"), e(((3, 3, 4), (4, 2)), "iij,jk->ik"),
            e(((3, 4), (4, 5), (5, 2)), "ij,jk,kl->il"), e(((2, 3), (4, 3, 5), (2, 5)), "bn,anm,bm->ba"),
            e(((2, 3, 4), (4, 5), (3, 5)), "abc,cd,bd->a"),
            e(((2, 1, 3, 4), (5, 4, 2)), "...ij,...jk->...ik", "broadcast"),
            e(((2, 3, 4), (4,)), "a...,...->a", "broadcast"), e(((2, 3, 4), (3, 1)), "a...,...", "broadcast"), e(((3, 1), (3,)), "ij,j->i", "broadcast"),
            e(((), ()), ",->", "zerodim"), e(((), (3,)), ",i->i", "zerodim"),
            e(((0, 3), (3, 4)), "ij,jk->ik", "empty"), e(((3, 0), (0, 4)), "ij,jk->ik", "empty"),
            e(((4, 20, 30), (4, 30, 10)), "bij,bjk->bik", "large")]


def kron_samples(d):
    return [Sample(((2, 3), (4, 5))), Sample(((2,), (3,))), Sample(((2, 3), (4,)), kind="broadcast"),
            Sample(((2,), (3, 4, 2)), kind="broadcast"), Sample(((), (3,)), kind="zerodim"),
            Sample(((), ()), kind="zerodim"), Sample(((0, 3), (2, 2)), kind="empty"),
            Sample(((20, 30), (5, 4)), kind="large")]


def cross_samples(d):
    return [Sample(((4, 3), (4, 3)), dict(dim=1)), Sample(((3, 5), (3, 5)), dict(dim=0)),
            Sample(((3,), (3,)), dict(dim=0)), Sample(((2, 3, 2), (2, 3, 2)), dict(dim=-2)),
            Sample(((2, 1, 3), (1, 4, 3)), dict(dim=-1), kind="broadcast"),
            Sample(((0, 3), (0, 3)), dict(dim=1), kind="empty"), Sample(((1000, 3), (1000, 3)), dict(dim=1), kind="large")]


def _add_samples(shapes_basic, shapes_bcast, shapes_zero, shapes_empty, shapes_large):
    def samples(d):
        beta, alpha = _scales(d)
        out = [Sample(s, dict(beta=beta, alpha=alpha)) for s in shapes_basic]
        out.append(Sample(shapes_basic[0], dict(beta=1, alpha=1)))
        out.append(Sample(shapes_basic[0], dict(beta=0, alpha=alpha)))
        out += [Sample(s, dict(beta=beta, alpha=alpha), kind="broadcast") for s in shapes_bcast]
        out += [Sample(s, dict(beta=beta, alpha=alpha), kind="zerodim") for s in shapes_zero]
        out += [Sample(s, dict(beta=beta, alpha=alpha), kind="empty") for s in shapes_empty]
        out += [x for s in shapes_large for x in _big(d, Sample(s, dict(beta=beta, alpha=alpha), kind="large"))]
        return out
    return samples


addmm_samples = _add_samples([((3, 5), (3, 4), (4, 5))], [((5,), (3, 4), (4, 5)), ((3, 1), (3, 4), (4, 5))],
                             [((), (2, 3), (3, 2))], [((0, 5), (0, 4), (4, 5)), ((3, 5), (3, 0), (0, 5))],
                             [((33, 17), (33, 65), (65, 17))])
addmv_samples = _add_samples([((3,), (3, 4), (4,))], [((1,), (3, 4), (4,))], [((), (3, 4), (4,))],
                             [((0,), (0, 4), (4,)), ((3,), (3, 0), (0,))], [((67,), (67, 129), (129,))])
addr_samples = _add_samples([((3, 4), (3,), (4,))], [((4,), (3,), (4,)), ((3, 1), (3,), (4,))], [((), (3,), (4,))],
                            [((0, 4), (0,), (4,))], [((67, 65), (67,), (65,))])
addbmm_samples = _add_samples([((3, 5), (2, 3, 4), (2, 4, 5))], [((5,), (2, 3, 4), (2, 4, 5))],
                              [((), (2, 3, 4), (2, 4, 5))], [((3, 5), (0, 3, 4), (0, 4, 5)), ((0, 5), (2, 0, 4), (2, 4, 5))],
                              [((20, 10), (4, 20, 30), (4, 30, 10))])
baddbmm_samples = _add_samples([((2, 3, 5), (2, 3, 4), (2, 4, 5))],
                               [((3, 5), (2, 3, 4), (2, 4, 5)), ((2, 1, 5), (2, 3, 4), (2, 4, 5))],
                               [((), (2, 3, 4), (2, 4, 5))], [((0, 3, 5), (0, 3, 4), (0, 4, 5))],
                               [((4, 20, 10), (4, 20, 30), (4, 30, 10))])


def multi_dot_samples(d):
    return [Sample(((3, 4), (4, 5))), Sample(((4,), (4, 5), (5, 3), (3,))), Sample(((2, 3), (3, 10), (10, 2), (2, 6))),
            Sample(((5,), (5,))), Sample(((2,), (2, 6), (6, 3))),
            Sample(((0, 3), (3, 4), (4, 2)), kind="empty")] + _big(d, Sample(((40, 30), (30, 50), (50, 5), (5, 60)), kind="large"))


def chain_samples(d):
    return [Sample(((3, 4), (4, 5))), Sample(((2, 3), (3, 10), (10, 2), (2, 6))), Sample(((3, 4),)),
            Sample(((0, 3), (3, 4), (4, 2)), kind="empty")] + _big(d, Sample(((40, 30), (30, 50), (50, 5)), kind="large"))


def cdist_samples(d):
    s = [Sample(((4, 3), (5, 3)), dict(p=p)) for p in (2.0, 1.0, 0.0, float("inf"), 3.0, 0.5)]
    s += [Sample(((4, 3), (5, 3)), dict(p=2.0, compute_mode="use_mm_for_euclid_dist")),
          Sample(((2, 4, 3), (5, 3)), dict(p=2.0), kind="broadcast"),
          Sample(((2, 1, 3, 2), (3, 4, 2)), dict(p=1.0), kind="broadcast"),
          Sample(((0, 3), (5, 3)), dict(p=2.0), kind="empty"), Sample(((4, 0), (5, 0)), dict(p=2.0), kind="empty"),
          Sample(((30, 8), (40, 8)), dict(p=2.0), kind="large"), Sample(((30, 8), (40, 8)), dict(p=1.5), kind="large")]
    return s


def vecdot_samples(d):
    return [Sample(((3, 4), (3, 4)), dict(dim=-1)), Sample(((3, 4), (3, 4)), dict(dim=0)),
            Sample(((3, 4), (4,)), dict(dim=-1), kind="broadcast"), Sample(((0, 4), (0, 4)), dict(dim=0), kind="empty"),
            *_big(d, Sample(((100, 64), (100, 64)), dict(dim=-1), kind="large"))]


# ---- references

def _cdist_ref(a, b, out, p=2.0, compute_mode=None):
    A, B = wide(a, out), wide(b, out)
    diff = np.abs(A[..., :, None, :] - B[..., None, :, :])
    if p == 0:
        return (diff != 0).sum(-1).astype(np.float64)
    if np.isinf(p):
        return diff.max(-1, initial=0.0)
    return (diff ** p).sum(-1) ** (1.0 / p)


def _np_einsum(equation, *xs):
    """np.einsum with the ellipsis spelled out in letters (so an output without '...' sums those dims,
    as PyTorch does; NumPy refuses that)."""
    lhs, arrow, rhs = equation.replace(" ", "").partition("->")
    terms = lhs.split(",")
    n_ell = max((x.ndim - len(t.replace("...", "")) for t, x in zip(terms, xs) if "..." in t), default=0)
    free = [c for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ" if c not in equation][:n_ell]
    new_terms = []
    for t, x in zip(terms, xs):
        k = x.ndim - len(t.replace("...", ""))
        new_terms.append(t.replace("...", "".join(free[n_ell - k:])))
    if arrow:
        rhs = rhs.replace("...", "".join(free))
    else:
        letters = "".join(new_terms).replace("".join(free), "")
        rhs = "".join(free) + "".join(sorted(c for c in set(letters) if letters.count(c) == 1 and c not in free))
    return np.einsum(",".join(new_terms) + "->" + rhs, *xs)


def _tensordot_np(a, b, dims):
    return np.tensordot(a, b, axes=dims)


def _cross_np(a, b, dim):
    a, b = np.broadcast_arrays(a, b)
    a0, a1, a2 = (np.take(a, i, axis=dim) for i in range(3))
    b0, b1, b2 = (np.take(b, i, axis=dim) for i in range(3))
    return np.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=dim)


def _torch_einsum(torch, *xs, equation):
    # PyTorch's einsum returns int64 for integer/bool inputs whenever its algorithm happens to call
    # sum() on them (single-operand reductions, size-1 broadcast labels) and the input dtype
    # otherwise; lucid keeps the input dtype throughout (as NumPy does): compare values only.
    return torch.einsum(equation, *xs).to(xs[0].dtype)


OPS = [
    OpInfo("mm", lambda a, b: lucid.mm(a, b), _ref(np.matmul), _same, ALL_DTYPES, mm_samples,
           torch_op=lambda torch, a, b: torch.mm(a, b), variants={"method": lambda a, b: a.mm(b)},
           kinds=("small", "small"), tol=MM_TOL),
    OpInfo("bmm", lambda a, b: lucid.bmm(a, b), _ref(np.matmul), _same, ALL_DTYPES, bmm_samples,
           torch_op=lambda torch, a, b: torch.bmm(a, b), variants={"method": lambda a, b: a.bmm(b)},
           kinds=("small", "small"), tol=MM_TOL),
    OpInfo("mv", lambda a, b: lucid.mv(a, b), _ref(np.matmul), _same, ALL_DTYPES, mv_samples,
           torch_op=lambda torch, a, b: torch.mv(a, b), variants={"method": lambda a, b: a.mv(b)},
           kinds=("small", "small"), tol=MM_TOL),
    OpInfo("dot", lambda a, b: lucid.dot(a, b), _ref(np.dot), _same, ALL_DTYPES, dot_samples,
           torch_op=lambda torch, a, b: torch.dot(a, b), variants={"method": lambda a, b: a.dot(b)},
           kinds=("small", "small"), tol=MM_TOL),
    OpInfo("vdot", lambda a, b: lucid.vdot(a, b), _ref(np.vdot), _same, ALL_DTYPES, dot_samples,
           torch_op=lambda torch, a, b: torch.vdot(a, b), variants={"method": lambda a, b: a.vdot(b)},
           kinds=("small", "small"), tol=MM_TOL),
    OpInfo("inner", lambda a, b: lucid.inner(a, b), _ref(np.inner), _same, ALL_DTYPES, inner_samples,
           torch_op=lambda torch, a, b: torch.inner(a, b), variants={"method": lambda a, b: a.inner(b)},
           kinds=("small", "small"), tol=MM_TOL),
    OpInfo("outer", lambda a, b: lucid.outer(a, b), _ref(np.outer), _same, ALL_DTYPES, outer_samples,
           torch_op=lambda torch, a, b: torch.outer(a, b),
           variants={"method": lambda a, b: a.outer(b), "ger": lambda a, b: lucid.ger(a, b),
                     "ger_method": lambda a, b: a.ger(b)},
           kinds=("small", "small"), tol=MM_TOL),
    OpInfo("tensordot", lambda a, b, dims: lucid.tensordot(a, b, dims=dims), _ref(_tensordot_np), _same, ALL_DTYPES,
           tensordot_samples, torch_op=lambda torch, a, b, dims: torch.tensordot(a, b, dims=dims),
           kinds=("small", "small"), tol=MM_TOL),
    OpInfo("einsum", lambda *xs, equation: lucid.einsum(equation, *xs), _ref(lambda *xs, equation: _np_einsum(equation, *xs)),
           _same, ALL_DTYPES, einsum_samples, torch_op=_torch_einsum,
           variants={"list": lambda *xs, equation: lucid.einsum(equation, list(xs))},
           kinds=("small", "small", "small"), tol=MM_TOL),
    OpInfo("kron", lambda a, b: lucid.kron(a, b), _ref(np.kron), _same, ALL_DTYPES, kron_samples,
           torch_op=lambda torch, a, b: torch.kron(a, b), variants={"method": lambda a, b: a.kron(b)},
           kinds=("small", "small"), tol=MM_TOL),
    OpInfo("cross", lambda a, b, dim: lucid.cross(a, b, dim=dim), _ref(_cross_np), _same, NO_BOOL, cross_samples,
           torch_op=lambda torch, a, b, dim: torch.cross(a, b, dim=dim),
           variants={"method": lambda a, b, dim: a.cross(b, dim=dim),
                     "linalg": lambda a, b, dim: lucid.linalg.cross(a, b, dim=dim)},
           kinds=("small", "small"), tol=MM_TOL, cuda=False),
    OpInfo("addmm", lambda i, a, b, **kw: lucid.addmm(i, a, b, **kw), _add_ref(np.matmul), _same, NO_BOOL,
           addmm_samples, torch_op=lambda torch, i, a, b, **kw: torch.addmm(i, a, b, **kw),
           variants={"method": lambda i, a, b, **kw: i.addmm(a, b, **kw)}, kinds=("small", "small", "small"),
           tol=MM_TOL),
    OpInfo("addmv", lambda i, a, b, **kw: lucid.addmv(i, a, b, **kw), _add_ref(np.matmul), _same, NO_BOOL,
           addmv_samples, torch_op=lambda torch, i, a, b, **kw: torch.addmv(i, a, b, **kw),
           variants={"method": lambda i, a, b, **kw: i.addmv(a, b, **kw)}, kinds=("small", "small", "small"),
           tol=MM_TOL),
    OpInfo("addr", lambda i, a, b, **kw: lucid.addr(i, a, b, **kw), _add_ref(np.outer), _same, NO_BOOL,
           addr_samples, torch_op=lambda torch, i, a, b, **kw: torch.addr(i, a, b, **kw),
           variants={"method": lambda i, a, b, **kw: i.addr(a, b, **kw)}, kinds=("small", "small", "small"),
           tol=MM_TOL),
    OpInfo("addbmm", lambda i, a, b, **kw: lucid.addbmm(i, a, b, **kw),
           _add_ref(lambda a, b: np.matmul(a, b).sum(0)), _same, NO_BOOL, addbmm_samples,
           torch_op=lambda torch, i, a, b, **kw: torch.addbmm(i, a, b, **kw),
           variants={"method": lambda i, a, b, **kw: i.addbmm(a, b, **kw)}, kinds=("small", "small", "small"),
           tol=MM_TOL),
    OpInfo("baddbmm", lambda i, a, b, **kw: lucid.baddbmm(i, a, b, **kw), _add_ref(np.matmul), _same, NO_BOOL,
           baddbmm_samples, torch_op=lambda torch, i, a, b, **kw: torch.baddbmm(i, a, b, **kw),
           variants={"method": lambda i, a, b, **kw: i.baddbmm(a, b, **kw)}, kinds=("small", "small", "small"),
           tol=MM_TOL),
    OpInfo("multi_dot", lambda *xs: lucid.linalg.multi_dot(xs), _ref(lambda *xs: np.linalg.multi_dot(xs)), _same,
           ALL_DTYPES, multi_dot_samples, torch_op=lambda torch, *xs: torch.linalg.multi_dot(xs),
           variants={"list": lambda *xs: lucid.linalg.multi_dot(list(xs))}, kinds=("small",) * 4, tol=MM_TOL),
    OpInfo("chain_matmul", lambda *xs: lucid.chain_matmul(*xs),
           _ref(lambda *xs: np.linalg.multi_dot(xs) if len(xs) > 1 else xs[0].copy()), _same, ALL_DTYPES,
           chain_samples, torch_op=lambda torch, *xs: torch.linalg.multi_dot(xs) if len(xs) > 1 else xs[0].clone(),
           kinds=("small",) * 4, tol=MM_TOL),
    OpInfo("cdist", lambda a, b, **kw: lucid.cdist(a, b, **kw), _cdist_ref, _same, FLOATS, cdist_samples,
           torch_op=lambda torch, a, b, **kw: torch.cdist(a, b, **kw), tol=MM_TOL, cuda=False),
    OpInfo("vecdot", lambda x, y, dim: lucid.linalg.vecdot(x, y, dim=dim),
           lambda x, y, out, dim: np.sum(np.conj(wide(x, out)) * wide(y, out), axis=dim), _same, FLOAT_COMPLEX,
           vecdot_samples, torch_op=lambda torch, x, y, dim: torch.linalg.vecdot(x, y, dim=dim),
           kinds=("small", "small"), tol=MM_TOL),
]


# ---- norms

_INF = float("inf")


def _real_of(d, **_):
    return {"complex64": F32, "complex128": F64}.get(d.name, d)


def _vnorm_np(a, ord, axis, keepdims):
    if ord == 0:
        return np.sum(a != 0, axis=axis, keepdims=keepdims).astype(np.float64)
    if ord == _INF:
        return np.max(a, axis=axis, keepdims=keepdims)
    if ord == -_INF:
        return np.min(a, axis=axis, keepdims=keepdims)
    with np.errstate(divide="ignore"):
        return np.sum(a ** ord, axis=axis, keepdims=keepdims) ** (1.0 / ord)


def _vector_norm_ref(x, out, ord=2, dim=None, keepdim=False):
    a = np.abs(wide(x, lucid.complex128 if np.iscomplexobj(x) else out))
    axis = tuple(dim) if isinstance(dim, (tuple, list)) else dim
    return _vnorm_np(a, ord, axis, keepdim)


def _matrix_norm_ref(x, out, ord="fro", dim=(-2, -1), keepdim=False):
    a = np.abs(wide(x, lucid.complex128 if np.iscomplexobj(x) else out))
    if ord == "fro":
        return np.sqrt(np.sum(a * a, axis=tuple(dim), keepdims=keepdim))
    d0, d1 = (d % a.ndim for d in dim)
    if ord in (1, -1):
        s = a.sum(axis=d0, keepdims=True)
        r = s.max(axis=d1, keepdims=True) if ord == 1 else s.min(axis=d1, keepdims=True)
    else:
        s = a.sum(axis=d1, keepdims=True)
        r = s.max(axis=d0, keepdims=True) if ord == _INF else s.min(axis=d0, keepdims=True)
    return r if keepdim else np.squeeze(r, axis=(d0, d1))


def vector_norm_samples(d):
    half = d in (lucid.float16, lucid.bfloat16)
    s = [Sample(((3, 4),), dict(ord=2, dim=None, keepdim=False)), Sample(((3, 4),), dict(ord=1, dim=1, keepdim=False)),
         Sample(((3, 4),), dict(ord=_INF, dim=0, keepdim=True)), Sample(((3, 4),), dict(ord=-_INF, dim=1, keepdim=False)),
         Sample(((3, 4),), dict(ord=0, dim=None, keepdim=False)),
         Sample(((2, 3, 4),), dict(ord=2, dim=(0, 2), keepdim=True)),
         Sample(((),), dict(ord=2, dim=None, keepdim=False), kind="zerodim"),
         Sample(((0, 3),), dict(ord=2, dim=0, keepdim=False), kind="empty"),
         Sample(((0, 3),), dict(ord=1, dim=1, keepdim=False), kind="empty")]
    if not half:
        s += [Sample(((2, 3, 4),), dict(ord=3, dim=(0, 1), keepdim=False)),
              Sample(((3, 4),), dict(ord=0.5, dim=1, keepdim=False)), Sample(((3, 4),), dict(ord=-1, dim=1, keepdim=False)),
              Sample(((301, 257),), dict(ord=2, dim=None, keepdim=False), kind="large"),
              Sample(((301, 257),), dict(ord=1.5, dim=1, keepdim=False), kind="large")]
    return s


def matrix_norm_samples(d):
    s = [Sample(((3, 4),), dict(ord=o)) for o in ("fro", 1, -1, _INF, -_INF)]
    s += [Sample(((2, 3, 4),), dict(ord="fro", dim=(0, 2), keepdim=True)),
          Sample(((2, 3, 4),), dict(ord=1, dim=(2, 0), keepdim=False)),
          Sample(((2, 3, 4),), dict(ord=_INF, dim=(-1, -2), keepdim=True)),
          Sample(((0, 3),), dict(ord="fro"), kind="empty")]
    if d not in (lucid.float16, lucid.bfloat16):
        s.append(Sample(((3, 67, 129),), dict(ord="fro"), kind="large"))
    return s


OPS += [
    OpInfo("vector_norm", lambda x, **kw: lucid.linalg.vector_norm(x, **kw), _vector_norm_ref, _real_of, FLOAT_COMPLEX,
           vector_norm_samples, torch_op=lambda torch, x, **kw: torch.linalg.vector_norm(x, **kw),
           variants={"norm": lambda x, ord, dim, keepdim: lucid.norm(x, ord, dim, keepdim) if dim is not None
                     else lucid.linalg.vector_norm(x, ord, dim, keepdim)},
           kinds=("default",), tol=MM_TOL, cuda=False),
    OpInfo("matrix_norm", lambda x, **kw: lucid.linalg.matrix_norm(x, **kw), _matrix_norm_ref, _real_of, FLOAT_COMPLEX,
           matrix_norm_samples, torch_op=lambda torch, x, **kw: torch.linalg.matrix_norm(x, **kw),
           variants={"linalg.norm": lambda x, ord, dim=(-2, -1), keepdim=False: lucid.linalg.norm(x, ord, dim, keepdim)},
           kinds=("default",), tol=MM_TOL, cuda=False),
]
