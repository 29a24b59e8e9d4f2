"""
A tiled matmul in NKI style: C [M, N] = A [M, K] @ B [K, N], with A given transposed
(A.T, [K, M]) as TensorE wants its stationary operand. K is contracted 128 rows at a
time, accumulated in PSUM with +=; M in tiles of 128, N in tiles of 512 (a PSUM bank).
Run it: python3 matmul.py
"""
import numpy as np

from vneuron import nki
import vneuron.nki.language as nl


@nki.jit
def nki_matmul_tiled(lhsT, rhs):
  """C = lhsT.T @ rhs; K, M multiples of 128, N a multiple of 512."""
  K, M = lhsT.shape
  K2, N = rhs.shape
  assert K == K2, "the contraction sizes differ"
  TILE_M = nl.tile_size.gemm_stationary_fmax   # 128
  TILE_K = nl.tile_size.pmax                   # 128
  TILE_N = nl.tile_size.gemm_moving_fmax       # 512
  result = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)

  for m in nl.affine_range(M // TILE_M):
    for n in nl.affine_range(N // TILE_N):
      res_psum = nl.zeros((TILE_M, TILE_N), nl.float32, buffer=nl.psum)
      for k in nl.affine_range(K // TILE_K):
        lhsT_tile = nl.load(lhsT[k * TILE_K:(k + 1) * TILE_K,
                                 m * TILE_M:(m + 1) * TILE_M])
        rhs_tile = nl.load(rhs[k * TILE_K:(k + 1) * TILE_K,
                               n * TILE_N:(n + 1) * TILE_N])
        res_psum += nl.matmul(lhsT_tile, rhs_tile, transpose_x=True)
      res_sb = nl.copy(res_psum, dtype=result.dtype)
      nl.store(result[m * TILE_M:(m + 1) * TILE_M, n * TILE_N:(n + 1) * TILE_N],
               value=res_sb)
  return result


if __name__ == "__main__":
  rng = np.random.default_rng(3)
  a = rng.standard_normal((256, 384)).astype(np.float32)
  b = rng.standard_normal((384, 512)).astype(np.float32)
  c = nki_matmul_tiled(np.ascontiguousarray(a.T), b)
  ref = a.astype(np.float64) @ b.astype(np.float64)
  err = np.abs(c - ref).max() / np.abs(ref).max()
  print(f"matmul [256 x 384] @ [384 x 512] fp32: max error {err:.2e} of the largest; "
        f"modeled {nki_matmul_tiled.last_result.model_ns / 1000:.3f} us")
  assert err < 1e-5
