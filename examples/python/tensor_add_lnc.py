"""
Tensor add on a logical core (LNC=2, Trainium2): kernel[2] launches the kernel once per
physical core, each adding its half of the rows (nl.program_id(0) picks the half). On
a Device with lnc=2 it is one program run by both cores at once; on one core the two
programs run one after the other. Run it: python3 tensor_add_lnc.py
"""
import numpy as np

import vneuron
from vneuron import nki
import vneuron.nki.language as nl


def tensor_add_halves(a_input, b_input):
  """c = a + b; each program of the launch grid's axis 0 takes its share of the rows
  (a multiple of 128 per program)."""
  c_output = nl.ndarray(a_input.shape, dtype=a_input.dtype, buffer=nl.shared_hbm)
  rows = a_input.shape[0] // nl.num_programs(0)
  first = nl.program_id(0) * rows
  for t in nl.affine_range(rows // nl.tile_size.pmax):
    r = first + t * nl.tile_size.pmax
    a_tile = nl.load(a_input[r:r + nl.tile_size.pmax, :])
    b_tile = nl.load(b_input[r:r + nl.tile_size.pmax, :])
    nl.store(c_output[r:r + nl.tile_size.pmax, :], value=a_tile + b_tile)
  return c_output


def run(a, b, lnc):
  """kernel[2](a, b) on a trn2 host device of lnc physical cores: (c, modeled ns, the
  number of physical cores the program was built for)."""
  with vneuron.Device(host=True, model="trn2", lnc=lnc) as dev:
    k = nki.jit(tensor_add_halves, device=dev)[2]
    c = k(a, b)
    return c, k.last_result.model_ns, k.trace(a, b).lnc


if __name__ == "__main__":
  a = np.random.default_rng(1).standard_normal((1024, 512)).astype(np.float32)
  b = np.random.default_rng(2).standard_normal((1024, 512)).astype(np.float32)
  c2, ns2, n2 = run(a, b, 2)
  c1, ns1, _ = run(a, b, 1)
  assert n2 == 2 and np.array_equal(c2, a + b) and np.array_equal(c1, a + b)
  print(f"tensor add [1024 x 512] fp32 on trn2, kernel[2]: exact; modeled "
        f"{ns2 / 1000:.3f} us on a logical core (LNC=2), {ns1 / 1000:.3f} us on one core "
        f"({ns1 / ns2:.2f}x)")
