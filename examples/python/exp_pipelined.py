"""
The exp kernel of exp.py, double-buffered the NKI way: a tile with a leading block
dimension, nl.ndarray((2, nl.par_dim(128), 512), ...), holds two buffers, and
iteration p uses buffer p % 2, so tile p + 1 loads while tile p is computed and
stored. `vneuron-profile view -n file_pipelined.neff -s profile_pipelined.ntff` no
longer reports that DMA never overlaps compute.
"""
from vneuron import nki
from vneuron.nki.typing import tensor
import vneuron.nki.language as nl
import math


@nki.benchmark(save_neff_name='file_pipelined.neff',
               save_trace_name='profile_pipelined.ntff')
def tensor_exp_kernel_pipelined(in_tensor):
  """exp of a 2D tensor, 128 rows at a time, two buffers per side."""
  out_tensor = nl.ndarray(in_tensor.shape, dtype=in_tensor.dtype,
                          buffer=nl.shared_hbm)
  sz_p, sz_f = in_tensor.shape
  pmax = nl.tile_size.pmax
  # allocated before the loop, so they live across its iterations
  in_buf = nl.ndarray((2, nl.par_dim(pmax), sz_f), dtype=in_tensor.dtype,
                      buffer=nl.sbuf)
  out_buf = nl.ndarray((2, nl.par_dim(pmax), sz_f), dtype=in_tensor.dtype,
                       buffer=nl.sbuf)
  i_f = nl.arange(sz_f)[None, :]
  for p in nl.affine_range(math.ceil(sz_p / pmax)):
    i_p = p * pmax + nl.arange(pmax)[:, None]
    in_buf[p % 2] = nl.load(in_tensor[i_p, i_f], mask=(i_p < sz_p))
    out_buf[p % 2] = nl.exp(in_buf[p % 2])
    nl.store(out_tensor[i_p, i_f], value=out_buf[p % 2], mask=(i_p < sz_p))

  return out_tensor


if __name__ == "__main__":
  tensor_exp_kernel_pipelined(tensor[[250, 512], nl.float32])
