"""
One attention head in NKI style: out = softmax(q @ k.T * scale) @ v for q, k, v of
[seqlen, d] with seqlen <= 128 query rows per tile, d <= 128. q and k are transposed on
TensorE (nl.transpose), the scores and the output are matmuls into PSUM, the softmax
runs along the free axis. Run it: python3 attention.py
"""
import numpy as np

from vneuron import nki
import vneuron.nki.language as nl


@nki.jit
def nki_attention_head(q, k, v):
  """softmax(q k^T / sqrt(d)) v for one head; q [sq, d], k and v [sk, d];
  sq, d <= 128, sk <= 128."""
  sq, d = q.shape
  sk, _ = k.shape
  out = nl.ndarray((sq, d), dtype=q.dtype, buffer=nl.shared_hbm)
  scale = 1.0 / float(d) ** 0.5

  q_tile = nl.load(q)                       # [sq, d]
  k_tile = nl.load(k)                       # [sk, d]
  v_tile = nl.load(v)                       # [sk, d]
  # d on the partitions for the scores' contraction
  qT = nl.copy(nl.transpose(q_tile))        # [d, sq]
  kT = nl.copy(nl.transpose(k_tile))        # [d, sk]
  scores = nl.matmul(qT, kT, transpose_x=True)      # [sq, sk] in PSUM
  s = nl.multiply(scores, scale)
  m = nl.max(s, axis=1, keepdims=True)
  p = nl.exp(s - m)
  l = nl.sum(p, axis=1, keepdims=True)
  # p @ v contracts sk: p transposed to [sk, sq] as the stationary operand
  pT = nl.copy(nl.transpose(p))             # [sk, sq]
  o = nl.matmul(pT, v_tile, transpose_x=True)       # [sq, d] in PSUM
  o_sb = nl.divide(o, l)
  nl.store(out, value=o_sb)
  return out


if __name__ == "__main__":
  rng = np.random.default_rng(6)
  q, k, v = (rng.standard_normal((128, 64)).astype(np.float32) for _ in range(3))
  o = nki_attention_head(q, k, v)
  s = (q.astype(np.float64) @ k.T) / np.sqrt(64)
  p = np.exp(s - s.max(axis=1, keepdims=True))
  ref = (p / p.sum(axis=1, keepdims=True)) @ v
  err = np.abs(o - ref).max()
  print(f"attention head [128 x 64] fp32: max abs error {err:.2e}; modeled "
        f"{nki_attention_head.last_result.model_ns / 1000:.3f} us")
  assert err < 1e-4
