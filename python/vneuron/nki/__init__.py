"""vneuron.nki: NKI kernels on vneuron, unmodified but for their imports.

    from vneuron import nki
    import vneuron.nki.language as nl
    import vneuron.nki.isa as nisa
    from vneuron.nki.typing import tensor

A kernel is a Python function decorated with nki.jit (or nki.benchmark, nki.profile,
nki.baremetal); called with NumPy arrays it is traced once per input shapes and dtypes
into a vneuron program (every instruction carrying its Python file:line and the
kernel's name as its scope), run on vneuron.Device() (the module, or the host backend
without it) and returns NumPy arrays. nki.simulate(kernel)(...) runs it on the host
backend. docs/python.md ("NKI kernels") has the supported subset, call by call.
"""

import errno

from vneuron.nki import _errors, _tileops
from vneuron.nki import isa, language, typing  # noqa: F401
from vneuron.nki._bench import Benchmark, BenchmarkResult, Profile, benchmark, profile
from vneuron.nki._errors import NkiError, ShapeError, TileLifetimeError, UnsupportedError
from vneuron.nki._kernel import Kernel, Traced, close, default_device
from vneuron.nki.typing import tensor

_errors.INTERNAL.add(__name__)
_tileops.install()

__all__ = ["jit", "simulate", "simulate_kernel", "benchmark", "profile", "baremetal",
           "default_device", "close",
           "language", "isa", "typing", "tensor", "Kernel", "Traced", "Benchmark",
           "BenchmarkResult", "Profile", "NkiError", "ShapeError", "UnsupportedError",
           "TileLifetimeError"]


def jit(func=None, mode="auto", *, device=None, **kwargs):
    """@nki.jit: trace per input shapes and dtypes, run on vneuron.Device() (mode
    "auto" or "baremetal"), on the host backend (mode "simulation"), or benchmark
    (mode "benchmark", with nki.benchmark's arguments). device= picks a
    vneuron.Device."""
    if mode in ("jax", "torch"):
        raise UnsupportedError(errno.ENOTSUP, f"nki.jit(mode={mode!r}): vneuron.nki runs "
                               "kernels on NumPy arrays only")
    if mode == "benchmark":
        return benchmark(func, device=device, **kwargs)
    if mode not in ("auto", "baremetal", "simulation"):
        raise UnsupportedError(errno.ENOTSUP, f"nki.jit(mode={mode!r})")
    if kwargs:
        raise UnsupportedError(errno.ENOTSUP, "nki.jit: argument(s) "
                               f"{', '.join(sorted(kwargs))} not supported by vneuron.nki")
    backend = "host" if mode == "simulation" else None

    def deco(f):
        if isinstance(f, Kernel):
            f = f.func
        return Kernel(f, backend, device)
    return deco(func) if func is not None else deco


def simulate(kernel):
    """nki.simulate(kernel)(*args): run the kernel on the host backend (the device
    core's own code on host threads: the same results and modeled times as the
    module)."""
    f = kernel.func if isinstance(kernel, Kernel) else kernel
    return Kernel(f, "host")


def simulate_kernel(kernel, *args, **kwargs):
    """nki.simulate_kernel(kernel, *args): simulate(kernel)(*args)."""
    return simulate(kernel)(*args, **kwargs)


def baremetal(kernel=None, *, save_neff_name=None, save_trace_name=None, device=None,
              **kwargs):
    """@nki.baremetal: run on the device; with save_neff_name / save_trace_name also
    write the program and a profile of the run (as nki.profile does)."""
    if save_neff_name or save_trace_name:
        return profile(kernel, working_directory=None, overwrite=True, device=device,
                       save_neff_name=save_neff_name or "file.neff",
                       save_trace_name=save_trace_name or "profile.ntff", **kwargs)
    return jit(kernel, device=device, **kwargs)
