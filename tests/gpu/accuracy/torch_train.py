"""torch_train: a PyTorch training step (a small CNN: convolutions via cuDNN, linear layers via cuBLAS,
PyTorch's own elementwise and reduction kernels, Adam) on fixed random data, 20 steps."""
import sys

import torch

torch.manual_seed(0)
torch.backends.cudnn.benchmark = False  # no per-run autotuning: the same kernels every run
dev = torch.device("cuda")
model = torch.nn.Sequential(
    torch.nn.Conv2d(3, 16, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
    torch.nn.Conv2d(16, 32, 3, padding=1), torch.nn.ReLU(), torch.nn.AdaptiveAvgPool2d(4),
    torch.nn.Flatten(), torch.nn.Linear(32 * 16, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10),
).to(dev)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
x = torch.randn(64, 3, 32, 32, device=dev)
y = torch.randint(0, 10, (64,), device=dev)
losses = []
for step in range(20):
    opt.zero_grad(set_to_none=True)
    loss = torch.nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    losses.append(loss.item())
torch.cuda.synchronize()
ok = losses[-1] < losses[0]
print("torch_train: 20 steps, loss %.4f -> %.4f: %s" % (losses[0], losses[-1], "ok" if ok else "FAILED"))
sys.exit(0 if ok else 1)
