"""decode_loop.py: an eager LLM decode loop for libkprof's overhead benchmark (tests/gpu/run-bench.sh): batch
1, fp16, a GPT-style decoder of LAYERS layers (RMS norm, attention over a growing KV cache, SiLU MLP) with
random weights (no download), no CUDA graphs, no torch.compile: every token is a few hundred small
launches, so the launch path's cost shows.  Prints the median of the per-token time of blocks of BLOCK
tokens within the run (the machine's own rate moves between runs).
--ab: an A/B within the one run, for a profiler that pauses on cudaProfilerStop and resumes on
cudaProfilerStart (libkprof does; without a profiler both are no-ops): the blocks run profiled and paused in
the order on, off, off, on (repeated), so a steady drift of the rate (the KV cache grows) cancels in each
four; prints token_ms_on and token_ms_off (medians of their blocks) and ab_ratio, the median over the fours
of (on + on) / (off + off): the profiler's cost with the run-to-run moves of the machine left out (the
paused profiler's own pass-through, some ns a call, is in the off blocks).
Usage: python3 decode_loop.py [--layers 12] [--tokens 256] [--warmup 32] [--block 32] [--dim 1024] [--ab]"""
import argparse
import statistics
import time

import torch

p = argparse.ArgumentParser()
p.add_argument("--layers", type=int, default=12)
p.add_argument("--tokens", type=int, default=256)
p.add_argument("--warmup", type=int, default=32)
p.add_argument("--block", type=int, default=32)
p.add_argument("--dim", type=int, default=1024)
p.add_argument("--heads", type=int, default=16)
p.add_argument("--vocab", type=int, default=32000)
p.add_argument("--ab", action="store_true")
args = p.parse_args()
if args.ab and args.tokens // args.block < 4:
    p.error("--ab needs at least 4 blocks (--tokens / --block)")

torch.manual_seed(0)
dev, dt = torch.device("cuda"), torch.float16
D, H = args.dim, args.heads
Hd = D // H
ctx = args.warmup + args.tokens + 1


def w(*shape):
    return (torch.randn(*shape, device=dev, dtype=dt) * 0.02)


layers = [dict(qkv=w(3 * D, D), o=w(D, D), up=w(4 * D, D), gate=w(4 * D, D), down=w(D, 4 * D),
               n1=torch.ones(D, device=dev, dtype=dt), n2=torch.ones(D, device=dev, dtype=dt),
               k=torch.zeros(H, ctx, Hd, device=dev, dtype=dt), v=torch.zeros(H, ctx, Hd, device=dev, dtype=dt))
          for _ in range(args.layers)]
emb, head = w(args.vocab, D), w(args.vocab, D)


def rms(x, g):
    return x * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + 1e-6).to(dt) * g


@torch.no_grad()
def step(tok, pos):
    x = emb[tok]
    for L in layers:
        q, k, v = torch.nn.functional.linear(rms(x, L["n1"]), L["qkv"]).view(3, H, 1, Hd).unbind(0)
        L["k"][:, pos] = k[:, 0]
        L["v"][:, pos] = v[:, 0]
        a = torch.nn.functional.scaled_dot_product_attention(q, L["k"][:, :pos + 1], L["v"][:, :pos + 1])
        x = x + torch.nn.functional.linear(a.reshape(1, D), L["o"])
        h = rms(x, L["n2"])
        x = x + torch.nn.functional.linear(
            torch.nn.functional.silu(torch.nn.functional.linear(h, L["gate"])) * torch.nn.functional.linear(h, L["up"]),
            L["down"])
    return torch.argmax(torch.nn.functional.linear(x, head), dim=-1)


tok = torch.zeros(1, dtype=torch.long, device=dev)
pos = 0
for _ in range(args.warmup):
    tok = step(tok, pos)
    pos += 1
torch.cuda.synchronize()
blocks, on = [], []
for b in range(args.tokens // args.block):
    if args.ab:  # on, off, off, on: a linear drift cancels within each four
        on.append(b % 4 in (0, 3))
        (torch.cuda.profiler.start if on[-1] else torch.cuda.profiler.stop)()
    t0 = time.perf_counter()
    for _ in range(args.block):
        tok = step(tok, pos)   # argmax feeds the next token on the GPU: no host sync inside a block
        pos += 1
    torch.cuda.synchronize()
    blocks.append((time.perf_counter() - t0) * 1e3 / args.block)
if args.ab:
    torch.cuda.profiler.start()
print("decode_loop: layers=%d tokens=%d token_ms=%.4f (blocks of %d: %s)" % (
    args.layers, len(blocks) * args.block, statistics.median(blocks), args.block,
    " ".join("%.3f" % b for b in blocks)))
if args.ab:
    fours = [(blocks[i] + blocks[i + 3]) / (blocks[i + 1] + blocks[i + 2]) for i in range(0, len(blocks) - 3, 4)]
    print("decode_loop: ab token_ms_on=%.4f token_ms_off=%.4f ab_ratio=%.4f (fours: %s)" % (
        statistics.median([b for b, o in zip(blocks, on) if o]), statistics.median([b for b, o in zip(blocks, on) if not o]),
        statistics.median(fours) if fours else float("nan"), " ".join("%.3f" % f for f in fours)))
