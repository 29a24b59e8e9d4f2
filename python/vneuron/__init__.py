"""vneuron: a virtual Trainium-like accelerator for Linux, from Python.

Devices and programs (the C extension vneuron._vneuron over libneurondev and libvnprog):

    import numpy, vneuron
    dev = vneuron.Device()                   # the module if loaded, else the host backend
    prog = dev.load("exp.vnef")              # a .vnef path or its bytes
    x = numpy.random.rand(250, 512).astype(numpy.float32)
    res = prog.run({"in": x})                # NumPy in, NumPy out, the GIL released
    print(res.outputs["out"], res.model_ns)  # modeled time in ns

The device model: vneuron.Device(host=True, model="trn2") runs the host backend as a
Trainium2 core ("trn1", the default, "trn2" or "trn3": docs/isa.md, "Device models");
its figures give the modeled times and a capture records it. A device has the model its
module was loaded with (dev.model["name"]); model= on it checks that.

Ranges for the profiler (`vneuron-profile capture -- python3 app.py`):

    with vneuron.range("step"):
        prog.run({"in": x})

Profiles (libvnprofile): vneuron.Profile("p.vntf", programs=["exp.vnef"]) gives the
figures of `vneuron-profile view -f json`, the findings, the executions and every event
as a NumPy structured array; `with vneuron.capture("p.vntf", device=dev):` writes one.

bf16 tensors cross as their bit patterns in uint16 arrays: bf16_from_float32() and
bf16_to_float32() convert with the device's rounding. Errors are vneuron.Error (an
OSError: errno and the C library's message) and its subclasses. See docs/python.md,
and help() of each name.
"""

from vneuron._vneuron import (
    BuildError,
    Device,
    DeviceError,
    Error,
    ExecutionError,
    Program,
    Result,
    TensorError,
    TensorInfo,
    ValidationError,
    assemble,
    bf16_from_float32,
    bf16_to_float32,
    capture,
    counters,
    disassemble,
    mark,
    range,
    range_pop,
    range_push,
)
from vneuron.profile import Profile, ProfileView, event_dtype, execution_dtype

__all__ = [
    "Error",
    "ValidationError",
    "DeviceError",
    "ExecutionError",
    "BuildError",
    "TensorError",
    "Device",
    "Program",
    "TensorInfo",
    "Result",
    "assemble",
    "disassemble",
    "bf16_from_float32",
    "bf16_to_float32",
    "range",
    "range_push",
    "range_pop",
    "mark",
    "counters",
    "capture",
    "Profile",
    "ProfileView",
    "event_dtype",
    "execution_dtype",
]
