"""nki.benchmark and nki.profile: run a kernel several times, write its program (.vnef)
and a profile of one execution (.vntf) under the names given, and report latencies: the
modeled device time of an execution (deterministic, from the device model's clock) and
the host time of a run (vneuron.Program.run around it)."""

import errno
import os
import sys

import vneuron
from vneuron.nki import _errors
from vneuron.nki import _kernel as K
from vneuron.nki._errors import NkiError, UnsupportedError
from vneuron.nki.typing import tensor as _Placeholder

_errors.INTERNAL.add(__name__)


class LatencyStats:
    """Latencies of a benchmark's iterations in microseconds."""

    def __init__(self, us):
        self.us = sorted(us)

    def get_latency_percentile(self, p):
        """The p-th percentile (0..100), microseconds (nearest rank)."""
        if not self.us:
            return 0.0
        k = min(len(self.us) - 1, max(0, int(round(p / 100.0 * (len(self.us) - 1)))))
        return self.us[k]


class BenchmarkResult:
    """kernel.benchmark_result after a benchmark: nc_latency (modeled device time of an
    execution) and e2e_latency (host time of a run), both LatencyStats."""

    def __init__(self, nc, e2e):
        self.nc_latency = LatencyStats(nc)
        self.e2e_latency = LatencyStats(e2e)


def _prepare(kernel, args, kwargs):
    """(traced, device, program, inputs) for a call of kernel with these arguments."""
    b, key, arrays = kernel._bind(args, kwargs)
    dev = kernel._device()
    t = kernel._traced(b, key, getattr(dev, "lnc", 1))
    arrays = [K._random_input(x) if isinstance(x, _Placeholder) else x for x in arrays]
    return t, dev, t.program(dev), t.feed(arrays)


def _run_iters(kernel, args, kwargs, warmup, iters):
    t, dev, prog, feed = _prepare(kernel, args, kwargs)
    res = None
    for _ in range(warmup):
        res = prog.run(feed)
    nc, e2e = [], []
    for _ in range(iters):
        res = prog.run(feed)
        nc.append(res.model_ns / 1000.0)
        e2e.append(res.host_s * 1e6)
    return t, dev, prog, feed, res, nc, e2e


def _capture(path, dev, prog, feed, nth=1, force=True):
    """Run the program nth times, the last under vneuron.capture writing path."""
    for _ in range(nth - 1):
        prog.run(feed)
    with vneuron.capture(os.fspath(path), device=dev, program=prog, force=force):
        return prog.run(feed)


def _table(out, iters, nc, e2e):
    ln = LatencyStats(nc)
    le = LatencyStats(e2e)
    p50 = le.get_latency_percentile(50)
    ips = 1e6 / p50 if p50 else 0.0
    cols = ("NC", "ITERS", "INF/S", "L(1)", "L(50)", "L(99)", "NCL(1)", "NCL(50)",
            "NCL(99)")
    vals = ("1", str(iters), f"{ips:.2f}",
            *(f"{le.get_latency_percentile(p):.1f}" for p in (1, 50, 99)),
            *(f"{ln.get_latency_percentile(p):.3f}" for p in (1, 50, 99)))
    w = [max(len(c), len(v)) + 2 for c, v in zip(cols, vals)]
    rule = "+" + "+".join("-" * x for x in w) + "+"
    print(rule, file=out)
    print(" " + " ".join(c.rjust(x - 1) for c, x in zip(cols, w)), file=out)
    print(" " + " ".join(v.rjust(x - 1) for v, x in zip(vals, w)), file=out)
    print(rule, file=out)
    print("Latencies in microseconds: L = host time of a run (Program.run), "
          "NCL = modeled NeuronCore time of an execution", file=out)


class Benchmark(K.Kernel):
    """A kernel decorated with nki.benchmark: calling it benchmarks it."""

    def __init__(self, func, warmup, iters, save_neff_name, save_trace_name, backend=None,
                 device=None, out=None):
        super().__init__(func, backend, device)
        self.warmup = warmup
        self.iters = iters
        self.save_neff_name = save_neff_name
        self.save_trace_name = save_trace_name
        self.out = out

    def __call__(self, *args, **kwargs):
        from vneuron.nki import _trace as T
        if T._current is not None:
            return self.func(*args, **kwargs)
        out = self.out or sys.stdout
        t, dev, prog, feed, res, nc, e2e = _run_iters(self, args, kwargs, self.warmup,
                                                      self.iters)
        if self.save_neff_name:
            t.save(self.save_neff_name)
        if self.save_trace_name:
            res = _capture(self.save_trace_name, dev, prog, feed)
        self.last_result = res
        self.benchmark_result = BenchmarkResult(nc, e2e)
        _table(out, self.iters, nc, e2e)
        if self.save_neff_name:
            print(f"Program written to {self.save_neff_name}", file=out)
        if self.save_trace_name:
            print(f"Profile results are written to {self.save_trace_name}", file=out)
        return t.results(res.outputs) if res is not None else None


class Profile(K.Kernel):
    """A kernel decorated with nki.profile: calling it runs it profile_nth times and
    writes the program and the profile of the last run into working_directory."""

    def __init__(self, func, working_directory, save_neff_name, save_trace_name, overwrite,
                 profile_nth, backend=None, device=None):
        super().__init__(func, backend, device)
        self.working_directory = working_directory
        self.save_neff_name = save_neff_name
        self.save_trace_name = save_trace_name
        self.overwrite = overwrite
        self.profile_nth = profile_nth

    def __call__(self, *args, **kwargs):
        from vneuron.nki import _trace as T
        if T._current is not None:
            return self.func(*args, **kwargs)
        wd = self.working_directory or os.getcwd()
        neff = os.path.join(wd, self.save_neff_name)
        ntff = os.path.join(wd, self.save_trace_name)
        if not self.overwrite:
            for p in (neff, ntff):
                if os.path.exists(p):
                    raise NkiError(errno.EEXIST, f"{p} exists; nki.profile(overwrite=True)"
                                   " replaces it")
        os.makedirs(wd, exist_ok=True)
        t, dev, prog, feed = _prepare(self, args, kwargs)
        t.save(neff)
        res = _capture(ntff, dev, prog, feed, max(1, int(self.profile_nth)),
                       self.overwrite)
        self.last_result = res
        return t.results(res.outputs)


def benchmark(kernel=None, *, warmup=5, iters=10, save_neff_name=None, save_trace_name=None,
              device=None, **kwargs):
    """@nki.benchmark(warmup=, iters=, save_neff_name=, save_trace_name=): calling the
    kernel (with arrays, or tensor[shape, dtype] placeholders for random inputs) runs it
    warmup + iters times, writes the program and a profile of one more execution under
    the names given (vneuron's .vnef and .vntf formats, whatever the extension), and
    prints the latencies."""
    _no_kwargs("benchmark", kwargs)

    def deco(f):
        if isinstance(f, K.Kernel):
            f = f.func
        return Benchmark(f, int(warmup), int(iters), save_neff_name, save_trace_name,
                         device=device)
    return deco(kernel) if kernel is not None else deco


def profile(func=None, *, working_directory=None, save_neff_name="file.neff",
            save_trace_name="profile.ntff", overwrite=False, profile_nth=1, device=None,
            **kwargs):
    """@nki.profile(working_directory=, save_neff_name=, save_trace_name=, overwrite=,
    profile_nth=): calling the kernel runs it profile_nth times and writes the program
    and the profile of the last execution into working_directory (default: the current
    directory); existing files are kept unless overwrite=True."""
    _no_kwargs("profile", kwargs)

    def deco(f):
        if isinstance(f, K.Kernel):
            f = f.func
        return Profile(f, working_directory, save_neff_name, save_trace_name, overwrite,
                       profile_nth, device=device)
    return deco(func) if func is not None else deco


def _no_kwargs(fn, kwargs):
    if kwargs:
        raise UnsupportedError(errno.ENOTSUP, f"nki.{fn}: argument(s) "
                               f"{', '.join(sorted(kwargs))} not supported by vneuron.nki")

