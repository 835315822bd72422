"""Grad mode: no_grad, enable_grad, set_grad_enabled, inference_mode (thread-local, as PyTorch).

Each is a context manager and a decorator."""
import functools

from lucid import _C


class _GradModeContext:
    _mode = True

    def __new__(cls, *args, **kwargs):
        # `@no_grad` (without parentheses) decorates the function directly, as in PyTorch.
        if len(args) == 1 and not kwargs and callable(args[0]) and not isinstance(args[0], (bool, int)):
            return cls()(args[0])
        return super().__new__(cls)

    def __enter__(self):
        self._prev = _C.is_grad_enabled()
        _C._set_grad_enabled(self._mode)
        return self

    def __exit__(self, *exc):
        _C._set_grad_enabled(self._prev)
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__():
                return fn(*args, **kwargs)
        return wrapper


class no_grad(_GradModeContext):
    """Ops inside record no graph: results do not require grad."""
    _mode = False


class enable_grad(_GradModeContext):
    """Turns grad mode back on inside a no_grad region."""
    _mode = True


class set_grad_enabled(_GradModeContext):
    """set_grad_enabled(mode): sets grad mode now, and restores it on leaving a `with` block."""

    def __init__(self, mode):
        self._prev = _C.is_grad_enabled()
        self._mode = bool(mode)
        _C._set_grad_enabled(self._mode)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _C._set_grad_enabled(self._prev)
        return False

    def __call__(self, fn):
        mode = self._mode
        _C._set_grad_enabled(self._prev)

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with set_grad_enabled(mode):
                return fn(*args, **kwargs)
        return wrapper


class inference_mode(_GradModeContext):
    """Like no_grad (tensors made inside never record history)."""

    def __init__(self, mode=True):
        if callable(mode) and not isinstance(mode, bool):
            mode = True
        self._on = bool(mode)

    @property
    def _mode(self):
        return not self._on

    def __enter__(self):
        self._prev_inf = _C.is_inference_mode_enabled()
        _C._set_inference_mode(self._on)
        return super().__enter__()

    def __exit__(self, *exc):
        _C._set_inference_mode(self._prev_inf)
        return super().__exit__(*exc)

    def __call__(self, fn):
        on = self._on

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with inference_mode(on):
                return fn(*args, **kwargs)
        return wrapper


def is_grad_enabled():
    return _C.is_grad_enabled()


def is_inference_mode_enabled():
    return _C.is_inference_mode_enabled()
