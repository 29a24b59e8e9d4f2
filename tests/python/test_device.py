"""vneuron.Device: backends, the default and its override, info, model, close."""

import errno
import os
import subprocess
import sys

import pytest

import vneuron
from vnpytest import BACKENDS, HAVE_MODULE, TOP, add_image, dev, host, needs_module  # noqa: F401


def test_host_backend(host):
    assert host.backend == "host"
    assert host.index is None and host.path is None and host.core == 0
    assert not host.closed
    assert repr(host) == "<vneuron.Device host>"


def test_model_is_a_plain_dict(dev):
    m = dev.model
    assert type(m) is dict
    assert m["name"] == "trn1"
    assert m["partitions"] == 128
    assert m["psum_bank_bytes"] == 2048 and m["sbuf_partition_bytes"] > 0
    assert m["peak_flops_bf16"] > m["peak_flops_fp32"] > 0
    assert all(type(v) in (int, str) for v in m.values())


def test_info_is_a_plain_dict(dev):
    i = dev.info
    assert type(i) is dict
    assert i["backend"] == dev.backend
    assert i["core_count"] >= 1 and i["core"] == dev.core
    assert i["model"] == dev.model
    assert i["version"] == "0.1.0"
    if dev.backend == "device":
        assert i["path"] == "/dev/vneuron0" and i["device_index"] == 0
        assert i["hbm_bytes"] > 0 and i["uapi_version"] >= 1
        assert set(i["limits"]) == {"max_programs", "max_execs", "max_program_bytes",
                                    "max_exec_bytes", "max_trace_bytes"}


def _default_backend(env):
    code = "import vneuron; print(vneuron.Device().backend)"
    e = dict(os.environ)
    e.pop("VNEURON_BACKEND", None)
    e.update(env)
    r = subprocess.run([sys.executable, "-c", code], env=e, capture_output=True, text=True)
    return r.returncode, r.stdout.strip(), r.stderr


def test_default_backend_is_the_module_when_loaded():
    rc, out, err = _default_backend({})
    assert rc == 0, err
    assert out == ("device" if HAVE_MODULE else "host")


def test_vneuron_backend_overrides_the_default():
    assert _default_backend({"VNEURON_BACKEND": "host"})[1] == "host"
    rc, out, err = _default_backend({"VNEURON_BACKEND": "device"})
    if HAVE_MODULE:
        assert (rc, out) == (0, "device")
    else:
        assert rc == 1 and "DeviceError" in err and "/dev/vneuron0" in err


def test_vneuron_backend_bad_value(monkeypatch):
    monkeypatch.setenv("VNEURON_BACKEND", "gpu")
    with pytest.raises(ValueError, match="VNEURON_BACKEND=gpu: the backend is 'host' or "
                       "'device'"):
        vneuron.Device()


@pytest.mark.skipif(HAVE_MODULE, reason="the module is loaded")
def test_absent_device_names_the_path_and_the_host_backend():
    with pytest.raises(vneuron.DeviceError) as e:
        vneuron.Device(0)
    assert e.value.errno == errno.ENOENT
    assert "/dev/vneuron0" in str(e.value)
    assert "vneuron.Device(host=True)" in str(e.value)


def test_absent_device_index():
    with pytest.raises(vneuron.DeviceError) as e:
        vneuron.Device(200)
    assert e.value.errno == errno.ENOENT and "/dev/vneuron200" in str(e.value)


def test_bad_arguments():
    with pytest.raises(ValueError, match="the host backend has no device index"):
        vneuron.Device(0, host=True)
    with pytest.raises(ValueError, match="core 1: the host backend has one core, 0"):
        vneuron.Device(host=True, core=1)
    with pytest.raises(ValueError, match="device index -1: 0..255"):
        vneuron.Device(-1)
    with pytest.raises(TypeError):
        vneuron.Device("0")


@needs_module
def test_device_core_out_of_range():
    n = vneuron.Device(0).info["core_count"]
    with pytest.raises(vneuron.DeviceError, match="/dev/vneuron0 has %d cores, no core %d"
                       % (n, n)):
        vneuron.Device(0, core=n)


@needs_module
def test_device_handle():
    with vneuron.Device(0, core=1) as d:
        assert (d.backend, d.index, d.path, d.core) == ("device", 0, "/dev/vneuron0", 1)
        assert repr(d) == "<vneuron.Device /dev/vneuron0 core 1>"


def test_close_is_idempotent_and_refuses_use(dev):
    prog = dev.load(add_image())
    dev.close()
    dev.close()
    assert dev.closed and prog.unloaded
    with pytest.raises(vneuron.DeviceError, match="the device is closed") as e:
        dev.load(add_image())
    assert e.value.errno == errno.EBADF
    with pytest.raises(vneuron.DeviceError, match="the device is closed"):
        dev.info
    with pytest.raises(vneuron.DeviceError, match="the device is closed"):
        dev.reset()
    with pytest.raises(vneuron.DeviceError, match="the device is closed"):
        dev.__enter__()


def test_context_manager_closes(dev):
    with dev as d:
        assert d is dev
    assert dev.closed


def test_reset(dev):
    dev.reset()


def test_counters_count_devices():
    before = vneuron.counters()["devices"]
    d = vneuron.Device(host=True)
    assert vneuron.counters()["devices"] == before + 1
    d.close()
    assert vneuron.counters()["devices"] == before
    d = vneuron.Device(host=True)
    del d
    assert vneuron.counters()["devices"] == before


def test_help_reads_like_a_man_page():
    doc = vneuron.Device.__doc__
    for word in ("Backends:", "Device(host=True)", "VNEURON_BACKEND", "Attributes:",
                 "Example:", "close"):
        assert word in doc
    for name in ("load", "close", "reset", "info", "model", "backend", "index", "core",
                 "path", "closed"):
        assert getattr(vneuron.Device, name).__doc__, name
