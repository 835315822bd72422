"""The demo's pieces (examples/demo.py): the IDX reader, the dataset, and a whole short run on
synthetic Fashion-MNIST-shaped files (training, checkpoint, reload, re-check)."""
import gzip
import os
import struct
import sys

import numpy as np
import pytest

import lucid

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples"))
import demo  # noqa: E402


def write_idx(path, arr, compress=True):
    arr = np.asarray(arr, dtype=np.uint8)
    data = struct.pack(">HBB", 0, 0x08, arr.ndim) + struct.pack(">" + "I" * arr.ndim, *arr.shape) + arr.tobytes()
    with (gzip.open if compress else open)(path, "wb") as f:
        f.write(data)


@pytest.fixture
def data_dir(tmp_path):
    rng = np.random.default_rng(0)
    for prefix, n in (("train", 300), ("t10k", 100)):
        labels = rng.integers(0, 10, n)
        images = rng.integers(0, 40, (n, 28, 28))
        for c in range(10):                      # class c lights up row block c: learnable in a few steps
            images[labels == c, 2 * c:2 * c + 3, :] = 250
        write_idx(tmp_path / f"{prefix}-images-idx3-ubyte.gz", images)
        write_idx(tmp_path / f"{prefix}-labels-idx1-ubyte", labels, compress=False)
    return tmp_path


def test_read_idx(tmp_path):
    a = np.arange(24, dtype=np.uint8).reshape(2, 3, 4)
    write_idx(tmp_path / "a.gz", a)
    np.testing.assert_array_equal(demo.read_idx(str(tmp_path / "a.gz")), a)
    (tmp_path / "bad").write_bytes(b"\x00\x00\x0d\x01\x00\x00\x00\x01x")
    with pytest.raises(ValueError, match="unsigned-byte"):
        demo.read_idx(str(tmp_path / "bad"))
    (tmp_path / "short").write_bytes(struct.pack(">HBBI", 0, 8, 1, 5) + b"ab")
    with pytest.raises(ValueError, match="expected 5"):
        demo.read_idx(str(tmp_path / "short"))


def test_dataset_and_model(data_dir):
    ds = demo.FashionMNIST(str(data_dir), train=True)
    assert len(ds) == 300
    x, y = ds[[0, 5, 7]]
    assert x.shape == (3, 1, 28, 28) and x.dtype is lucid.float32 and y.dtype is lucid.int64
    out = demo.Net()(x)
    assert out.shape == (3, 10)
    with pytest.raises(FileNotFoundError, match="dataset-fashion-mnist"):
        demo.FashionMNIST(str(data_dir / "nowhere"), train=True)


def test_short_run_trains_saves_and_reloads(data_dir, tmp_path, capsys):
    out = tmp_path / "out"
    rc = demo.run(["--data", str(data_dir), "--epochs", "2", "--batch-size", "32", "--out", str(out),
                    "--target", "0.5", "--lr", "0.02"])
    text = capsys.readouterr().out
    assert rc == 0, text
    assert (out / "fashion_cnn.lucid").exists()
    assert "reloaded checkpoint" in text and "epoch 2:" in text
    assert not lucid._C._flush_denormal()          # the run restores the mode it found
    state = lucid.load(str(out / "fashion_cnn.lucid"))
    assert state["epochs"] == 2 and state["test_accuracy"] >= 0.5
