#!/usr/bin/python3
"""py_run_overhead (issue 26): a small program run from Python over the same run from C,
host backend. The program is bench_pyrun's (z = x + y, fp32 [128 x 64], its text from
`bench_pyrun --vasm`); the Python side is what an application writes,
prog.run({"x": x, "y": y}) (its output array made per run, the arrays checked and bound
to the runner each run), the C side nd_runner_run() on buffers bound once
(build/rel/bench/bench_pyrun --ns-per-run). Both are measured in turn, 5 rounds each of
2,000 runs after a warm-up, best round each; the goal is a ratio <= 1.2.

    BENCH py_run_us=X us/run
    BENCH py_run_overhead=R ratio
"""

import os
import subprocess
import sys
import time

import numpy

import vneuron

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
C_SIDE = os.path.join(TOP, "build", "rel", "bench", "bench_pyrun")
N = 2000
ROUNDS = 5


def py_ns_per_run(prog, inputs):
    t = time.perf_counter_ns()
    for _ in range(N):
        prog.run(inputs)
    return (time.perf_counter_ns() - t) / N


def main():
    if not os.access(C_SIDE, os.X_OK):
        print("py_run_overhead: %s is not built (make)" % C_SIDE, file=sys.stderr)
        return 1
    with vneuron.Device(host=True) as dev:
        text = subprocess.run([C_SIDE, "--vasm"], capture_output=True, text=True,
                              check=True).stdout
        prog = dev.load(vneuron.assemble(text, "add.vasm"))
        x = numpy.arange(128 * 64, dtype=numpy.float32).reshape(128, 64)
        inputs = {"x": x, "y": numpy.ones((128, 64), numpy.float32)}
        assert prog.run(inputs)["z"][0, 5] == 6.0
        py_ns_per_run(prog, inputs)  # warm-up
        py, c = [], []
        for _ in range(ROUNDS):
            py.append(py_ns_per_run(prog, inputs))
            out = subprocess.run([C_SIDE, "--ns-per-run"], capture_output=True, text=True,
                                 check=True)
            c.append(float(out.stdout))
    print("BENCH py_run_us=%.2f us/run" % (min(py) / 1000))
    print("BENCH py_run_overhead=%.3f ratio" % (min(py) / min(c)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
