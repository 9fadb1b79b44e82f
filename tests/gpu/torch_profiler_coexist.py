"""torch_profiler_coexist.py [OUT.json]: the PyTorch workload under torch.profiler (CUPTI, through Kineto)
while libkprof is preloaded: both must produce results.  Prints the profiler's kernel-event count and, with
OUT.json, writes the profiler's GPU events per name there ({"events": N, "kernels": {name: count}}) for
run-gpu-tests.sh to check beside libkprof's report.  Exit 77 (skip) without PyTorch or without a GPU."""
import json
import sys

try:
    import torch
    from torch.profiler import ProfilerActivity, profile
except ImportError:
    print("torch_profiler_coexist: SKIP: no PyTorch")
    sys.exit(77)
if not torch.cuda.is_available():
    print("torch_profiler_coexist: SKIP: no GPU")
    sys.exit(77)

torch.backends.cuda.matmul.allow_tf32 = False
a = torch.randn(1024, 1024, device="cuda")
b = torch.randn(1024, 1024, device="cuda")
torch.cuda.synchronize()
with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
    for _ in range(10):
        c = torch.relu(a @ b) * 0.5
    torch.cuda.synchronize()
kernels = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
counts = {}
for e in kernels:
    counts[e.name] = counts.get(e.name, 0) + 1
print("torch_profiler_coexist: profiler saw %d GPU events, %d distinct" % (len(kernels), len(counts)))
if len(sys.argv) > 1:
    with open(sys.argv[1], "w") as f:
        json.dump({"events": len(kernels), "kernels": counts}, f)
