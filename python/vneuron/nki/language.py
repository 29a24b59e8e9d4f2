"""vneuron.nki.language: NKI's nki.language (imported as nl) over vneuron's builder.

Names, signatures and semantics follow AWS's public NKI documentation; what differs,
and the calls left out, are listed in docs/python.md ("NKI kernels"). Each call emits
device instructions into the kernel being traced (see vneuron.nki.jit).
"""

import errno

from vneuron import _vneuron as _c
from vneuron.nki import _dma, _errors, _ops
from vneuron.nki import _trace as T
from vneuron.nki._dtypes import _UNSUPPORTED, bfloat16, float32
from vneuron.nki._errors import ShapeError, UnsupportedError, error
from vneuron.nki._index import arange, mgrid

_errors.INTERNAL.add(__name__)

# NKI's other dtypes: defined so kernels can name them; refused when used
float16, tfloat32 = _UNSUPPORTED["float16"], _UNSUPPORTED["tfloat32"]
float8_e4m3, float8_e5m2 = _UNSUPPORTED["float8_e4m3"], _UNSUPPORTED["float8_e5m2"]
int8, uint8, int16 = _UNSUPPORTED["int8"], _UNSUPPORTED["uint8"], _UNSUPPORTED["int16"]
uint16, int32, uint32 = _UNSUPPORTED["uint16"], _UNSUPPORTED["int32"], _UNSUPPORTED["uint32"]
bool_ = _UNSUPPORTED["bool_"]


class _Buffer:
    """A memory: nl.sbuf, nl.psum (on-chip), nl.hbm, nl.shared_hbm (device memory)."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"nl.{self.name}"


sbuf = _Buffer("sbuf")
psum = _Buffer("psum")
hbm = _Buffer("hbm")
shared_hbm = _Buffer("shared_hbm")
private_hbm = _Buffer("private_hbm")


class tile_size:
    """Tile limits of the device model (the builder's, from uapi/vneuron_program.h)."""

    pmax = _c.VNEF_PARTITIONS                          # partitions of a tile
    psum_fmax = _c.VNEF_PSUM_BANK_BYTES // 4           # fp32 elements of a PSUM bank
    gemm_stationary_fmax = _c.VNEF_MM_MAX_M            # free size of the stationary
    gemm_moving_fmax = _c.VNEF_MM_MAX_N                # free size of the moving operand
    psum_num_banks = _c.VNEF_PSUM_PART_BYTES // _c.VNEF_PSUM_BANK_BYTES
    sbuf_fmax_bytes = _c.VNEF_SBUF_PART_BYTES


class par_dim(int):
    """Marks the partition dimension in a shape: nl.ndarray((2, nl.par_dim(128), 512))
    has 2 blocks of [128, 512] tiles."""


def ds(start, size):
    """nl.ds(start, size): the slice start:start + size."""
    return slice(start, start + size)


# -- tensors and tiles

def _site():
    tr = T.current()
    return tr, tr.site()


def _dt(tr, site, dt):
    d = _ops.dtype_arg(tr, site, dt, None)
    if d is None:
        raise tr.fail(UnsupportedError, site, "a dtype is needed", errno.ENOTSUP)
    return d


def _new(shape, dt, buffer, name, fill=None):
    tr, site = _site()
    if isinstance(shape, int):
        shape = (shape,)
    shape = tuple(shape)
    d = _dt(tr, site, dt)
    if buffer is None:
        buffer = sbuf
    if buffer in (hbm, shared_hbm, private_hbm):
        if fill is not None:
            raise tr.fail(UnsupportedError, site, "zeros / full in HBM: fill a tile and "
                          "nl.store it", errno.ENOTSUP)
        return _hbm_tensor(tr, site, shape, d, buffer, name)
    if buffer not in (sbuf, psum):
        raise tr.fail(UnsupportedError, site, f"buffer={buffer!r}: nl.sbuf, nl.psum, "
                      "nl.hbm or nl.shared_hbm", errno.ENOTSUP)
    mem = T.SBUF if buffer is sbuf else T.PSUM
    pd = [i for i, s in enumerate(shape) if isinstance(s, par_dim)]
    if len(pd) > 1:
        raise tr.fail(ShapeError, site, "more than one nl.par_dim in a shape")
    nb = pd[0] if pd else 0
    tshape = tuple(int(s) for s in shape[nb:])
    tname = name or ("buf" if buffer is sbuf else "psum")
    if tr.pending is not None:
        tr.flush()
    tiles = []
    nblocks = 1
    for s in shape[:nb]:
        nblocks *= int(s)
    for _ in range(nblocks):
        t = T.Tile(tr, tshape, d, mem, tname, site)
        tr.alloc(t, site)
        t.fill = fill
        tiles.append(t)
    if nb:
        return T.TileArray(tuple(int(s) for s in shape[:nb]), tiles)
    return tiles[0]


def _hbm_tensor(tr, site, shape, d, buffer, name):
    kind = "output" if buffer is shared_hbm else "scratch"
    sp = tr.spmd
    if sp is not None and kind == "output":
        grid, coords, idx, n = sp
        tr.spmd = (grid, coords, idx, n + 1)
        if idx > 0:
            if n >= len(tr.shared):
                raise tr.fail(ShapeError, site, f"SPMD program {list(coords)} makes more "
                              "nl.shared_hbm tensors than program 0")
            t = tr.shared[n]
            if t.shape != shape or t.dtype is not d:
                raise tr.fail(ShapeError, site, f"SPMD program {list(coords)}: this "
                              f"nl.shared_hbm tensor is {list(shape)} {d}; program 0's "
                              f"is {list(t.shape)} {t.dtype}")
            return t
    if not name:
        base = "out" if kind == "output" else "scratch"
        n = tr.nouts if kind == "output" else len(tr.tensor_names)
        name = base if n == 0 else f"{base}{n}"
        while name in tr.tensor_names:
            n += 1
            name = f"{base}{n}"
    if kind == "output":
        tr.nouts += 1
        tr.outputs.append((name, d, shape))
    fn = tr.b.output if kind == "output" else tr.b.scratch
    tix = tr.call(site, fn, name, d.code, shape)
    tr.tensor_names.add(name)
    t = T.HbmTensor(tr, name, shape, d, tix, kind)
    if sp is not None and kind == "output":
        tr.shared.append(t)
    return t


def ndarray(shape, dtype, buffer=None, name="", **kwargs):
    """A tensor of shape and dtype: in HBM for buffer=nl.shared_hbm (an output of the
    kernel) or nl.hbm (scratch), else an on-chip tile (nl.sbuf, the default, nl.psum).
    Leading dimensions before an nl.par_dim are blocks (one tile each)."""
    _no_kwargs("ndarray", kwargs)
    return _new(shape, dtype, buffer, name)


def zeros(shape, dtype, buffer=None, name="", **kwargs):
    """A tile of zeros (the memset is emitted when first needed, and not at all when a
    matmul's `+=` writes the whole tile first)."""
    _no_kwargs("zeros", kwargs)
    return _new(shape, dtype, buffer, name, fill=0.0)


def ones(shape, dtype, buffer=None, name="", **kwargs):
    """A tile of ones."""
    _no_kwargs("ones", kwargs)
    return _new(shape, dtype, buffer, name, fill=1.0)


def full(shape, fill_value, dtype, buffer=None, name="", **kwargs):
    """A tile filled with fill_value."""
    _no_kwargs("full", kwargs)
    if not _ops._scalar(fill_value):
        raise error(UnsupportedError, "fill_value: a number", errno.ENOTSUP)
    return _new(shape, dtype, buffer, name, fill=float(fill_value))


def empty_like(a, dtype=None, buffer=None, name="", **kwargs):
    """A tensor with a's shape (and dtype unless given), not initialised."""
    _no_kwargs("empty_like", kwargs)
    return _new(a.shape, dtype or a.dtype, buffer, name)


def zeros_like(a, dtype=None, buffer=None, name="", **kwargs):
    """Zeros with a's shape (and dtype unless given)."""
    _no_kwargs("zeros_like", kwargs)
    return _new(a.shape, dtype or a.dtype, buffer, name, fill=0.0)


def _no_kwargs(fn, kwargs):
    if kwargs:
        raise error(UnsupportedError, f"nl.{fn}: argument(s) {', '.join(sorted(kwargs))} "
                    "not supported by vneuron.nki", errno.ENOTSUP)


# -- loops

def affine_range(start, stop=None, step=1, **kwargs):
    """A loop whose iterations are independent (unrolled while tracing). Tiles created
    in an iteration live until it ends."""
    _no_kwargs("affine_range", kwargs)
    return T.loop("affine_range", (start,) if stop is None else (start, stop, step))


def sequential_range(start, stop=None, step=1, **kwargs):
    """A loop with a dependency between iterations (unrolled while tracing, in order)."""
    _no_kwargs("sequential_range", kwargs)
    return T.loop("sequential_range", (start,) if stop is None else (start, stop, step))


def static_range(start, stop=None, step=1, **kwargs):
    """A loop unrolled at trace time (all three loops are, here)."""
    _no_kwargs("static_range", kwargs)
    return T.loop("static_range", (start,) if stop is None else (start, stop, step))


# -- memory

def load(src, *, mask=None, dtype=None, **kwargs):
    """A new SBUF tile loaded from the HBM view src; mask= loads only the part it
    selects (the rest of the tile is left as it was)."""
    _no_kwargs("load", kwargs)
    return _dma.load(src, mask, dtype)


def store(dst, value, *, mask=None, **kwargs):
    """Store tile value into the HBM view dst (the part mask= selects)."""
    _no_kwargs("store", kwargs)
    return _dma.store(dst, value, mask)


# -- elementwise math

def _act(code, name):
    def f(x, *, dtype=None, mask=None, **kwargs):
        _no_kwargs(name, kwargs)
        return _ops.activation(code, x, dtype=dtype, mask=mask, name=name)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"nl.{name}(x): elementwise {name} on ScalarE (one ACTIVATE)."
    f._vn_act = code
    return f


exp = _act(_c.ND_ACT_EXP, "exp")
log = _act(_c.ND_ACT_LOG, "log")
tanh = _act(_c.ND_ACT_TANH, "tanh")
sigmoid = _act(_c.ND_ACT_SIGMOID, "sigmoid")
gelu = _act(_c.ND_ACT_GELU, "gelu")
relu = _act(_c.ND_ACT_RELU, "relu")
sqrt = _act(_c.ND_ACT_SQRT, "sqrt")
rsqrt = _act(_c.ND_ACT_RSQRT, "rsqrt")
reciprocal = _act(_c.ND_ACT_RECIPROCAL, "reciprocal")
square = _act(_c.ND_ACT_SQUARE, "square")
identity = _act(_c.ND_ACT_IDENTITY, "identity")


def negative(x, *, dtype=None, mask=None, **kwargs):
    """-x, elementwise (VectorE: x * -1)."""
    _no_kwargs("negative", kwargs)
    return _ops.tensor_scalar(x, [(_ops.MUL, -1.0, False)], dtype=dtype, mask=mask,
                              name="negative")


negative._vn_alu = None


def _bin(op, name):
    def f(x, y, *, dtype=None, mask=None, **kwargs):
        _no_kwargs(name, kwargs)
        return _ops.binary(op, x, y, dtype=dtype, mask=mask, name=name)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = (f"nl.{name}(x, y): elementwise on VectorE; a [P, 1] column or a number "
                 "broadcasts along the free axis.")
    f._vn_alu = op
    return f


add = _bin(_ops.ADD, "add")
subtract = _bin(_ops.SUB, "subtract")
multiply = _bin(_ops.MUL, "multiply")
divide = _bin(_ops.DIV, "divide")
maximum = _bin(_ops.MAX, "maximum")
minimum = _bin(_ops.MIN, "minimum")


def _red(op, name, scale=None):
    def f(x, axis, *, dtype=None, mask=None, keepdims=False, **kwargs):
        _no_kwargs(name, kwargs)
        return _ops.reduce(op, x, axis, dtype=dtype, mask=mask, keepdims=keepdims,
                           scale=scale, name=name)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = (f"nl.{name}(x, axis, keepdims=False): over all the free axes (VectorE) "
                 "or over the partitions (axis=0, GpSimdE).")
    f._vn_alu = op
    return f


sum = _red(_ops.ADD, "sum")          # noqa: A001 (NKI's name)
max = _red(_ops.MAX, "max")          # noqa: A001
min = _red(_ops.MIN, "min")          # noqa: A001
mean = _red(_ops.ADD, "mean", scale="mean")


def matmul(x, y, *, transpose_x=False, mask=None, **kwargs):
    """x @ y into a new fp32 PSUM tile (TensorE). x is [M, K] ([K, M] with
    transpose_x=True), y [K, N]; K <= 128, M <= 128, N <= 512."""
    _no_kwargs("matmul", kwargs)
    return _ops.matmul(x, y, transpose_x, mask)


def transpose(x, *, dtype=None, mask=None, **kwargs):
    """x with its partition and free dimensions swapped (TensorE, fp32 PSUM)."""
    _no_kwargs("transpose", kwargs)
    return _ops.transpose(x, dtype, mask)


def copy(src, *, mask=None, dtype=None, **kwargs):
    """A copy of src in a new SBUF tile (VectorE), converted to dtype."""
    _no_kwargs("copy", kwargs)
    return _ops.copy(src, dtype=dtype, mask=mask)


def program_id(axis):
    """This program's coordinate along axis of an SPMD launch (kernel[gx, gy](...));
    0 outside one."""
    sp = T.current().spmd
    return sp[1][axis] if sp is not None and axis < len(sp[1]) else 0


class _NC(int):
    """nl.nc(n): a launch grid axis of n programs spread over the physical cores of a
    logical core (kernel[nl.nc(2)], kernel[nl.nc(2), 4]); an int of value n."""

    def __repr__(self):
        return f"nl.nc({int(self)})"


def nc(n):
    """A launch grid dimension on the logical core's physical cores: kernel[nl.nc(2)]
    runs program 0 on one and program 1 on the other (a Device with lnc=2); elsewhere
    as kernel[2]."""
    if isinstance(n, bool) or not hasattr(n, "__index__") or n.__index__() < 1:
        raise error(UnsupportedError, f"nl.nc({n!r}): a positive int", errno.ENOTSUP)
    return _NC(n.__index__())


def num_programs(axes=None):
    """The launch grid's size along axes (an int or a tuple of ints); 1 outside one."""
    sp = T.current().spmd
    grid = sp[0] if sp is not None else ()

    def one(a):
        return grid[a] if a < len(grid) else 1
    if axes is None:
        n = 1
        for g in grid:
            n *= g
        return n
    if isinstance(axes, int):
        return one(axes)
    return tuple(one(a) for a in axes)


def program_ndim():
    """The number of dimensions of the launch grid (0 outside one)."""
    sp = T.current().spmd
    return len(sp[0]) if sp is not None else 0


def broadcast_to(src, shape):
    """src repeated along its size-1 dimensions to shape (a view; partitions broadcast
    only from HBM, in a load)."""
    return src.broadcast_to(shape)


# Functions of NKI that vneuron.nki does not provide: a kernel that calls one gets an
# UnsupportedError naming its line (docs/python.md lists them and why).
_NOT_SUPPORTED = {
    "abs", "arctan", "sin", "cos", "tan", "erf", "erf_dx", "gelu_dx", "gelu_apprx_tanh",
    "silu", "silu_dx", "softplus", "mish", "sign", "floor", "ceil", "trunc", "power",
    "fmod", "mod", "equal", "not_equal", "greater", "greater_equal", "less",
    "less_equal", "logical_and", "logical_or", "logical_xor", "logical_not",
    "bitwise_and", "bitwise_or", "bitwise_xor", "invert", "left_shift", "right_shift",
    "where", "prod", "var", "all", "softmax", "rms_norm", "dropout", "random_seed", "rand",
    "shared_constant", "shared_identity_matrix", "load_transpose2d", "atomic_rmw",
    "gather_flattened", "expand_dims", "spmd_dim", "device_print", "all_reduce", "full_like", "ones_like", "loop_reduce",
    "max8", "add_dep_helper", "hbm_transpose", "sbuf_to_psum",
}


def __getattr__(name):
    if name in _NOT_SUPPORTED:
        raise error(UnsupportedError, f"nl.{name} is not supported by vneuron.nki (see "
                    "docs/python.md, \"NKI kernels\")", errno.ENOTSUP)
    raise AttributeError(f"module 'vneuron.nki.language' has no attribute '{name}'")


__all__ = [
    "float32", "bfloat16", "sbuf", "psum", "hbm", "shared_hbm", "private_hbm", "tile_size",
    "par_dim", "ds", "arange", "mgrid", "ndarray", "zeros", "ones", "full", "empty_like",
    "zeros_like", "affine_range", "sequential_range", "static_range", "load", "store",
    "exp", "log", "tanh", "sigmoid", "gelu", "relu", "sqrt", "rsqrt", "reciprocal",
    "square", "identity", "negative", "add", "subtract", "multiply", "divide", "maximum",
    "minimum", "sum", "max", "min", "mean", "matmul", "transpose", "copy", "broadcast_to",
    "program_id", "num_programs", "program_ndim", "nc",
    "bool_", "float16", "float8_e4m3", "float8_e5m2", "int16", "int32", "int8", "tfloat32",
    "uint16", "uint32", "uint8",
]
