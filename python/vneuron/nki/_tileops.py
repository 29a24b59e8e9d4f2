"""Operators and methods of tiles and views: `a + b`, `t[...] = x`, `acc += nl.matmul(...)`,
t.reshape(), t.broadcast_to(), t.astype()."""

import errno

from vneuron.nki import _dma, _errors, _ops
from vneuron.nki import _trace as T
from vneuron.nki._errors import ShapeError, UnsupportedError, error

_errors.INTERNAL.add(__name__)

Tile, View, HbmTensor = T.Tile, T.View, T.HbmTensor


def _target(x):
    """The view an assignment into x writes."""
    if isinstance(x, Tile):
        if x.pending is not None:
            x.tr.flush()
        if x.alias is not None:
            return x.alias
        return x.view()
    if not isinstance(x.base, Tile):
        raise error(UnsupportedError, "assignment into an HBM tensor: use nl.store",
                    errno.ENOTSUP)
    b = x.base
    if b.tid is None and b.pending is not None:
        b.tr.flush()
    return x.view()


def assign(tgt, value):
    """tgt (a view of a tile) = value: the pending instruction written straight into
    tgt when it made value, else a copy (VectorE) or, for a number, a memset."""
    tr = T.current()
    if getattr(value, "done", False):
        value.done = False          # the `+=` before this store wrote in place
        w = _target(value)
        if w.base is tgt.base and w.maps == tgt.maps and w.shape == tgt.shape:
            return
    site = tr.site()
    p = tr.pending
    if p is not None and value is p.result and tr.retarget(tgt, False, site):
        return
    if tr.pending is not None:
        tr.flush()
    b = tgt.base
    whole = tgt.covers_base()
    if b.fill is not None:
        if whole:
            b.fill = None
        else:
            T.materialize(b, site)
    dst = T.operand(tgt, None, site)
    if _ops._scalar(value):
        tr.call(site, tr.b.instr, _ops.GPSIMD, _ops.OP_MEMSET, dst, None, None, 0, 0,
                float(value), 0.0, 0.0, site.file, site.line)
    else:
        v = _ops.tile_src(tr, value, "the value")
        if v.ndim < tgt.ndim:
            v = _ops._pad(v, tgt.ndim)
        if v.shape != tgt.shape:
            if v.ndim != tgt.ndim or any(a != c and a != 1 for a, c in
                                         zip(v.shape, tgt.shape)):
                raise tr.fail(ShapeError, site, f"shape mismatch: assigning a "
                              f"{list(v.shape)} tile to a {list(tgt.shape)} view")
            v = _ops.broadcast_to(v, tgt.shape)
        tr.call(site, tr.b.instr, _ops.VECTOR, _ops.OP_COPY, dst, T.operand(v, None, site),
                None, 0, 0, 0.0, 0.0, 0.0, site.file, site.line)
    T.wrote(b, dst, site)


def inplace(x, op, value):
    """x <op>= value: TensorE results accumulate into PSUM (`acc += nl.matmul(...)`);
    anything else is one elementwise instruction writing x."""
    tr = T.current()
    tgt = _target(x)
    p = tr.pending
    if op == _ops.ADD and p is not None and value is p.result and p.kind == "tensor":
        if tr.retarget(tgt, True, tr.site()):
            x.done = True
            return x
    r = _ops.binary(op, tgt, value, dtype=tgt.dtype, name=_NAMES[op])
    if r.shape != tgt.shape:
        raise error(ShapeError, f"shape mismatch: {list(tgt.shape)} {_SYM[op]}= "
                    f"{list(getattr(value, 'shape', ()))} would change the shape")
    site = tr.pending.site
    if not tr.retarget(tgt, False, site):
        tr.flush()
        assign(tgt, r)
    x.done = True
    return x


_NAMES = {_ops.ADD: "add", _ops.SUB: "subtract", _ops.MUL: "multiply",
          _ops.DIV: "divide"}
_SYM = {_ops.ADD: "+", _ops.SUB: "-", _ops.MUL: "*", _ops.DIV: "/"}


def _binop(op):
    def f(self, other):
        return _ops.binary(op, self, other, name=_NAMES[op])

    def r(self, other):
        return _ops.binary(op, other, self, name=_NAMES[op])

    def i(self, other):
        return inplace(self, op, other)
    return f, r, i


def _neg(self):
    return _ops.tensor_scalar(self, [(_ops.MUL, -1.0, False)], name="negative")


def _tile_getitem(self, key):
    return T.index(self.view(), key)


def _setitem(self, key, value):
    tgt = _target(self)
    if not (key is Ellipsis or (isinstance(key, tuple) and key == (Ellipsis,))):
        tgt = T.index(tgt, key)
    assign(tgt, value)


def reshape(self, shape):
    """The tile's elements in another shape: same partitions, free elements row-major
    (a view of a contiguous tile, no instruction)."""
    if isinstance(self, View) and not isinstance(self.base, Tile):
        raise error(UnsupportedError, "reshape a view of an HBM tensor: reshape the "
                    "tensor itself", errno.ENOTSUP)
    v = self.view()
    b = v.base
    if b.tid is None and b.pending is not None:
        b.tr.flush()
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    op = T.operand(v, None, b.tr.site())
    _, p0, np_, f0, c0, s0, c1, s1 = op
    n = 1
    for d in shape[1:]:
        n *= d
    if not shape or shape[0] != np_ or n != c0 * c1:
        raise error(ShapeError, f"reshape of a {list(v.shape)} tile to {list(shape)}: "
                    "the partitions and the number of free elements must stay")
    if c1 != 1 and s1 != c0 * s0 or (c0 > 1 and s0 != 1):
        raise error(UnsupportedError, "reshape of a strided view: nl.copy it first",
                    errno.ENOTSUP)
    st = T._free_strides(shape)
    kp = (1,) + (0,) * (len(shape) - 1)
    return View(b, shape, ((p0, kp), (f0, st)), ())


def broadcast_to(self, shape):
    """The view repeated along its size-1 dimensions to shape: a view (stride 0), but
    for a tile of one partition spread over several, which is one DMA into a new tile
    (on-chip operands do not broadcast across partitions)."""
    v = self.view() if not isinstance(self, View) else self
    shape = tuple(shape)
    if v.ndim < len(shape):
        v = _ops._pad(v, len(shape))
    if isinstance(v.base, Tile) and v.shape[0] == 1 and shape[0] > 1:
        t = _dma.partition_broadcast(v, shape[0])
        return _ops.broadcast_to(t.view(), shape)
    return _ops.broadcast_to(v, shape)


def astype(self, dtype):
    """A copy converted to dtype (VectorE)."""
    return _ops.copy(self, dtype=dtype)


def _hbm_op(self, *a):
    raise error(UnsupportedError, "arithmetic on an HBM tensor: nl.load it into a tile "
                "first", errno.ENOTSUP)


def install():
    """Give tiles, views and HBM tensors their operators and methods."""
    for cls in (Tile, View):
        for op, n in ((_ops.ADD, "add"), (_ops.SUB, "sub"), (_ops.MUL, "mul"),
                      (_ops.DIV, "truediv")):
            f, r, i = _binop(op)
            setattr(cls, f"__{n}__", f)
            setattr(cls, f"__r{n}__", r)
            setattr(cls, f"__i{n}__", i)
        cls.__neg__ = _neg
        cls.__setitem__ = _setitem
        cls.reshape = reshape
        cls.broadcast_to = broadcast_to
        cls.astype = astype
    Tile.__getitem__ = _tile_getitem
    HbmTensor.broadcast_to = broadcast_to
    for n in ("add", "sub", "mul", "truediv", "radd", "rsub", "rmul", "rtruediv", "neg"):
        setattr(HbmTensor, f"__{n}__", _hbm_op)
