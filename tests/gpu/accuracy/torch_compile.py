"""torch_compile: torch.compile (inductor, default mode) of a small MLP with LayerNorm, GELU and softmax:
inductor's Triton kernels (launched by Triton through the driver) next to cuBLAS GEMMs; 3 warm-up calls
(compilation) then 20 calls, checked against eager mode."""
import os
import sys

# Compile in this process: inductor's worker processes would inherit LD_PRELOAD and the CUPTI injection.
os.environ.setdefault("TORCHINDUCTOR_COMPILE_THREADS", "1")
import torch  # noqa: E402

torch.manual_seed(0)
dev = torch.device("cuda")
model = torch.nn.Sequential(
    torch.nn.Linear(256, 512), torch.nn.LayerNorm(512), torch.nn.GELU(), torch.nn.Linear(512, 256),
).to(dev)


def f(x):
    return torch.softmax(model(x), dim=-1).sum(dim=0) + x.mean()


cf = torch.compile(f)
x = torch.randn(128, 256, device=dev)
with torch.no_grad():
    for _ in range(3):
        cf(x)
    for _ in range(20):
        out = cf(x)
    torch.cuda.synchronize()
    ok = torch.allclose(out, f(x), rtol=1e-3, atol=1e-4)
print("torch_compile: 20 calls after warm-up: %s" % ("ok" if ok else "FAILED"))
sys.exit(0 if ok else 1)
