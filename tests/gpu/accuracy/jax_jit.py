"""jax_jit: a jitted JAX training step (MLP forward, grad, update) in a loop of 20 steps; XLA launches its
fused kernels and cuBLAS GEMMs through the driver, partly as CUDA graphs (command buffers)."""
import os
import sys

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

if jax.default_backend() != "gpu":
    print("jax_jit: no GPU backend (%s): FAILED" % jax.default_backend())
    sys.exit(1)


@jax.jit
def step(params, x, y):
    def loss(p):
        h = jnp.tanh(x @ p["w1"] + p["b1"])
        return jnp.mean((h @ p["w2"] - y) ** 2)

    value, grads = jax.value_and_grad(loss)(params)
    return jax.tree_util.tree_map(lambda p, g: p - 0.05 * g, params, grads), value


k1, k2, k3, k4 = jax.random.split(jax.random.PRNGKey(0), 4)
params = {"w1": jax.random.normal(k1, (256, 512)) * 0.05, "b1": jnp.zeros(512),
          "w2": jax.random.normal(k2, (512, 64)) * 0.05}
x = jax.random.normal(k3, (128, 256))
y = jax.random.normal(k4, (128, 64))
losses = []
for _ in range(20):
    params, value = step(params, x, y)
    losses.append(float(value.block_until_ready()))
ok = losses[-1] < losses[0]
print("jax_jit: 20 steps, loss %.4f -> %.4f: %s" % (losses[0], losses[-1], "ok" if ok else "FAILED"))
sys.exit(0 if ok else 1)
