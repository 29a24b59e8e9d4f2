"""Device models (issue 28): vneuron.Device(host=True, model=...) runs on the model it
names, its figures give the modeled time, a capture records it; a bad name is refused."""

import errno
import json

import numpy
import pytest

import vneuron
from vnpytest import HAVE_MODULE, add_image, exp_image, needs_tools, run_tool  # noqa: F401

MODELS = ("trn1", "trn2", "trn3")
SBUF_KIB = {"trn1": 192, "trn2": 224, "trn3": 256}


@pytest.mark.parametrize("name", MODELS)
def test_host_model_is_the_one_named(name):
    with vneuron.Device(host=True, model=name) as d:
        assert d.backend == "host"
        assert d.model["name"] == name
        assert d.model["sbuf_partition_bytes"] == SBUF_KIB[name] * 1024
        assert d.info["model"] == d.model


def test_default_host_model_is_trn1():
    with vneuron.Device(host=True) as a, vneuron.Device(host=True, model=None) as b:
        assert a.model["name"] == b.model["name"] == "trn1"
        assert a.model == b.model


def _exp_model_ns(name):
    x = numpy.random.default_rng(1).standard_normal((250, 512), dtype=numpy.float32)
    with vneuron.Device(host=True, model=name) as d:
        res = d.load(exp_image()).run({"in": x})
        return res.model_ns, res.outputs["out"]


def test_modeled_time_follows_the_model():
    """trn3's faster VectorE/ScalarE and DMA make exp faster than on trn1; trn2's
    slower clocks slower. The results are the same bits on every model."""
    t = {}
    out = {}
    for name in MODELS:
        t[name], out[name] = _exp_model_ns(name)
    assert t["trn3"] < t["trn1"] < t["trn2"]
    assert numpy.array_equal(out["trn1"], out["trn2"])
    assert numpy.array_equal(out["trn1"], out["trn3"])


@pytest.mark.parametrize("bad", ["trn9", "TRN2", "", "trn1 "])
def test_unknown_model_names_the_valid_ones(bad):
    with pytest.raises(ValueError, match=r"model=unknown model '%s' \(the models are trn1, "
                       r"trn2, trn3\)" % bad):
        vneuron.Device(host=True, model=bad)


def test_model_must_be_a_string():
    with pytest.raises(TypeError):
        vneuron.Device(host=True, model=2)


@pytest.mark.skipif(HAVE_MODULE, reason="the module is loaded")
def test_model_on_an_absent_device_is_the_device_error():
    with pytest.raises(vneuron.DeviceError) as e:
        vneuron.Device(0, model="trn2")
    assert e.value.errno == errno.ENOENT


@pytest.mark.skipif(not HAVE_MODULE, reason="needs /dev/vneuron0 (guest)")
def test_model_checks_the_device():
    with vneuron.Device(0) as d:
        mine = d.model["name"]
    with vneuron.Device(0, model=mine) as d:
        assert d.model["name"] == mine
    other = "trn3" if mine != "trn3" else "trn1"
    with pytest.raises(vneuron.DeviceError, match="is a %s, not the model=%s" % (mine, other)):
        vneuron.Device(0, model=other)


@needs_tools
def test_capture_records_the_host_model(tmp_path):
    """A host capture on trn2 is a trn2 profile: view's peaks are trn2's, and diff
    against a trn1 capture says the models differ before any figure."""
    x = numpy.ones((250, 512), dtype=numpy.float32)
    vnef = tmp_path / "exp.vnef"
    vnef.write_bytes(exp_image())
    for name in ("trn1", "trn2"):
        with vneuron.Device(host=True, model=name) as d:
            prog = d.load(exp_image())
            with vneuron.capture(tmp_path / (name + ".vntf"), device=d, program=prog):
                prog.run({"in": x})
        p = vneuron.Profile(tmp_path / (name + ".vntf"), programs=[vnef])
        assert p.summary["model"] == name
    j = json.loads(run_tool("vneuron-profile", "view", "-n", str(vnef), "-s",
                            str(tmp_path / "trn2.vntf"), "-f", "summary-json").stdout)
    assert j["model"] == "trn2"
    assert j["peak_flops"] == 2 * 128 * 128 * 2.4e9
    out = run_tool("vneuron-profile", "diff", "-n", str(vnef), str(tmp_path / "trn1.vntf"),
                   str(tmp_path / "trn2.vntf")).stdout
    assert "different device models: A ran on trn1, B on trn2" in out
    assert out.index("different device models") < out.index("total time")


SPMD = open(__file__.rsplit("/tests/", 1)[0] + "/examples/vasm/spmd.vasm").read()


def test_lnc2_runs_two_instances_on_trn2():
    """Device(host=True, model="trn2", lnc=2): program ids 0 and 1 each take their
    half of x (DMA pid_stride) and write their id (PROGRAM_ID); one core is id 0."""
    img = vneuron.assemble(SPMD, "spmd.vasm")
    x = numpy.arange(256 * 64, dtype=numpy.float32).reshape(256, 64)
    with vneuron.Device(host=True, model="trn2", lnc=2) as d:
        two = d.load(img).run({"x": x})
    with vneuron.Device(host=True, model="trn2") as d:
        one = d.load(img).run({"x": x})
    assert (two.outputs["y"] == x + 1).all()
    assert (two.outputs["ids"].ravel() == numpy.repeat([0.0, 1.0], 128)).all()
    assert (one.outputs["y"][:128] == x[:128] + 1).all()
    assert (one.outputs["y"][128:] == 0).all()
    assert two.model_ns == one.model_ns


@pytest.mark.parametrize("model,lnc,why", [
    ("trn1", 2, "model trn1 has no logical cores"),
    ("trn2", 3, "a logical core is 1 or 2 physical cores"),
    ("trn2", 0, "a logical core is 1 or 2 physical cores"),
])
def test_lnc_refused(model, lnc, why):
    with pytest.raises(ValueError, match=why):
        vneuron.Device(host=True, model=model, lnc=lnc)
