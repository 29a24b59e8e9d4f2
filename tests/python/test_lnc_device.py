"""Logical cores on the module (issue 28): vneuron.Device(0, lnc=2) runs every program as
EXEC's VNEURON_EXEC_LNC2, program id 0 on the even core given and 1 on the next, one
result; refused, in words, where the module's model has no logical cores. The guest's
trn1 boot (tools/guest-python) checks the refusal; tests/guest/lnc_test.c runs this file
again in its model=trn2 cores=4 boot, where the launches run."""

import os

import numpy
import pytest

import vneuron
from vnpytest import HAVE_MODULE, TOP

SPMD = open(os.path.join(TOP, "examples", "vasm", "spmd.vasm")).read()

pytestmark = pytest.mark.skipif(not HAVE_MODULE, reason="needs /dev/vneuron0 (guest)")


def device0():
    """The module's model name and core count."""
    with vneuron.Device(0) as d:
        return d.model["name"], d.info["core_count"]


def test_lnc2_on_the_module():
    name, cores = device0()
    if name == "trn1":
        with pytest.raises(ValueError, match="model trn1 has no logical cores"):
            vneuron.Device(0, lnc=2)
        return
    img = vneuron.assemble(SPMD, "spmd.vasm")
    x = numpy.arange(256 * 64, dtype=numpy.float32).reshape(256, 64)
    with vneuron.Device(0, core=cores - 2, lnc=2) as d:
        two = d.load(img).run({"x": x})
    with vneuron.Device(0) as d:
        one = d.load(img).run({"x": x})
    assert (two.outputs["y"] == x + 1).all()
    assert (two.outputs["ids"].ravel() == numpy.repeat([0.0, 1.0], 128)).all()
    assert (one.outputs["y"][:128] == x[:128] + 1).all()
    assert (one.outputs["y"][128:] == 0).all()
    # the module's modeled time of the pair is one instance's, as on the host backend
    assert two.model_ns == one.model_ns
    with vneuron.Device(host=True, model=name, lnc=2) as h:
        assert h.load(img).run({"x": x}).model_ns == two.model_ns


@pytest.mark.parametrize("core,lnc,why", [
    (0, 3, "a logical core is 1 or 2 physical cores"),
    (1, 2, "not a logical core's first|has no logical cores"),
])
def test_lnc_refused_on_the_module(core, lnc, why):
    with pytest.raises(ValueError, match=why):
        vneuron.Device(0, core=core, lnc=lnc)
