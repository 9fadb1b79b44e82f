"""torch_profiler_coexist.py: the PyTorch workload under torch.profiler (CUPTI, through Kineto) while
libkprof is preloaded: both must produce results.  Prints the profiler's kernel-event count."""
import torch
from torch.profiler import ProfilerActivity, profile

torch.backends.cuda.matmul.allow_tf32 = False
a = torch.randn(1024, 1024, device="cuda")
b = torch.randn(1024, 1024, device="cuda")
torch.cuda.synchronize()
with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
    for _ in range(10):
        c = torch.relu(a @ b) * 0.5
    torch.cuda.synchronize()
kernels = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
print("torch_profiler_coexist: profiler saw %d GPU events, %d distinct" % (len(kernels), len({e.name for e in kernels})))
