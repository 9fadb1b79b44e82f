"""torch_workload.py: a small PyTorch workload for comparing libkprof with a CUPTI trace: float32 GEMMs
(cuBLAS, launched through its own embedded runtime), a convolution (cuDNN) and elementwise ops (PyTorch's
own kernels, through libcudart.so).
Usage: python3 torch_workload.py [--steps N] [--warmup N] [--record [--untimed-events]]
--record: one CUDA timing event recorded on the stream after each op of the timed steps (a ring of 64, as
`kbench launch --record`): the floor of a profiler timing every op with one event, run without one.
--untimed-events: the ring's events made without timing (torch.cuda.Event()'s default, no timestamp),
which the GPU passes at less cost: an app's own markers, not a profiler's floor."""
import argparse
import time

import torch

p = argparse.ArgumentParser()
p.add_argument("--steps", type=int, default=20)
p.add_argument("--warmup", type=int, default=0, help="untimed steps first (steady-state step time)")
p.add_argument("--record", action="store_true", help="an event recorded after each op (the floor of event timing)")
p.add_argument("--untimed-events", action="store_true", help="--record's events without timing")
args = p.parse_args()

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
torch.manual_seed(0)
dev = torch.device("cuda")
a = torch.randn(1024, 1024, device=dev)
b = torch.randn(1024, 1024, device=dev)
x = torch.randn(16, 32, 64, 64, device=dev)
conv = torch.nn.Conv2d(32, 64, 3, padding=1).to(dev)

def step():
    c = a @ b
    c = torch.relu(c) * 0.5 + 1.0
    y = conv(x)
    return torch.sigmoid(y).sum()


for _ in range(args.warmup):
    step()
torch.cuda.synchronize()
evs = [torch.cuda.Event(enable_timing=not args.untimed_events) for _ in range(64)] if args.record else []
t0 = time.perf_counter()
if args.record:
    n = 0
    for _ in range(args.steps):  # the same ops, one at a time, each followed by a record
        for op in range(7):
            if op == 0:
                c = a @ b
            elif op == 1:
                c = torch.relu(c)
            elif op == 2:
                c = c * 0.5
            elif op == 3:
                c = c + 1.0
            elif op == 4:
                y = conv(x)
            elif op == 5:
                y = torch.sigmoid(y)
            else:
                y = y.sum()
            evs[n % 64].record()
            n += 1
else:
    for _ in range(args.steps):
        c = a @ b                 # cuBLAS sgemm
        c = torch.relu(c) * 0.5 + 1.0
        y = conv(x)               # cuDNN
        y = torch.sigmoid(y).sum()
torch.cuda.synchronize()
t1 = time.perf_counter()
print("torch_workload: steps=%d step_ms=%.3f check=%.4f" % (args.steps, (t1 - t0) * 1e3 / args.steps, float(y)))
