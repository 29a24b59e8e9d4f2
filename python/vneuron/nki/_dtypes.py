"""NKI data types as vneuron.nki knows them: float32 and bfloat16 run on the device;
the other NKI names exist so a kernel that mentions them gets a clear error."""

import numpy

from vneuron import _vneuron as _c


class dtype:
    """An NKI dtype: nl.float32, nl.bfloat16 (and names the device lacks).

    Compares equal to itself, to its name ("float32") and, for float32, to NumPy's
    float32, so `x.dtype == nl.float32` and `x.dtype == numpy.float32` both hold.
    """

    __slots__ = ("name", "code", "itemsize", "numpy")

    def __init__(self, name, code, itemsize, np_dtype):
        self.name = name
        self.code = code          # ND_FP32 / ND_BF16, 0 when the device lacks it
        self.itemsize = itemsize
        self.numpy = np_dtype     # the NumPy dtype of its arrays (uint16 for bf16)

    def __repr__(self):
        return self.name

    def __eq__(self, other):
        if isinstance(other, dtype):
            return self is other
        if isinstance(other, str):
            return other == self.name
        if self.name == "float32":
            try:
                return numpy.dtype(other) == numpy.float32
            except TypeError:
                return False
        return NotImplemented

    def __hash__(self):
        return hash(self.name)


float32 = dtype("float32", _c.ND_FP32, 4, numpy.dtype(numpy.float32))
bfloat16 = dtype("bfloat16", _c.ND_BF16, 2, numpy.dtype(numpy.uint16))
# NKI names without a device type: usable in comparisons, refused in kernels.
_UNSUPPORTED = {}
for _n, _sz in (("float16", 2), ("tfloat32", 4), ("float8_e4m3", 1), ("float8_e5m2", 1),
                ("int8", 1), ("uint8", 1), ("int16", 2), ("uint16", 2), ("int32", 4),
                ("uint32", 4), ("bool_", 1)):
    _UNSUPPORTED[_n] = dtype(_n, 0, _sz, None)


def of(x):
    """The NKI dtype for x: an nl dtype, a NumPy dtype or type, or a name; None for
    anything else. NumPy's float32 is nl.float32; bf16 has no NumPy type here."""
    if isinstance(x, dtype):
        return x
    if isinstance(x, str):
        return {"float32": float32, "bfloat16": bfloat16}.get(x) or _UNSUPPORTED.get(x)
    try:
        d = numpy.dtype(x)
    except TypeError:
        return None
    if d == numpy.float32:
        return float32
    return _UNSUPPORTED.get(d.name) or dtype(d.name, 0, d.itemsize, d)


def promote(a, b):
    """The dtype of an operation on a and b: float32 unless both are bfloat16."""
    return bfloat16 if a is bfloat16 and b is bfloat16 else float32
