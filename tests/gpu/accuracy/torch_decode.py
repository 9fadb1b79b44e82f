"""torch_decode: eager LLM decoding at batch 1 (fp16, a GPT-style decoder of 4 layers with random weights:
RMS norm, attention over a growing KV cache, SiLU MLP; no CUDA graphs, no torch.compile), 48 tokens, each
token's argmax fed back on the GPU: a few thousand small kernels (cuBLAS GEMV and split-K GEMMs, PyTorch
elementwise, reduction and softmax kernels) on one stream that runs dry between them, the launch-bound
workload of tests/gpu/decode_loop.py (the overhead benchmark) at a suite's size."""
import sys

import torch

torch.manual_seed(0)
dev, dt = torch.device("cuda"), torch.float16
D, H, LAYERS, VOCAB, TOKENS = 1024, 16, 4, 32000, 48
Hd = D // H


def w(*shape):
    return torch.randn(*shape, device=dev, dtype=dt) * 0.02


layers = [dict(qkv=w(3 * D, D), o=w(D, D), up=w(4 * D, D), gate=w(4 * D, D), down=w(D, 4 * D),
               n1=torch.ones(D, device=dev, dtype=dt), n2=torch.ones(D, device=dev, dtype=dt),
               k=torch.zeros(H, TOKENS, Hd, device=dev, dtype=dt), v=torch.zeros(H, TOKENS, Hd, device=dev, dtype=dt))
          for _ in range(LAYERS)]
emb, head = w(VOCAB, D), w(VOCAB, D)
F = torch.nn.functional


def rms(x, g):
    return x * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + 1e-6).to(dt) * g


@torch.no_grad()
def step(tok, pos):
    x = emb[tok]
    for L in layers:
        q, k, v = F.linear(rms(x, L["n1"]), L["qkv"]).view(3, H, 1, Hd).unbind(0)
        L["k"][:, pos] = k[:, 0]
        L["v"][:, pos] = v[:, 0]
        a = F.scaled_dot_product_attention(q, L["k"][:, :pos + 1], L["v"][:, :pos + 1])
        x = x + F.linear(a.reshape(1, D), L["o"])
        h = rms(x, L["n2"])
        x = x + F.linear(F.silu(F.linear(h, L["gate"])) * F.linear(h, L["up"]), L["down"])
    return torch.argmax(F.linear(x, head), dim=-1), x


tok = torch.zeros(1, dtype=torch.long, device=dev)
toks = []
for pos in range(TOKENS):
    tok, x = step(tok, pos)
    toks.append(tok)
torch.cuda.synchronize()
ids = torch.cat(toks).tolist()
ok = bool(torch.isfinite(x).all()) and all(0 <= i < VOCAB for i in ids)
print("torch_decode: %d tokens, last hidden state finite: %s, tokens %s..." % (TOKENS, ok, ids[:8]))
sys.exit(0 if ok else 1)
