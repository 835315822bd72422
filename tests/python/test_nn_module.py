"""nn.Parameter, nn.Module and the containers, checked against torch.nn where it matters."""
import copy
import pickle
from collections import OrderedDict

import numpy as np
import pytest

import lucid
from lucid import nn


def _np(t):
    return np.array(t.detach().tolist())


class Net(nn.Module):
    def __init__(self, mod=nn):
        super().__init__()
        self.fc1 = mod.Linear(3, 4)
        self.fc2 = mod.Linear(4, 2, bias=False)
        self.register_buffer("running", lucid.zeros(2) if mod is nn else None)
        self.register_buffer("tmp", lucid.ones(1) if mod is nn else None, persistent=False)

    def forward(self, x):
        return self.fc2(self.fc1(x).relu())


def _torch_net(torch):
    class TNet(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = torch.nn.Linear(3, 4)
            self.fc2 = torch.nn.Linear(4, 2, bias=False)
            self.register_buffer("running", torch.zeros(2))
            self.register_buffer("tmp", torch.ones(1), persistent=False)

        def forward(self, x):
            return self.fc2(self.fc1(x).relu())
    return TNet()


# ---------------------------------------------------------------- Parameter
def test_parameter_is_a_tensor():
    t = lucid.ones(2, 3)
    p = nn.Parameter(t)
    assert isinstance(p, nn.Parameter) and isinstance(p, lucid.Tensor)
    assert p.requires_grad and p.is_leaf
    assert not nn.Parameter(t, requires_grad=False).requires_grad
    with lucid.no_grad():
        t.add_(1)  # shares memory with its data
    assert p.tolist() == [[2.0] * 3] * 2
    y = (p * p + p.exp()).sum()
    y.backward()
    np.testing.assert_allclose(_np(p.grad), 2 * 2 + np.exp(2), rtol=1e-6)
    assert type(p * 2) is lucid.Tensor
    with lucid.no_grad():
        assert p.mul_(1) is p and p.to(lucid.float32) is p  # in-place ops give back the Parameter
    assert repr(p).startswith("Parameter containing:\ntensor(")
    assert nn.Parameter().shape == (0,)
    with pytest.raises(TypeError):
        nn.Parameter([1.0, 2.0])


def test_parameter_copy_and_pickle():
    p = nn.Parameter(lucid.arange(3.0))
    q = copy.deepcopy(p)
    assert isinstance(q, nn.Parameter) and q.tolist() == [0.0, 1.0, 2.0] and q.data_ptr() != p.data_ptr()
    r = pickle.loads(pickle.dumps(p))
    assert isinstance(r, nn.Parameter) and r.requires_grad and r.tolist() == [0.0, 1.0, 2.0]


# ---------------------------------------------------------------- registration and iteration
def test_named_members_match_torch(torch):
    m, tm = Net(), _torch_net(torch)
    assert [n for n, _ in m.named_parameters()] == [n for n, _ in tm.named_parameters()]
    assert [n for n, _ in m.named_buffers()] == [n for n, _ in tm.named_buffers()]
    assert [n for n, _ in m.named_modules()] == [n for n, _ in tm.named_modules()]
    assert [n for n, _ in m.named_children()] == [n for n, _ in tm.named_children()]
    assert [n for n, _ in m.named_parameters(prefix="net")] == [n for n, _ in tm.named_parameters(prefix="net")]
    assert [n for n, _ in m.named_parameters(recurse=False)] == []
    assert list(m.state_dict()) == list(tm.state_dict())
    assert len(list(m.parameters())) == 3 and len(list(m.buffers())) == 2


def test_shared_parameters_and_remove_duplicate(torch):
    for mod, T in ((nn, lucid), (torch.nn, torch)):
        a = mod.Linear(2, 2)
        s = mod.Sequential(a, a)
        s2 = mod.Sequential(OrderedDict(first=a, second=a))
        assert len(list(s.parameters())) == 2
        assert len(list(s.named_parameters(remove_duplicate=False))) == 4
        assert len(list(s.named_modules(remove_duplicate=False))) == 3
        assert list(s2.state_dict()) == ["first.weight", "first.bias", "second.weight", "second.bias"]


def test_setattr_getattr_delattr():
    m = nn.Module()
    m.w = nn.Parameter(lucid.ones(2))
    m.sub = nn.Linear(1, 1)
    m.register_buffer("b", lucid.zeros(1))
    m.plain = 3
    assert "w" in m._parameters and "sub" in m._modules and "b" in m._buffers and m.plain == 3
    m.b = lucid.ones(1)  # stays a buffer
    assert "b" in m._buffers and m.b.tolist() == [1.0]
    with pytest.raises(TypeError):
        m.w = lucid.ones(2)  # a plain tensor can't replace a parameter
    m.w = None
    assert m._parameters["w"] is None and m.w is None
    with pytest.raises(TypeError):
        m.sub = 3
    m.sub = None
    del m.sub, m.b, m.plain
    assert "sub" not in m._modules and "b" not in m._buffers and not hasattr(m, "plain")
    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        m.nope
    m.x = nn.Linear(1, 1)
    m.x = nn.Parameter(lucid.ones(1))  # reassigning as another kind moves it
    assert "x" in m._parameters and "x" not in m._modules
    d = dir(m)
    assert "x" in d and "forward" in d
    m.buf = nn.Buffer(lucid.ones(2), persistent=False)
    assert "buf" in m._buffers and "buf" in m._non_persistent_buffers_set


def test_registration_errors():
    m = nn.Module()
    with pytest.raises(KeyError):
        m.register_buffer("a.b", lucid.ones(1))
    with pytest.raises(KeyError):
        m.register_parameter("", nn.Parameter(lucid.ones(1)))
    with pytest.raises(TypeError):
        m.register_buffer("x", [1])
    with pytest.raises(TypeError):
        m.register_parameter("x", lucid.ones(1))
    with pytest.raises(TypeError):
        m.add_module("x", 3)
    m.plain = 1
    with pytest.raises(KeyError, match="already exists"):
        m.register_buffer("plain", lucid.ones(1))
    with pytest.raises(ValueError, match="non-leaf"):
        w = nn.Parameter(lucid.ones(1))
        m.register_parameter("y", w * 2 if False else _nonleaf_param())

    class Early(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(lucid.ones(1))
    with pytest.raises(AttributeError, match="before Module.__init__"):
        Early()


def _nonleaf_param():
    # a Parameter whose TensorImpl has a grad_fn can't be made from Python; fake the check's input
    class P(nn.Parameter):
        grad_fn = "fake"
    return P(lucid.ones(1))


def test_get_submodule_parameter_buffer():
    m = nn.Sequential(OrderedDict(a=Net(), b=nn.ReLU() if hasattr(nn, "ReLU") else nn.Identity()))
    assert m.get_submodule("a.fc1") is m.a.fc1
    assert m.get_submodule("") is m
    assert m.get_parameter("a.fc1.weight") is m.a.fc1.weight
    assert m.get_buffer("a.running") is m.a.running
    with pytest.raises(AttributeError):
        m.get_submodule("a.nope")
    with pytest.raises(AttributeError, match="not an nn.Module"):
        m.get_submodule("a.fc1.weight")
    with pytest.raises(AttributeError, match="not an nn.Parameter"):
        m.get_parameter("a.running")
    m.register_module("c", nn.Identity())
    assert isinstance(m.c, nn.Identity)
    m.set_submodule("a.fc2", nn.Identity())
    assert isinstance(m.a.fc2, nn.Identity)


def test_train_eval_requires_grad_zero_grad():
    m = Net()
    assert m.training and m.fc1.training
    assert m.eval() is m and not m.fc1.training
    m.train()
    assert m.fc2.training
    with pytest.raises(ValueError):
        m.train("yes")
    m(lucid.randn(2, 3)).sum().backward()
    assert all(p.grad is not None for p in m.parameters())
    m.zero_grad(set_to_none=False)
    assert all(p.grad is not None and not p.grad.numpy().any() for p in m.parameters())
    m.zero_grad()
    assert all(p.grad is None for p in m.parameters())
    m.requires_grad_(False)
    assert not any(p.requires_grad for p in m.parameters())


def test_to_and_casts():
    m = Net()
    w = m.fc1.weight
    assert m.to(lucid.float32) is m and m.fc1.weight is w  # nothing changes: same objects
    m.double()
    assert m.fc1.weight.dtype is lucid.float64 and isinstance(m.fc1.weight, nn.Parameter)
    assert m.running.dtype is lucid.float64
    m.to(dtype=lucid.float16)
    assert m.fc2.weight.dtype is lucid.float16
    m.float()
    assert m.fc1.weight.requires_grad
    m.cpu()
    m.to("cpu", lucid.float64)
    assert m.fc1.bias.dtype is lucid.float64
    with pytest.raises(TypeError, match="floating point"):
        m.to(lucid.int32)
    m.register_buffer("steps", lucid.zeros(1, dtype=lucid.int64))
    m.half()
    assert m.steps.dtype is lucid.int64  # integer buffers keep their dtype
    m(lucid.randn(1, 3, dtype=lucid.float16)) if False else None


def test_to_keeps_grad():
    m = nn.Linear(2, 2)
    m(lucid.ones(1, 2)).sum().backward()
    m.double()
    assert m.weight.grad is not None and m.weight.grad.dtype is lucid.float64


def test_apply():
    m = Net()
    seen = []
    m.apply(lambda mod: seen.append(type(mod).__name__))
    assert seen == ["Linear", "Linear", "Net"]

    def init(mod):
        if isinstance(mod, nn.Linear):
            nn.init.constant_(mod.weight, 0.5)
    m.apply(init)
    assert m.fc2.weight.tolist() == [[0.5] * 4] * 2


# ---------------------------------------------------------------- state dict
def test_state_dict_roundtrip_and_values(torch):
    m, tm = Net(), _torch_net(torch)
    tm.load_state_dict({k: torch.tensor(v.numpy()) for k, v in m.state_dict().items()})
    x = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)
    np.testing.assert_allclose(_np(m(lucid.tensor(x))), tm(torch.tensor(x)).detach().numpy(), rtol=1e-5, atol=1e-6)
    sd = m.state_dict()
    assert "tmp" not in sd and not sd["fc1.weight"].requires_grad
    assert m.state_dict(keep_vars=True)["fc1.weight"] is m.fc1.weight
    assert list(m.state_dict(prefix="p.")) == ["p.running", "p.fc1.weight", "p.fc1.bias", "p.fc2.weight"] or \
        list(m.state_dict(prefix="p.")) == list(tm.state_dict(prefix="p."))
    assert list(m.state_dict(prefix="p.")) == list(tm.state_dict(prefix="p."))
    m2 = Net()
    res = m2.load_state_dict(sd)
    assert res.missing_keys == [] and res.unexpected_keys == []
    assert m2.fc1.weight.tolist() == m.fc1.weight.tolist()
    assert sd._metadata[""]["version"] == 1


def test_load_state_dict_errors_match_torch(torch):
    m, tm = Net(), _torch_net(torch)
    sd = m.state_dict()
    tsd = tm.state_dict()
    del sd["fc1.bias"], tsd["fc1.bias"]
    sd["extra"] = lucid.ones(1)
    tsd["extra"] = torch.ones(1)
    with pytest.raises(RuntimeError) as e:
        m.load_state_dict(sd)
    with pytest.raises(RuntimeError) as te:
        tm.load_state_dict(tsd)
    assert str(e.value) == str(te.value).replace("TNet", "Net")
    res, tres = m.load_state_dict(sd, strict=False), tm.load_state_dict(tsd, strict=False)
    assert res.missing_keys == tres.missing_keys == ["fc1.bias"]
    assert res.unexpected_keys == tres.unexpected_keys == ["extra"]
    sd = m.state_dict()
    sd["fc1.weight"] = lucid.ones(3, 3)
    with pytest.raises(RuntimeError, match=r"size mismatch for fc1.weight: copying a param with shape "
                                           r"lucid.Size\(\[3, 3\]\) from checkpoint, the shape in current model is "
                                           r"lucid.Size\(\[4, 3\]\)"):
        m.load_state_dict(sd)
    with pytest.raises(TypeError):
        m.load_state_dict([1, 2])


def test_load_state_dict_strict_false_reports_keys(torch):
    m = Net()
    sd = m.state_dict()
    sd.pop("running")
    sd["fc3.weight"] = lucid.ones(1)
    tm = _torch_net(torch)
    tsd = tm.state_dict()
    tsd.pop("running")
    tsd["fc3.weight"] = torch.ones(1)
    r, tr = m.load_state_dict(sd, strict=False), tm.load_state_dict(tsd, strict=False)
    assert (r.missing_keys, r.unexpected_keys) == (tr.missing_keys, tr.unexpected_keys)
    assert r.missing_keys == ["running"] and r.unexpected_keys == ["fc3.weight"]
    assert repr(nn.Linear(1, 1).load_state_dict(nn.Linear(1, 1).state_dict())) == "<All keys matched successfully>"


def test_load_state_dict_assign():
    m = nn.Linear(2, 2)
    new_w = lucid.full((2, 2), 3.0)
    m.load_state_dict({"weight": new_w, "bias": lucid.zeros(2)}, assign=True)
    assert isinstance(m.weight, nn.Parameter) and m.weight.requires_grad
    assert m.weight.data_ptr() == new_w.data_ptr()
    w = m.weight
    m.load_state_dict({"weight": lucid.ones(2, 2), "bias": lucid.zeros(2)})
    assert m.weight is w and w.tolist() == [[1.0, 1.0]] * 2  # copied in place


def test_extra_state():
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.k = 1

        def get_extra_state(self):
            return {"k": self.k}

        def set_extra_state(self, s):
            self.k = s["k"]
    a, b = M(), M()
    a.k = 7
    sd = a.state_dict()
    assert sd["_extra_state"] == {"k": 7}
    b.load_state_dict(sd)
    assert b.k == 7


def test_state_dict_hooks():
    m = nn.Linear(1, 1)
    calls = []
    h = m.register_state_dict_post_hook(lambda mod, sd, prefix, meta: calls.append(prefix))
    m.state_dict()
    h.remove()
    m.state_dict()
    assert calls == [""]
    m.register_load_state_dict_post_hook(lambda mod, keys: calls.append(tuple(keys.missing_keys)))
    m.load_state_dict({"weight": lucid.ones(1, 1)}, strict=False)
    assert calls[-1] == ("bias",)


# ---------------------------------------------------------------- hooks
def test_forward_hooks_order_and_handles():
    m = nn.Linear(2, 2)
    log = []
    h1 = m.register_forward_pre_hook(lambda mod, args: log.append("pre"))
    h2 = m.register_forward_hook(lambda mod, args, out: log.append("post"))
    h3 = m.register_forward_pre_hook(lambda mod, args: log.append("pre0"), prepend=True)
    m(lucid.ones(1, 2))
    assert log == ["pre0", "pre", "post"]
    for h in (h1, h2, h3):
        h.remove()
    log.clear()
    m(lucid.ones(1, 2))
    assert log == []
    with m.register_forward_hook(lambda mod, args, out: log.append(1)):
        m(lucid.ones(1, 2))
    m(lucid.ones(1, 2))
    assert log == [1]


def test_forward_hooks_modify_args_and_output():
    m = nn.Identity()
    m.register_forward_pre_hook(lambda mod, args: (args[0] * 2,))
    m.register_forward_hook(lambda mod, args, out: out + 1)
    assert m(lucid.ones(1)).tolist() == [3.0]

    k = nn.Identity()
    k.register_forward_pre_hook(lambda mod, args, kwargs: ((args[0] * 10,), kwargs), with_kwargs=True)
    seen = {}
    k.register_forward_hook(lambda mod, args, kwargs, out: seen.update(kwargs), with_kwargs=True)
    assert k(lucid.ones(1)).tolist() == [10.0]

    class KW(nn.Module):
        def forward(self, x, scale=1.0):
            return x * scale
    kw = KW()
    kw.register_forward_hook(lambda mod, args, kwargs, out: seen.update(kwargs), with_kwargs=True)
    assert kw(lucid.ones(1), scale=3.0).tolist() == [3.0] and seen == {"scale": 3.0}


def test_forward_hook_always_call():
    class Boom(nn.Module):
        def forward(self, x):
            raise ValueError("boom")
    m = Boom()
    log = []
    m.register_forward_hook(lambda mod, args, out: log.append("always"), always_call=True)
    m.register_forward_hook(lambda mod, args, out: log.append("normal"))
    with pytest.raises(ValueError, match="boom"):
        m(lucid.ones(1))
    assert log == ["always"]


def test_global_hooks():
    log = []
    h = nn.register_module_forward_hook(lambda mod, args, out: log.append(type(mod).__name__))
    try:
        nn.Sequential(nn.Identity())(lucid.ones(1))
    finally:
        h.remove()
    nn.Identity()(lucid.ones(1))
    assert log == ["Identity", "Sequential"]


def test_full_backward_hook_matches_torch(torch):
    x_np = np.random.default_rng(1).standard_normal((3, 2))
    results = []
    for T, mod in ((lucid, nn), (torch, torch.nn)):
        lin = mod.Linear(2, 2).double()
        with (torch.no_grad() if T is torch else lucid.no_grad()):
            lin.weight.copy_(T.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=T.float64))
            lin.bias.zero_()
        got = {}

        def hook(module, grad_input, grad_output):
            got["gi"] = [None if g is None else np.array(g.tolist()) for g in grad_input]
            got["go"] = [np.array(g.tolist()) for g in grad_output]
        h = lin.register_full_backward_hook(hook)
        x = T.tensor(x_np, requires_grad=True)
        (lin(x) * 3).sum().backward()
        results.append(got)
        h.remove()
    (a, b) = results
    assert len(a["gi"]) == len(b["gi"]) == 1
    np.testing.assert_allclose(a["gi"][0], b["gi"][0])
    np.testing.assert_allclose(a["go"][0], b["go"][0])


def test_full_backward_hook_replaces_grad_input_and_no_input_grad():
    lin = nn.Linear(2, 2)
    lin.register_full_backward_hook(lambda m, gi, go: (gi[0] * 0,))
    x = lucid.ones(1, 2, requires_grad=True)
    lin(x).sum().backward()
    assert x.grad.tolist() == [[0.0, 0.0]]
    assert lin.weight.grad is not None
    got = []
    lin2 = nn.Linear(2, 2)
    lin2.register_full_backward_hook(lambda m, gi, go: got.append((gi, len(go))))
    pre = []
    lin2.register_full_backward_pre_hook(lambda m, go: pre.append(len(go)))
    lin2(lucid.ones(1, 2)).sum().backward()
    assert got == [((None,), 1)] and pre == [1]


# ---------------------------------------------------------------- repr
def test_repr_tree_matches_torch(torch):
    def build(mod):
        return mod.Sequential(OrderedDict(
            enc=mod.Sequential(mod.Linear(3, 4), mod.Flatten(), mod.Identity()),
            blocks=mod.ModuleList([mod.Linear(2, 2) for _ in range(3)] + [mod.Linear(2, 3)]),
            heads=mod.ModuleDict({"a": mod.Linear(1, 1, bias=False)}),
            un=mod.Unflatten(1, (2, 2)),
        ))
    assert repr(build(nn)) == repr(build(torch.nn))
    assert repr(nn.ModuleList()) == repr(torch.nn.ModuleList())
    pl = repr(nn.ParameterList([nn.Parameter(lucid.ones(2, 3))]))
    tpl = repr(torch.nn.ParameterList([torch.nn.Parameter(torch.ones(2, 3))]))
    assert pl == tpl.replace("torch", "lucid")
    pd = repr(nn.ParameterDict({"b": lucid.ones(2), "a": lucid.ones(1, dtype=lucid.float64)}))
    tpd = repr(torch.nn.ParameterDict({"b": torch.ones(2), "a": torch.ones(1, dtype=torch.float64)}))
    assert pd == tpd.replace("torch", "lucid")


# ---------------------------------------------------------------- containers
def test_sequential_ops(torch):
    a, b, c = nn.Linear(1, 1), nn.Identity(), nn.Flatten()
    s = nn.Sequential(a, b)
    assert len(s) == 2 and s[0] is a and s[-1] is b
    with pytest.raises(IndexError):
        s[2]
    s.append(c)
    assert list(s) == [a, b, c]
    assert isinstance(s[1:], nn.Sequential) and list(s[1:]) == [b, c]
    s.insert(0, nn.Identity())
    assert list(s._modules) == ["0", "1", "2", "3"] and s[1] is a
    del s[0]
    assert list(s) == [a, b, c] and list(s._modules) == ["0", "1", "2"]
    s.extend([nn.Identity()])
    assert len(s) == 4
    s[3] = a
    assert s[3] is a
    s2 = nn.Sequential(OrderedDict([("x", a), ("y", b)]))
    assert s2.x is a and list(s2._modules) == ["x", "y"]
    assert len(s + s2) == 6 and len(s2 * 2) == 4
    assert s.pop(0) is a and len(s) == 3
    seq = nn.Sequential(nn.Linear(2, 3), nn.Linear(3, 1))
    assert seq(lucid.ones(4, 2)).shape == (4, 1)


def test_module_list_and_dict():
    layers = nn.ModuleList([nn.Linear(1, 1) for _ in range(3)])
    assert len(layers) == 3 and len(list(layers.parameters())) == 6
    layers.append(nn.Identity())
    layers.insert(0, nn.Flatten())
    assert isinstance(layers[0], nn.Flatten) and isinstance(layers[-1], nn.Identity)
    layers.extend([nn.Identity()])
    assert len(layers) == 6 and len(layers[1:3]) == 2
    del layers[0]
    assert list(layers._modules) == [str(i) for i in range(5)]
    with pytest.raises(IndexError):
        layers[10]
    layers += nn.ModuleList([nn.Identity()])
    assert len(layers) == 6
    d = nn.ModuleDict({"b": nn.Identity(), "a": nn.Linear(1, 1)})
    assert list(d.keys()) == ["b", "a"] and "a" in d and len(d) == 2
    d["c"] = nn.Flatten()
    assert list(d) == ["b", "a", "c"]
    d.update([("z", nn.Identity())])
    assert d.pop("z") is not None and "z" not in d
    assert len(list(d.parameters())) == 2
    d.clear()
    assert len(d) == 0


def test_parameter_list_and_dict():
    pl = nn.ParameterList([lucid.ones(2), nn.Parameter(lucid.zeros(1))])
    assert all(isinstance(p, nn.Parameter) for p in pl) and len(pl) == 2
    pl.append(lucid.ones(3))
    assert len(list(pl.parameters())) == 3 and pl[-1].shape == (3,)
    pl[0] = lucid.full((2,), 5.0)
    assert isinstance(pl[0], nn.Parameter) and pl[0].tolist() == [5.0, 5.0]
    assert len(pl[1:]) == 2
    with pytest.raises(RuntimeError):
        pl(1)
    pd = nn.ParameterDict({"w": lucid.ones(2)})
    pd["v"] = lucid.zeros(1)
    assert list(pd.keys()) == ["w", "v"] and isinstance(pd["v"], nn.Parameter)
    assert [n for n, _ in pd.named_parameters()] == ["w", "v"]
    assert pd.get("nope") is None and "w" in pd
    del pd["w"]
    assert list(pd) == ["v"]
    assert pd.pop("v").shape == (1,) and len(pd) == 0
    m = nn.Module()
    m.pl = nn.ParameterList([lucid.ones(1)])
    assert list(m.state_dict()) == ["pl.0"]


# ---------------------------------------------------------------- simple layers
def test_identity_flatten_unflatten(torch):
    x = np.arange(24.0).reshape(2, 3, 4)
    assert nn.Identity(1, k=2)(lucid.tensor(x)).shape == (2, 3, 4)
    for args in ((), (0,), (1, 2), (0, -2)):
        a = nn.Flatten(*args)(lucid.tensor(x))
        b = torch.nn.Flatten(*args)(torch.tensor(x))
        assert a.shape == tuple(b.shape)
        np.testing.assert_array_equal(_np(a), b.numpy())
    for dim, size in ((1, (3, 1)), (-1, (2, -1)), (2, (2, 2))):
        a = nn.Unflatten(dim, size)(lucid.tensor(x))
        b = torch.nn.Unflatten(dim, size)(torch.tensor(x))
        assert a.shape == tuple(b.shape)
    with pytest.raises(RuntimeError):
        nn.Unflatten(1, (2, 2))(lucid.tensor(x))
    with pytest.raises(TypeError):
        nn.Unflatten(1, 3)
    assert repr(nn.Unflatten(1, (2, 2))) == repr(torch.nn.Unflatten(1, (2, 2)))
    assert repr(nn.Flatten()) == repr(torch.nn.Flatten())


def test_linear_matches_torch(torch):
    lin, tlin = nn.Linear(3, 2), torch.nn.Linear(3, 2)
    with torch.no_grad():
        tlin.weight.copy_(torch.tensor(lin.weight.numpy()))
        tlin.bias.copy_(torch.tensor(lin.bias.numpy()))
    x = np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32)
    xl, xt = lucid.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    yl, yt = lin(xl), tlin(xt)
    np.testing.assert_allclose(_np(yl), yt.detach().numpy(), rtol=1e-5, atol=1e-6)
    (yl * yl).sum().backward()
    (yt * yt).sum().backward()
    np.testing.assert_allclose(_np(lin.weight.grad), tlin.weight.grad.numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(_np(xl.grad), xt.grad.numpy(), rtol=1e-5, atol=1e-5)
    # default initialisation: kaiming_uniform_(a=sqrt(5)) -> bound 1/sqrt(fan_in)
    big = nn.Linear(100, 50)
    assert np.abs(big.weight.numpy()).max() <= 0.1 + 1e-6
    assert np.abs(big.bias.numpy()).max() <= 0.1 + 1e-6
    assert repr(nn.Linear(3, 2, bias=False)) == repr(torch.nn.Linear(3, 2, bias=False))


def test_module_deepcopy():
    m = Net()
    m2 = copy.deepcopy(m)
    assert isinstance(m2.fc1.weight, nn.Parameter)
    assert m2.fc1.weight.data_ptr() != m.fc1.weight.data_ptr()
    assert m2.fc1.weight.tolist() == m.fc1.weight.tolist()


def test_forward_unimplemented():
    with pytest.raises(NotImplementedError, match="forward"):
        nn.Module()(1)


# ---------------------------------------------------------------- lazy modules
def test_lazy_linear(torch):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m, tm = nn.LazyLinear(3), torch.nn.LazyLinear(3)
    assert isinstance(m.weight, nn.UninitializedParameter) and nn.parameter.is_lazy(m.bias)
    assert repr(m.weight) == "<UninitializedParameter>"
    assert list(m.state_dict()) == list(tm.state_dict())
    seen = []
    m.register_forward_hook(lambda mod, args, out: seen.append(out.shape))
    y = m(lucid.ones(2, 5))
    tm(torch.ones(2, 5))
    assert type(m) is nn.Linear and type(tm) is torch.nn.Linear and repr(m) == repr(tm)
    assert y.shape == (2, 3) and seen == [(2, 3)] and m.weight.shape == (3, 5)
    assert isinstance(m.weight, nn.Parameter) and not nn.parameter.is_lazy(m.weight) and m.weight.requires_grad
    assert np.abs(m.weight.numpy()).max() <= 1 / np.sqrt(5) + 1e-6
    assert [n for n, _ in m.named_parameters()] == ["weight", "bias"]
    m(lucid.ones(1, 5)).sum().backward()
    assert m.weight.grad.shape == (3, 5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m2 = nn.LazyLinear(3, bias=False)
    m2.load_state_dict({"weight": lucid.ones(3, 4)})  # loading materializes
    assert m2.weight.shape == (3, 4) and m2.weight.tolist() == [[1.0] * 4] * 3 and m2.bias is None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = nn.Sequential(nn.LazyLinear(4), nn.Linear(4, 2))
    assert s(lucid.ones(3, 7)).shape == (3, 2) and s[0].in_features == 7


def test_uninitialized_buffer():
    class M(nn.LazyModuleMixin, nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("stats", nn.UninitializedBuffer())

        def initialize_parameters(self, x):
            self.stats.materialize(x.shape[1:])
            with lucid.no_grad():
                self.stats.zero_()

        def forward(self, x):
            return x + self.stats
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = M()
    assert m.has_uninitialized_params()
    assert m(lucid.ones(2, 3)).tolist() == [[1.0] * 3] * 2 and m.stats.shape == (3,)
    assert not m.has_uninitialized_params() and list(m.state_dict()) == ["stats"]
