"""torch_workload.py: a small PyTorch workload for comparing libkprof with a CUPTI trace: float32 GEMMs
(cuBLAS, launched through its own embedded runtime), a convolution (cuDNN) and elementwise ops (PyTorch's
own kernels, through libcudart.so).  Usage: python3 torch_workload.py [--steps N] [--no-tf32]"""
import argparse
import time

import torch

p = argparse.ArgumentParser()
p.add_argument("--steps", type=int, default=20)
p.add_argument("--warmup", type=int, default=0, help="untimed steps first (steady-state step time)")
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
t0 = time.perf_counter()
for _ in range(args.steps):
    c = a @ b                 # cuBLAS sgemm
    c = torch.relu(c) * 0.5 + 1.0
    y = conv(x)               # cuDNN
    y = torch.sigmoid(y).sum()
torch.cuda.synchronize()
t1 = time.perf_counter()
print("torch_workload: steps=%d step_ms=%.3f check=%.4f" % (args.steps, (t1 - t0) * 1e3 / args.steps, float(y)))
