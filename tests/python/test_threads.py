"""The GIL is released while the device works: other Python threads run meanwhile."""

import threading

import numpy

import vneuron
from vnpytest import add_image, dev, long_inputs, long_program  # noqa: F401


def test_another_thread_runs_during_a_long_run(dev):
    """A thread runs a long program; this thread watches vneuron.counters()["running"],
    which the extension raises and lowers inside the call with the GIL released. Seeing
    it at 1 from Python code is only possible if the run does not hold the GIL; the
    loop's count is the progress this thread made meanwhile."""
    p = long_program(dev, 1.0)
    inputs = long_inputs()
    box = {}

    def worker():
        box["res"] = p.run(inputs)

    t = threading.Thread(target=worker)
    t.start()
    seen = 0
    while t.is_alive():
        if vneuron.counters()["running"]:
            seen += 1
    t.join()
    assert seen > 0, "no Python code ran in another thread during the run"
    assert box["res"].status == 0
    assert numpy.all(box["res"]["C"] > 0)


def test_threads_share_a_device(dev):
    """Runs from several threads on one Device all succeed with their own results (the
    host backend's core takes them in turn)."""
    p = dev.load(add_image())
    errors = []

    def worker(seed):
        rng = numpy.random.default_rng(seed)
        for _ in range(50):
            x = rng.random((128, 64), dtype=numpy.float32)
            y = rng.random((128, 64), dtype=numpy.float32)
            if not numpy.array_equal(p.run({"x": x, "y": y})["z"], x + y):
                errors.append(seed)

    ts = [threading.Thread(target=worker, args=(s,)) for s in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert errors == []
