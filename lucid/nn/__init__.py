"""lucid.nn: modules, parameters, initialisation (PyTorch's torch.nn layout)."""
from lucid.nn.parameter import Parameter, Buffer, UninitializedParameter, UninitializedBuffer  # noqa: F401
from lucid.nn import init  # noqa: F401
from lucid.nn.modules import *  # noqa: F401,F403
from lucid.nn.modules.module import (register_module_forward_pre_hook, register_module_forward_hook,  # noqa: F401
                                     register_module_full_backward_hook)
from lucid.nn import utils  # noqa: F401
from lucid.nn import functional  # noqa: F401
