from lucid.nn.modules.module import Module  # noqa: F401
from lucid.nn.modules.container import (Container, Sequential, ModuleList, ModuleDict, ParameterList,  # noqa: F401
                                        ParameterDict)
from lucid.nn.modules.linear import Identity, Linear, LazyLinear  # noqa: F401
from lucid.nn.modules.lazy import LazyModuleMixin  # noqa: F401
from lucid.nn.modules.flatten import Flatten, Unflatten  # noqa: F401

__all__ = ["Module", "Container", "Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict",
           "Identity", "Linear", "LazyLinear", "LazyModuleMixin", "Flatten", "Unflatten"]

# layers over lucid.nn.functional's engine ops
from lucid.nn.modules import conv as _conv  # noqa: E402
from lucid.nn.modules.conv import *  # noqa: E402,F401,F403
from lucid.nn.modules.pooling import MaxPool1d, MaxPool2d  # noqa: E402,F401
from lucid.nn.modules.activation import ReLU, Softmax, LogSoftmax, Softmin  # noqa: E402,F401
from lucid.nn.modules.loss import NLLLoss, CrossEntropyLoss  # noqa: E402,F401
from lucid.nn.modules.dropout import Dropout  # noqa: E402,F401

__all__ += _conv.__all__ + ["MaxPool1d", "MaxPool2d", "ReLU", "Softmax", "LogSoftmax", "Softmin", "NLLLoss",
            "CrossEntropyLoss", "Dropout"]
from lucid.nn.modules.normalization import (LayerNorm, RMSNorm, GroupNorm, BatchNorm1d, BatchNorm2d,  # noqa: E402,F401
                                            BatchNorm3d, InstanceNorm1d, InstanceNorm2d, InstanceNorm3d)

__all__ += ["LayerNorm", "RMSNorm", "GroupNorm", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "InstanceNorm1d",
            "InstanceNorm2d", "InstanceNorm3d"]
from lucid.nn.modules.activation import (ReLU6, LeakyReLU, ELU, SELU, CELU, GELU, SiLU, Mish, Softplus,  # noqa: E402,F401
                                        Softsign, Softshrink, Hardshrink, Tanhshrink, Hardtanh, Hardsigmoid,
                                        Hardswish, LogSigmoid, Threshold, GLU, PReLU, RReLU, Sigmoid, Tanh)

__all__ += ["ReLU6", "LeakyReLU", "ELU", "SELU", "CELU", "GELU", "SiLU", "Mish", "Softplus", "Softsign", "Softshrink",
            "Hardshrink", "Tanhshrink", "Hardtanh", "Hardsigmoid", "Hardswish", "LogSigmoid", "Threshold", "GLU",
            "PReLU", "RReLU", "Sigmoid", "Tanh"]
from lucid.nn.modules.activation import Softmax2d  # noqa: E402,F401
from lucid.nn.modules.fold import Fold, Unfold  # noqa: E402,F401

__all__ += ["Softmax2d", "Fold", "Unfold"]
from lucid.nn.modules.pooling import (MaxPool3d, AvgPool1d, AvgPool2d, AvgPool3d, MaxUnpool1d,  # noqa: E402,F401
                                      MaxUnpool2d, MaxUnpool3d, AdaptiveAvgPool1d, AdaptiveAvgPool2d,
                                      AdaptiveAvgPool3d, AdaptiveMaxPool1d, AdaptiveMaxPool2d, AdaptiveMaxPool3d,
                                      LPPool1d, LPPool2d, LPPool3d, FractionalMaxPool2d, FractionalMaxPool3d)
from lucid.nn.modules.sparse import Embedding, EmbeddingBag  # noqa: E402,F401

__all__ += ["MaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d",
            "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d",
            "AdaptiveMaxPool3d", "LPPool1d", "LPPool2d", "LPPool3d", "Embedding", "EmbeddingBag", "FractionalMaxPool2d",
            "FractionalMaxPool3d"]
from lucid.nn.modules.loss import (MSELoss, L1Loss, SmoothL1Loss, HuberLoss, BCELoss,  # noqa: E402,F401
                                  BCEWithLogitsLoss, KLDivLoss, PoissonNLLLoss, GaussianNLLLoss, CosineEmbeddingLoss,
                                  MarginRankingLoss, HingeEmbeddingLoss, MultiMarginLoss, MultiLabelMarginLoss,
                                  MultiLabelSoftMarginLoss, SoftMarginLoss, TripletMarginLoss,
                                  TripletMarginWithDistanceLoss, CTCLoss)

__all__ += ["MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss", "BCELoss", "BCEWithLogitsLoss", "KLDivLoss",
            "PoissonNLLLoss", "GaussianNLLLoss", "CosineEmbeddingLoss", "MarginRankingLoss", "HingeEmbeddingLoss",
            "MultiMarginLoss", "MultiLabelMarginLoss", "MultiLabelSoftMarginLoss", "SoftMarginLoss",
            "TripletMarginLoss", "TripletMarginWithDistanceLoss", "CTCLoss"]

# one file per layer family, each with its own __all__
from lucid.nn.modules import transformer as _transformer  # noqa: E402
from lucid.nn.modules.transformer import *  # noqa: E402,F401,F403
from lucid.nn.modules import rnn as _rnn  # noqa: E402
from lucid.nn.modules.rnn import *  # noqa: E402,F401,F403
from lucid.nn.modules import resample as _resample  # noqa: E402
from lucid.nn.modules.resample import *  # noqa: E402,F401,F403
from lucid.nn.modules import extra as _extra  # noqa: E402
from lucid.nn.modules.extra import *  # noqa: E402,F401,F403
__all__ += _transformer.__all__ + _rnn.__all__ + _resample.__all__ + _extra.__all__
