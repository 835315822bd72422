"""lucid.optim: optimizers and learning-rate schedulers (torch.optim's API)."""
from lucid.optim.optimizer import Optimizer  # noqa: F401
from lucid.optim.sgd import SGD  # noqa: F401
from lucid.optim.adam import Adam, AdamW  # noqa: F401
from lucid.optim import lr_scheduler  # noqa: F401

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "lr_scheduler"]
