"""SPMD launches on a logical core (LNC=2): kernel[2](...) as one program, run by both
physical cores, each instance finding its program id in the hardware's way.

The kernel is traced once per physical core, program id 0 and then 1 (with kernel[2, n]
each core's programs of the grid's other axes, unrolled), every builder call of both
traces recorded. Where the two traces make the same calls but for the HBM offsets of
their transfers, the program is the first trace with, on every transfer whose offset
differs, a pid_stride of the difference (docs/isa.md, "Logical cores"): instance 1 then
reads and writes exactly what the second trace did. Anything else the program id
changes (a scalar, a loop bound, a branch, a slice running backwards, an nl.hbm scratch
tensor both instances would share) has no such form, and the launch is unrolled into
one program instead, as on one core (Kernel.lnc_reason says why).
"""

import errno

import vneuron
from vneuron import _vneuron as _c
from vneuron.nki import _errors
from vneuron.nki._errors import NkiError

_errors.INTERNAL.add(__name__)

LNC = 2                       # physical cores of a logical core (VN_LNC_MAX)
_U32 = 1 << 32


class Recorder:
    """A builder that passes every call on and records it: (method, args, result)."""

    def __init__(self, name):
        self._b = _c.Builder(name)
        self.log = []

    def __getattr__(self, name):
        fn = getattr(self._b, name)
        if not callable(fn):
            return fn
        log = self.log

        def call(*args):
            r = fn(*args)
            log.append((name, args, r))
            return r
        return call


def _hbm_delta(e0, e1):
    """The pid_stride (bytes) taking DMA endpoint e0 to e1, 0 if the same, None if they
    differ otherwise."""
    if e0 == e1:
        return 0
    if e0[0] != 0 or len(e0) != len(e1) or e0[:2] != e1[:2] or e0[3:] != e1[3:]:
        return None
    d = e1[2] - e0[2]
    return d if 0 < d < _U32 else None


def merge(log0, log1):
    """(calls, None): instance 0's builder calls with the pid_strides that give instance
    1's; (None, why) when the two traces differ in more than HBM offsets."""
    if len(log0) != len(log1):
        return None, ("the two instances emit different programs (the program id "
                      "changes how many instructions a kernel emits)")
    calls = []
    for (n0, a0, r0), (n1, a1, r1) in zip(log0, log1):
        if n0 == "finish":
            continue
        if n0 == "scratch":
            return None, ("an nl.hbm scratch tensor would be shared by both instances "
                          "(each physical core needs its own)")
        if n0 != n1 or r0 != r1:
            return None, "the two instances emit different programs"
        if a0 == a1:
            calls.append((n0, a0))
            continue
        if n0 in ("load", "store") and a0[:3] + a0[4:] == a1[:3] + a1[4:]:
            d = a1[3] - a0[3]             # elements
            if d > 0:
                calls.append((n0, a0 + (d,)))
                continue
        elif n0 == "dma" and a0[:4] + a0[6:] == a1[:4] + a1[6:]:
            ds = _hbm_delta(a0[4], a1[4])
            dd = _hbm_delta(a0[5], a1[5])
            if ds is not None and dd is not None:
                src = a0[4] + (ds,) if ds else a0[4]
                dst = a0[5] + (dd,) if dd else a0[5]
                calls.append((n0, a0[:4] + (src, dst) + a0[6:]))
                continue
        where = f" (at {a0[-2]}:{a0[-1]})" if len(a0) >= 2 else ""
        return None, (f"the program id changes more than the HBM offsets of transfers "
                      f"in {n0}{where}, or puts program 1's slice below program 0's")
    return calls, None


def build(name, calls):
    """The program image of calls replayed into a new builder."""
    b = _c.Builder(name)
    try:
        for n, a in calls:
            getattr(b, n)(*a)
        return b.finish()
    except vneuron.BuildError as e:
        raise NkiError(e.errno or errno.EINVAL,
                       f"kernel {name}: on a logical core: {e.strerror}") from None
