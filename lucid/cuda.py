"""lucid.cuda: availability, synchronisation, seeding and memory statistics of CUDA devices."""
from lucid import _C
from lucid import _device
from lucid import _random


def is_available():
    """True when lucid was built with CUDA and a CUDA device is present."""
    return _C._cuda_device_count() > 0


def is_built():
    return _C._cuda_built()


def device_count():
    return _C._cuda_device_count()


def current_device():
    if not is_available():
        raise RuntimeError("no CUDA device is available")
    return 0


def _dev(device):
    if device is None:
        return _C.device("cuda")
    d = _device.to_device(device)
    if d.type != "cuda":
        raise ValueError(f"expected a CUDA device, got {d}")
    return d


def synchronize(device=None):
    """Waits until all queued work on the device has finished."""
    d = _dev(device)
    _C._check_device(d)
    _C._synchronize(d)


def manual_seed(seed):
    """Seeds the generator; CPU and CUDA share one Philox stream, so this seeds both."""
    return _random.manual_seed(seed)


manual_seed_all = manual_seed


def memory_allocated(device=None):
    return _device.memory_allocated(_dev(device))


def max_memory_allocated(device=None):
    return _device.max_memory_allocated(_dev(device))


def memory_reserved(device=None):
    return _device.memory_reserved(_dev(device))


def max_memory_reserved(device=None):
    return _device.max_memory_reserved(_dev(device))


def reset_peak_memory_stats(device=None):
    _device.reset_peak_memory_stats(_dev(device))


def memory_stats(device=None):
    return _device.memory_stats(_dev(device))


def empty_cache():
    """Returns cached, unused device memory to the driver."""
    if is_available():
        for i in range(device_count()):
            _C._empty_cache(_C.device("cuda", i))
