"""Data movement: nl.load, nl.store and nisa.dma_copy as DMA descriptors.

A load or store whose tile side is one contiguous run per partition and whose HBM side
has one free stride goes through nd_load / nd_store (spread over several queues when it
moves 64 KiB or more); anything else is one raw descriptor (nd_dma): the common
refinement of both sides' index patterns, the contiguous innermost part as the chunk,
and at most two more dimensions (the descriptor's count[0] and count[1]).
"""

import errno

from vneuron.nki import _errors
from vneuron.nki import _trace as T
from vneuron.nki import _ops
from vneuron.nki._errors import ShapeError, UnsupportedError, error

_errors.INTERNAL.add(__name__)


def _hbm_src(tr, x, what):
    v = None
    if isinstance(x, T.HbmTensor):
        v = x.whole()
    elif isinstance(x, T.View) and isinstance(x.base, T.HbmTensor):
        v = x
    if v is not None:
        if v.base.tr is not tr:
            raise error(UnsupportedError, f"{what} is tensor '{v.base.name}' of another "
                        "kernel's trace", errno.ENOTSUP)
        return v
    if isinstance(x, (T.Tile, T.View)):
        raise error(UnsupportedError, f"{what} is an on-chip tile; nl.load / nl.store "
                    "move data between HBM tensors and tiles", errno.ENOTSUP)
    raise error(UnsupportedError, f"{what} is a {type(x).__name__}, not an HBM tensor",
                errno.ENOTSUP)


def load(src, mask=None, dtype=None):
    """A new SBUF tile of src's shape, loaded from HBM (the masked part only)."""
    tr = T.current()
    site = tr.site()
    v = _hbm_src(tr, src, "the source")
    if dtype is not None and _ops.dtype_arg(tr, site, dtype, v.dtype) is not v.dtype:
        raise tr.fail(UnsupportedError, site, f"nl.load(..., dtype={dtype!r}) of a "
                      f"{v.dtype} tensor: DMA does not convert; nl.copy(tile, dtype=) "
                      "after the load", errno.ENOTSUP)
    reg = _ops.region_of(tr, site, mask, v.shape)
    out = _ops.result(tr, v.shape, v.dtype, T.SBUF, "load", site)
    if reg is False:
        return _ops._skipped(tr, out, site)
    h = T.hbm_operand(v, reg, site)
    es = v.dtype.itemsize

    def emit(dst, acc):
        _move(tr, site, ("tile", dst), ("hbm",) + h, es, True)
    return tr.defer(out, emit, "dma", site, reg, (src,))


def store(dst, value, mask=None):
    """Write tile value into the HBM view dst (the masked part only)."""
    tr = T.current()
    site = tr.site()
    v = _hbm_src(tr, dst, "the destination")
    if _ops._scalar(value):
        raise tr.fail(UnsupportedError, site, "nl.store of a number: store a tile "
                      "(nl.full)", errno.ENOTSUP)
    t = _ops.tile_src(tr, value, "the value")
    if t.shape != v.shape:
        if len(t.shape) < len(v.shape):
            t = _ops._pad(t, len(v.shape))
        if t.shape != v.shape:
            raise tr.fail(ShapeError, site, f"shape mismatch: storing a {list(t.shape)} "
                          f"tile into a {list(v.shape)} view of '{v.base.name}'")
    if t.dtype is not v.dtype:
        raise tr.fail(ShapeError, site, f"dtype mismatch: storing a {t.dtype} tile into "
                      f"{v.dtype} tensor '{v.base.name}' (DMA does not convert: nl.copy "
                      "the tile to the tensor's dtype first)")
    reg = _ops.region_of(tr, site, mask, v.shape)
    if tr.pending is not None:
        tr.flush()
    if reg is False:
        return None
    h = T.hbm_operand(v, reg, site)
    _move(tr, site, ("hbm",) + h, ("tile", T.operand(t, reg, site)), v.dtype.itemsize,
          True)
    return None


def dma_copy(dst, src, mask=None):
    """One DMA descriptor from src to dst: HBM tensors or tiles, same shape and dtype."""
    tr = T.current()
    site = tr.site()
    sides = []
    for x, what in ((dst, "dst"), (src, "src")):
        if isinstance(x, T.HbmTensor) or (isinstance(x, T.View) and
                                          isinstance(x.base, T.HbmTensor)):
            sides.append(_hbm_src(tr, x, what))
        else:
            sides.append(_ops.tile_src(tr, x, what))
    vd, vs = sides
    if vd.shape != vs.shape:
        raise tr.fail(ShapeError, site, f"shape mismatch: dma_copy from {list(vs.shape)} "
                      f"to {list(vd.shape)}")
    if vd.dtype is not vs.dtype:
        raise tr.fail(ShapeError, site, f"dtype mismatch: dma_copy from {vs.dtype} to "
                      f"{vd.dtype} (DMA does not convert)")
    reg = _ops.region_of(tr, site, mask, vd.shape)
    if tr.pending is not None:
        tr.flush()
    if reg is False:
        return None
    ends = []
    for v in (vd, vs):
        if isinstance(v.base, T.HbmTensor):
            ends.append(("hbm",) + T.hbm_operand(v, reg, site))
        else:
            ends.append(("tile", T.operand(v, reg, site)))
    _move(tr, site, ends[0], ends[1], vd.dtype.itemsize, False)
    if ends[0][0] == "tile":
        T.wrote(vd.base, ends[0][1], site)
    return None


def partition_broadcast(v, parts):
    """A new SBUF tile of parts partitions, each a copy of the one partition of tile
    view v: one DMA descriptor reading v's partition parts times (a partition stride of
    0), as NKI's broadcast_to of a [1, F] tile."""
    tr = T.current()
    site = tr.site()
    if tr.pending is not None:
        tr.flush()
    op = T.operand(v, None, site)
    _, p0, np_, f0, c0, s0, c1, s1 = op
    if np_ != 1 or (c0 > 1 and s0 != 1) or (c1 > 1 and s1 != c0 * s0):
        raise tr.fail(UnsupportedError, site, "broadcast across partitions of a strided "
                      "or multi-partition view: nl.copy it to one contiguous row first",
                      errno.ENOTSUP)
    out = _ops.result(tr, (parts,) + tuple(v.shape[1:]), v.dtype, T.SBUF, "broadcast",
                      site)
    es = v.dtype.itemsize
    b = tr.b
    src = (1, op[0], f0 * es, p0, 0, 0, 0, 0)

    def emit(dst, acc):
        d = (1, dst[0], dst[3] * es, dst[1], 1, 0, 0, 0)
        if dst[5] != 1 or dst[6] != 1:
            raise tr.fail(UnsupportedError, site, "a partition broadcast into a strided "
                          "view", errno.ENOTSUP)
        tr.call(site, b.dma, _ops.AUTO, c0 * c1 * es, dst[2], 1, src, d, site.file,
                site.line)
    return tr.defer(out, emit, "dma", site, None, (v.base,))


def _dims(end):
    """A side as dims outer to inner: (count, element stride, partition stride)."""
    if end[0] == "hbm":
        return [(n, s, 0) for n, s in end[3]]
    _, p0, np_, f0, c0, s0, c1, s1 = end[1]
    return [(np_, 0, 1), (c1, s1, 0), (c0, s0, 0)]


def _refine(a, b):
    """Split the dims of two sides (outer to inner, the same element count) until they
    pair up one to one; None when they cannot."""
    a = [d for d in reversed(a) if d[0] != 1]
    b = [d for d in reversed(b) if d[0] != 1]
    ra, rb = [], []
    i = j = 0
    while i < len(a) and j < len(b):
        (na, sa, pa), (nb, sb, pb) = a[i], b[j]
        if na == nb:
            ra.append(a[i])
            rb.append(b[j])
            i += 1
            j += 1
        elif nb % na == 0:
            ra.append(a[i])
            rb.append((na, sb, pb))
            b[j] = (nb // na, sb * na, pb * na)
            i += 1
        elif na % nb == 0:
            rb.append(b[j])
            ra.append((nb, sa, pa))
            a[i] = (na // nb, sa * nb, pa * nb)
            j += 1
        else:
            return None
    if i != len(a) or j != len(b):
        return None
    return ra, rb      # inner to outer


def _move(tr, site, dst, src, es, spread):
    """One transfer from src to dst (sides ("tile", op) or ("hbm", tix, off, dims))."""
    b = tr.b
    if spread:
        fast = _fast(dst, src)
        if fast is not None:
            if dst[0] == "tile":
                tr.call(site, b.load, _ops.SPREAD, dst[1], *fast,
                        site.file, site.line)
            else:
                tr.call(site, b.store, _ops.SPREAD, src[1], *fast, site.file,
                        site.line)
            return
    pair = _refine(_dims(dst), _dims(src))
    if pair is None:
        raise tr.fail(UnsupportedError, site, "the two sides of this transfer index their "
                      "elements in patterns that do not pair up in one DMA descriptor",
                      errno.ENOTSUP)
    rd, rs = pair
    # the chunk: innermost dims contiguous on both sides (element stride 1, one partition)
    chunk = 1
    k = 0
    while k < len(rd) and rd[k][1] == chunk and rs[k][1] == chunk and not rd[k][2] \
            and not rs[k][2]:
        chunk *= rd[k][0]
        k += 1
    rest_d, rest_s = [], []
    for x, y in zip(rd[k:], rs[k:]):
        if rest_d and rest_d[-1][1] * rest_d[-1][0] == x[1] and \
                rest_d[-1][2] * rest_d[-1][0] == x[2] and \
                rest_s[-1][1] * rest_s[-1][0] == y[1] and \
                rest_s[-1][2] * rest_s[-1][0] == y[2]:
            n = rest_d[-1][0] * x[0]
            rest_d[-1] = (n, rest_d[-1][1], rest_d[-1][2])
            rest_s[-1] = (n, rest_s[-1][1], rest_s[-1][2])
        else:
            rest_d.append(x)
            rest_s.append(y)
    if len(rest_d) > 2:
        raise tr.fail(UnsupportedError, site, f"this transfer needs {len(rest_d)} "
                      "dimensions besides its contiguous runs; a DMA descriptor has 2",
                      errno.ENOTSUP)
    while len(rest_d) < 2:
        rest_d.append((1, 0, 0))
        rest_s.append((1, 0, 0))
    tr.call(site, b.dma, _ops.AUTO, chunk * es, rest_d[0][0], rest_d[1][0],
            _ep(src, rest_s, es), _ep(dst, rest_d, es), site.file, site.line)


def _ep(end, dims, es):
    if end[0] == "hbm":
        return (0, end[1], end[2] * es, 0, 0, 0, dims[0][1] * es, dims[1][1] * es)
    op = end[1]
    return (1, op[0], op[3] * es, op[1], dims[0][2], dims[1][2], dims[0][1] * es,
            dims[1][1] * es)


def _fast(dst, src):
    """(tensor, offset, pstride, fstride) for nd_load / nd_store, or None."""
    tile, hbm = (dst, src) if dst[0] == "tile" else (src, dst)
    _, p0, np_, f0, c0, s0, c1, s1 = tile[1]
    if s0 != 1 or c1 != 1:
        return None
    _, tix, off, dims = hbm
    if not dims:
        return None
    ps = dims[0][1]
    free = T._merge(dims[1:])
    if len(free) > 1:
        return None
    fs = free[0][1] if free else 1
    return tix, off, ps, fs
