"""Ctrl-C (SIGINT) during a long run stops it: KeyboardInterrupt, and the device runs
again. counters()["interrupted"] counts the runs SIGINT stopped, which tells a stopped
run from one that ended before Python raised."""

import os
import signal
import subprocess
import sys
import textwrap
import threading

import numpy
import pytest

import vneuron
from vnpytest import BACKENDS, TOP, add_image, dev, long_inputs, long_program  # noqa: F401


def sigint_when_running(target=signal.SIGINT):
    """A thread that sends SIGINT to this process once a run is in progress."""
    def body():
        while vneuron.counters()["running"] == 0:
            pass
        os.kill(os.getpid(), target)
    t = threading.Thread(target=body)
    t.start()
    return t


def runs_again(d):
    p = d.load(add_image())
    x = numpy.ones((128, 64), numpy.float32)
    assert (p.run({"x": x, "y": x})["z"] == 2).all()


def test_ctrl_c_stops_a_long_run(dev):
    p = long_program(dev, 5.0)  # far longer than it takes to stop
    before = vneuron.counters()["interrupted"]
    t = sigint_when_running()
    with pytest.raises(KeyboardInterrupt):
        p.run(long_inputs(), time_limit=600)
    t.join()
    assert vneuron.counters()["interrupted"] == before + 1
    assert vneuron.counters()["running"] == 0
    runs_again(dev)
    p.unload()


def test_ctrl_c_with_a_handler_that_does_not_raise(dev):
    p = long_program(dev, 5.0)
    seen = []
    old = signal.signal(signal.SIGINT, lambda s, f: seen.append(s))
    try:
        t = sigint_when_running()
        with pytest.raises(vneuron.DeviceError) as e:
            p.run(long_inputs(), time_limit=600)
        t.join()
    finally:
        signal.signal(signal.SIGINT, old)
    assert seen == [signal.SIGINT]
    assert e.value.errno == 4  # EINTR
    assert "interrupted (SIGINT): the run was stopped" in str(e.value)
    runs_again(dev)


def test_ignored_sigint_does_not_stop_a_run(dev):
    p = long_program(dev, 0.3)
    before = vneuron.counters()["interrupted"]
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        t = sigint_when_running()
        res = p.run(long_inputs(), time_limit=600)
        t.join()
    finally:
        signal.signal(signal.SIGINT, old)
    assert res.status == 0 and (res["C"] > 0).all()
    assert vneuron.counters()["interrupted"] == before


CHILD = textwrap.dedent("""\
    import sys, threading
    sys.path.insert(0, sys.argv[2])
    import vneuron, vnpytest
    d = vnpytest.open_backend(sys.argv[1])
    p = vnpytest.long_program(d, 5.0)
    def announce():
        while vneuron.counters()["running"] == 0:
            pass
        print("running", flush=True)
    threading.Thread(target=announce, daemon=True).start()
    if sys.argv[3] == "catch":
        try:
            p.run(vnpytest.long_inputs(), time_limit=600)
        except KeyboardInterrupt:
            print("KeyboardInterrupt", vneuron.counters()["interrupted"], flush=True)
        import numpy
        q = d.load(vnpytest.add_image())
        x = numpy.ones((128, 64), numpy.float32)
        print("again", int(q.run({"x": x, "y": x})["z"].sum()), flush=True)
    else:
        p.run(vnpytest.long_inputs(), time_limit=600)
    """)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("mode", ["catch", "uncaught"])
def test_ctrl_c_from_another_process(tmp_path, backend, mode):
    """Ctrl-C as a terminal sends it: SIGINT to the process from outside."""
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    child = subprocess.Popen([sys.executable, str(script), backend,
                              os.path.join(TOP, "tests", "python"), mode],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=env)
    assert child.stdout.readline() == "running\n"
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=600)
    if mode == "catch":
        assert child.returncode == 0, err
        assert out == "KeyboardInterrupt 1\nagain %d\n" % (2 * 128 * 64)
    else:
        # Python ends by the signal after the traceback, as for any uncaught Ctrl-C
        assert child.returncode == -signal.SIGINT, err
        assert err.rstrip().endswith("KeyboardInterrupt")
