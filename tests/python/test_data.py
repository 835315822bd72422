"""lucid.utils.data: datasets, samplers, collation and the DataLoader (single process and spawn workers),
against torch.utils.data where behaviour is deterministic."""
import collections
import os

import numpy as np
import pytest

import lucid
from lucid.utils import data as D

Point = collections.namedtuple("Point", ["x", "y"])


class Squares(D.Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if not 0 <= i < self.n:
            raise IndexError(i)
        return {"x": lucid.full((2,), float(i)), "y": i * i}


class Ranges(D.IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        info = D.get_worker_info()
        if info is None:
            return iter(range(self.n))
        return iter(range(info.id, self.n, info.num_workers))

    def __len__(self):
        return self.n


class Failing(D.Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        if i == 2:
            raise KeyError("bad sample 2")
        return i


class WorkerIdentity(D.Dataset):
    def __len__(self):
        return 6

    def __getitem__(self, i):
        info = D.get_worker_info()
        return (i, info.id, info.num_workers, info.seed, os.getpid(), lucid.get_num_threads())


def _init_fn(worker_id):
    os.environ["LUCID_TEST_WORKER_INIT"] = str(worker_id)


class InitChecked(D.Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return int(os.environ.get("LUCID_TEST_WORKER_INIT", "-1"))


# ---------------------------------------------------------------- datasets
def test_tensor_dataset():
    x, y = lucid.arange(12.0).reshape(6, 2), lucid.arange(6)
    ds = D.TensorDataset(x, y)
    assert len(ds) == 6
    a, b = ds[4]
    assert a.tolist() == [8.0, 9.0] and b.item() == 4
    with pytest.raises(ValueError, match="Size mismatch"):
        D.TensorDataset(x, lucid.arange(5))


def test_concat_subset_stack():
    a, b = Squares(3), Squares(4)
    c = a + b
    assert isinstance(c, D.ConcatDataset) and len(c) == 7 and c.cumulative_sizes == [3, 7]
    assert c[3]["y"] == 0 and c[-1]["y"] == 9
    with pytest.raises(IndexError):
        c[7]
    with pytest.raises(ValueError):
        c[-8]
    s = D.Subset(c, [6, 0])
    assert len(s) == 2 and s[0]["y"] == 9 and s.__getitems__([1, 0])[0]["y"] == 0
    st = D.StackDataset(Squares(2), Squares(2))
    assert st[1][0]["y"] == 1
    st = D.StackDataset(a=Squares(2), b=Squares(2))
    assert set(st[0]) == {"a", "b"}
    with pytest.raises(ValueError):
        D.StackDataset(Squares(2), Squares(3))
    ch = Ranges(2) + Ranges(3)
    assert isinstance(ch, D.ChainDataset) and list(ch) == [0, 1, 0, 1, 2] and len(ch) == 5
    with pytest.raises(AssertionError):
        D.ConcatDataset([Ranges(2)])


def test_random_split():
    ds = Squares(10)
    g = lucid.Generator()
    g.manual_seed(3)
    parts = D.random_split(ds, [3, 7], generator=g)
    idx = parts[0].indices + parts[1].indices
    assert sorted(idx) == list(range(10)) and [len(p) for p in parts] == [3, 7]
    g.manual_seed(3)
    assert D.random_split(ds, [3, 7], generator=g)[0].indices == parts[0].indices
    assert [len(p) for p in D.random_split(Squares(11), [0.5, 0.3, 0.2])] == [6, 3, 2]
    with pytest.raises(ValueError, match="Sum of input lengths"):
        D.random_split(ds, [3, 3])
    with pytest.warns(UserWarning, match="Length of split at index 1 is 0"):
        D.random_split(Squares(2), [1.0, 0.0])


def test_random_split_fraction_lengths_match_torch(torch):
    for n, fr in ((10, [0.5, 0.5]), (11, [0.5, 0.3, 0.2]), (7, [0.1, 0.2, 0.7]), (5, [0.25, 0.25, 0.25, 0.25])):
        a = [len(p) for p in D.random_split(Squares(n), fr)]
        b = [len(p) for p in torch.utils.data.random_split(range(n), fr)]
        assert a == b


# ---------------------------------------------------------------- samplers
def test_sequential_and_batch_sampler_match_torch(torch):
    assert list(D.SequentialSampler(range(5))) == [0, 1, 2, 3, 4]
    for n, bs, dl in ((10, 3, False), (10, 3, True), (9, 3, True), (2, 5, False)):
        ours = D.BatchSampler(D.SequentialSampler(range(n)), bs, dl)
        theirs = torch.utils.data.BatchSampler(torch.utils.data.SequentialSampler(range(n)), bs, dl)
        assert list(ours) == list(theirs) and len(ours) == len(theirs)
    with pytest.raises(ValueError):
        D.BatchSampler(range(3), 0, False)
    with pytest.raises(ValueError):
        D.BatchSampler(range(3), 2, "no")


def test_random_sampler():
    g = lucid.Generator()
    g.manual_seed(0)
    s = D.RandomSampler(range(20), generator=g)
    order = list(s)
    assert sorted(order) == list(range(20)) and order != list(range(20)) and len(s) == 20
    g.manual_seed(0)
    assert list(s) == order
    r = list(D.RandomSampler(range(5), replacement=True, num_samples=70))
    assert len(r) == 70 and set(r) <= set(range(5))
    r = list(D.RandomSampler(range(5), num_samples=12))
    assert len(r) == 12 and sorted(r[:5]) == list(range(5)) and sorted(r[5:10]) == list(range(5))
    lucid.manual_seed(7)
    a = list(D.RandomSampler(range(10)))
    lucid.manual_seed(7)
    assert list(D.RandomSampler(range(10))) == a
    with pytest.raises(ValueError):
        D.RandomSampler(range(3), num_samples=0)
    with pytest.raises(TypeError):
        D.RandomSampler(range(3), replacement=1)
    sub = list(D.SubsetRandomSampler([10, 20, 30]))
    assert sorted(sub) == [10, 20, 30]


def test_weighted_random_sampler():
    g = lucid.Generator()
    g.manual_seed(1)
    s = D.WeightedRandomSampler([0.1, 0.0, 0.9], 4000, generator=g)
    draws = np.array(list(s))
    assert len(s) == 4000 and 1 not in draws
    assert abs((draws == 2).mean() - 0.9) < 0.03
    s = D.WeightedRandomSampler(lucid.tensor([1.0, 5.0, 0.0, 2.0]), 3, replacement=False, generator=g)
    d = list(s)
    assert sorted(d) == [0, 1, 3]
    with pytest.raises(RuntimeError):
        list(D.WeightedRandomSampler([1.0, 0.0], 2, replacement=False))
    with pytest.raises(ValueError):
        D.WeightedRandomSampler([1.0], 0)
    with pytest.raises(RuntimeError):
        D.WeightedRandomSampler([-1.0, 2.0], 2)


# ---------------------------------------------------------------- collation
def test_default_collate_matches_torch(torch):
    cases = [
        [1, 2, 3],
        [1.5, 2.5],
        [True, False],
        ["a", "b"],
        [(1, 2.0), (3, 4.0)],
        [[1, 2], [3, 4]],
        [{"a": 1, "b": np.array([1.0, 2.0])}, {"a": 2, "b": np.array([3.0, 4.0])}],
        [Point(1, 2.0), Point(3, 4.0)],
        [np.float32(1.0), np.float32(2.0)],
        [np.arange(3, dtype=np.int32), np.arange(3, dtype=np.int32)],
    ]

    def norm(x):
        if hasattr(x, "detach"):
            return ("T", str(x.dtype).split(".")[-1], np.asarray(x.detach().numpy()).tolist())
        if isinstance(x, lucid.Tensor):
            return ("T", x.dtype.name, x.tolist())
        if isinstance(x, dict):
            return {k: norm(v) for k, v in x.items()}
        if isinstance(x, (list, tuple)):
            return (type(x).__name__, [norm(v) for v in x])
        return x

    for batch in cases:
        ours = D.default_collate(batch)
        theirs = torch.utils.data.default_collate(batch)
        assert norm(ours) == norm(theirs), batch
    stacked = D.default_collate([lucid.ones(2, 3), lucid.zeros(2, 3)])
    assert stacked.shape == (2, 2, 3)
    with pytest.raises(RuntimeError, match="equal size"):
        D.default_collate([[1, 2], [3]])
    with pytest.raises(TypeError, match="default_collate"):
        D.default_collate([object(), object()])
    with pytest.raises(TypeError):
        D.default_collate([np.array(["a"]), np.array(["b"])])
    conv = D.default_convert({"a": np.arange(2), "b": (np.float64(1.0), "s")})
    assert isinstance(conv["a"], lucid.Tensor) and isinstance(conv["b"][0], lucid.Tensor) and conv["b"][1] == "s"


# ---------------------------------------------------------------- DataLoader, main process
def test_dataloader_batches_and_len():
    dl = D.DataLoader(Squares(10), batch_size=4)
    batches = list(dl)
    assert len(dl) == 3 and len(batches) == 3
    assert batches[0]["x"].shape == (4, 2) and batches[0]["y"].tolist() == [0, 1, 4, 9]
    assert batches[-1]["y"].tolist() == [64, 81]
    dl = D.DataLoader(Squares(10), batch_size=4, drop_last=True)
    assert len(dl) == 2 and len(list(dl)) == 2
    dl = D.DataLoader(Squares(3), batch_size=None)
    assert [b["y"] for b in dl] == [0, 1, 4]
    dl = D.DataLoader(Squares(5), batch_sampler=[[4, 0], [2]])
    assert [b["y"].tolist() for b in dl] == [[16, 0], [4]]
    dl = D.DataLoader(Squares(4), batch_size=2, collate_fn=lambda b: [s["y"] for s in b])
    assert list(dl) == [[0, 1], [4, 9]]
    dl = D.DataLoader(Ranges(5), batch_size=2)
    assert [b.tolist() for b in dl] == [[0, 1], [2, 3], [4]] and len(dl) == 3
    dl = D.DataLoader(Ranges(5), batch_size=2, drop_last=True)
    assert [b.tolist() for b in dl] == [[0, 1], [2, 3]] and len(dl) == 2


def test_dataloader_shuffle_reproducible():
    g = lucid.Generator()
    g.manual_seed(11)
    dl = D.DataLoader(Squares(12), batch_size=5, shuffle=True, generator=g)
    first = [b["y"].tolist() for b in dl]
    second = [b["y"].tolist() for b in dl]
    assert first != second  # a new order every epoch
    g.manual_seed(11)
    assert [b["y"].tolist() for b in dl] == first
    assert sorted(sum(first, [])) == sorted(i * i for i in range(12))
    lucid.manual_seed(5)
    a = [b["y"].tolist() for b in D.DataLoader(Squares(12), batch_size=5, shuffle=True)]
    lucid.manual_seed(5)
    assert [b["y"].tolist() for b in D.DataLoader(Squares(12), batch_size=5, shuffle=True)] == a


def test_dataloader_argument_errors():
    ds = Squares(4)
    with pytest.raises(ValueError, match="mutually exclusive with shuffle"):
        D.DataLoader(ds, sampler=D.SequentialSampler(ds), shuffle=True)
    with pytest.raises(ValueError, match="batch_sampler option is mutually exclusive"):
        D.DataLoader(ds, batch_sampler=[[0]], batch_size=2)
    with pytest.raises(ValueError, match="drop_last"):
        D.DataLoader(ds, batch_size=None, drop_last=True)
    with pytest.raises(ValueError, match="num_workers"):
        D.DataLoader(ds, num_workers=-1)
    with pytest.raises(ValueError, match="prefetch_factor"):
        D.DataLoader(ds, prefetch_factor=2)
    with pytest.raises(ValueError, match="persistent_workers"):
        D.DataLoader(ds, persistent_workers=True)
    with pytest.raises(ValueError, match="shuffle"):
        D.DataLoader(Ranges(3), shuffle=True)
    with pytest.raises(ValueError, match="sampler"):
        D.DataLoader(Ranges(3), sampler=[0])
    dl = D.DataLoader(ds)
    with pytest.raises(ValueError, match="should not be set"):
        dl.batch_size = 3
    with pytest.warns(UserWarning, match="pin_memory"):
        assert len(list(D.DataLoader(ds, batch_size=2, pin_memory=True))) == 2
    with pytest.raises(KeyError, match="bad sample"):
        list(D.DataLoader(Failing(), batch_size=1))


# ---------------------------------------------------------------- DataLoader, spawn workers (kept few: ~1 s each)
def test_workers_order_info_seeds_and_errors():
    dl = D.DataLoader(WorkerIdentity(), batch_size=2, num_workers=2, worker_init_fn=_init_fn)
    batches = list(dl)
    assert len(batches) == 3
    idx = [v for b in batches for v in b[0].tolist()]
    assert idx == list(range(6))  # in sampler order
    wids = {v for b in batches for v in b[1].tolist()}
    assert wids == {0, 1} and all(n == 2 for b in batches for n in b[2].tolist())
    seeds = {(w, s) for b in batches for w, s in zip(b[1].tolist(), b[3].tolist())}
    base = min(s for _, s in seeds)
    assert seeds == {(0, base), (1, base + 1)}
    assert os.getpid() not in {p for b in batches for p in b[4].tolist()}
    assert {n for b in batches for n in b[5].tolist()} == {1}
    assert D.get_worker_info() is None
    assert [v for b in D.DataLoader(InitChecked(), batch_size=2, num_workers=2, worker_init_fn=_init_fn)
            for v in b.tolist()] == [0, 0, 1, 1]
    with pytest.raises(KeyError, match="Caught KeyError in DataLoader worker process"):
        list(D.DataLoader(Failing(), batch_size=1, num_workers=1))


def test_workers_iterable_and_persistent():
    dl = D.DataLoader(Ranges(7), batch_size=2, num_workers=2)
    got = sorted(v for b in dl for v in b.tolist())
    assert got == list(range(7))
    g = lucid.Generator()
    g.manual_seed(2)
    dl = D.DataLoader(Squares(9), batch_size=2, shuffle=True, num_workers=2, persistent_workers=True,
                      prefetch_factor=1, generator=g)
    e1 = [v for b in dl for v in b["y"].tolist()]
    it = iter(dl)
    next(it)  # abandon an epoch half way: the next epoch starts cleanly
    e2 = [v for b in dl for v in b["y"].tolist()]
    assert sorted(e1) == sorted(e2) == sorted(i * i for i in range(9))
    assert dl._iterator is not None and all(w.is_alive() for w in dl._iterator._workers)
    pids = [w.pid for w in dl._iterator._workers]
    list(dl)
    assert [w.pid for w in dl._iterator._workers] == pids
    dl._iterator._shutdown_workers()
