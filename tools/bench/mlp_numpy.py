#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR MIT
"""The MLP training step of examples/mlp-train.c in NumPy, a baseline of bench_workloads.

784-128-10, batch 128, fp32: forward, softmax cross-entropy, backward, SGD into fresh
arrays, as tools/bench/bench_workloads.c's C + cblas_sgemm version does it. Run by
bench_workloads as a child with the best OpenBLAS kernel's environment (one thread,
tools/bench/bench_blas.h); it speaks that header's protocol on stdin and stdout: first
"ready CORE ok", then "r N" runs N steps and answers "t SECONDS" (per step).
"""

import ctypes
import sys
import time

import numpy as np

B, D, H, C = 128, 784, 128, 10
LR = np.float32(0.5)


def corename():
    """The kernel OpenBLAS chose in this process (NumPy's BLAS is Debian's OpenBLAS)."""
    try:
        lib = ctypes.CDLL("libblas.so.3")
        lib.openblas_get_corename.restype = ctypes.c_char_p
        return lib.openblas_get_corename().decode()
    except (OSError, AttributeError):
        return "unknown"


def step(x, y, w1, b1, w2, b2):
    """One training step; returns the new parameters and the loss."""
    h = np.maximum(x @ w1 + b1, 0)
    z = h @ w2 + b2
    zm = z - z.max(axis=1, keepdims=True)
    lp = zm - np.log(np.exp(zm).sum(axis=1, keepdims=True))
    loss = -(y * lp).sum() / B
    dz = (np.exp(lp) - y) / np.float32(B)
    dh = dz @ w2.T
    dh *= h > 0
    dw2 = h.T @ dz
    dw1 = x.T @ dh
    return (w1 - LR * dw1, b1 - LR * dh.sum(axis=0), w2 - LR * dw2,
            b2 - LR * dz.sum(axis=0), loss)


def main():
    """Serve the parent's batches."""
    rng = np.random.default_rng(1)
    x = rng.random((B, D), dtype=np.float32) - np.float32(0.5)
    y = np.eye(C, dtype=np.float32)[rng.integers(0, C, B)]
    w1 = (rng.random((D, H), dtype=np.float32) - np.float32(0.5)) * np.float32(0.1)
    w2 = (rng.random((H, C), dtype=np.float32) - np.float32(0.5)) * np.float32(0.1)
    b1 = np.zeros(H, dtype=np.float32)
    b2 = np.zeros(C, dtype=np.float32)
    print("ready", corename(), "ok", flush=True)
    for line in sys.stdin:
        cmd = line.split()
        if len(cmd) == 2 and cmd[0] == "w":
            print("ok" if cmd[1] == "mlp_step" else "none", flush=True)
            continue
        if len(cmd) != 2 or cmd[0] != "r":
            return 1
        n = int(cmd[1])
        t = time.perf_counter()
        for _ in range(n):
            # the same inputs each step, as the C baselines and the device program
            step(x, y, w1, b1, w2, b2)
        print("t %.9f" % ((time.perf_counter() - t) / n), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
