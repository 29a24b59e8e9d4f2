"""vneuron.Profile and vneuron.capture against `vneuron-profile view`'s own outputs."""

import errno
import gc
import json
import os
import sys
import textwrap
import weakref

import numpy
import pytest

import vneuron
from vnpytest import (BACKENDS, add_image, exp_image, needs_module, needs_tools,  # noqa: F401
                      open_backend, run_tool)

pytestmark = needs_tools


@pytest.fixture(params=BACKENDS)
def captured(request, tmp_path):
    """The exp program run twice under vneuron.capture on each backend: (profile path,
    program path, the runs' results)."""
    with open_backend(request.param) as d:
        prog = d.load(exp_image())
        x = numpy.random.default_rng(3).standard_normal((250, 512), dtype=numpy.float32)
        path = tmp_path / "exp.vntf"
        with vneuron.capture(path, device=d, program=prog) as cap:
            results = [prog.run({"in": x}), prog.run({"in": x})]
        assert cap.finished and cap.records > 0 and cap.path == str(path)
    vnef = tmp_path / "exp.vnef"
    vnef.write_bytes(exp_image())
    return path, vnef, results


def cli_json(path, vnef, fmt="json"):
    return run_tool("vneuron-profile", "view", "-n", str(vnef), "-s", str(path), "-f",
                    fmt).stdout


SAME = ("program", "model", "backend", "cores", "executions", "total_time_ps",
        "core_time_ps", "critical_path_ps", "event_count", "instruction_count",
        "dma_count", "hardware_flops", "hfu", "mbu", "arithmetic_intensity",
        "ridge_point", "class_why", "class_label", "bound_unit", "lost_records",
        "malformed_records")


def close(a, b):
    """Equal, floats to the 6 significant digits the JSON prints (%g)."""
    return a == b or (isinstance(a, float) and abs(a - b) <= 1e-5 * abs(b))


def test_summary_and_findings_equal_view_json(captured):
    path, vnef, results = captured
    j = json.loads(cli_json(path, vnef))
    s = j["summary"]
    p = vneuron.Profile(path, programs=[vnef])
    mine = p.summary
    for k in SAME:
        assert close(mine[k], s[k]), (k, mine[k], s[k])
    assert mine["class"] == s["class"]
    assert mine["findings"] == len(s["advice"]) > 0
    for f, a in zip(p.findings, s["advice"]):
        for k in ("rule", "title", "evidence", "advice", "gain", "replayed"):
            assert f[k] == a[k], k
        for k in ("before_ps", "after_ps"):  # only replayed findings have them
            assert f[k] == a.get(k, 0), k
        # a replayed fix: the fixed program analysed again, as view's JSON says
        then = a.get("then")
        assert f["then_class"] == (then["class"] if then else None)
        assert f["then"] == (then["text"] if then else None)
        assert close(f["impact"], a["impact"]) and close(f["saved_ps"], float(a["saved_ps"]))


def test_events_equal_view_json(captured):
    path, vnef, _ = captured
    j = json.loads(cli_json(path, vnef))["events"]
    p = vneuron.Profile(path, programs=[vnef])
    ev = p.events
    t = p.table()
    assert ev.dtype == vneuron.event_dtype and len(ev) == len(j) > 0
    for i, e in enumerate(j):
        for k in ("start_ps", "end_ps", "bytes", "flops", "elements", "pc", "exec", "line"):
            assert ev[k][i] == e[k], (i, k)
        assert t["stream"][i] == e["engine"]
        assert t["opcode"][i] == e["opcode"]
        assert t["file"][i] == e["file"] and t["scope"][i] == e["scope"]
        assert t["queue"][i] == e.get("queue", -1)
        assert t["source"][i] == "%s:%d" % (e["file"], e["line"])


def test_events_are_the_librarys_array(captured):
    path, vnef, _ = captured
    p = vneuron.Profile(path, programs=[vnef])
    ev = p.events
    assert not ev.flags.writeable and not ev.flags.owndata
    assert ev.base is p  # the profile itself keeps the memory
    assert p.events.ctypes.data == ev.ctypes.data  # the same array, no copy
    r = weakref.ref(p)
    del p
    assert r() is not None  # held by the array
    assert ev["end_ps"].max() > 0  # still valid
    del ev
    assert r() is None  # freed with the last array, without the collector


def test_a_profile_goes_with_its_last_reference(captured):
    path, vnef, _ = captured
    gc.disable()
    try:
        p = vneuron.Profile(path, programs=[vnef])
        p.summary, p.findings, p.views[0].events, p.table()  # noqa: B018 (cached parts)
        r = weakref.ref(p)
        del p
        assert r() is None
    finally:
        gc.enable()


def test_executions_are_the_runs(captured):
    path, vnef, results = captured
    p = vneuron.Profile(path, programs=[vnef])
    ex = p.executions
    assert ex.dtype == vneuron.execution_dtype and len(ex) == 2
    assert list(ex["model_ps"]) == [r.model_ps for r in results]
    assert list(ex["status"]) == [0, 0]
    assert list(ex["exec"]) == sorted(ex["exec"])
    assert p.cores[0]["label"] == "worker 0 core 0"
    assert p.strings[0] == ""


def test_outputs_equal_the_cli(captured, tmp_path):
    path, vnef, _ = captured
    p = vneuron.Profile(path, programs=[vnef])
    for fmt in ("summary-text", "summary-json", "json"):
        assert p.render(fmt) == cli_json(path, vnef, fmt), fmt
    assert p.summary_json() == json.loads(cli_json(path, vnef, "summary-json"))
    pf = tmp_path / "x.pftrace"
    p.write(pf)
    cli = tmp_path / "cli.pftrace"
    run_tool("vneuron-profile", "view", "-n", str(vnef), "-s", str(path), "-f", "perfetto",
             "-o", str(cli))
    assert pf.read_bytes() == cli.read_bytes() == p.render("perfetto")
    html = tmp_path / "x.html"
    p.write(html)
    assert html.read_text().startswith("<!DOCTYPE html>")
    with pytest.raises(FileExistsError) as e:
        p.write(html)
    assert e.value.errno == errno.EEXIST
    p.write(html, "summary-text", force=True)
    assert html.read_text() == p.render()
    with pytest.raises(vneuron.Error) as e:
        p.write(path, "json", force=True)  # never an input
    assert e.value.errno == errno.EINVAL
    with pytest.raises(ValueError, match="give fmt="):
        p.write(tmp_path / "x.bin")
    with pytest.raises(vneuron.Error, match="format 'pdf'"):
        p.render("pdf")


def test_options(captured):
    path, vnef, _ = captured
    est = vneuron.Profile(path, programs=[vnef], replay=False)
    assert not any(f["replayed"] for f in est.findings)
    hc = vneuron.Profile(str(path), programs=str(vnef), host_clock=True)
    assert hc.summary["executions"] == 2
    assert "clock" in hc.summary_json() and hc.summary_json()["clock"]["axis"] == "host"


def test_profile_errors(captured, tmp_path):
    path, vnef, _ = captured
    with pytest.raises(vneuron.Error) as e:
        vneuron.Profile(tmp_path / "none.vntf", programs=[vnef])
    assert e.value.errno == errno.ENOENT and "none.vntf" in str(e.value)
    other = tmp_path / "add.vnef"
    other.write_bytes(add_image())
    with pytest.raises(vneuron.Error, match="exp"):
        vneuron.Profile(path, programs=[other])
    bad = tmp_path / "bad.vntf"
    bad.write_bytes(b"not a profile" * 10)
    with pytest.raises(vneuron.Error):
        vneuron.Profile(bad, programs=[vnef])
    with pytest.raises(TypeError):
        vneuron.Profile(path, programs=[3])


def test_program_in_memory(captured):
    path, vnef, _ = captured
    with vneuron.Device(host=True) as d:
        prog = d.load(vnef)
        a = vneuron.Profile(path, programs=[prog])
        b = vneuron.Profile(path, programs=[vnef.read_bytes()])
        assert a.summary["total_time_ps"] == b.summary["total_time_ps"] > 0


def test_capture_errors(tmp_path):
    with vneuron.Device(host=True) as d:
        prog = d.load(add_image())
        x = numpy.ones((128, 64), numpy.float32)
        path = tmp_path / "a.vntf"
        with vneuron.capture(path, device=d, program=prog):
            prog.run({"x": x, "y": x})
        with pytest.raises(FileExistsError) as e:
            vneuron.capture(path, device=d).start()
        assert e.value.errno == errno.EEXIST
        with vneuron.capture(path, device=d, force=True) as c:
            with pytest.raises(vneuron.Error, match="started already"):
                c.start()
            with pytest.raises(vneuron.Error, match="captured already"):
                vneuron.capture(tmp_path / "b.vntf", device=d).start()
        with pytest.raises(vneuron.Error, match="finished already"):
            c.finish()
        with pytest.raises(vneuron.Error, match="not started"):
            vneuron.capture(tmp_path / "c.vntf", device=d).finish()
        with pytest.raises(ValueError, match="mode 'x'"):
            vneuron.capture(tmp_path / "c.vntf", device=d, mode="x")
        with pytest.raises(TypeError, match="device: a vneuron.Device"):
            vneuron.capture(tmp_path / "c.vntf", device="host")
        # the device closed during a capture: abandoned, nothing written
        c = vneuron.capture(tmp_path / "d.vntf", device=d).start()
        prog.run({"x": x, "y": x})
    with pytest.raises(vneuron.DeviceError, match="no profile was written"):
        c.finish()
    assert not (tmp_path / "d.vntf").exists()
    assert [f for f in os.listdir(tmp_path) if f.startswith("d.vntf")] == []


def test_capture_without_device_needs_the_module(tmp_path):
    if os.path.exists("/dev/vneuron0"):
        pytest.skip("the module is loaded")
    with pytest.raises(vneuron.DeviceError, match="device=vneuron.Device\\(host=True\\)"):
        vneuron.capture(tmp_path / "x.vntf").start()


def test_a_failed_block_still_writes_its_profile(tmp_path):
    with vneuron.Device(host=True) as d:
        prog = d.load(add_image())
        x = numpy.ones((128, 64), numpy.float32)
        with pytest.raises(KeyError):
            with vneuron.capture(tmp_path / "f.vntf", device=d, program=prog):
                prog.run({"x": x, "y": x})
                raise KeyError("block")
    assert vneuron.Profile(tmp_path / "f.vntf", programs=[prog]).summary["executions"] == 1


TWO = textwrap.dedent("""\
    import sys
    import numpy
    import vneuron

    dev = vneuron.Device(0)
    a = dev.load(sys.argv[1])
    b = dev.load(sys.argv[2])
    a.run({"x": numpy.ones((128, 64), numpy.float32), "y": numpy.ones((128, 64), numpy.float32)})
    b.run({"in": numpy.zeros((250, 512), numpy.float32)})
    """)


@needs_module
def test_application_of_two_programs(tmp_path):
    app = tmp_path / "two.py"
    app.write_text(TWO)
    pa, pb = tmp_path / "add.vnef", tmp_path / "exp.vnef"
    pa.write_bytes(add_image())
    pb.write_bytes(exp_image())
    prof = tmp_path / "two.vntf"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    run_tool("vneuron-profile", "capture", "-s", str(prof), "--", sys.executable, str(app),
             str(pa), str(pb), env=env)
    p = vneuron.Profile(prof, programs=[pa, pb])
    assert len(p.views) == 2
    assert sorted(v.summary["program"] for v in p.views) == ["add", "exp"]
    with pytest.raises(ValueError, match="the profile ran 2 programs"):
        p.summary
    only = vneuron.Profile(prof, programs=[pa, pb], only="exp")
    assert only.summary["program"] == "exp" and len(only.events) > 0


@needs_module
def test_capture_of_every_device_core(tmp_path):
    """device=None traces every core of the module's devices, whoever runs on them."""
    path = tmp_path / "all.vntf"
    with vneuron.Device(0, core=1) as d:
        prog = d.load(add_image())
        x = numpy.ones((128, 64), numpy.float32)
        with vneuron.capture(path, program=prog):
            r = prog.run({"x": x, "y": x})
    p = vneuron.Profile(path, programs=[prog])
    assert p.summary["executions"] == 1 and p.summary["backend"] == "module"
    assert list(p.executions["model_ps"]) == [r.model_ps]
    assert any(c["core"] == 1 for c in p.cores)
