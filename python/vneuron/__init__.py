"""vneuron: a virtual Trainium-like accelerator for Linux, from Python.

Placeholder package layout (issue 26): the C extension is vneuron._vneuron.
"""

from vneuron._vneuron import BuildError, DeviceError, Error, ValidationError

__all__ = ["Error", "ValidationError", "DeviceError", "BuildError"]
