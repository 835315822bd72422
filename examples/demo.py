"""lucid's main job: train a small CNN on Fashion-MNIST on the CPU, as a PyTorch user would write it.

Reads the IDX files of Debian's `dataset-fashion-mnist` package (`make demo` installs it), trains with
a progress bar per epoch, prints the loss and the test accuracy after each epoch, saves a checkpoint
and a training-curve PNG (when matplotlib is installed), then reloads the checkpoint into a fresh
model and checks that it scores the same.

    python examples/demo.py [--epochs 5] [--batch-size 128] [--data DIR] [--out build/demo] [--limit N]
"""
import argparse
import gzip
import os
import struct
import sys
import time

import numpy as np

import lucid
import lucid.nn as nn
import lucid.nn.functional as F
from lucid.utils.data import BatchSampler, DataLoader, Dataset, RandomSampler, SequentialSampler

DATA_DIR = "/usr/share/datasets/fashion-mnist"
CLASSES = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"]
MEAN, STD = 0.2860, 0.3530


def read_idx(path):
    """An IDX file (gzip or plain) as a NumPy array."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    zero, dtype_code, ndim = struct.unpack(">HBB", data[:4])
    if zero != 0 or dtype_code != 0x08:
        raise ValueError(f"{path}: not an unsigned-byte IDX file")
    shape = struct.unpack(">" + "I" * ndim, data[4:4 + 4 * ndim])
    arr = np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * ndim)
    if arr.size != int(np.prod(shape)):
        raise ValueError(f"{path}: expected {int(np.prod(shape))} values, found {arr.size}")
    return arr.reshape(shape)


def find(data_dir, stem):
    for name in (stem + ".gz", stem):
        p = os.path.join(data_dir, name)
        if os.path.exists(p):
            return p
    raise FileNotFoundError(f"{stem}(.gz) not found in {data_dir}: install Debian's dataset-fashion-mnist "
                            f"(make demo does) or pass --data DIR")


class FashionMNIST(Dataset):
    """Images as normalised float32 (1, 28, 28) tensors and labels as int64. Indexing with a list of
    indices returns a whole batch (used with a BatchSampler and batch_size=None)."""

    def __init__(self, data_dir, train, limit=None):
        prefix = "train" if train else "t10k"
        images = read_idx(find(data_dir, f"{prefix}-images-idx3-ubyte"))
        labels = read_idx(find(data_dir, f"{prefix}-labels-idx1-ubyte"))
        if limit:
            images, labels = images[:limit], labels[:limit]
        self.images = ((images.astype(np.float32) / 255.0 - MEAN) / STD)[:, None, :, :]
        self.labels = labels.astype(np.int64)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, index):
        return lucid.from_numpy(np.ascontiguousarray(self.images[index])), lucid.from_numpy(
            np.ascontiguousarray(self.labels[index]))


class Net(nn.Module):
    """conv(1->16) relu pool, conv(16->32) relu pool, linear(1568->128) relu, linear(128->10)."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
        self.classifier = nn.Sequential(nn.Flatten(), nn.Linear(32 * 7 * 7, 128), nn.ReLU(), nn.Linear(128, 10))

    def forward(self, x):
        return self.classifier(self.features(x))


def batches(dataset, batch_size, shuffle, generator=None):
    sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
    return DataLoader(dataset, sampler=BatchSampler(sampler, batch_size, drop_last=False), batch_size=None)


class Progress:
    """tqdm when installed, else a plain in-place line."""

    def __init__(self, total, desc):
        try:
            from tqdm import tqdm
            self.bar = tqdm(total=total, desc=desc, unit="batch", leave=True, file=sys.stdout)
        except ImportError:
            self.bar = None
        self.total, self.desc, self.n, self.t0 = total, desc, 0, time.perf_counter()

    def update(self, loss):
        self.n += 1
        if self.bar is not None:
            self.bar.update(1)
            self.bar.set_postfix(loss=f"{loss:.4f}")
        elif self.n % 20 == 0 or self.n == self.total:
            rate = self.n / max(time.perf_counter() - self.t0, 1e-9)
            sys.stdout.write(f"\r{self.desc}: {self.n}/{self.total} batches, loss {loss:.4f}, {rate:.1f} batch/s")
            sys.stdout.flush()

    def close(self):
        if self.bar is not None:
            self.bar.close()
        else:
            sys.stdout.write("\n")


def evaluate(model, loader):
    model.eval()
    correct = total = 0
    with lucid.no_grad():
        for x, y in loader:
            pred = model(x).numpy().argmax(1)
            correct += int((pred == y.numpy()).sum())
            total += len(pred)
    model.train()
    return correct / max(total, 1)


def plot(history, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no training-curve PNG")
        return None
    fig, ax1 = plt.subplots(figsize=(7, 4))
    steps = np.arange(1, len(history["loss"]) + 1)
    ax1.plot(steps, history["loss"], color="tab:blue", alpha=0.6, label="training loss (per batch)")
    ax1.set_xlabel("batch")
    ax1.set_ylabel("loss")
    ax2 = ax1.twinx()
    ax2.plot(history["epoch_step"], [100 * a for a in history["acc"]], "o-", color="tab:red", label="test accuracy")
    ax2.set_ylabel("test accuracy (%)")
    fig.legend(loc="center right")
    ax1.set_title("lucid: a CNN on Fashion-MNIST")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--data", default=DATA_DIR)
    p.add_argument("--out", default="build/demo")
    p.add_argument("--limit", type=int, default=None, help="use the first N training images (a quick run)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--target", type=float, default=0.90, help="test accuracy the run must reach")
    args = p.parse_args(argv)

    lucid.manual_seed(args.seed)
    print(f"lucid {lucid.__version__}: {lucid.get_num_threads()} threads, CPU kernels '{lucid._C._cpu_isa()}', "
          f"BLAS {lucid._C._blas_info()['corename']}")
    train = FashionMNIST(args.data, train=True, limit=args.limit)
    test = FashionMNIST(args.data, train=False)
    print(f"Fashion-MNIST from {args.data}: {len(train)} training and {len(test)} test images")
    gen = lucid.Generator().manual_seed(args.seed)
    train_loader = batches(train, args.batch_size, shuffle=True, generator=gen)
    test_loader = batches(test, 1000, shuffle=False)

    model = Net()
    print(model)
    opt = lucid.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, nesterov=True)
    history = {"loss": [], "acc": [], "epoch_step": []}
    epoch_times = []
    for epoch in range(1, args.epochs + 1):
        bar = Progress(len(train_loader), f"epoch {epoch}/{args.epochs}")
        t0 = time.perf_counter()
        total, n = 0.0, 0
        for x, y in train_loader:
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            v = loss.item()
            history["loss"].append(v)
            total, n = total + v * len(y), n + len(y)
            bar.update(v)
        bar.close()
        epoch_times.append(time.perf_counter() - t0)
        acc = evaluate(model, test_loader)
        history["acc"].append(acc)
        history["epoch_step"].append(len(history["loss"]))
        print(f"epoch {epoch}: train loss {total / n:.4f}, test accuracy {100 * acc:.2f}%, "
              f"{epoch_times[-1]:.1f} s")

    os.makedirs(args.out, exist_ok=True)
    ckpt = os.path.join(args.out, "fashion_cnn.lucid")
    lucid.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "epochs": args.epochs,
                "test_accuracy": history["acc"][-1]}, ckpt)
    png = plot(history, os.path.join(args.out, "training_curve.png"))
    print(f"saved checkpoint {ckpt}" + (f" and training curve {png}" if png else ""))

    state = lucid.load(ckpt)
    fresh = Net()
    fresh.load_state_dict(state["model"])
    again = evaluate(fresh, test_loader)
    print(f"reloaded checkpoint: test accuracy {100 * again:.2f}% (saved {100 * state['test_accuracy']:.2f}%)")
    if abs(again - history["acc"][-1]) > 1e-9:
        print("error: the reloaded model scores differently", file=sys.stderr)
        return 1
    print(f"mean epoch time {np.mean(epoch_times):.1f} s")
    if history["acc"][-1] < args.target:
        print(f"error: test accuracy {100 * history['acc'][-1]:.2f}% is below the target {100 * args.target:.0f}%",
              file=sys.stderr)
        return 1
    return 0


def run(argv=None):
    """main() with flush-to-zero on for the run (denormals slow training) and restored after."""
    was = lucid._C._flush_denormal()
    lucid.set_flush_denormal(True)
    try:
        return main(argv)
    finally:
        lucid.set_flush_denormal(was)


if __name__ == "__main__":
    sys.exit(run())
