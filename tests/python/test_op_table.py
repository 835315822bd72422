"""Generic checks driven by op_table.OPS: forward against NumPy for every supported dtype, every
spelling of the op, non-contiguous inputs (transposed, sliced with steps, expanded), broadcast, 0-d
and empty inputs, dtype promotion on mixed inputs, the result against PyTorch where installed, and
CUDA against CPU where available. Focused tests of the same ops follow at the end."""
import zlib

import numpy as np
import pytest

import lucid
from helpers import ALL_DTYPES, TOL, assert_close, cast_ref, make_tensor, random_array, run_isolated, to_numpy
from op_table import ALL_OPS, OPS, OPS_BY_NAME, expected_promote, expected_scalar_result, true_div_dtype

RNG_SEED = 20240601

# PyTorch computes float16 x complex in its experimental complex32 and warns about it
pytestmark = pytest.mark.filterwarnings("ignore:ComplexHalf support is experimental")


def _rng(*key):
    """A generator seeded by the test's identity (stable across runs and processes)."""
    return np.random.default_rng([RNG_SEED, zlib.crc32("/".join(map(str, key)).encode())])


def _tol(op, d):
    r, a = op.tol.get(d.name, TOL.get(d.name, (0, 0)))
    return r, a


def _inputs(op, sample, d, rng, layout="contiguous", device="cpu"):
    tensors, refs = [], []
    for i, shape in enumerate(sample.shapes):
        kind = op.kinds[i] if i < len(op.kinds) else "default"
        lay = layout
        if layout == "mixed":
            lay = ["transposed", "sliced", "expanded"][i % 3]
        r = make_tensor(shape, d, rng, lay, kind, device)
        if r is None:
            r = make_tensor(shape, d, rng, "contiguous", kind, device)
        tensors.append(r[0])
        refs.append(r[1])
    return tensors, refs


def _expected(op, sample, d, refs):
    out = op.out_dtype(d, **sample.kwargs)
    exact = op.ref(*refs, out, **sample.kwargs)
    if isinstance(out, tuple):      # an op with several outputs (values and indices, var_mean, ...)
        return out, tuple(cast_ref(e, o) for e, o in zip(exact, out))
    return out, cast_ref(exact, out)


def outputs(result):
    """An op's result as a tuple of tensors (one-output ops give a 1-tuple)."""
    return tuple(result) if isinstance(result, (tuple, list)) else (result,)


def _check(op, sample, d, tensors, refs, msg=""):
    out_dtype, expected = _expected(op, sample, d, refs)
    result = op.op(*tensors, **sample.kwargs)
    outs = outputs(result)
    if not isinstance(out_dtype, tuple):
        out_dtype, expected = (out_dtype,), (expected,)
    assert len(outs) == len(out_dtype), f"{op.name} {sample.id}: {len(outs)} outputs, expected {len(out_dtype)}"
    for i, (res, od, ex) in enumerate(zip(outs, out_dtype, expected)):
        r, a = _tol(op, res.dtype) if (res.dtype.is_floating_point or res.dtype.is_complex) else (0, 0)
        assert_close(res, ex, dtype=od, rtol=r, atol=a, msg=f"{op.name} {sample.id} output {i} {msg}")
    return result


def _params(ops, with_samples=True, kinds=None):
    out = []
    for op in ops:
        for d in op.dtypes:
            if not with_samples:
                out.append(pytest.param(op, d, id=f"{op.name}-{d.name}"))
                continue
            for s in op.samples(d):
                if kinds and s.kind not in kinds:
                    continue
                marks = []
                if s.crash:
                    marks.append(pytest.mark.xfail(run=False, reason="BUG (crashes the interpreter): " + s.crash))
                out.append(pytest.param(op, d, s, id=f"{op.name}-{d.name}-{s.id}", marks=marks))
    return out


# ---------------------------------------------------------------------------------------------
# forward against NumPy: every op, dtype and sample (basic, broadcast, 0-d, empty, large)

@pytest.mark.parametrize("op,d,sample", _params(ALL_OPS))
def test_forward(op, d, sample):
    rng = _rng("fwd", op.name, d.name, sample.id)
    tensors, refs = _inputs(op, sample, d, rng)
    before = [to_numpy(t) for t in tensors]
    result = _check(op, sample, d, tensors, refs)
    # a fresh, contiguous output that aliases no input; inputs untouched
    for res in outputs(result):
        if op.view:
            assert any(res._is_view_of(t) for t in tensors), f"{op.name}: expected a view of an input"
            continue
        assert res.is_contiguous()
        for t in tensors:
            assert not res._is_view_of(t)
    for t, b in zip(tensors, before):
        np.testing.assert_array_equal(to_numpy(t), b)


@pytest.mark.parametrize("op,d", _params([o for o in ALL_OPS if o.variants], with_samples=False))
def test_variants_agree(op, d):
    """Method, operator and module-function spellings give bit-identical results."""
    rng = _rng("var", op.name, d.name)
    for sample in op.samples(d):
        if sample.crash or sample.kind == "large":
            continue
        tensors, _ = _inputs(op, sample, d, rng)
        base = [to_numpy(o) for o in outputs(op.op(*tensors, **sample.kwargs))]
        for vname, fn in op.variants.items():
            got = [to_numpy(o) for o in outputs(fn(*tensors, **sample.kwargs))]
            assert len(got) == len(base), f"{op.name}/{vname} {sample.id}: number of outputs"
            for g, b in zip(got, base):
                np.testing.assert_array_equal(g, b, err_msg=f"{op.name}/{vname} {sample.id}")


@pytest.mark.parametrize("layout", ["transposed", "sliced", "expanded", "mixed"])
@pytest.mark.parametrize("op,d", _params(ALL_OPS, with_samples=False))
def test_noncontiguous(op, d, layout):
    """Transposed views, slices with offsets and steps, and stride-0 expanded inputs give the NumPy
    result (kernels take strided views or copy, but never read the wrong elements)."""
    rng = _rng("nc", op.name, d.name, layout)
    checked = 0
    for sample in op.samples(d):
        if sample.crash:
            continue
        tensors, refs = _inputs(op, sample, d, rng, layout)
        if all(t.is_contiguous() for t in tensors) and sample.kind != "zerodim":
            continue
        _check(op, sample, d, tensors, refs, msg=f"layout={layout}")
        checked += 1
    if checked == 0 and layout in ("transposed", "mixed") and all(len(sh) < 2 for x in op.samples(d) for sh in x.shapes):
        pytest.skip("1-D inputs only: no transposed layout")
    assert checked > 0


@pytest.mark.parametrize("op,d", _params([o for o in OPS if o.arity == 2 and o.name != "matmul"],
                                          with_samples=False))
def test_broadcast_is_symmetric(op, d):
    """op(a, b) with b broadcast along a's dims equals op(a, b.expand(a.shape).contiguous())."""
    rng = _rng("bcast", op.name, d.name)
    for sa, sb in [((3, 4), (4,)), ((3, 4), (3, 1)), ((2, 3, 4), (1, 4)), ((2, 3, 4), ())]:
        a, _ = make_tensor(sa, d, rng, kind=op.kinds[0])
        b, _ = make_tensor(sb, d, rng, kind=op.kinds[1])
        got = op.op(a, b)
        full = op.op(a, b.expand(*sa).contiguous())
        assert tuple(got.shape) == sa
        np.testing.assert_array_equal(to_numpy(got), to_numpy(full))
        got_r = op.op(b.expand(*sa), a)
        full_r = op.op(b.expand(*sa).contiguous(), a)
        np.testing.assert_array_equal(to_numpy(got_r), to_numpy(full_r))


# ---------------------------------------------------------------------------------------------
# dtype promotion: every pair of dtypes for the binary ops, tensors and 0-d tensors

PAIR_OPS = [o for o in ALL_OPS if o.promotes]


@pytest.mark.parametrize("db", ALL_DTYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("da", ALL_DTYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("op", PAIR_OPS, ids=lambda o: o.name)
def test_promotion_pairs(op, da, db):
    """(3, 4) tensor of da with a (4,) tensor of db: PyTorch's promotion, values as NumPy."""
    promoted = expected_promote(da, db)
    out = true_div_dtype(promoted) if op.name == "div" else op.out_dtype(promoted)
    rng = _rng("pairs", op.name, da.name, db.name)
    a, ra = make_tensor((3, 4), da, rng, kind=op.kinds[0])
    b, rb = make_tensor((4,), db, rng, kind=op.kinds[1])
    refused = ((op.name == "sub" and lucid.bool_ in (da, db))   # PyTorch refuses sub with any bool tensor
               or promoted not in op.dtypes                       # e.g. bitwise ops on floats, hypot on ints
               or (op.name == "heaviside" and da is not db))      # heaviside wants one dtype
    if refused:
        with pytest.raises((TypeError, RuntimeError)):
            op.op(a, b)
        return
    result = op.op(a, b)
    expected = cast_ref(op.ref(ra, rb, out), out)
    r, t = TOL.get(out.name, (0, 0))
    assert_close(result, expected, dtype=out, rtol=r, atol=t, msg=f"{op.name} {da.name},{db.name}")


def _expected_with_zero_dim(dim_dtype, zero_dtype):
    """PyTorch: a 0-d tensor only decides the result when it is of a higher category."""
    from op_table import category, _to_complex
    cd, cz = category(dim_dtype), category(zero_dtype)
    if cz <= cd:
        return dim_dtype
    if cz == 3 and cd == 2:
        return _to_complex(dim_dtype)     # the float keeps its precision: float32 + 0-d complex128 -> complex64
    return zero_dtype


@pytest.mark.parametrize("dz", ALL_DTYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("dd", ALL_DTYPES, ids=lambda d: d.name)
def test_promotion_with_zero_dim_tensor(dd, dz):
    """A 0-d tensor operand takes part in promotion only across categories (as in PyTorch)."""
    rng = _rng("zd", dd.name, dz.name)
    a, ra = make_tensor((2, 3), dd, rng)
    z, rz = make_tensor((), dz, rng)
    op = OPS_BY_NAME["add"]
    out = _expected_with_zero_dim(dd, dz)
    for x, y, rx, ry in [(a, z, ra, rz), (z, a, rz, ra)]:
        result = x + y
        expected = cast_ref(op.ref(rx, ry, out), out)
        r, t = TOL.get(out.name, (0, 0))
        assert_close(result, expected, dtype=out, rtol=r, atol=t, msg=f"{dd.name} + 0-d {dz.name}")


@pytest.mark.parametrize("dz", ALL_DTYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("dd", ALL_DTYPES, ids=lambda d: d.name)
def test_zero_dim_promotion_vs_torch(torch, dd, dz):
    ta = torch.ones(2, 3, dtype=getattr(torch, dd.name))
    tz = torch.ones((), dtype=getattr(torch, dz.name))
    la = lucid.ones(2, 3, dtype=dd)
    lz = lucid.ones((), dtype=dz)
    for tx, ty, lx, ly in [(ta, tz, la, lz), (tz, ta, lz, la)]:
        want = str(torch.result_type(tx, ty)).replace("torch.", "").replace("complex32", "complex64")
        assert (lx + ly).dtype.name == want
        assert (lx * ly).dtype.name == want
        assert lucid.result_type(lx, ly).name == want


# ---------------------------------------------------------------------------------------------
# PyTorch as a second oracle: result dtype (torch.result_type semantics) and values

def _to_torch(torch, ref, d):
    t = torch.from_numpy(np.array(ref, copy=True))
    return t.to(getattr(torch, d.name))


def _torch_to_numpy(t):
    import torch
    if t.dtype is torch.bfloat16:
        t = t.float()
    if t.dtype is torch.complex32:
        t = t.to(torch.complex64)
    return t.numpy()


@pytest.mark.parametrize("op,d,sample", _params([o for o in ALL_OPS if o.torch_op]))
def test_matches_torch(torch, op, d, sample):
    rng = _rng("torch", op.name, d.name, sample.id)
    tensors, refs = _inputs(op, sample, d, rng)
    tinputs = [_to_torch(torch, r, d) for r in refs]
    kwargs = dict(sample.kwargs)
    try:
        want = op.torch_op(torch, *tinputs, **kwargs)
    except (RuntimeError, NotImplementedError, TypeError) as e:
        pytest.skip(f"PyTorch refuses this input: {e}")
    got_all = outputs(op.op(*tensors, **kwargs))
    want_all = outputs(want)
    assert len(got_all) == len(want_all), f"{op.name} {sample.id}: number of outputs vs torch"
    for got, want in zip(got_all, want_all):
        want_name = str(want.dtype).replace("torch.", "").replace("complex32", "complex64")
        assert got.dtype.name == want_name, f"{op.name} {sample.id}: lucid {got.dtype} vs torch {want.dtype}"
        assert tuple(got.shape) == tuple(want.shape)
        r, a = _tol(op, got.dtype) if (got.dtype.is_floating_point or got.dtype.is_complex) else (0, 0)
        # torch's own float16/bfloat16 rounding may differ by one unit from ours: allow two
        if got.dtype.name in ("float16", "bfloat16"):
            r, a = 2 * r, 2 * a
        if want.dtype is torch.complex32:     # lucid has no complex32: compare at half precision
            r, a = 2 * TOL["float16"][0], 2 * TOL["float16"][1]
        assert_close(got, _torch_to_numpy(want), rtol=r, atol=a, msg=f"{op.name} {sample.id} vs torch")


# ---------------------------------------------------------------------------------------------
# CUDA against CPU

@pytest.mark.cuda
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "sliced", "expanded"])
@pytest.mark.parametrize("op,d", _params(ALL_OPS, with_samples=False))
def test_cuda_matches_cpu(cuda_device, op, d, layout):
    if not op.cuda:
        pytest.skip(f"{op.name}: no CUDA kernel yet (CPU-only op family)")
    rng = _rng("cuda", op.name, d.name, layout)
    for sample in op.samples(d):
        if sample.crash:
            continue
        tensors, _ = _inputs(op, sample, d, rng, layout)
        cpu_all = outputs(op.op(*tensors, **sample.kwargs))
        gpu_inputs = [t.cuda() for t in tensors]
        assert all(t.is_cuda for t in gpu_inputs)
        if layout != "contiguous":
            # keep the layout on the device too
            gpu_inputs = [_same_layout_on_cuda(t) for t in tensors]
        gpu_all = outputs(op.op(*gpu_inputs, **sample.kwargs))
        for cpu, gpu in zip(cpu_all, gpu_all):
            assert gpu.is_cuda and gpu.device == "cuda:0"
            assert gpu.dtype is cpu.dtype and tuple(gpu.shape) == tuple(cpu.shape)
            r, a = _tol(op, cpu.dtype) if (cpu.dtype.is_floating_point or cpu.dtype.is_complex) else (0, 0)
            assert_close(gpu.cpu(), to_numpy(cpu), rtol=r, atol=a, msg=f"{op.name} {sample.id} cuda vs cpu")


def _same_layout_on_cuda(t):
    """A CUDA tensor with t's values and t's strides (a strided view of a CUDA buffer)."""
    if t.is_contiguous() or t.numel() == 0:
        return t.cuda()
    if 0 in t.stride():
        src = t
        dims = [i for i, s in enumerate(t.stride()) if s == 0]
        for i in dims:
            src = src.narrow(i, 0, 1)
        return src.contiguous().cuda().expand(*t.shape)
    order = sorted(range(t.dim()), key=lambda i: -t.stride(i))
    base = t.permute(order).contiguous().cuda()
    inv = [order.index(i) for i in range(t.dim())]
    return base.permute(inv)


# ---------------------------------------------------------------------------------------------
# focused tests on the same ops

@pytest.mark.parametrize("expr,expected", [
    ("lucid.zeros(0).sum()", 0.0),
    ("lucid.zeros(0, 3).sum(0)", [0.0, 0.0, 0.0]),
    ("lucid.zeros(3, 0).sum(1)", [0.0, 0.0, 0.0]),
    ("lucid.zeros(0, 3, dtype=lucid.int32).sum(0, keepdim=True)", [[0, 0, 0]]),
    ("lucid.zeros(2, 0, 3).sum((0, 1))", [0.0, 0.0, 0.0]),
])
def test_sum_empty_reduction_does_not_crash(expr, expected):
    """Sums over a reduced extent of 0 give zeros (once a SIGFPE: run in a child interpreter)."""
    proc = run_isolated(f"import lucid\nprint({expr}.tolist())")
    assert proc.returncode == 0, f"{expr}: exit code {proc.returncode}, stderr {proc.stderr[-300:]!r}"
    assert proc.stdout.strip() == repr(expected)


def test_sum_of_empty_without_reduced_extent():
    """Summing over non-empty dims of an empty tensor is fine (the output is empty)."""
    r = lucid.zeros(0, 3).sum(1)
    assert tuple(r.shape) == (0,) and r.dtype is lucid.float32
    r = lucid.zeros(3, 0).sum(0)
    assert tuple(r.shape) == (0,)


def test_true_division_of_integers():
    t = lucid.tensor([1, 2, 3])
    r = t / 2
    assert r.dtype is lucid.float32
    assert r.tolist() == [0.5, 1.0, 1.5]
    r = t / lucid.tensor([2, 4, 8], dtype=lucid.int32)
    assert r.dtype is lucid.float32
    assert r.tolist() == [0.5, 0.5, 0.375]
    assert (lucid.tensor(7) / lucid.tensor(2)).item() == 3.5
    assert (lucid.tensor([True, False]) / lucid.tensor([True, True])).tolist() == [1.0, 0.0]
    assert (lucid.tensor([1, -1, 0]) / 0).tolist()[:2] == [float("inf"), float("-inf")]
    assert np.isnan((lucid.tensor([0]) / 0).item())


def test_true_division_follows_default_dtype():
    lucid.set_default_dtype(lucid.float64)
    try:
        r = lucid.tensor([1, 2]) / lucid.tensor([4, 8])
        assert r.dtype is lucid.float64
        assert (lucid.tensor([1, 2]) + 0.5).dtype is lucid.float64
        assert (lucid.tensor([1, 2]) * 1j).dtype is lucid.complex128
    finally:
        lucid.set_default_dtype(lucid.float32)
    assert (lucid.tensor([1, 2]) / 2).dtype is lucid.float32


@pytest.mark.parametrize("d", ALL_DTYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("scalar", [True, 2, -1.5, 0.5 + 2j], ids=["bool", "int", "float", "complex"])
def test_scalar_result_dtype_vs_torch(torch, d, scalar):
    lt = lucid.ones(3, dtype=d)
    tt = torch.ones(3, dtype=getattr(torch, d.name))
    want = str(torch.result_type(tt, scalar)).replace("torch.", "").replace("complex32", "complex64")
    assert lucid.result_type(lt, scalar).name == want
    assert expected_scalar_result(d, scalar).name == want
    assert (lt * scalar).dtype.name == want
    assert (scalar * lt).dtype.name == want
    try:
        want_div = str((tt / scalar).dtype).replace("torch.", "").replace("complex32", "complex64")
    except (RuntimeError, NotImplementedError):
        return   # torch has no complex32 division on the CPU
    assert (lt / scalar).dtype.name == want_div


@pytest.mark.parametrize("name", ["add_", "sub_", "mul_", "div_"])
@pytest.mark.parametrize("d", [lucid.float32, lucid.float64, lucid.float16, lucid.int32, lucid.int64,
                               lucid.complex64, lucid.uint8], ids=lambda d: d.name)
def test_inplace_matches_out_of_place(name, d):
    rng = _rng("inplace", name, d.name)
    a, _ = make_tensor((3, 4), d, rng)
    b, _ = make_tensor((4,), d, rng, kind="nonzero")
    out_of_place = getattr(a, name[:-1])(b)
    if name == "div_" and not (d.is_floating_point or d.is_complex):
        with pytest.raises(lucid.DtypeMismatch, match="div_"):
            a.clone().div_(b)
        return
    x = a.clone()
    v = x._version
    ptr = x.data_ptr()
    y = getattr(x, name)(b)
    assert y is x
    assert x._version == v + 1
    assert x.data_ptr() == ptr
    np.testing.assert_array_equal(to_numpy(x), to_numpy(out_of_place))


def test_inplace_operators_keep_identity():
    x = lucid.arange(6.0).reshape(2, 3)
    ident = id(x)
    x += 1
    x -= lucid.tensor([1.0, 1.0, 1.0])
    x *= 2
    x /= 4
    assert id(x) == ident
    np.testing.assert_allclose(to_numpy(x), np.arange(6.0).reshape(2, 3) / 2)
    assert x._version == 4


def test_inplace_errors():
    x = lucid.zeros(3)
    with pytest.raises(lucid.ShapeMismatch):
        x.add_(lucid.ones(2, 3))          # the result would not fit x
    i = lucid.zeros(3, dtype=lucid.int64)
    with pytest.raises(lucid.DtypeMismatch):
        i.add_(lucid.ones(3))             # float result into an int tensor
    with pytest.raises(lucid.DtypeMismatch):
        i += 0.5
    f = lucid.zeros(3)
    f.add_(lucid.ones(3, dtype=lucid.int32))   # int into float is fine
    assert f.tolist() == [1.0, 1.0, 1.0]


def test_inplace_on_overlapping_operand_reads_a_snapshot():
    x = lucid.arange(6.0)
    x[1:].add_(x[:-1])       # every element reads the value before the write
    np.testing.assert_array_equal(to_numpy(x), np.array([0, 1, 3, 5, 7, 9], dtype=np.float32))


def test_alpha_rules():
    i = lucid.tensor([1, 2, 3])
    assert lucid.add(i, i, alpha=3).tolist() == [4, 8, 12]
    assert lucid.sub(i, i, alpha=2).tolist() == [-1, -2, -3]
    assert i.add(2, alpha=5).tolist() == [11, 12, 13]
    with pytest.raises((TypeError, RuntimeError), match="alpha"):
        lucid.add(i, i, alpha=0.5)
    f = lucid.tensor([1.0, 2.0])
    assert lucid.sub(f, f, alpha=0.25).tolist() == [0.75, 1.5]
    c = lucid.tensor([1 + 1j])
    assert lucid.add(c, c, alpha=1j).tolist() == [(1 + 1j) + 1j * (1 + 1j)]


def test_complex_alpha_on_real_tensor_message():
    with pytest.raises((TypeError, RuntimeError), match="complex"):
        lucid.add(lucid.ones(2), lucid.ones(2), alpha=1j)


def test_sub_of_two_bools_refused():
    b = lucid.tensor([True, False])
    with pytest.raises((TypeError, RuntimeError), match="sub"):
        b - b
    with pytest.raises((TypeError, RuntimeError)):
        lucid.sub(b, True)


@pytest.mark.parametrize("expr", ["b - 1", "1 - b", "b - lucid.tensor([1, 2])", "lucid.tensor([1, 2]) - b"])
def test_sub_with_one_bool_operand_refused(expr):
    b = lucid.tensor([True, False])  # noqa: F841
    with pytest.raises((TypeError, RuntimeError)):
        eval(expr)


def test_neg_and_pos():
    x = lucid.tensor([1.0, -2.0])
    assert (-x).tolist() == [-1.0, 2.0]
    assert (+x).tolist() == [1.0, -2.0]
    assert (-lucid.tensor([3], dtype=lucid.uint8)).tolist() == [253]
    with pytest.raises((TypeError, RuntimeError)):
        -lucid.tensor([True])


def test_module_functions_need_a_tensor():
    with pytest.raises(TypeError):
        lucid.add(2, 3)
    assert lucid.add(2, lucid.tensor([1])).tolist() == [3]
    assert lucid.sub(lucid.tensor([1.5]), 1, alpha=2).tolist() == [-0.5]


def test_foreign_operands_return_not_implemented():
    x = lucid.ones(2)
    with pytest.raises(TypeError):
        x + "a"
    with pytest.raises(TypeError):
        x @ 2


@pytest.mark.parametrize("d", [lucid.float32, lucid.float64, lucid.complex64, lucid.int64], ids=lambda d: d.name)
def test_matmul_transposed_views(d):
    """Transposed operands (BLAS transpose flags) and batched mT views give the NumPy product."""
    rng = _rng("mmT", d.name)
    a = random_array((5, 3), d, rng, kind="small")
    b = random_array((4, 5), d, rng, kind="small")
    la, lb = lucid.tensor(a), lucid.tensor(b)
    r, t = TOL.get(d.name, (0, 0))
    assert_close(la.T @ lb.T, a.T @ b.T, dtype=d, rtol=r * 10, atol=t * 10)
    assert_close(lb @ la, b @ a, dtype=d, rtol=r * 10, atol=t * 10)
    assert_close(la.T @ la, a.T @ a, dtype=d, rtol=r * 10, atol=t * 10)
    x = random_array((3, 6, 4), d, rng, kind="small")
    y = random_array((3, 5, 4), d, rng, kind="small")
    lx, ly = lucid.tensor(x), lucid.tensor(y)
    assert_close(lx @ ly.mT, x @ np.swapaxes(y, -1, -2), dtype=d, rtol=r * 10, atol=t * 10)
    assert_close(lx.mT @ lx, np.swapaxes(x, -1, -2) @ x, dtype=d, rtol=r * 10, atol=t * 10)
    # a row slice with a step: leading dimension larger than the row length
    big = random_array((8, 10), d, rng, kind="small")
    lbig = lucid.tensor(big)
    assert_close(lbig[::2, 1:4] @ lbig[1:4, ::3], big[::2, 1:4] @ big[1:4, ::3], dtype=d, rtol=r * 10, atol=t * 10)


def test_matmul_shapes():
    assert tuple((lucid.ones(3) @ lucid.ones(3)).shape) == ()
    assert (lucid.ones(3) @ lucid.ones(3)).item() == 3.0
    assert tuple((lucid.ones(3) @ lucid.ones(3, 5)).shape) == (5,)
    assert tuple((lucid.ones(4, 3) @ lucid.ones(3)).shape) == (4,)
    assert tuple((lucid.ones(2, 1, 4, 3) @ lucid.ones(5, 3, 6)).shape) == (2, 5, 4, 6)
    assert tuple((lucid.ones(3) @ lucid.ones(7, 3, 2)).shape) == (7, 2)
    k0 = lucid.ones(2, 0) @ lucid.ones(0, 3)
    assert k0.tolist() == [[0.0] * 3] * 2


# ---------------------------------------------------------------------------------------------
# gradients: float64 finite differences (first and second order) for every differentiable op

def _grad_params():
    out = []
    for op in ALL_OPS:
        if lucid.float64 not in op.dtypes or not op.differentiable:
            continue
        for s in op.samples(lucid.float64):
            if s.crash or s.kind not in ("basic", "broadcast", "0d") or any(0 in sh for sh in s.shapes):
                continue
            if "dtype" in s.kwargs:
                continue
            if sum(int(np.prod(sh)) for sh in s.shapes) > 60:
                continue
            out.append(pytest.param(op, s, id=f"{op.name}-{s.id}"))
    return out


@pytest.mark.parametrize("op,sample", _grad_params())
def test_gradcheck(op, sample):
    """gradcheck and gradgradcheck on float64 inputs (spec: every op has a vjp in lucid ops)."""
    rng = _rng("grad", op.name, sample.id)
    tensors, _ = _inputs(op, sample, lucid.float64, rng)
    leaves = [t.contiguous().detach().requires_grad_() for t in tensors]

    def f(*xs):
        # only floating outputs carry gradients (indices and masks do not)
        outs = tuple(o for o in outputs(op.op(*xs, **sample.kwargs)) if o.dtype.is_floating_point or o.dtype.is_complex)
        return outs if len(outs) != 1 else outs[0]

    assert lucid.autograd.gradcheck(f, tuple(leaves))
    assert lucid.autograd.gradgradcheck(f, tuple(leaves))


# ---------------------------------------------------------------------------------------------
# out=: every entry whose module function takes out= (lucid/_out.py), where PyTorch takes it too

def _out_fn_name(op):
    """The lucid module function behind an entry: its name, or the longest '_'-prefix of it."""
    parts = op.name.split("_")
    for k in range(len(parts), 0, -1):
        n = "_".join(parts[:k])
        if getattr(getattr(lucid, n, None), "_lucid_out", False):
            return n
    return None


def _out_params():
    out = []
    for op in ALL_OPS:
        name = _out_fn_name(op)
        if name is None:
            continue
        d = lucid.float32 if lucid.float32 in op.dtypes else op.dtypes[0]
        samples = [s for s in op.samples(d) if s.kind in ("basic", "broadcast") and not s.crash]
        if samples:
            out.append(pytest.param(op, name, d, samples[0], id=f"{op.name}-{d.name}"))
    return out


def _empty_like_result(res, shape=(0,), dtype=None):
    return lucid.zeros(shape, dtype=dtype or res.dtype)


def _call_with_out(mod, name, call, make_outs):
    """Runs call() with mod.<name> patched to pass out=make_outs(); returns (result, outs, number of
    calls) -- so any entry whose op calls the module function gets its out= variant checked."""
    orig = getattr(mod, name)
    box = {"n": 0, "outs": None}

    def shim(*args, **kwargs):
        box["n"] += 1
        box["outs"] = make_outs()
        o = box["outs"]
        return orig(*args, **kwargs, out=o if isinstance(o, tuple) and len(o) > 1 else o[0])

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(mod, name, shim)
        res = call()
    return res, box["outs"], box["n"]


@pytest.mark.filterwarnings("ignore:An output with one or more elements was resized")
@pytest.mark.parametrize("op,name,d,sample", _out_params())
def test_out(torch, op, name, d, sample):
    """f(..., out=o) writes f(...) into o (resized if needed: silently when empty, with a UserWarning
    otherwise), returns o, bumps its version; refuses an out dtype the result can't be cast to, and
    inputs that require grad; PyTorch accepts the same call and agrees."""
    import warnings
    rng = _rng("out", op.name, d.name, sample.id)
    tensors, refs = _inputs(op, sample, d, rng)
    kw = sample.kwargs
    want_res = op.op(*tensors, **kw)
    want = outputs(want_res)
    tuple_out = isinstance(want_res, tuple) and len(want) > 1
    call = lambda ts=tensors: op.op(*ts, **kw)  # noqa: E731

    # empty outs: resized silently, returned, version bumped
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res, outs, n = _call_with_out(lucid, name, call, lambda: tuple(lucid.zeros(0, dtype=w.dtype) for w in want))
    if n != 1:
        pytest.skip(f"{op.name}: the entry does not call lucid.{name} once")
    if tuple_out:
        assert type(res) is type(want_res) and all(r is o for r, o in zip(res, outs))
    else:
        assert res is outs[0]
    for o, w in zip(outs, want):
        assert o.dtype is w.dtype and tuple(o.shape) == tuple(w.shape)
        np.testing.assert_array_equal(to_numpy(o), to_numpy(w))
        assert o._version > 0
    # PyTorch takes out= for the same call and agrees
    if op.torch_op is not None:
        tinputs = [_to_torch(torch, r, d) for r in refs]
        try:
            _, touts, tn = _call_with_out(torch, name, lambda: op.torch_op(torch, *tinputs, **kw),
                                          lambda: tuple(torch.empty(0, dtype=getattr(torch, w.dtype.name))
                                                        for w in want))
        except TypeError as e:
            pytest.skip(f"torch.{name} takes no out= here: {e}")
        except (RuntimeError, NotImplementedError) as e:
            pytest.skip(f"PyTorch refuses this input: {e}")
        if tn == 1:
            for o, t in zip(outs, touts):
                r, a = _tol(op, o.dtype) if (o.dtype.is_floating_point or o.dtype.is_complex) else (0, 0)
                assert_close(o, _torch_to_numpy(t), rtol=2 * r, atol=2 * a, msg=f"{op.name} out= vs torch")
    # outs of the right shape: written in place, no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _, outs, _ = _call_with_out(lucid, name, call,
                                    lambda: tuple(lucid.ones(tuple(w.shape), dtype=w.dtype) for w in want))
    for o, w in zip(outs, want):
        np.testing.assert_array_equal(to_numpy(o), to_numpy(w))
    # non-empty outs of another shape: resized with PyTorch's warning
    if all(w.numel() != 1 for w in want):
        with pytest.warns(UserWarning, match="was resized since it had shape \\[1\\]"):
            _, outs, _ = _call_with_out(lucid, name, call, lambda: tuple(lucid.ones(1, dtype=w.dtype) for w in want))
        for o, w in zip(outs, want):
            assert tuple(o.shape) == tuple(w.shape)
            np.testing.assert_array_equal(to_numpy(o), to_numpy(w))
    # an out dtype the result can't be cast to
    i = next((k for k, w in enumerate(want) if w.dtype.is_floating_point or w.dtype.is_complex), None)
    if i is not None:
        def bad():
            outs = [lucid.zeros(0, dtype=w.dtype) for w in want]
            outs[i] = lucid.zeros(0, dtype=lucid.int64)
            return tuple(outs)
        with pytest.raises(RuntimeError, match="can't be cast to the desired output type Long"):
            _call_with_out(lucid, name, call, bad)
    # autograd: an input that requires grad is refused under grad mode (fine under no_grad)
    floats = [k for k, t in enumerate(tensors) if t.dtype.is_floating_point or t.dtype.is_complex]
    if floats:
        leaves = [t.detach().requires_grad_() if k in floats else t for k, t in enumerate(tensors)]
        empty = lambda: tuple(lucid.zeros(0, dtype=w.dtype) for w in want)  # noqa: E731
        with pytest.raises(RuntimeError, match="functions with out=... arguments don't support automatic "
                                               "differentiation, but one of the arguments requires grad"):
            _call_with_out(lucid, name, lambda: op.op(*leaves, **kw), empty)
        with lucid.no_grad():
            _, outs, _ = _call_with_out(lucid, name, lambda: op.op(*leaves, **kw), empty)
        assert not any(o.requires_grad for o in outs)
