"""End to end: a small model trained with DataLoader + optimizer + scheduler, checkpointed with
lucid.save and resumed with lucid.load; and the same training step by step beside PyTorch."""
import io

import numpy as np
import pytest

import lucid
from lucid import nn, optim
from lucid.utils.data import DataLoader, TensorDataset


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 16)
        self.fc2 = nn.Linear(16, 1)

    def forward(self, x):
        return self.fc2(self.fc1(x).relu())


def _torch_mlp(torch):
    class TMLP(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = torch.nn.Linear(4, 16)
            self.fc2 = torch.nn.Linear(16, 1)

        def forward(self, x):
            return self.fc2(self.fc1(x).relu())
    return TMLP()


def _data(n=128, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, 4)).astype(np.float32)
    y = (x @ np.array([[1.0], [-2.0], [0.5], [0.0]], dtype=np.float32)) + 0.1
    return x, y


def _mse(a, b):
    d = a - b
    return (d * d).sum() * (1.0 / d.numel())


def test_train_checkpoint_resume(tmp_path):
    lucid.manual_seed(0)
    x, y = _data()
    ds = TensorDataset(lucid.tensor(x), lucid.tensor(y))
    model = MLP()
    opt = optim.Adam(model.parameters(), lr=0.02)
    sched = optim.lr_scheduler.StepLR(opt, step_size=5, gamma=0.5)
    g = lucid.Generator()
    g.manual_seed(1)
    loader = DataLoader(ds, batch_size=32, shuffle=True, generator=g)

    def epoch(m, o, s):
        total = 0.0
        for xb, yb in loader:
            o.zero_grad()
            loss = _mse(m(xb), yb)
            loss.backward()
            o.step()
            total += loss.item()
        s.step()
        return total / len(loader)

    first = epoch(model, opt, sched)
    for _ in range(9):
        last = epoch(model, opt, sched)
    assert last < first * 0.1
    path = tmp_path / "ckpt"
    lucid.save({"model": model.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(),
                "rng": g.get_state()}, path)

    ck = lucid.load(path)
    model2 = MLP()
    opt2 = optim.Adam(model2.parameters(), lr=0.02)
    sched2 = optim.lr_scheduler.StepLR(opt2, step_size=5, gamma=0.5)
    model2.load_state_dict(ck["model"])
    opt2.load_state_dict(ck["opt"])
    sched2.load_state_dict(ck["sched"])
    xs = lucid.tensor(x)
    np.testing.assert_array_equal(model(xs).detach().numpy(), model2(xs).detach().numpy())
    g.set_state(ck["rng"])
    a = epoch(model, opt, sched)
    g.set_state(ck["rng"])
    b = epoch(model2, opt2, sched2)
    assert a == b
    for p, q in zip(model.parameters(), model2.parameters()):
        np.testing.assert_array_equal(p.numpy(), q.numpy())


@pytest.mark.parametrize("opt_name,kw", [("SGD", dict(lr=0.05, momentum=0.9, nesterov=True)),
                                         ("AdamW", dict(lr=0.01))])
def test_training_matches_torch(torch, opt_name, kw):
    x, y = _data(64)
    model, tmodel = MLP().double(), _torch_mlp(torch).double()
    tmodel.load_state_dict({k: torch.tensor(v.numpy()) for k, v in model.state_dict().items()})
    opt, topt = getattr(optim, opt_name)(model.parameters(), **kw), getattr(torch.optim, opt_name)(
        tmodel.parameters(), **kw)
    sched = optim.lr_scheduler.CosineAnnealingLR(opt, T_max=10)
    tsched = torch.optim.lr_scheduler.CosineAnnealingLR(topt, T_max=10)
    xl, yl = lucid.tensor(x, dtype=lucid.float64), lucid.tensor(y, dtype=lucid.float64)
    xt, yt = torch.tensor(x, dtype=torch.float64), torch.tensor(y, dtype=torch.float64)
    for _ in range(15):
        opt.zero_grad()
        topt.zero_grad()
        loss = _mse(model(xl), yl)
        tloss = torch.nn.functional.mse_loss(tmodel(xt), yt)
        assert loss.item() == pytest.approx(tloss.item(), rel=1e-9)
        loss.backward()
        tloss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        torch.nn.utils.clip_grad_norm_(tmodel.parameters(), 1.0)
        opt.step()
        topt.step()
        sched.step()
        tsched.step()
    for (n, p), (tn, tp) in zip(model.named_parameters(), tmodel.named_parameters()):
        assert n == tn
        np.testing.assert_allclose(p.numpy(), tp.detach().numpy(), rtol=1e-9, atol=1e-11)
