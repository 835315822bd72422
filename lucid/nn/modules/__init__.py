from lucid.nn.modules.module import Module  # noqa: F401
from lucid.nn.modules.container import (Container, Sequential, ModuleList, ModuleDict, ParameterList,  # noqa: F401
                                        ParameterDict)
from lucid.nn.modules.linear import Identity, Linear  # noqa: F401
from lucid.nn.modules.flatten import Flatten, Unflatten  # noqa: F401

__all__ = ["Module", "Container", "Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict",
           "Identity", "Linear", "Flatten", "Unflatten"]
