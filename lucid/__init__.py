"""lucid: a deep learning framework with a C++ engine and a PyTorch-style API.

    import lucid
    x = lucid.arange(6.0).reshape(2, 3)
    y = x @ x.T + 1
"""
from lucid import _env  # noqa: F401  (must run before the engine loads OpenBLAS)
from lucid import _C
from lucid import errors
from lucid.errors import LucidError, ShapeMismatch, DtypeMismatch, DeviceMismatch, VersionMismatch, OutOfMemory
from lucid._dtypes import (dtype, bool_, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64,
                           complex64, complex128, finfo, iinfo, get_default_dtype, set_default_dtype, promote_types,
                           result_type, can_cast)
from lucid._device import (device, set_default_device, get_default_device, memory_allocated, max_memory_allocated,
                           memory_reserved, max_memory_reserved, reset_peak_memory_stats, memory_stats)
from lucid import _tensor  # noqa: F401  (attaches the Python-side Tensor methods)
from lucid._C import Tensor
from lucid._creation import (tensor, as_tensor, from_numpy, from_dlpack, empty, zeros, ones, full, eye, arange,
                             linspace, logspace, empty_like, zeros_like, ones_like, full_like)
from lucid._random import (Generator, default_generator, manual_seed, seed, initial_seed, get_rng_state,
                           set_rng_state, rand, randn, randint, randperm, normal, bernoulli, multinomial, rand_like, randn_like,
                           randint_like)
from lucid._ops import add, sub, mul, div, matmul, sum, reshape, permute, transpose, squeeze, unsqueeze, flatten, \
    narrow, select, diagonal, broadcast_to, as_strided, clone, numel
from lucid._ops import (abs, sign, square, relu, exp, exp2, expm1, log, log2, log10, log1p, sqrt, rsqrt,  # noqa: A004
                        reciprocal, sin, cos, tan, asin, acos, atan, sinh, cosh, tanh, asinh, acosh, atanh, sigmoid,
                        erf, erfc, floor, ceil, trunc, frac, absolute, arcsin, arccos, arctan, arcsinh, arccosh,
                        arctanh, fix)
# the op families: each module's __all__ (module functions; its Tensor methods attach on import)
from lucid._unary_ext import *  # noqa: F401,F403,E402
from lucid._binary import *  # noqa: F401,F403,E402
from lucid._reduce import *  # noqa: F401,F403,E402
from lucid._shape import *  # noqa: F401,F403,E402
from lucid._indexing import *  # noqa: F401,F403,E402
from lucid._sorting import *  # noqa: F401,F403,E402
from lucid._products import *  # noqa: F401,F403,E402
from lucid import cuda
from lucid import profiler
from lucid import linalg  # noqa: E402
from lucid import special  # noqa: E402
from lucid.special import i0, igamma, igammac, softmax, log_softmax  # noqa: E402
from lucid import autograd
from lucid import utils
from lucid import nn  # noqa: E402
from lucid import optim  # noqa: E402
from lucid.nn._toplevel import *  # noqa: F401,F403,E402  (torch.conv2d, torch.pdist, ...)
from lucid.serialization import save, load, save_safetensors, load_safetensors  # noqa: E402
from lucid.autograd import no_grad, enable_grad, set_grad_enabled, inference_mode, is_grad_enabled, \
    is_inference_mode_enabled

# PyTorch / Lucid aliases
bool = bool_  # noqa: A001
float = float32  # noqa: A001
double = float64
half = float16
int = int32  # noqa: A001
long = int64
short = int16
cfloat = complex64
cdouble = complex128

get_num_threads = _C.get_num_threads
set_num_threads = _C.set_num_threads
set_flush_denormal = _C.set_flush_denormal

__version__ = "0.1.0"
