"""lucid.utils.data: datasets, samplers and the DataLoader (torch.utils.data's API)."""
from lucid.utils.data.dataset import (Dataset, IterableDataset, TensorDataset, StackDataset,  # noqa: F401
                                      ConcatDataset, ChainDataset, Subset, random_split)
from lucid.utils.data.sampler import (Sampler, SequentialSampler, RandomSampler, SubsetRandomSampler,  # noqa: F401
                                      WeightedRandomSampler, BatchSampler)
from lucid.utils.data.dataloader import DataLoader, get_worker_info  # noqa: F401
from lucid.utils.data._utils.collate import default_collate, default_convert  # noqa: F401
from lucid.utils.data._utils.worker import WorkerInfo  # noqa: F401

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "StackDataset", "ConcatDataset", "ChainDataset", "Subset",
           "random_split", "Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler",
           "WeightedRandomSampler", "BatchSampler", "DataLoader", "get_worker_info", "default_collate",
           "default_convert", "WorkerInfo"]
