"""
Row softmax in NKI style: y = exp(x - max(x)) / sum(exp(x - max(x))) along each row,
128 rows at a time, the last tile masked. Run it: python3 softmax.py
"""
import math

import numpy as np

from vneuron import nki
import vneuron.nki.language as nl


@nki.jit
def nki_softmax(x):
  """softmax over the last axis of a 2D tensor."""
  y = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
  rows, cols = x.shape
  i_p = nl.arange(nl.tile_size.pmax)[:, None]
  i_f = nl.arange(cols)[None, :]
  for t in nl.affine_range(math.ceil(rows / nl.tile_size.pmax)):
    r = t * nl.tile_size.pmax + i_p
    tile = nl.load(x[r, i_f], mask=(r < rows))
    row_max = nl.max(tile, axis=1, keepdims=True)
    e = nl.exp(tile - row_max)
    row_sum = nl.sum(e, axis=1, keepdims=True)
    out = e * nl.reciprocal(row_sum)
    nl.store(y[r, i_f], value=out, mask=(r < rows))
  return y


if __name__ == "__main__":
  x = np.random.default_rng(4).standard_normal((200, 384)).astype(np.float32)
  y = nki_softmax(x)
  e = np.exp(x - x.max(axis=1, keepdims=True))
  ref = e / e.sum(axis=1, keepdims=True)
  err = np.abs(y - ref).max() / ref.max()
  print(f"softmax [200 x 384] fp32: max error {err:.2e}; modeled "
        f"{nki_softmax.last_result.model_ns / 1000:.3f} us")
  assert err < 4e-6
