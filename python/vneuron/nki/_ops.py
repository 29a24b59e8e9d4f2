"""The instructions behind nki.language and nki.isa: each function checks its operands
(with messages naming the user's line), picks the engine and emits builder calls.

Engines, as NKI places them: activations on ScalarE; tensor-tensor, tensor-scalar,
copies and reductions over the free axis on VectorE; iota, memset and reductions over
partitions on GpSimdE; matmul and transpose on TensorE; loads and stores on DMA queues
(spread over several queues when 64 KiB or more).
"""

import errno
import numbers

from vneuron import _vneuron as _c
from vneuron.nki import _errors, _dtypes
from vneuron.nki import _trace as T
from vneuron.nki._errors import ShapeError, UnsupportedError, error
from vneuron.nki._index import IndexExpr, Predicate

_errors.INTERNAL.add(__name__)

VECTOR, SCALAR, GPSIMD = _c.ND_VECTOR, _c.ND_SCALAR, _c.ND_GPSIMD
OP_TT, OP_TS = _c.VNEF_OP_TENSOR_TENSOR, _c.VNEF_OP_TENSOR_SCALAR
OP_COPY, OP_ACT, OP_MEMSET = _c.VNEF_OP_COPY, _c.VNEF_OP_ACTIVATE, _c.VNEF_OP_MEMSET
F_COL, F_REV, F_BIAS = _c.VNEF_IF_SCALAR_COLUMN, _c.VNEF_IF_REVERSE, _c.VNEF_IF_BIAS_COLUMN
ADD, SUB, MUL, MAX, MIN, DIV = (_c.ND_ADD, _c.ND_SUB, _c.ND_MUL, _c.ND_MAX, _c.ND_MIN,
                                _c.ND_DIV)
SPREAD, AUTO = _c.ND_QUEUE_SPREAD, _c.ND_QUEUE_AUTO
Tile, View, HbmTensor = T.Tile, T.View, T.HbmTensor


def _scalar(x):
    return isinstance(x, numbers.Real) and not isinstance(x, bool)


def dtype_arg(tr, site, dt, default):
    """The dtype argument of a call: None (default) or float32 / bfloat16."""
    if dt is None:
        return default
    d = _dtypes.of(dt)
    if d is None or not d.code:
        raise tr.fail(UnsupportedError, site, f"dtype {dt!r}: the device computes in "
                      "float32 and bfloat16 only (nl.float32, nl.bfloat16)", errno.ENOTSUP)
    return d


def tile_src(tr, x, what):
    """The view that reading x reads: a tile, or a view of one."""
    if isinstance(x, Tile):
        v = x.view()
    elif isinstance(x, View):
        if not isinstance(x.base, Tile):
            raise error(UnsupportedError, f"{what} is a view of HBM tensor "
                        f"'{x.base.name}': compute reads on-chip tiles; nl.load it first",
                        errno.ENOTSUP)
        v = x.view()
    elif isinstance(x, HbmTensor):
        raise error(UnsupportedError, f"{what} is HBM tensor '{x.name}': compute reads "
                    "on-chip tiles; nl.load it first", errno.ENOTSUP)
    else:
        raise error(UnsupportedError, f"{what} is a {type(x).__name__}, not a tile",
                    errno.ENOTSUP)
    b = v.base
    if b.tr is not tr:
        raise error(UnsupportedError, f"{what} belongs to another kernel's trace",
                    errno.ENOTSUP)
    if b.tid is None and b.pending is not None:
        tr.flush()
    if b.fill is not None:
        T.materialize(b, tr.site())
    return v


def region_of(tr, site, mask, shape):
    """A mask as per-axis intervals of the grid shape: None (everything), or a tuple;
    False when the mask selects nothing."""
    if mask is None or mask is True:
        return None
    if mask is False:
        return False
    if not isinstance(mask, Predicate):
        raise tr.fail(UnsupportedError, site, f"mask= takes a comparison of index "
                      f"expressions (i_p < n), not a {type(mask).__name__}", errno.ENOTSUP)
    if not mask.value:
        return False
    reg = []
    for g, n in enumerate(shape):
        lo, hi = mask.bounds.get(g, (0, n))
        lo, hi = max(lo, 0), min(hi, n)
        if lo >= hi:
            return False
        reg.append((lo, hi))
    for g in mask.bounds:
        if g >= len(shape):
            raise tr.fail(ShapeError, site, f"the mask names index axis {g}; the access "
                          f"has {len(shape)} axes")
    return tuple(reg)


def broadcast_to(v, shape):
    """View v repeated along its size-1 dimensions to shape (sources only)."""
    if v.shape == tuple(shape):
        return v
    old = v.shape
    if len(shape) != len(old):
        raise error(ShapeError, f"cannot broadcast {list(old)} to {list(shape)}")
    subs = []
    for d, (a, b) in enumerate(zip(old, shape)):
        if a == b:
            subs.append((0, [1 if g == d else 0 for g in range(len(shape))]))
        elif a == 1:
            subs.append((0, [0] * len(shape)))
        else:
            raise error(ShapeError, f"cannot broadcast {list(old)} to {list(shape)}")
    maps = tuple(T._compose(m, subs, len(shape)) for m in v.maps)
    checks = tuple(T._compose((c, k), subs, len(shape)) + (s, d)
                   for c, k, s, d in v.checks)
    if isinstance(v.base, Tile) and old[0] != shape[0]:
        raise error(ShapeError, f"cannot broadcast {list(old)} to {list(shape)} on-chip: "
                    "the partition dimension does not broadcast (load the data to every "
                    "partition: nl.load(x.broadcast_to(...)))")
    return View(v.base, tuple(shape), maps, checks)


def _pad(v, nd):
    """A view with trailing size-1 dims added up to nd dims (tile broadcasting aligns
    the partition dims, then the free dims from the right)."""
    if v.ndim >= nd:
        return v
    add = nd - v.ndim
    r = v.ndim
    subs = [(0, [1 if g == d else 0 for g in range(nd)]) for d in range(r)]
    maps = tuple(T._compose(m, subs, nd) for m in v.maps)
    checks = tuple(T._compose((c, k), subs, nd) + (s, d) for c, k, s, d in v.checks)
    return View(v.base, v.shape + (1,) * add, maps, checks)


def _bshape(tr, site, a, b):
    """The broadcast shape of two tile shapes (partition dims equal)."""
    if a[0] != b[0]:
        raise tr.fail(ShapeError, site, f"shape mismatch: {list(a)} and {list(b)} have "
                      f"{a[0]} and {b[0]} partitions; on-chip operands broadcast along "
                      "free dimensions only (t.broadcast_to((P, F)) copies a one-partition "
                      "tile to P partitions)")
    out = [a[0]]
    for x, y in zip(a[1:], b[1:]):
        if x != y and x != 1 and y != 1:
            raise tr.fail(ShapeError, site, f"shape mismatch: {list(a)} and {list(b)} do "
                          "not broadcast")
        out.append(max(x, y))
    return tuple(out)


def _is_column(v):
    return all(d == 1 for d in v.shape[1:])


def result(tr, shape, dtype, buffer, name, site):
    return Tile(tr, shape, dtype, buffer, name, site)


def _begin(x, what, dtype, mask, name):
    """What a call on one tile starts with: (trace, site, the tile's view, the mask's
    region, the result tile of x's shape)."""
    tr = T.current()
    site = tr.site()
    v = tile_src(tr, x, what)
    reg = region_of(tr, site, mask, v.shape)
    out = result(tr, v.shape, dtype_arg(tr, site, dtype, v.dtype), T.SBUF, name, site)
    return tr, site, v, reg, out


def _instr(tr, site, eng, opcode, srcs, s1, op, flags, imm0=0.0, imm1=0.0):
    """An elementwise instruction as a pending emitter: dst given at emission."""
    b = tr.b
    s0 = srcs

    def emit(dst, acc):
        tr.call(site, b.instr, eng, opcode, dst, s0, s1, op, flags, imm0, imm1, 0.0,
                site.file, site.line)
    return emit


def binary(op, x, y, dtype=None, mask=None, name="tensor_tensor", engine=VECTOR):
    """x <op> y, elementwise, with broadcasting of [P, 1] columns and scalars."""
    tr = T.current()
    site = tr.site()
    xs, ys = _scalar(x), _scalar(y)
    if xs and ys:
        return _PY[op](float(x), float(y))
    if xs or ys:
        t, k, rev = (y, x, True) if xs else (x, y, False)
        tr, site, v, reg, out = _begin(t, "the operand", dtype, mask, name)
        if reg is False:
            return _skipped(tr, out, site)
        s0 = T.operand(v, reg, site)
        emit = _instr(tr, site, engine, OP_TS, s0, None, op, F_REV if rev else 0, float(k))
        return tr.defer(out, emit, "engine", site, reg, (t,))
    vx = tile_src(tr, x, "the first operand")
    vy = tile_src(tr, y, "the second operand")
    nd = max(vx.ndim, vy.ndim)
    vx, vy = _pad(vx, nd), _pad(vy, nd)
    shape = _bshape(tr, site, vx.shape, vy.shape)
    dt = dtype_arg(tr, site, dtype, _dtypes.promote(vx.dtype, vy.dtype))
    reg = region_of(tr, site, mask, shape)
    out = result(tr, shape, dt, T.SBUF, name, site)
    if reg is False:
        return _skipped(tr, out, site)
    colx = _is_column(vx) and not _is_column(vy)
    coly = _is_column(vy) and not _is_column(vx)
    if colx or coly:
        full, col = (vy, vx) if colx else (vx, vy)
        s0 = T.operand(broadcast_to(full, shape), reg, site)
        creg = None if reg is None else (reg[0],) + ((0, 1),) * (nd - 1)
        s1 = T.operand(col, creg, site)
        emit = _instr(tr, site, engine, OP_TS, s0, s1, op, F_COL | (F_REV if colx else 0))
    else:
        s0 = T.operand(broadcast_to(vx, shape), reg, site)
        s1 = T.operand(broadcast_to(vy, shape), reg, site)
        emit = _instr(tr, site, engine, OP_TT, s0, s1, op, 0)
    return tr.defer(out, emit, "engine", site, reg, (x, y))


_PY = {ADD: lambda a, b: a + b, SUB: lambda a, b: a - b, MUL: lambda a, b: a * b,
       MAX: max, MIN: min, DIV: lambda a, b: a / b}


def _skipped(tr, out, site):
    """A call whose mask selects nothing: its tile, allocated, and no instruction."""
    if tr.pending is not None:
        tr.flush()
    tr.alloc(out, site)
    return out


def activation(func, x, scale=1.0, bias=None, dtype=None, mask=None, name=None):
    """func(x * scale + bias) on ScalarE; bias a number or a [P, 1] column."""
    if not _scalar(scale):
        raise error(UnsupportedError, "scale: a number (a per-partition scale tile is "
                    "not supported: multiply first)", errno.ENOTSUP)
    tr, site, v, reg, out = _begin(x, "the operand", dtype, mask, name or "act")
    if reg is False:
        return _skipped(tr, out, site)
    s0 = T.operand(v, reg, site)
    if bias is None or _scalar(bias):
        emit = _instr(tr, site, SCALAR, OP_ACT, s0, None, func, 0, float(scale),
                      float(bias or 0.0))
        srcs = (x,)
    else:
        bv = tile_src(tr, bias, "bias")
        if not _is_column(bv) or bv.shape[0] != v.shape[0]:
            raise tr.fail(ShapeError, site, f"shape mismatch: bias is {list(bv.shape)}; "
                          f"it must be a number or a [{v.shape[0]}, 1] column")
        creg = None if reg is None else (reg[0],) + ((0, 1),) * (bv.ndim - 1)
        s1 = T.operand(bv, creg, site)
        emit = _instr(tr, site, SCALAR, OP_ACT, s0, s1, func, F_BIAS, float(scale))
        srcs = (x, bias)
    return tr.defer(out, emit, "engine", site, reg, srcs)


def tensor_scalar(x, ops, dtype=None, mask=None, engine=VECTOR, name="tensor_scalar"):
    """((x <op0> a) <op1> b ...): ops is a list of (op, operand, reverse), each one
    TENSOR_SCALAR instruction on the engine; operands numbers or [P, 1] columns."""
    tr, site, v, reg, out = _begin(x, "data", dtype, mask, name)
    if reg is False:
        return _skipped(tr, out, site)
    s0 = T.operand(v, reg, site)
    steps = []
    srcs = [x]
    for op, k, rev in ops:
        if _scalar(k):
            steps.append((op, None, F_REV if rev else 0, float(k)))
        else:
            kv = tile_src(tr, k, "operand")
            if not _is_column(kv) or kv.shape[0] != v.shape[0]:
                raise tr.fail(ShapeError, site, f"shape mismatch: the operand is "
                              f"{list(kv.shape)}; it must be a number or a "
                              f"[{v.shape[0]}, 1] column")
            creg = None if reg is None else (reg[0],) + ((0, 1),) * (kv.ndim - 1)
            steps.append((op, T.operand(kv, creg, site), F_COL | (F_REV if rev else 0), 0.0))
            srcs.append(k)
    b = tr.b

    def emit(dst, acc):
        src = s0
        for op, col, flags, imm in steps:
            tr.call(site, b.instr, engine, OP_TS, dst, src, col, op, flags, imm, 0.0, 0.0,
                    site.file, site.line)
            src = dst
    return tr.defer(out, emit, "engine", site, reg, tuple(srcs))


def copy(x, dtype=None, mask=None, engine=VECTOR, name="copy"):
    """A copy of x into a new SBUF tile, converted to dtype."""
    tr, site, v, reg, out = _begin(x, "the source", dtype, mask, name)
    if reg is False:
        return _skipped(tr, out, site)
    emit = _instr(tr, site, engine, OP_COPY, T.operand(v, reg, site), None, 0, 0)
    return tr.defer(out, emit, "engine", site, reg, (x,))


def memset(shape, value, dtype, mask=None, engine=GPSIMD, buffer=None, name="memset"):
    """A new tile of shape filled with value (one MEMSET)."""
    tr = T.current()
    site = tr.site()
    shape = _shape(tr, site, shape)
    out = result(tr, shape, dtype_arg(tr, site, dtype, _dtypes.float32),
                 buffer or T.SBUF, name, site)
    reg = region_of(tr, site, mask, shape)
    if reg is False:
        return _skipped(tr, out, site)
    if not _scalar(value):
        raise tr.fail(UnsupportedError, site, "value: a number", errno.ENOTSUP)
    emit = _instr(tr, site, engine, OP_MEMSET, None, None, 0, 0, float(value))
    return tr.defer(out, emit, "engine", site, reg, ())


def iota(expr, dtype, mask=None):
    """A tile of the values of an index expression (one IOTA on GpSimdE)."""
    tr = T.current()
    site = tr.site()
    if isinstance(expr, int):
        expr = IndexExpr(expr, {}, 2)
    if not isinstance(expr, IndexExpr):
        raise tr.fail(UnsupportedError, site, "iota takes an index expression of "
                      "nl.arange", errno.ENOTSUP)
    shape = list(expr.shape)
    if len(shape) == 1:
        shape.append(1)
    kp = kf = 0
    nf = 1
    for g, (n, k) in expr.terms.items():
        g = 0 if expr.rank is None else g
        if g == 0:
            kp = k
        elif n > 1:
            if kf:
                raise tr.fail(UnsupportedError, site, "iota: an expression over more "
                              "than one free axis", errno.ENOTSUP)
            kf = k
            nf = n
    for g, n in enumerate(shape[1:], 1):
        if n > 1 and n != nf:
            raise tr.fail(UnsupportedError, site, "iota: an expression over more than one "
                          "free axis", errno.ENOTSUP)
    out = result(tr, tuple(shape), dtype_arg(tr, site, dtype, _dtypes.float32), T.SBUF,
                 "iota", site)
    reg = region_of(tr, site, mask, out.shape)
    if reg is False:
        return _skipped(tr, out, site)
    base = expr.c
    if reg is not None:
        base += kp * reg[0][0] + (kf * reg[-1][0] if len(reg) > 1 else 0)
    b = tr.b

    def emit(dst, acc):
        tr.call(site, b.iota, dst, base, kp, kf, site.file, site.line)
    return tr.defer(out, emit, "engine", site, reg, ())


def _shape(tr, site, shape):
    if isinstance(shape, int):
        shape = (shape,)
    try:
        shape = tuple(int(d) for d in shape)
    except TypeError:
        raise tr.fail(ShapeError, site, f"shape {shape!r}: a tuple of ints") from None
    return shape


def _axes(tr, site, axis, nd):
    if isinstance(axis, int):
        axis = (axis,)
    try:
        axes = tuple(sorted({int(a) + nd if int(a) < 0 else int(a) for a in axis}))
    except TypeError:
        raise tr.fail(UnsupportedError, site, f"axis={axis!r}: an int or a list of ints",
                      errno.ENOTSUP) from None
    return axes


def reduce(op, x, axis, dtype=None, mask=None, keepdims=False, scale=None, name=None):
    """A reduction of x over its free axes (VectorE, one REDUCE) or over its partitions
    (GpSimdE); scale, if given, multiplies the result (a second instruction)."""
    tr = T.current()
    site = tr.site()
    v = tile_src(tr, x, "the operand")
    nd = v.ndim
    axes = _axes(tr, site, axis, nd)
    free = tuple(range(1, nd))
    if axes == free and nd > 1:
        parts = False
        shape = (v.shape[0],) + (1,) * (nd - 1) if keepdims else (v.shape[0],)
        n = 1
        for d in v.shape[1:]:
            n *= d
    elif axes == (0,) and nd == 2:
        parts = True
        shape = (1, v.shape[1])
        n = v.shape[0]
    else:
        raise tr.fail(UnsupportedError, site, f"a reduction over axes {list(axes)} of a "
                      f"{nd}-D tile: vneuron.nki reduces over all the free axes "
                      f"({list(free)}) or over the partitions (axis 0 of a 2-D tile)",
                      errno.ENOTSUP)
    reg = region_of(tr, site, mask, v.shape)
    out = result(tr, shape, dtype_arg(tr, site, dtype, v.dtype), T.SBUF,
                 name or "reduce", site)
    if reg is False:
        return _skipped(tr, out, site)
    s0 = T.operand(v, reg, site)
    if reg is None:
        dreg = None
    elif parts:
        dreg = ((0, 1),) + tuple(reg[1:])
        n = reg[0][1] - reg[0][0]
    else:
        dreg = (reg[0],) + ((0, 1),) * (len(shape) - 1)
        n = 1
        for a, b in reg[1:]:
            n *= b - a
    k = None if scale is None else (1.0 / n if scale == "mean" else float(scale))
    b = tr.b

    def emit(dst, acc):
        tr.call(site, b.reduce, dst, s0, op, parts, site.file, site.line)
        if k is not None:
            tr.call(site, b.instr, VECTOR, OP_TS, dst, dst, None, MUL, 0, k, 0.0, 0.0,
                    site.file, site.line)
    return tr.defer(out, emit, "engine", site, dreg, (x,))


def _matrix(tr, site, v, what):
    if v.ndim != 2:
        raise tr.fail(ShapeError, site, f"{what} is {list(v.shape)}; TensorE takes 2-D "
                      "tiles [partitions, free]")
    return v.shape


def matmul(x, y, transpose_x=False, mask=None):
    """x @ y on TensorE into a new fp32 PSUM tile. TensorE computes stationary.T @
    moving; with transpose_x=False x is transposed first (TensorE, then a copy back to
    SBUF)."""
    tr = T.current()
    site = tr.site()
    if mask is not None:
        raise tr.fail(UnsupportedError, site, "mask= on a matmul", errno.ENOTSUP)
    vx = tile_src(tr, x, "x")
    vy = tile_src(tr, y, "y")
    xs = _matrix(tr, site, vx, "x")
    k, n = _matrix(tr, site, vy, "y")
    srcs = [x, y]
    if transpose_x:
        kx, m = xs
    else:
        m, kx = xs
    if kx != k:
        raise tr.fail(ShapeError, site, f"shape mismatch: matmul of x {list(xs)} "
                      f"{'(transposed) ' if transpose_x else ''}and y {list(vy.shape)}: "
                      f"the contraction sizes {kx} and {k} differ")
    if not transpose_x:
        pt = result(tr, (kx, m), _dtypes.float32, T.PSUM, "x_t", site)
        tr.alloc(pt, site)
        tr.call(site, tr.b.transpose, T.operand(pt.whole(), None, site),
                T.operand(vx, None, site), False, site.file, site.line)
        st = result(tr, (kx, m), vx.dtype, T.SBUF, "x_t", site)
        tr.alloc(st, site)
        tr.call(site, tr.b.instr, VECTOR, OP_COPY, T.operand(st.whole(), None, site),
                T.operand(pt.whole(), None, site), None, 0, 0, 0.0, 0.0, 0.0, site.file,
                site.line)
        srcs.append(st)
        vst = st.whole()
    else:
        vst = vx
    return _mm(tr, site, vst, vy, (m, n), tuple(srcs))


def _mm(tr, site, vst, vmv, shape, srcs):
    out = result(tr, shape, _dtypes.float32, T.PSUM, "matmul", site)
    s = T.operand(vst, None, site)
    mv = T.operand(vmv, None, site)
    b = tr.b

    def emit(dst, acc):
        tr.call(site, b.matmul, dst, s, mv, acc, site.file, site.line)
    return tr.defer(out, emit, "tensor", site, None, srcs)


def nc_matmul(stationary, moving):
    """stationary.T @ moving on TensorE (LoadStationary + MultiplyMoving)."""
    tr = T.current()
    site = tr.site()
    vs = tile_src(tr, stationary, "stationary")
    vm = tile_src(tr, moving, "moving")
    k, m = _matrix(tr, site, vs, "stationary")
    k2, n = _matrix(tr, site, vm, "moving")
    if k != k2:
        raise tr.fail(ShapeError, site, f"shape mismatch: stationary {list(vs.shape)} and "
                      f"moving {list(vm.shape)} have {k} and {k2} partitions (the "
                      "contraction)")
    return _mm(tr, site, vs, vm, (m, n), (stationary, moving))


def transpose(x, dtype=None, mask=None):
    """x transposed (partitions <-> free) on TensorE into a new fp32 PSUM tile."""
    tr = T.current()
    site = tr.site()
    if mask is not None:
        raise tr.fail(UnsupportedError, site, "mask= on a transpose", errno.ENOTSUP)
    if dtype is not None and dtype_arg(tr, site, dtype, None) is not _dtypes.float32:
        raise tr.fail(UnsupportedError, site, "a TensorE transpose writes float32 PSUM; "
                      "nl.copy(..., dtype=) the result", errno.ENOTSUP)
    v = tile_src(tr, x, "the operand")
    p, f = _matrix(tr, site, v, "the operand")
    out = result(tr, (f, p), _dtypes.float32, T.PSUM, "transpose", site)
    s = T.operand(v, None, site)
    b = tr.b

    def emit(dst, acc):
        tr.call(site, b.transpose, dst, s, acc, site.file, site.line)
    return tr.defer(out, emit, "tensor", site, None, (x,))
