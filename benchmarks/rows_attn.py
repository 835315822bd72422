"""Attention rows (scaled_dot_product_attention) and the transformer training step."""
import lucid
import lucid.nn as lnn
import lucid.nn.functional as LF
import torch

from harness import Row
from rows import _pair


def sdpa_rows(device, quick):
    B, H, T, D = 4, 8, 256, 64
    q, tq = _pair((B, H, T, D), device, seed=1)
    k, tk = _pair((B, H, T, D), device, seed=2)
    v, tv = _pair((B, H, T, D), device, seed=3)
    flops = 2 * 2 * B * H * T * T * D // 2  # QK^T and PV over the causal half
    rows = [Row("attention", f"sdpa causal B{B} H{H} T{T} D{D} fwd",
                lambda: LF.scaled_dot_product_attention(q, k, v, is_causal=True),
                lambda: torch.nn.functional.scaled_dot_product_attention(tq, tk, tv, is_causal=True),
                flops=flops, rtol=1e-4, atol=1e-4)]
    g = [_pair((B, H, T, D), device, seed=s, requires_grad=True) for s in (1, 2, 3)]
    lq, lk, lv = (a for a, _ in g)
    gq, gk, gv = (t for _, t in g)

    def fb_lucid():
        LF.scaled_dot_product_attention(lq, lk, lv, is_causal=True).sum().backward()
        lq.grad = lk.grad = lv.grad = None

    def fb_torch():
        torch.nn.functional.scaled_dot_product_attention(gq, gk, gv, is_causal=True).sum().backward()
        gq.grad = gk.grad = gv.grad = None

    rows.append(Row("attention", f"sdpa causal B{B} H{H} T{T} D{D} fwd+bwd", fb_lucid, fb_torch, flops=7 * flops // 2,
                    check=False))
    return rows


class _LM:
    """Token embedding, num_layers causal TransformerEncoderLayers, a linear head (either library's nn)."""

    def __init__(self, nn, vocab, d, heads, layers, ff):
        self.emb = nn.Embedding(vocab, d)
        self.enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(d, heads, ff, dropout=0.0, batch_first=True),
                                         layers, enable_nested_tensor=False)
        self.head = nn.Linear(d, vocab)
        self.model = nn.ModuleList([self.emb, self.enc, self.head])

    def __call__(self, x, mask):
        return self.head(self.enc(self.emb(x), mask=mask, is_causal=True))


def transformer_rows(device, quick):
    V, d, H, nl, T, B = 8192, 256, 4, 4, 256, 8
    lucid.manual_seed(0)
    lm, tm = _LM(lnn, V, d, H, nl, 4 * d), _LM(torch.nn, V, d, H, nl, 4 * d)
    lm.model.to(device)
    tm.model.to(device)
    tm.model.load_state_dict({k: torch.from_numpy(v.detach().cpu().numpy().copy())
                              for k, v in lm.model.state_dict().items()})
    lmask = lnn.Transformer.generate_square_subsequent_mask(T, device=device)
    tmask = torch.nn.Transformer.generate_square_subsequent_mask(T, device=device)
    lucid.manual_seed(9)
    x = lucid.randint(0, V, (B, T + 1), device=device)
    tx = torch.from_numpy(x.cpu().numpy().copy()).to(device)
    xi, y, txi, ty = x[:, :-1], x[:, 1:].reshape(-1), tx[:, :-1], tx[:, 1:].reshape(-1)
    lopt = lucid.optim.AdamW(lm.model.parameters(), lr=1e-4)
    topt = torch.optim.AdamW(tm.model.parameters(), lr=1e-4)

    def step_lucid():
        loss = LF.cross_entropy(lm(xi, lmask).reshape(B * T, V), y)
        lopt.zero_grad()
        loss.backward()
        lucid.nn.utils.clip_grad_norm_(lm.model.parameters(), 1.0)
        lopt.step()

    def step_torch():
        loss = torch.nn.functional.cross_entropy(tm(txi, tmask).reshape(B * T, V), ty)
        topt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(tm.model.parameters(), 1.0)
        topt.step()

    return [Row("train", f"transformer {nl}L d{d} h{H} T{T} V{V} AdamW clip B{B}", step_lucid, step_torch,
                check=False)]
