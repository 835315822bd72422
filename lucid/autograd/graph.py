"""lucid.autograd.graph: hooks on the tensors the graph saves for backward."""
from lucid import _C

_stack = []  # the Python side of the hooks stack (custom Functions pack through it)


def _current_hooks():
    return _stack[-1] if _stack else None


class saved_tensors_hooks:
    """Within this context, every tensor an op saves for backward goes through pack_hook(tensor), and
    backward gets it back through unpack_hook(packed)."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        _C._push_saved_tensor_hooks(self.pack_hook, self.unpack_hook)
        _stack.append((self.pack_hook, self.unpack_hook))
        return self

    def __exit__(self, *exc):
        _C._pop_saved_tensor_hooks()
        _stack.pop()
        return False


class save_on_cpu(saved_tensors_hooks):
    """Keeps saved tensors in host memory (pinned when pin_memory=True and CUDA is present) and moves
    them back to their device in backward: less device memory, more transfers."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        def pack(t):
            if t.device.type == "cpu":
                return (t.device, t)
            host = _C.empty(list(t.shape), t.dtype, _C.device("cpu"), bool(pin_memory))
            host.copy_(t)
            return (t.device, host)

        def unpack(packed):
            device, host = packed
            return host if device.type == "cpu" else host.to(device)

        super().__init__(pack, unpack)
