"""What the package core's tests share: backends, programs in assembly, the tools.

Not a conftest.py: the test files import what they use (fixtures included), so the
NKI half's tests and ours never share a file.
"""

import os
import subprocess
import time

import numpy
import pytest

import vneuron

# The tree (VNPY_TOP: tests run from a copy of this folder)
TOP = os.environ.get("VNPY_TOP") or \
    os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BIN = os.path.join(TOP, "build", "bin")
PROFILE_TOOL = os.path.join(BIN, "vneuron-profile")
HAVE_MODULE = os.path.exists("/dev/vneuron0")

# Every backend this machine has: the host backend always, the module where it is loaded
# (the guest phase of make check). VNPY_BACKENDS=device (tools/guest-python) keeps the
# module alone: the host phase has run the host backend's half already, natively.
BACKENDS = ["host"] + (["device"] if HAVE_MODULE else [])
if os.environ.get("VNPY_BACKENDS") == "device" and HAVE_MODULE:
    BACKENDS = ["device"]


def open_backend(name):
    return vneuron.Device(host=True) if name == "host" else vneuron.Device(0)


@pytest.fixture(params=BACKENDS)
def dev(request):
    """A Device of each backend, closed after the test."""
    d = open_backend(request.param)
    yield d
    d.close()


@pytest.fixture
def host():
    d = vneuron.Device(host=True)
    yield d
    d.close()


needs_module = pytest.mark.skipif(not HAVE_MODULE, reason="needs /dev/vneuron0 (guest)")
needs_tools = pytest.mark.skipif(not os.access(PROFILE_TOOL, os.X_OK),
                                 reason="needs build/bin/vneuron-profile (make)")


def exp_image():
    """The tiled exp of the NKI profiler example, fp32 [250, 512] (examples/vasm)."""
    with open(os.path.join(TOP, "examples", "vasm", "exp.vasm")) as f:
        return vneuron.assemble(f.read(), "exp.vasm")


ADD = """\
.program "add"
.tensor x input fp32 [128, 64]
.tensor y input fp32 [128, 64]
.tensor z output fp32 [128, 64]
.queue 0
.scope "add/load"
	dma sbuf[0; 0, 1]@0x0, x@0x0[0, 256], 1 x 128 x 256 signal s4
.queue 1
	dma sbuf[0; 0, 1]@0x100, y@0x0[0, 256], 1 x 128 x 256 signal s5
.engine vector
.scope "add/add"
	nop wait s4 >= 1
	tensor_tensor add sbuf.fp32[0:128]@0x200[64], sbuf.fp32[0:128]@0x0[64], sbuf.fp32[0:128]@0x100[64] wait s5 >= 1 signal s1
.queue 2
.scope "add/store"
	dma z@0x0[0, 256], sbuf[0; 0, 1]@0x200, 1 x 128 x 256 wait s1 >= 1
"""


def add_image():
    """z = x + y, fp32 [128, 64]: small, exact."""
    return vneuron.assemble(ADD, "add.vasm")


def convert_image(src, dst, rows=128, cols=64):
    """y = x converted from dtype src to dst ("fp32", "bf16") by a VectorE copy."""
    sb = 4 if src == "fp32" else 2
    db = 4 if dst == "fp32" else 2
    return vneuron.assemble(f"""\
.program "convert"
.tensor x input {src} [{rows}, {cols}]
.tensor y output {dst} [{rows}, {cols}]
.queue 0
	dma sbuf[0; 0, 1]@0x0, x@0x0[0, {cols * sb}], 1 x {rows} x {cols * sb} signal s4
.engine vector
	copy sbuf.{dst}[0:{rows}]@0x1000[{cols}], sbuf.{src}[0:{rows}]@0x0[{cols}] wait s4 >= 1 signal s1
.queue 1
	dma y@0x0[0, {cols * db}], sbuf[0; 0, 1]@0x1000, 1 x {rows} x {cols * db} wait s1 >= 1
""", "convert.vasm")


def long_image(n):
    """C = A + n by n additions on VectorE: as long a run as wanted, exact (elementwise
    work, which the guest's emulated CPU runs at a steady pace, unlike the matmuls)."""
    lines = ['.program "long"',
             ".tensor A input fp32 [128, 512]",
             ".tensor C output fp32 [128, 512]",
             ".queue 0",
             "\tdma sbuf[0; 0, 1]@0x0, A@0x0[0, 2048], 1 x 128 x 2048 signal s4",
             ".engine vector"]
    for i in range(n):
        lines.append("\ttensor_scalar add sbuf.fp32[0:128]@0x0[512], "
                     "sbuf.fp32[0:128]@0x0[512], 1.0%s%s" %
                     (" wait s4 >= 1" if i == 0 else "", " signal s1" if i == n - 1 else ""))
    lines += [".queue 1",
              "\tdma C@0x0[0, 2048], sbuf[0; 0, 1]@0x0, 1 x 128 x 2048 wait s1 >= 1"]
    return vneuron.assemble("\n".join(lines) + "\n", "long.vasm")


def long_inputs():
    a = numpy.arange(128 * 512, dtype=numpy.float32).reshape(128, 512) % 1000
    return {"A": a}


def long_program(d, seconds=2.0):
    """A program of d that runs about `seconds` of host time (sized on this machine by a
    short probe: the size only, nothing is asserted on time). Runs meant to be stopped
    are given a time limit far above it."""
    probe = d.load(long_image(16))
    t = time.monotonic()
    probe.run(long_inputs())
    per = (time.monotonic() - t) / 16
    probe.unload()
    n = int(min(60000, max(64, seconds / max(per, 1e-7))))
    return d.load(long_image(n))


def run_tool(*args, check=True, **kw):
    """Runs a built tool of build/bin, its output as text."""
    r = subprocess.run([os.path.join(BIN, args[0])] + list(args[1:]), capture_output=True,
                       text=True, **kw)
    if check and r.returncode:
        raise AssertionError("%s exited %d:\n%s%s" % (args[0], r.returncode, r.stdout,
                                                     r.stderr))
    return r
