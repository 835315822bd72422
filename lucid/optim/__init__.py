"""lucid.optim: optimizers and learning-rate schedulers (torch.optim's API)."""
from lucid.optim.optimizer import Optimizer  # noqa: F401
from lucid.optim.sgd import SGD  # noqa: F401
from lucid.optim.adam import Adam, AdamW  # noqa: F401
from lucid.optim.adamax import Adamax  # noqa: F401
from lucid.optim.nadam import NAdam  # noqa: F401
from lucid.optim.radam import RAdam  # noqa: F401
from lucid.optim.rmsprop import RMSprop  # noqa: F401
from lucid.optim.adagrad import Adagrad  # noqa: F401
from lucid.optim.adadelta import Adadelta  # noqa: F401
from lucid.optim.asgd import ASGD  # noqa: F401
from lucid.optim.rprop import Rprop  # noqa: F401
from lucid.optim.lbfgs import LBFGS  # noqa: F401
from lucid.optim.sparse_adam import SparseAdam  # noqa: F401
from lucid.optim import lr_scheduler  # noqa: F401

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "Adamax", "NAdam", "RAdam", "RMSprop", "Adagrad", "Adadelta", "ASGD",
           "Rprop", "LBFGS", "SparseAdam", "lr_scheduler"]
