"""
RMSNorm in NKI style: y = x / sqrt(mean(x^2) + eps) * g along each row, 128 rows at a
time; the last tile is masked (rows not a multiple of 128), and the weight g, one row
in HBM, is loaded to every partition with a partition-broadcast load.
Run it: python3 rmsnorm.py
"""
import math

import numpy as np

from vneuron import nki
import vneuron.nki.language as nl


@nki.jit
def nki_rmsnorm(a_tensor, g_tensor, eps=1e-6):
  """RMSNorm of each row of a_tensor [rows, d] with weight g_tensor [d]."""
  out_tensor = nl.ndarray(a_tensor.shape, dtype=a_tensor.dtype, buffer=nl.shared_hbm)
  rows, d = a_tensor.shape
  pmax = nl.tile_size.pmax
  # the weight on every partition: a [1, d] view broadcast to [128, d]
  g_tile = nl.load(g_tensor.reshape((1, d)).broadcast_to((pmax, d)))
  i_p = nl.arange(pmax)[:, None]
  i_f = nl.arange(d)[None, :]
  for t in nl.affine_range(math.ceil(rows / pmax)):
    r = t * pmax + i_p
    a_tile = nl.load(a_tensor[r, i_f], mask=(r < rows))
    sq = nl.square(a_tile, mask=(r < rows))
    ms = nl.mean(sq, axis=1, keepdims=True, mask=(r < rows))
    rstd = nl.rsqrt(ms + eps, mask=(r < rows))
    y = nl.multiply(a_tile, rstd, mask=(r < rows))
    y = nl.multiply(y, g_tile, mask=(r < rows))
    nl.store(out_tensor[r, i_f], value=y, mask=(r < rows))
  return out_tensor


if __name__ == "__main__":
  rng = np.random.default_rng(5)
  a = rng.standard_normal((300, 256)).astype(np.float32)
  g = rng.standard_normal(256).astype(np.float32)
  y = nki_rmsnorm(a, g)
  a64 = a.astype(np.float64)
  ref = a64 / np.sqrt((a64 * a64).mean(axis=1, keepdims=True) + 1e-6) * g
  err = np.abs(y - ref).max()
  print(f"rmsnorm [300 x 256] fp32: max abs error {err:.2e}; modeled "
        f"{nki_rmsnorm.last_result.model_ns / 1000:.3f} us")
  assert err < 1e-4
