"""
Tensor add in NKI style: c = a + b over 2D tensors of any number of rows, 128 rows
(partitions) at a time, the last tile masked. Run it: python3 tensor_add.py
"""
import math

import numpy as np

from vneuron import nki
import vneuron.nki.language as nl


@nki.jit
def nki_tensor_add(a_input, b_input):
  """c = a + b, elementwise; a and b of one shape [rows, cols], cols <= 8192."""
  c_output = nl.ndarray(a_input.shape, dtype=a_input.dtype, buffer=nl.shared_hbm)
  rows, cols = a_input.shape
  ix = nl.arange(nl.tile_size.pmax)[:, None]
  iy = nl.arange(cols)[None, :]
  for t in nl.affine_range(math.ceil(rows / nl.tile_size.pmax)):
    r = t * nl.tile_size.pmax + ix
    a_tile = nl.load(a_input[r, iy], mask=(r < rows))
    b_tile = nl.load(b_input[r, iy], mask=(r < rows))
    c_tile = a_tile + b_tile
    nl.store(c_output[r, iy], value=c_tile, mask=(r < rows))
  return c_output


if __name__ == "__main__":
  a = np.random.default_rng(1).standard_normal((300, 512)).astype(np.float32)
  b = np.random.default_rng(2).standard_normal((300, 512)).astype(np.float32)
  c = nki_tensor_add(a, b)
  assert np.array_equal(c, a + b)
  print(f"tensor add [300 x 512] fp32: exact; modeled "
        f"{nki_tensor_add.last_result.model_ns / 1000:.3f} us")
