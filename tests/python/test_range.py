"""Ranges and marks from Python, and a Python application's ranges in its profile."""

import errno
import json
import os
import sys
import textwrap
import threading

import pytest

import vneuron
from vnpytest import PROFILE_TOOL, TOP, add_image, needs_module, needs_tools, run_tool


def test_range_nests_and_pops():
    r = vneuron.range("step")
    with r as inner:
        assert inner is r
        assert vneuron.range_push("layer") == 2
        assert vneuron.range_pop() == 1
        with r:  # the same object again, while open
            assert vneuron.range_push("x") == 3
            vneuron.range_pop()
    assert repr(r) == "vneuron.range('step')"
    with pytest.raises(vneuron.Error, match="range_pop: no range is open on this thread") \
            as e:
        vneuron.range_pop()
    assert e.value.errno == errno.ENOENT


def test_ranges_belong_to_their_thread():
    depth = {}
    vneuron.range_push("main")

    def other():
        depth["other"] = vneuron.range_push("other")
        vneuron.range_pop()

    t = threading.Thread(target=other)
    t.start()
    t.join()
    assert depth["other"] == 1
    assert vneuron.range_pop() == 0


def test_deeper_than_recorded_still_pops():
    for i in range(70):
        vneuron.range_push("d%d" % i)
    assert vneuron.range_push("deep") == 65  # past 64: counted, not recorded
    for i in range(71):
        vneuron.range_pop()
    with pytest.raises(vneuron.Error):
        vneuron.range_pop()


def test_an_exception_closes_the_range():
    with pytest.raises(KeyError):
        with vneuron.range("step"):
            raise KeyError("x")
    with pytest.raises(vneuron.Error):
        vneuron.range_pop()


def test_bad_names():
    with pytest.raises(vneuron.Error, match="range name '': a name is not empty") as e:
        vneuron.range("")
    assert e.value.errno == errno.EINVAL
    with pytest.raises(vneuron.Error, match="with a NUL"):
        vneuron.mark("a\0b")
    with pytest.raises(TypeError):
        vneuron.range(b"step")
    with pytest.raises(TypeError, match="a range name is a str, not int"):
        vneuron.mark(3)
    with pytest.raises(vneuron.Error):
        vneuron.range_push("")
    vneuron.mark("a mark")
    vneuron.mark("ü" * 200)  # cut to 127 bytes on a character boundary by the library


APP = textwrap.dedent("""\
    import sys
    import numpy
    import vneuron

    dev = vneuron.Device(0)
    prog = dev.load(sys.argv[1])
    x = numpy.ones((128, 64), numpy.float32)
    for step in range(3):
        with vneuron.range("step %d" % step):
            with vneuron.range("layer add"):
                z = prog.run({"x": x, "y": x})["z"]
            vneuron.mark("after add")
    assert (z == 2).all()
    """)


@needs_module
@needs_tools
def test_ranges_of_a_captured_python_application(tmp_path):
    """`vneuron-profile capture -- /usr/bin/python3 app.py`: the steps and layers show in
    the profile, each execution attributed to its ranges; vneuron.Profile reads the
    same."""
    app = tmp_path / "app.py"
    app.write_text(APP)
    prog = tmp_path / "add.vnef"
    prog.write_bytes(add_image())
    prof = tmp_path / "app.vntf"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    run_tool("vneuron-profile", "capture", "-s", str(prof), "--", sys.executable, str(app),
             str(prog), env=env)
    out = run_tool("vneuron-profile", "view", "-n", str(prog), "-s", str(prof), "-f",
                   "summary-json").stdout
    ranges = json.loads(out)["ranges"]
    assert (ranges["attributed"], ranges["pushes"], ranges["marks"]) == (3, 6, 3)
    by_name = {r["name"]: r for r in ranges["list"]}
    assert set(by_name) >= {"step 0", "step 1", "step 2", "layer add"}
    assert by_name["layer add"]["execs"] == 3
    assert all(by_name["step %d" % i]["all_execs"] == 1 for i in range(3))
    p = vneuron.Profile(prof, programs=[prog])
    assert p.summary_json()["ranges"] == ranges
    assert p.summary["executions"] == 3
    text = p.render()
    assert "layer add" in text and "step 2" in text


def test_docstrings():
    assert "capture -- python3 app.py" in vneuron.range.__doc__
    for f in (vneuron.mark, vneuron.range_push, vneuron.range_pop):
        assert f.__doc__
