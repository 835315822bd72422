"""lucid.profiler (op-level events from the engine) and lucid.set_flush_denormal."""
import json
import platform

import numpy as np
import pytest

import lucid
from lucid.profiler import profile, record_function


def _kernels(prof, name=None):
    return [e for e in prof.events() if e.kind == "kernel" and (name is None or e.name == name)]


def test_records_each_kernel_with_shapes_and_bytes():
    a = lucid.ones(3, 4)
    b = lucid.ones(4)
    with profile() as prof:
        c = a + b
        d = c.exp()
        s = d.sum()
    assert s.item() == pytest.approx(12 * np.e ** 2, rel=1e-6)
    names = [e.name for e in _kernels(prof)]
    assert names == ["add", "exp", "sum"]
    add = _kernels(prof, "add")[0]
    assert add.device == "cpu"
    # output first, then the inputs as the kernel sees them (b expanded to the output's shape)
    assert add.input_shapes == [[3, 4], [3, 4], [3, 4]]
    assert add.bytes == 3 * 12 * 4
    ex = _kernels(prof, "exp")[0]
    assert ex.input_shapes == [[3, 4], [3, 4]] and ex.bytes == 2 * 12 * 4
    for e in prof.events():
        assert e.duration_ns > 0 and e.self_ns <= e.duration_ns


def test_nothing_recorded_outside_a_profile():
    x = lucid.ones(5)
    with profile() as prof:
        pass
    x * 2
    assert prof.events() == []
    assert not lucid._C._profiler_enabled()


def test_backward_nodes_nest_their_kernels():
    x = lucid.randn(8, 8, requires_grad=True)
    with profile() as prof:
        y = (x * x).sum()
        y.backward()
    back = [e for e in prof.events() if e.kind == "backward"]
    assert back, "backward nodes are recorded"
    mul_node = [e for e in back if "mul" in e.name.lower()]
    assert mul_node
    node = mul_node[0]
    inner = [e for e in _kernels(prof) if e.start_ns >= node.start_ns and e.end_ns <= node.end_ns]
    assert inner and all(e.depth == node.depth + 1 for e in inner)
    assert node.self_ns <= node.duration_ns - sum(e.duration_ns for e in inner) + 1
    np.testing.assert_allclose(x.grad.numpy(), 2 * x.detach().numpy(), rtol=1e-6)


def test_key_averages_and_table():
    a = lucid.ones(16)
    one = lucid.ones(16)
    with profile() as prof:
        for _ in range(5):
            a = a + one
        lucid.ones(2, 3) @ lucid.ones(3, 2)
    avg = {r.name: r for r in prof.key_averages()}
    assert avg["add"].count == 5
    assert avg["add"].bytes == 5 * 3 * 16 * 4
    assert avg["gemm"].count == 1
    assert avg["add"].total_ns == sum(e.duration_ns for e in _kernels(prof, "add"))
    text = prof.key_averages().table(sort_by="calls", row_limit=2)
    lines = text.splitlines()
    assert "Name" in lines[1] and "Calls" in lines[1]
    assert lines[3].startswith("add")          # sorted by calls: add (5) first
    assert len(lines) == 3 + 2 + 2            # header, two rows (row_limit), footer
    by_shape = prof.key_averages(group_by_input_shape=True).table()
    assert "[16]" in by_shape
    with pytest.raises(ValueError, match="sort_by"):
        prof.key_averages().table(sort_by="nonsense")


def test_record_function_and_chrome_trace(tmp_path):
    with profile() as prof:
        with record_function("my_block"):
            lucid.ones(4) * 3
    user = [e for e in prof.events() if e.kind == "user"]
    assert [e.name for e in user] == ["my_block"]
    mul = _kernels(prof, "mul")[0]
    assert user[0].start_ns <= mul.start_ns and mul.end_ns <= user[0].end_ns
    assert user[0].self_ns <= user[0].duration_ns - mul.duration_ns + 1
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    trace = json.loads(path.read_text())["traceEvents"]
    assert {t["name"] for t in trace} >= {"my_block", "mul"}
    assert all(t["ph"] == "X" and t["dur"] >= 0 for t in trace)

    @record_function("decorated")
    def f(t):
        return t + 1
    with profile() as prof2:
        f(lucid.ones(2))
    assert [e.name for e in prof2.events() if e.kind == "user"] == ["decorated"]


def test_profiles_do_not_nest_and_results_need_an_exit():
    p = profile()
    with pytest.raises(RuntimeError, match="no results"):
        p.events()
    with profile():
        with pytest.raises(RuntimeError, match="already running"):
            with profile():
                pass
    with profile(enabled=False) as off:
        lucid.ones(3) + 1
    assert not lucid._C._profiler_enabled()
    with pytest.raises(RuntimeError):
        off.events()


def test_errors_inside_a_profile_still_stop_it():
    with pytest.raises(lucid.ShapeMismatch):
        with profile() as prof:
            lucid.ones(2) + lucid.ones(3)
    assert not lucid._C._profiler_enabled()
    assert isinstance(prof.events(), list)


x86 = pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64", "i686"), reason="MXCSR modes are x86")


@x86
def test_set_flush_denormal():
    lucid.set_flush_denormal(False)
    tiny = lucid.tensor([1e-39, 2e-39, 1.0])          # float32 denormals (made before the mode is on)
    big = lucid.full((1 << 18,), 1e-39)               # large enough for the worker threads
    try:
        assert lucid.set_flush_denormal(True) is True
        assert lucid._C._flush_denormal()
        assert (tiny * 1).tolist() == [0.0, 0.0, 1.0]
        lucid.set_num_threads(2)
        assert (big * 1).sum().item() == 0.0           # every thread flushes
    finally:
        assert lucid.set_flush_denormal(False) is True
    assert not lucid._C._flush_denormal()
    np.testing.assert_allclose((tiny * 1).numpy(), np.array([1e-39, 2e-39, 1.0], dtype=np.float32))
    assert (big * 1).sum().item() > 0
