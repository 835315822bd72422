"""Typed errors: the hierarchy (LucidError is a RuntimeError; IndexError / NotImplementedError are also
Python's), top-level names, messages that name the op and show shapes and dtypes, device mixing,
and bad inputs that must raise rather than abort the process."""
import builtins

import pytest

import lucid
from helpers import run_isolated

TYPED = ["ShapeMismatch", "DtypeMismatch", "DeviceMismatch", "VersionMismatch", "OutOfMemory", "IndexError",
         "NotImplementedError"]


def test_hierarchy():
    E = lucid.errors
    assert issubclass(E.LucidError, RuntimeError)
    for name in TYPED:
        assert issubclass(getattr(E, name), E.LucidError), name
        assert issubclass(getattr(E, name), RuntimeError), name
    assert issubclass(E.IndexError, builtins.IndexError)
    assert issubclass(E.NotImplementedError, builtins.NotImplementedError)
    assert issubclass(E.OutOfMemory, MemoryError)
    assert E.IndexError is not builtins.IndexError
    assert E.NotImplementedError is not builtins.NotImplementedError
    assert not issubclass(E.ShapeMismatch, E.DtypeMismatch)
    assert sorted(E.__all__) == sorted(["LucidError"] + TYPED)


def test_top_level_names():
    for name in ["LucidError", "ShapeMismatch", "DtypeMismatch", "DeviceMismatch", "VersionMismatch", "OutOfMemory"]:
        assert getattr(lucid, name) is getattr(lucid.errors, name)
    # the top-level namespace does not shadow Python's IndexError / NotImplementedError
    assert getattr(lucid, "IndexError", builtins.IndexError) in (builtins.IndexError, lucid.errors.IndexError)


@pytest.mark.parametrize("call,exc", [
    (lambda: lucid.ones(2, 3) @ lucid.ones(4, 5), lucid.ShapeMismatch),
    (lambda: lucid.ones(2, 3) + lucid.ones(4), lucid.ShapeMismatch),
    (lambda: lucid.ones(2).copy_(lucid.ones(3)), lucid.ShapeMismatch),
    (lambda: lucid.ones(6).view(4, -1), lucid.ShapeMismatch),
    (lambda: lucid.ones(2, dtype=lucid.int32) @ lucid.ones(2), lucid.DtypeMismatch),
    (lambda: lucid.ones(2, dtype=lucid.int32).add_(1.5), lucid.DtypeMismatch),
    (lambda: lucid.ones(2)[3], lucid.errors.IndexError),
    (lambda: lucid.ones(2).sum(3), lucid.errors.IndexError),
    (lambda: lucid.ones(2, 3)[[0, 2]], lucid.errors.IndexError),
    (lambda: lucid.ones(2).sum((0, 0)), ValueError),
    (lambda: lucid.device("tpu"), ValueError),
    (lambda: lucid.ones(2, dtype=lucid.int32).requires_grad_(), lucid.LucidError),
], ids=["matmul", "broadcast", "copy_", "view", "matmul_dtype", "inplace_dtype", "index", "dim", "advanced_index",
        "dup_dim", "device", "requires_grad_int"])
def test_error_types(call, exc):
    with pytest.raises(exc):
        call()


def test_catchable_as_python_builtins():
    try:
        lucid.ones(2)[5]
    except IndexError as e:             # Python's own IndexError clause
        assert isinstance(e, lucid.LucidError)
    else:
        pytest.fail("no error")
    try:
        lucid.ones(2, 3)[[0]]
    except NotImplementedError as e:
        assert isinstance(e, lucid.LucidError)
    try:
        lucid.ones(2, 3) @ lucid.ones(2, 3)
    except RuntimeError as e:
        assert isinstance(e, lucid.ShapeMismatch)


# ---------------------------------------------------------------------------------------------
# messages

def test_matmul_message_names_op_and_shapes():
    with pytest.raises(lucid.ShapeMismatch) as info:
        lucid.ones(2, 3) @ lucid.ones(4, 5)
    msg = str(info.value)
    assert "matmul" in msg
    assert "(2, 3)" in msg and "(4, 5)" in msg
    assert "3" in msg and "4" in msg


def test_matmul_1d_message():
    with pytest.raises(lucid.ShapeMismatch, match=r"matmul.*\(3,\).*\(4,\)"):
        lucid.ones(3) @ lucid.ones(4)
    with pytest.raises(lucid.ShapeMismatch, match=r"matmul.*\(\)"):
        lucid.tensor(1.0) @ lucid.ones(2)


def test_matmul_batch_message_shows_operand_shapes():
    with pytest.raises(lucid.ShapeMismatch) as info:
        lucid.ones(2, 3, 4) @ lucid.ones(5, 4, 2)
    msg = str(info.value)
    assert "matmul" in msg and "(2, 3, 4)" in msg and "(5, 4, 2)" in msg


def test_matmul_dtype_message():
    with pytest.raises(lucid.DtypeMismatch) as info:
        lucid.ones(2, dtype=lucid.int32) @ lucid.ones(2, dtype=lucid.float64)
    msg = str(info.value)
    assert "matmul" in msg and "int32" in msg and "float64" in msg


@pytest.mark.parametrize("op,sym", [("add", "+"), ("sub", "-"), ("mul", "*"), ("div", "/")])
def test_broadcast_message_names_op_and_shapes(op, sym):
    with pytest.raises(lucid.ShapeMismatch) as info:
        eval(f"lucid.ones(2, 3) {sym} lucid.ones(4, 5)")
    msg = str(info.value)
    assert f"[{op}]" in msg and "(2, 3)" in msg and "(4, 5)" in msg


def test_inplace_dtype_message():
    with pytest.raises(lucid.DtypeMismatch) as info:
        lucid.ones(2, dtype=lucid.int64).div_(2)
    msg = str(info.value)
    assert "div_" in msg and "float32" in msg and "int64" in msg


def test_view_message_suggests_reshape():
    with pytest.raises(lucid.ShapeMismatch) as info:
        lucid.ones(3, 4).T.view(12)
    msg = str(info.value)
    assert "[view]" in msg and "(4, 3)" in msg and "reshape" in msg


def test_index_and_dim_messages():
    with pytest.raises(IndexError, match="5.*size 2|size 2.*5"):
        lucid.ones(2)[5]
    with pytest.raises(IndexError, match=r"\[sum\].*range"):
        lucid.ones(2, 3).sum(4)
    with pytest.raises(IndexError, match=r"\[transpose\]"):
        lucid.ones(2, 3).transpose(0, 2)


def test_sub_bool_message():
    with pytest.raises((TypeError, RuntimeError), match="bool"):
        lucid.tensor([True]) - lucid.tensor([False])


def test_overlap_write_message():
    with pytest.raises(lucid.LucidError) as info:
        lucid.zeros(3, 1).expand(3, 4).fill_(1.0)
    msg = str(info.value)
    assert "fill_" in msg and "(3, 4)" in msg and "clone" in msg


def test_errors_do_not_corrupt_state():
    x = lucid.arange(6.0).reshape(2, 3)
    for bad in [lambda: x @ x, lambda: x + lucid.ones(4), lambda: x.view(4), lambda: x[9]]:
        with pytest.raises(lucid.LucidError):
            bad()
    assert x.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]] and x._version == 0
    assert (x @ x.T).tolist() == [[5.0, 14.0], [14.0, 50.0]]


# ---------------------------------------------------------------------------------------------
# device mixing (needs CUDA)

@pytest.mark.cuda
def test_device_mismatch():
    a = lucid.ones(2, 3)
    b = lucid.ones(2, 3, device="cuda")
    for f in [lambda: a + b, lambda: b * a, lambda: lucid.sub(a, b), lambda: a @ b.T, lambda: b.T @ a]:
        with pytest.raises(lucid.DeviceMismatch) as info:
            f()
        msg = str(info.value)
        assert "cpu" in msg and "cuda" in msg
    with pytest.raises(lucid.DeviceMismatch):
        b.add_(a)
    with pytest.raises(lucid.DeviceMismatch):
        a.add_(b)
    # a 0-d CPU tensor is read as a scalar, as in PyTorch
    assert (b + lucid.tensor(2.0)).is_cuda
    assert (lucid.tensor(2.0) * b).is_cuda


@pytest.mark.cuda
def test_cuda_copy_between_devices_is_allowed():
    a = lucid.zeros(3)
    b = lucid.arange(3.0, device="cuda")
    a.copy_(b)
    assert a.tolist() == [0.0, 1.0, 2.0]


# ---------------------------------------------------------------------------------------------
# bad inputs never abort the process (run in a child interpreter)

def _raises_cleanly(expr, allowed=("OutOfMemory", "ValueError", "LucidError", "OverflowError", "IndexError")):
    proc = run_isolated(f"""
        import lucid
        try:
            r = {expr}
            print("RESULT", tuple(r.shape))
        except Exception as e:
            print("RAISED", type(e).__name__)
    """)
    assert proc.returncode == 0, f"{expr}: the interpreter died with exit code {proc.returncode}"
    out = proc.stdout.strip()
    assert out.startswith("RAISED"), f"{expr}: {out}"
    assert out.split()[1] in allowed, out


# (Sizes the OS may still grant under overcommit, e.g. 4 TiB, are not errors: only impossible ones.)
@pytest.mark.parametrize("expr", ["lucid.empty(2 ** 62, dtype=lucid.uint8)",
                                  "lucid.ones(3).as_strided((2 ** 62,), (1,))", "lucid.randperm(-1)",
                                  "lucid.zeros(-3)"])
def test_huge_or_negative_sizes_raise(expr):
    _raises_cleanly(expr)


@pytest.mark.parametrize("expr", ["lucid.empty(2 ** 62)", "lucid.zeros(2 ** 61, dtype=lucid.float64)",
                                  "lucid.ones(2 ** 62)", "lucid.eye(2 ** 40)", "lucid.empty(2 ** 31, 2 ** 31, 4)"])
def test_byte_size_overflow_raises(expr):
    _raises_cleanly(expr)
