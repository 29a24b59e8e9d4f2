"""No leak over 10,000 runs: Python's allocations (tracemalloc), the package's own
counters and, on the module, the device memory in use."""

import gc
import tracemalloc

import numpy

import vneuron
from vnpytest import add_image, dev  # noqa: F401

RUNS = 10000
# A leak of one object per run would be 10,000 objects (hundreds of KiB); what remains
# is the interpreter's own (tracemalloc's frames, free lists).
SLACK = 64 * 1024


def grown(loop):
    """loop(n) after a warm-up of 200: the bytes Python's allocations grew by over RUNS
    iterations, and vneuron.counters() before and after."""
    loop(200)  # caches, the first run's device buffers
    gc.collect()
    c0 = vneuron.counters()
    tracemalloc.start()
    s0 = tracemalloc.take_snapshot()
    loop(RUNS)
    gc.collect()
    s1 = tracemalloc.take_snapshot()
    tracemalloc.stop()
    return sum(d.size_diff for d in s1.compare_to(s0, "filename")), c0, vneuron.counters()


HELD = ("devices", "programs", "results", "buffers", "buffer_bytes", "running")


def test_no_leak_over_10000_runs(dev):
    p = dev.load(add_image())
    x = numpy.ones((128, 64), numpy.float32)
    y = numpy.full((128, 64), 2.0, numpy.float32)
    out = numpy.zeros((128, 64), numpy.float32)

    def loop(n):
        for i in range(n):
            r = p.run({"x": x, "y": y}) if i % 2 else p.run({"x": x, "y": y}, {"z": out})
            assert r.status == 0

    loop(200)  # the device buffers of the program's first run, before hbm_used
    used0 = dev.info.get("hbm_used")
    size, c0, c1 = grown(loop)
    assert size < SLACK
    assert c1["runs"] - c0["runs"] == RUNS
    for k in HELD:
        assert c1[k] == c0[k], k
    if used0 is not None:
        assert dev.info["hbm_used"] == used0
    assert numpy.array_equal(out, x + y)


def test_no_leak_over_10000_failed_runs(dev):
    p = dev.load(add_image())
    bad = {"x": numpy.ones((128, 64)), "y": numpy.ones((128, 64), numpy.float32)}

    def loop(n):
        for _ in range(n):
            try:
                p.run(bad)
            except vneuron.TensorError:
                pass

    size, c0, c1 = grown(loop)
    assert size < SLACK
    assert c1 == c0


def test_no_leak_over_loads_and_closes():
    img = add_image()
    x = numpy.ones((128, 64), numpy.float32)

    def loop(n):
        for _ in range(n // 50):
            with vneuron.Device(host=True) as d:
                d.load(img).run({"x": x, "y": x})

    size, c0, c1 = grown(loop)
    assert size < SLACK
    for k in HELD:
        assert c1[k] == c0[k], k
