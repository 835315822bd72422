"""Fixtures and hooks of lucid's Python suite (helpers live in helpers.py).

NumPy is the reference everywhere; PyTorch is an optional second oracle: tests that need it ask for
the `torch` fixture (or call `pytest.importorskip("torch")`), so the suite passes without it. CUDA
tests carry the `cuda` marker (or use the `cuda_device` fixture) and skip when
`lucid.cuda.is_available()` is False.
"""
import numpy as np
import pytest

import lucid
from helpers import CUDA, DEVICES


def pytest_addoption(parser):
    # `pytest -n0` is the documented invocation; keep it working when pytest-xdist is absent.
    try:
        import xdist  # noqa: F401
    except ImportError:
        # (registered as pytest-xdist registers it: lowercase short options are reserved otherwise)
        parser.getgroup("xdist-fallback")._addoption("-n", "--numprocesses", action="store", default=None,
                                                     help="ignored: pytest-xdist is not installed")


def pytest_configure(config):
    config.addinivalue_line("markers", "cuda: needs a CUDA device (skipped when lucid.cuda.is_available() is False)")


def pytest_collection_modifyitems(config, items):
    if CUDA:
        return
    skip = pytest.mark.skip(reason="no CUDA device (lucid.cuda.is_available() is False)")
    for item in items:
        if item.get_closest_marker("cuda") is not None:
            item.add_marker(skip)


@pytest.fixture(params=DEVICES)
def device(request):
    """Every available device: 'cpu', and 'cuda' when present."""
    if request.param == "cuda" and not CUDA:
        pytest.skip("no CUDA device")
    return request.param


@pytest.fixture
def cuda_device():
    if not CUDA:
        pytest.skip("no CUDA device (lucid.cuda.is_available() is False)")
    return "cuda"


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


@pytest.fixture(autouse=True)
def _restore_global_state():
    """Tests that change process-wide settings must not leak them into later tests."""
    default_dtype = lucid.get_default_dtype()
    default_device = lucid.get_default_device()
    threads = lucid.get_num_threads()
    isa = lucid._C._cpu_isa()
    yield
    if lucid.get_default_dtype() is not default_dtype:
        lucid.set_default_dtype(default_dtype)
    if lucid.get_default_device() != default_device:
        lucid.set_default_device(None if default_device.type == "cpu" else default_device)
    if lucid.get_num_threads() != threads:
        lucid.set_num_threads(threads)
    if lucid._C._cpu_isa() != isa:
        lucid._C._set_cpu_isa(isa)




def pytest_sessionfinish(session):
    # Drop the collected items (and the lucid dtypes held by their parameters) before the interpreter
    # shuts down: with torch imported, finalisation otherwise frees lucid._C first and nanobind prints
    # "leaked instance ... lucid._C.dtype" warnings for objects that are merely still referenced.
    import gc
    session.items.clear()
    gc.collect()
