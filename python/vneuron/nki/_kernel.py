"""Kernels: tracing a Python function into a program, caching it by input shapes and
dtypes, running it with NumPy arrays, and the decorators built on that (jit, simulate,
benchmark, profile, baremetal)."""

import copy
import errno
import functools
import inspect
import itertools
import os
import tempfile
from collections import namedtuple

import numpy

import vneuron
from vneuron import _vneuron as _c
from vneuron.nki import _dtypes, _errors, _lnc
from vneuron.nki import _trace as T
from vneuron.nki._errors import NkiError, UnsupportedError, error
from vneuron.nki.typing import tensor as _Placeholder

_errors.INTERNAL.add(__name__)

CacheInfo = namedtuple("CacheInfo", "hits misses currsize")
_OutSpec = namedtuple("_OutSpec", "name dtype shape declared")


def _arg_dtype(a, where):
    """The NKI dtype of an argument array: float32, or bfloat16 for uint16 (bit patterns)."""
    if a.dtype == numpy.float32:
        return _dtypes.float32
    if a.dtype == numpy.uint16:
        return _dtypes.bfloat16
    hint = " (x.astype(numpy.float32))" if a.dtype.kind in "fiu" else ""
    raise error(UnsupportedError, f"{where} is a {a.dtype} array: kernel inputs are "
                f"float32, or uint16 holding bfloat16 bit patterns{hint}", errno.ENOTSUP)


def _is_array(v):
    return isinstance(v, (numpy.ndarray, _Placeholder))


class Traced:
    """A kernel traced for one set of input shapes and dtypes: the program image, its
    inputs (the kernel's array parameters, by name) and outputs (the shared_hbm
    tensors it returns)."""

    def __init__(self, name, image, inputs, outputs, shape_of_return, declared):
        self.name = name
        self.image = image
        self.inputs = inputs          # [(parameter name, dtype, shape)]
        self.outputs = outputs        # [_OutSpec] of the returned tensors
        self.returns = shape_of_return  # None, "one", "tuple", "list"
        self.declared = declared      # every output tensor: [(name, dtype, shape)]
        self.lnc = 1                  # 2: one SPMD instance per physical core (_lnc)
        self.lnc_reason = None        # why an SPMD launch on a logical core unrolled
        self._programs = {}

    def listing(self):
        """The program as text: tensors, each stream's entries with their source lines."""
        return _c.vnef_dump(self.image)

    def entries(self):
        """Every entry of the program as (stream, mnemonic, file, line, scope), stream by
        stream ("VectorE", "DMA3", ...), from the listing's debug table."""
        out = []
        stream = None
        for ln in self.listing().splitlines():
            if not ln.startswith(" "):
                if ln.endswith(" entries") and ":" in ln:
                    stream = ln.split(":", 1)[0]
                continue
            body, _, dbg = ln.rpartition(" ; ")
            words = body.split()
            where, _, scope = dbg.rpartition(" ")
            file, _, line = where.rpartition(":")
            out.append((stream, words[1] if len(words) > 1 else "", file,
                        int(line) if line.isdigit() else 0, scope))
        return out

    def save(self, path):
        """Write the program (.vnef) to path, replacing it (through a temporary file)."""
        path = os.fspath(path)
        d = os.path.dirname(os.path.abspath(path))
        fd, tmp = tempfile.mkstemp(prefix=os.path.basename(path) + ".", dir=d)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(self.image)
                f.flush()
                os.fsync(f.fileno())
            os.chmod(tmp, 0o644)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise

    def program(self, dev):
        """The program loaded on vneuron.Device dev (loaded once per device)."""
        p = self._programs.get(id(dev))
        if p is None or p[0] is not dev or p[1].unloaded:
            p = (dev, dev.load(self.image))
            self._programs[id(dev)] = p
        return p[1]

    def feed(self, arrays):
        """The run's input dict from the arguments' arrays (by parameter name)."""
        feed = {}
        for (name, dt, shape), a in zip(self.inputs, arrays):
            a = numpy.ascontiguousarray(a)
            feed[name] = a
        return feed

    def results(self, outs):
        vals = []
        for o in self.outputs:
            a = outs[o.name]
            if tuple(a.shape) != o.shape:
                a = a.reshape(o.shape)
            vals.append(a)
        if self.returns is None:
            return None
        if self.returns == "one":
            return vals[0]
        return tuple(vals) if self.returns == "tuple" else vals


class Kernel:
    """An NKI kernel (a function decorated with nki.jit): called with NumPy arrays, it is
    traced once per input shapes and dtypes (and other arguments), run on the device,
    and returns NumPy arrays. Called from inside another kernel it is a plain helper."""

    def __init__(self, func, backend=None, device=None):
        functools.update_wrapper(self, func)
        self.func = func
        self.backend = backend        # None: the default device; "host": host backend
        self.device = device
        self._sig = inspect.signature(func)
        self._cache = {}
        self._hits = self._misses = 0
        self.last_result = None
        self.benchmark_result = None
        self.grid = None

    def __repr__(self):
        return f"<nki kernel {self.func.__qualname__}>"

    def __get__(self, obj, objtype=None):
        return self if obj is None else functools.partial(self, obj)

    def cache_info(self):
        """CacheInfo(hits, misses, currsize) of the trace cache."""
        return CacheInfo(self._hits, self._misses, len(self._cache))

    def cache_clear(self):
        self._cache.clear()
        self._hits = self._misses = 0

    def _bind(self, args, kwargs):
        try:
            b = self._sig.bind(*args, **kwargs)
        except TypeError as e:
            raise error(NkiError, f"{self.func.__name__}(): {e}") from None
        b.apply_defaults()
        key = []
        arrays = []
        for name, v in b.arguments.items():
            p = self._sig.parameters[name]
            vals = v if p.kind == p.VAR_POSITIONAL else (v,)
            for i, x in enumerate(vals):
                nm = name if p.kind != p.VAR_POSITIONAL else f"{name}{i}"
                if _is_array(x):
                    dt = x.dtype if isinstance(x, _Placeholder) else \
                        _arg_dtype(x, f"argument '{nm}'")
                    if not dt.code:
                        raise error(UnsupportedError, f"argument '{nm}' is {dt}: the "
                                    "device has float32 and bfloat16", errno.ENOTSUP)
                    key.append((nm, "a", tuple(x.shape), dt.name))
                    arrays.append(x)
                else:
                    try:
                        hash(x)
                    except TypeError:
                        raise error(UnsupportedError, f"argument '{nm}' of type "
                                    f"{type(x).__name__}: kernel arguments are arrays "
                                    "and hashable constants", errno.ENOTSUP) from None
                    key.append((nm, "k", type(x).__name__, x))
        return b, tuple(key), arrays

    def __getitem__(self, grid):
        """kernel[gx] or kernel[gx, gy]: the kernel launched as an SPMD grid of programs
        (nl.program_id(axis) tells each its place). On a logical core (a Device with
        lnc=2) a grid whose first axis is 2 (kernel[2], kernel[nl.nc(2)], kernel[2, n])
        runs one program per physical core, program id 0 on one and 1 on the other
        (the rest of the grid unrolled in each); any other grid, or one core, is traced
        into one program. docs/python.md, "SPMD launches"."""
        from vneuron.nki.language import _NC
        if not isinstance(grid, tuple):
            grid = (grid,)
        if any(isinstance(g, _NC) for g in grid[1:]):
            raise UnsupportedError(errno.ENOTSUP, f"kernel[{grid!r}]: nl.nc() is for the "
                                   "grid's first axis here")
        try:
            grid = tuple(int(g) for g in grid)
        except TypeError:
            raise UnsupportedError(errno.ENOTSUP, f"kernel[{grid!r}]: a grid is ints") \
                from None
        if not grid or any(g < 1 for g in grid) or len(grid) > 3:
            raise UnsupportedError(errno.ENOTSUP, f"kernel[{grid}]: 1 to 3 positive "
                                   "grid dimensions")
        k = copy.copy(self)               # the same cache: the grid is in the key
        k.grid = grid
        return k

    def trace(self, *args, lnc=None, **kwargs):
        """The Traced program for these arguments (from the cache, or traced now); lnc=2
        as for a logical core (default: the kernel's device's if it was given one, else
        1)."""
        b, key, _ = self._bind(args, kwargs)
        if lnc is None:
            lnc = getattr(self.device, "lnc", 1) if self.device is not None else 1
        return self._traced(b, key, lnc)

    def _traced(self, b, key, lnc=1):
        spmd = lnc == _lnc.LNC and self.grid is not None and self.grid[0] == _lnc.LNC
        key = key + (("grid", self.grid), ("lnc", spmd))
        t = self._cache.get(key)
        if t is not None:
            self._hits += 1
            return t
        self._misses += 1
        t = _trace_lnc(self.func, self._sig, b, self.grid) if spmd else \
            _trace(self.func, self._sig, b, self.grid)
        if self.grid is not None and not spmd:
            t.lnc_reason = (f"the device has lnc={lnc}" if lnc != _lnc.LNC else
                            f"grid {list(self.grid)}: the first axis is not {_lnc.LNC}")
        self._cache[key] = t
        return t

    def _device(self):
        if self.device is not None:
            return self.device
        return _default_device(self.backend == "host")

    def __call__(self, *args, **kwargs):
        if T._current is not None:
            return self.func(*args, **kwargs)
        b, key, arrays = self._bind(args, kwargs)
        dev = self._device()
        t = self._traced(b, key, getattr(dev, "lnc", 1))
        arrays = [_random_input(x) if isinstance(x, _Placeholder) else x for x in arrays]
        res = t.program(dev).run(t.feed(arrays))
        self.last_result = res
        return t.results(res.outputs)


def _spmd(tr, func, bound, grid, core=None):
    """An SPMD launch (kernel[gx, gy](...)): the body once per program of the grid, in
    order, into one program (with core, only the programs whose first coordinate is
    core). nl.program_id() gives each its coordinates; its tiles die when it ends (as a
    loop iteration's); nl.shared_hbm tensors are shared: the n-th one a program creates
    is the n-th the first created."""
    ret = None
    progs = itertools.product(*(range(g) for g in grid))
    if core is not None:
        progs = (c for c in progs if c[0] == core)
    for idx, coords in enumerate(progs):
        tr.spmd = (grid, coords, idx, 0)
        site = T._Site(tr.code.co_filename, tr.code.co_firstlineno, tr.root)
        it = T._Iter(site, f"SPMD program {list(coords)}")
        tr.frames.append(it)
        try:
            r = func(*bound.args, **bound.kwargs)
            tr.end_iteration(it)
        finally:
            tr.frames.remove(it)
        if idx == 0:
            ret = r
        elif not _same_return(r, ret):
            raise NkiError(errno.EINVAL, f"kernel {func.__name__}: SPMD program "
                           f"{list(coords)} returns other tensors than program 0")
    tr.spmd = None
    return ret


def _same_return(a, b):
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(_same_return(x, y) for x, y in zip(a, b))
    if isinstance(a, T.HbmTensor) and isinstance(b, T.HbmTensor):
        return a.tix == b.tix and a.shape == b.shape
    return a is b


def _trace_lnc(func, sig, bound, grid):
    """An SPMD launch on a logical core: traced once per physical core, merged into one
    program whose HBM transfers move by their pid_stride (_lnc); unrolled when the two
    do not merge."""
    args = dict(bound.arguments)
    traces = []
    for core in range(_lnc.LNC):
        rec = _lnc.Recorder(func.__name__)
        b = inspect.BoundArguments(sig, dict(args))
        traces.append((_trace(func, sig, b, grid, core, rec), rec))
    calls, why = _lnc.merge(traces[0][1].log, traces[1][1].log)
    if calls is None:
        t = _trace(func, sig, inspect.BoundArguments(sig, dict(args)), grid)
        t.lnc_reason = why
        return t
    t = traces[0][0]
    t.image = _lnc.build(func.__name__, calls)
    t.lnc = _lnc.LNC
    return t


def _trace(func, sig, bound, grid=None, core=None, builder=None):
    """Run func's body once (once per program of an SPMD grid; with core, once per
    program of that physical core) on HBM tensors standing for the array arguments."""
    tr = T.start(func.__name__, func.__code__, builder)
    try:
        inputs = []
        args = dict(bound.arguments)
        for name, v in bound.arguments.items():
            p = sig.parameters[name]
            if p.kind == p.VAR_POSITIONAL:
                new = []
                for i, x in enumerate(v):
                    new.append(_input(tr, f"{name}{i}", x, inputs) if _is_array(x) else x)
                args[name] = tuple(new)
            elif _is_array(v):
                args[name] = _input(tr, name, v, inputs)
        bound.arguments.update(args)
        if grid is None:
            ret = func(*bound.args, **bound.kwargs)
        else:
            ret = _spmd(tr, func, bound, grid, core)
        if tr.pending is not None:
            tr.flush()
        outputs, kind = _outputs(tr, func, ret)
        try:
            image = tr.b.finish()
        except vneuron.BuildError as e:
            raise NkiError(e.errno, f"kernel {func.__name__}: {e.strerror}") from None
        return Traced(func.__name__, image, inputs, outputs, kind, tr.outputs)
    finally:
        T.stop(tr)


def _input(tr, name, x, inputs):
    dt = x.dtype if isinstance(x, _Placeholder) else _arg_dtype(x, f"argument '{name}'")
    shape = tuple(int(d) for d in x.shape)
    site = T._Site(tr.code.co_filename, tr.code.co_firstlineno, tr.root)
    if not 1 <= len(shape) <= 4:
        raise tr.fail(UnsupportedError, site, f"argument '{name}' has {len(shape)} "
                      "dimensions; device tensors have 1 to 4", errno.ENOTSUP)
    tix = tr.call(site, tr.b.input, name, dt.code, shape)
    tr.tensor_names.add(name)
    inputs.append((name, dt, shape))
    return T.HbmTensor(tr, name, shape, dt, tix, "input")


def _outputs(tr, func, ret):
    if ret is None:
        return [], None
    kind = "one"
    items = [ret]
    if isinstance(ret, (tuple, list)):
        kind = "tuple" if isinstance(ret, tuple) else "list"
        items = list(ret)
    outs = []
    for x in items:
        where = f"kernel {func.__name__} returns"
        if not isinstance(x, T.HbmTensor):
            raise error(UnsupportedError, f"{where} a {type(x).__name__}: a kernel "
                        "returns the nl.shared_hbm tensors it wrote (nl.store a tile into "
                        "one)", errno.ENOTSUP)
        if x.kind != "output":
            raise error(UnsupportedError, f"{where} {x.kind} tensor '{x.name}': a kernel "
                        "returns nl.shared_hbm tensors", errno.ENOTSUP)
        decl = x.root or x
        outs.append(_OutSpec(x.name, x.dtype, x.shape, decl.shape))
    return outs, kind


def _random_input(p):
    """A placeholder's data: uniform in [-1, 1), fixed seed (runs are reproducible)."""
    rng = numpy.random.default_rng(0)
    a = rng.uniform(-1.0, 1.0, p.shape).astype(numpy.float32)
    if p.dtype is _dtypes.bfloat16:
        return vneuron.bf16_from_float32(a)
    return a


# -- backends -------------------------------------------------------------------------

_devices = {}


def _default_device(host):
    """The process's shared vneuron.Device: the host backend, or the default one (the
    module when it is loaded, else the host backend; VNEURON_BACKEND overrides)."""
    d = _devices.get(host)
    if d is None or d.closed:
        d = vneuron.Device(host=True) if host else vneuron.Device()
        _devices[host] = d
    return d


def default_device(host=False):
    """The vneuron.Device kernels run on when none is given (host=True: the one of
    nki.simulate): opened on first use and kept, so programs stay loaded. On the module
    it holds its core (the first run claims it) until nki.close()."""
    return _default_device(bool(host))


def close():
    """Close the shared devices (their programs are unloaded and the module's core is
    free for other processes); the next kernel call opens them again."""
    for d in list(_devices.values()):
        d.close()
    _devices.clear()
