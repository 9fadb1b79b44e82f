"""triton_add.py: a Triton kernel launched from Python (Triton's launcher calls cuLaunchKernelEx through
the driver).  Usage: python3 triton_add.py [--launches N]"""
import argparse

import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


p = argparse.ArgumentParser()
p.add_argument("--launches", type=int, default=10)
args = p.parse_args()
n = 1 << 20
x = torch.randn(n, device="cuda")
y = torch.randn(n, device="cuda")
out = torch.empty_like(x)
for _ in range(args.launches):
    add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
torch.cuda.synchronize()
ok = torch.allclose(out, x + y)
print("triton_add: launches=%d verify=%s" % (args.launches, "PASSED" if ok else "FAILED"))
