"""The tracer's state: the kernel being traced, its HBM tensors, its on-chip tiles and
their lifetimes, views (index maps), loops, and where each call comes from.

A kernel is traced by running its Python body once; every nl/nisa call emits builder
instructions through _vneuron.Builder at once, except the last one, which waits (it is
"pending") so that an assignment that follows can write its result straight into the
assigned tile (`t[...] = nl.exp(x)`, `acc += nl.matmul(...)`) instead of through a copy.

Tiles: a tile created in an iteration of an nl.affine_range / sequential_range /
static_range loop lives until that iteration ends; any other tile until its Python
object dies (or the kernel ends). A dead tile's space is given back (nd_tile_free), so
the next tile takes it and the builder orders its writers after the old readers.
"""

import errno
import sys
import weakref

from vneuron import _vneuron as _c
from vneuron.nki import _errors, _dtypes
from vneuron.nki._errors import (NkiError, ShapeError, TileLifetimeError, UnsupportedError,
                                 error)

_errors.INTERNAL.add(__name__)

PMAX = _c.VNEF_PARTITIONS
SBUF, PSUM = _c.ND_SBUF, _c.ND_PSUM
_INTERNAL = _errors.INTERNAL

_current = None          # the Trace being built, if any


def current():
    """The trace in progress; an error naming the line when there is none."""
    tr = _current
    if tr is None:
        raise error(NkiError, "an nki.language / nki.isa call outside a kernel: call it "
                    "from a function decorated with @nki.jit (or nki.simulate, "
                    "nki.benchmark)")
    return tr


class _Site:
    """Where a call was made: the user's file and line, and the scope path."""

    __slots__ = ("file", "line", "scope")

    def __init__(self, file, line, scope):
        self.file = file
        self.line = line
        self.scope = scope

    def __str__(self):
        return f"{self.file}:{self.line}"


class _Iter:
    """One iteration of an nl loop: the tiles it created die when it ends."""

    __slots__ = ("site", "kind", "tids")

    def __init__(self, site, kind):
        self.site = site
        self.kind = kind
        self.tids = []


class _Pending:
    """The last call's instruction, not yet emitted: emit(dst, accumulate) emits it into
    the destination view dst (an 8-tuple); kind says what may be its destination:
    'engine' (any tile), 'tensor' (TensorE: an fp32 PSUM tile, may accumulate) or
    'dma' (a tile of the same dtype)."""

    __slots__ = ("result", "emit", "kind", "site", "region", "srcs", "frame")

    def __init__(self, result, emit, kind, site, region, srcs, frame):
        self.frame = frame        # the loop iteration the result belongs to
        self.result = result
        self.emit = emit
        self.kind = kind
        self.site = site
        self.region = region      # per grid axis (lo, hi), or None for all
        self.srcs = srcs          # the operands, kept alive until emitted


class Trace:
    """A kernel being traced into a builder."""

    def __init__(self, name, code, builder=None):
        self.name = name
        self.code = code
        self.b = builder if builder is not None else _c.Builder(name)
        self.root = (name,)
        self.scope = ()
        self.pending = None
        self.frames = []
        self.dead = {}            # tid -> (tile name, created at, why) once freed
        self.live = set()         # allocated tids not yet freed
        self.tensor_names = set()
        self.active = True
        self.nouts = 0
        self.outputs = []         # (name, dtype, shape) of every output tensor
        self.spmd = None          # (grid, coords, index, shared_hbm made) in a launch
        self.shared = []          # the shared_hbm tensors of the first SPMD program
        self._set_scope(self.root)

    # -- where calls come from
    def site(self):
        """The user's file:line and scope path of the current call (sets the scope)."""
        f = sys._getframe(1)
        internal = _INTERNAL
        while f.f_globals.get("__name__") in internal:
            f = f.f_back
        code = self.code
        if f.f_code is code:
            scope = self.root
        else:
            names = []
            g = f
            while g is not None and g.f_code is not code:
                n = g.f_code.co_name
                if g.f_globals.get("__name__") not in internal and n[0] != "<":
                    names.append(n)
                g = g.f_back
            scope = self.root + tuple(reversed(names)) if g is not None else self.root
        return _Site(f.f_code.co_filename, f.f_lineno, scope)

    def _set_scope(self, scope):
        cur = self.scope
        if scope == cur:
            return
        n = 0
        while n < len(cur) and n < len(scope) and cur[n] == scope[n]:
            n += 1
        for _ in range(len(cur) - n):
            self.b.scope_pop()
        for s in scope[n:]:
            self.b.scope_push(s)
        self.scope = scope

    def fail(self, cls, site, msg, err=errno.EINVAL):
        """An exception of class cls for msg at site."""
        return cls(err, f"{site.file}:{site.line}: {msg}", site.file, site.line)

    def call(self, site, fn, *args):
        """A builder call for site: its scope set, a BuildError turned into an NkiError
        naming the line."""
        if site.scope is not self.scope:
            self._set_scope(site.scope)
        try:
            return fn(*args)
        except _c.BuildError as e:
            cls = ShapeError if "shape mismatch" in (e.strerror or "") else NkiError
            raise self.fail(cls, site, e.strerror, e.errno) from None

    # -- the pending instruction
    def defer(self, result, emit, kind, site, region, srcs):
        """Make emit the pending instruction producing result (after emitting the one
        before)."""
        if self.pending is not None:
            self.flush()
        p = _Pending(result, emit, kind, site, region, srcs,
                     self.frames[-1] if self.frames else None)
        result.pending = p
        self.pending = p
        return result

    def flush(self):
        """Emit the pending instruction into its own, newly allocated result tile."""
        p = self.pending
        if p is None:
            return
        self.pending = None
        r = p.result
        self.alloc(r, p.site, p.frame)
        r.pending = None
        p.emit(operand(r.whole(), p.region, p.site), False)

    def retarget(self, view, acc, site):
        """Emit the pending instruction into view (an assignment's target), or with
        accumulate into it; its result becomes an alias of view. False when the
        instruction cannot write there (the caller then copies)."""
        p = self.pending
        r = p.result
        base = view.base
        if view.shape != r.shape or base.tid is None:
            return False
        if p.kind == "tensor":
            if base.buffer != PSUM or base.dtype is not _dtypes.float32:
                return False
        elif p.kind == "dma" and base.dtype is not r.dtype:
            return False
        elif acc:
            return False
        if base.fill is not None:
            if acc and base.fill == 0.0 and p.region is None and view.covers_base():
                acc = False
                base.fill = None
            else:
                materialize(base, site)
        self.pending = None
        r.pending = None
        dst = operand(view, p.region, site)
        p.emit(dst, acc)
        wrote(base, dst, site)
        r.alias = view
        r.stale = None
        base.aliases.append(weakref.ref(r))
        return True

    # -- tiles
    def alloc(self, t, site, frame=False):
        """Give tile t its space (a builder tile), owned by loop iteration frame (by
        default the current one; None: no loop)."""
        name = f"{t.name}@{site.line}"[:31]
        nf = 1
        for d in t.shape[1:]:
            nf *= d
        t.tid = self.call(site, self.b.tile, t.buffer, name, t.dtype.code, t.shape[0], nf)
        t.site = site
        self.live.add(t.tid)
        if frame is False:
            frame = self.frames[-1] if self.frames else None
        if frame is not None:
            t.frame = frame
            frame.tids.append(t.tid)

    def free(self, tid, why):
        if tid in self.live:
            self.live.discard(tid)
            self.dead[tid] = why
            if self.active:
                self.b.free(tid)

    def dead_error(self, t):
        why = self.dead.get(t.tid, "it was freed")
        return error(TileLifetimeError, f"tile '{t.name}' (created at {t.site}) is dead: "
                     f"{why}; tiles created in a loop iteration live only in it (create "
                     "it before the loop to keep it)")

    def end_iteration(self, it):
        """A loop iteration ends: emit what is pending, free the tiles it created."""
        if self.pending is not None:
            self.flush()
        why = (f"the iteration of the {it.kind} at {it.site} that created it ended")
        for tid in it.tids:
            self.free(tid, why)
        it.tids = []

    def close(self):
        self.active = False


# ---------------------------------------------------------------------------------
# Tiles, HBM tensors, views

def _free_strides(shape):
    """Row-major strides of the free dims of a tile shape (elements)."""
    st = [0] * len(shape)
    s = 1
    for d in range(len(shape) - 1, 0, -1):
        st[d] = s
        s *= shape[d]
    return tuple(st)


class Tile:
    """An on-chip tile (SBUF or PSUM): NKI's tile. The first dimension is the partition
    dimension. Results of nl/nisa calls are tiles; nl.ndarray(..., buffer=nl.sbuf)
    makes one to fill."""

    __slots__ = ("tr", "shape", "dtype", "buffer", "tid", "name", "site", "frame",
                 "pending", "alias", "stale", "fill", "aliases", "done", "_wmaps",
                 "_wop", "__weakref__")

    def __init__(self, tr, shape, dtype, buffer, name, site):
        self.tr = tr
        self.tid = None
        if not shape or shape[0] > PMAX or shape[0] < 1:
            raise tr.fail(ShapeError, site, f"tile shape {tuple(shape)}: the partition "
                          f"dimension (the first) is {shape[0] if shape else 'missing'}; "
                          f"it must be 1..{PMAX} (nl.tile_size.pmax)")
        for d in shape:
            if not isinstance(d, int) or d < 1:
                raise tr.fail(ShapeError, site, f"tile shape {tuple(shape)}: dimensions "
                              "must be positive ints")
        self.shape = tuple(shape)
        self.dtype = dtype
        self.buffer = buffer
        self.name = name
        self.site = site
        self.frame = None
        self.pending = None
        self.alias = None
        self.stale = None
        self.fill = None
        self.aliases = []
        self.done = False
        self._wmaps = None
        self._wop = None

    def __del__(self):
        tr = self.tr
        if self.tid is not None and tr.active and self.tid in tr.live:
            tr.free(self.tid, "its Python object was deleted")

    def __repr__(self):
        mem = "psum" if self.buffer == PSUM else "sbuf"
        return f"<tile {self.name} {list(self.shape)} {self.dtype} {mem}>"

    @property
    def ndim(self):
        return len(self.shape)

    def whole(self):
        """The identity view of the tile (a new object each time: a view cached here
        would make a reference cycle and keep a dead tile's object alive)."""
        m = self._wmaps
        if m is None:
            n = len(self.shape)
            kp = (1,) + (0,) * (n - 1)
            m = self._wmaps = ((0, kp), (0, _free_strides(self.shape)))
        v = View(self, self.shape, m, ())
        v._op = self._wop
        return v

    def view(self):
        """What reading this tile reads: its alias, or its own whole view."""
        if self.pending is not None:
            self.tr.flush()
        a = self.alias
        if a is not None:
            if self.stale is not None:
                raise error(TileLifetimeError, f"the tile '{self.name}' made at "
                            f"{self.site} was written into tile '{a.base.name}', and "
                            f"{self.stale} has overwritten that part since; copy it "
                            "first (nl.copy) to keep it")
            return a
        t = self
        if t.tid is not None and t.tid not in t.tr.live:
            raise t.tr.dead_error(t)
        return self.whole()


class TileArray:
    """A tile with block dimensions, nl.ndarray((2, nl.par_dim(128), 512), ...): one
    tile per block, each placed on its own; t[i] is block i (NKI's way to keep several
    buffers, e.g. for double buffering)."""

    __slots__ = ("blocks", "bshape", "shape", "dtype", "buffer")

    def __init__(self, bshape, tiles):
        self.bshape = bshape
        self.blocks = tiles
        self.shape = tuple(bshape) + tiles[0].shape
        self.dtype = tiles[0].dtype
        self.buffer = tiles[0].buffer

    def _block(self, key):
        n = len(self.bshape)
        idx = 0
        for d, k in zip(self.bshape, key[:n]):
            if isinstance(k, bool) or not hasattr(k, "__index__"):
                raise error(UnsupportedError, "the block dimensions of a tile take ints "
                            "(a loop variable, p % 2)", errno.ENOTSUP)
            k = k.__index__()
            if not 0 <= k < d:
                raise error(ShapeError, f"block index {k} outside the {d} blocks")
            idx = idx * d + k
        return self.blocks[idx], key[n:]

    def __getitem__(self, key):
        if not isinstance(key, tuple):
            key = (key,)
        t, rest = self._block(key)
        return t[rest] if rest else t

    def __setitem__(self, key, value):
        if not isinstance(key, tuple):
            key = (key,)
        t, rest = self._block(key)
        t[rest if rest else ...] = value


class HbmTensor:
    """A tensor in device memory (HBM): a kernel's parameter, or nl.ndarray(...,
    buffer=nl.shared_hbm / nl.hbm). Indexing gives a view for nl.load / nl.store."""

    __slots__ = ("tr", "name", "shape", "dtype", "tix", "kind", "root", "_whole")

    def __init__(self, tr, name, shape, dtype, tix, kind, root=None):
        self.tr = tr
        self.name = name
        self.shape = tuple(shape)
        self.dtype = dtype
        self.tix = tix
        self.kind = kind          # "input", "output", "scratch"
        self.root = root          # the declared tensor, for reshaped ones
        self._whole = None

    def __repr__(self):
        return f"<{self.kind} tensor {self.name} {list(self.shape)} {self.dtype}>"

    @property
    def ndim(self):
        return len(self.shape)

    def whole(self):
        v = self._whole
        if v is None:
            st, s = [0] * len(self.shape), 1
            for d in range(len(self.shape) - 1, -1, -1):
                st[d] = s
                s *= self.shape[d]
            v = View(self, self.shape, ((0, tuple(st)),), ())
            self._whole = v
        return v

    def view(self):
        return self.whole()

    def __getitem__(self, key):
        return index(self.whole(), key)

    def reshape(self, shape):
        """The same elements in another shape (row-major); a view, not a copy."""
        shape = tuple(shape) if not isinstance(shape, int) else (shape,)
        n = m = 1
        for d in shape:
            n *= d
        for d in self.shape:
            m *= d
        if n != m:
            raise error(ShapeError, f"reshape of tensor '{self.name}' {list(self.shape)} "
                        f"({m} elements) to {list(shape)} ({n})")
        return HbmTensor(self.tr, self.name, shape, self.dtype, self.tix, self.kind,
                         self.root or self)


class View:
    """A rectangular index grid mapped affinely onto a tile or an HBM tensor.

    shape: the grid's counts; maps: for a tile (partition map, free map), for a tensor
    (element map,), each (c, k) = c + sum_g k[g] * i_g; checks: (c, k, size, dim)
    bounds that hold only inside a mask, checked when the view is used."""

    __slots__ = ("base", "shape", "maps", "checks", "done", "_op")

    def __init__(self, base, shape, maps, checks):
        self.base = base
        self.shape = shape
        self.maps = maps
        self.checks = checks
        self.done = False
        self._op = None

    @property
    def dtype(self):
        return self.base.dtype

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def buffer(self):
        return getattr(self.base, "buffer", None)

    def view(self):
        b = self.base
        if isinstance(b, Tile) and b.tid is not None and b.tid not in b.tr.live:
            raise b.tr.dead_error(b)
        return self

    def __getitem__(self, key):
        return index(self, key)

    def site_of(self):
        b = self.base
        return getattr(b, "site", None) or b.name

    def covers_base(self):
        """Whether the view is exactly its tile, element for element."""
        b = self.base
        return self.maps == b.whole().maps and self.shape == b.shape and not self.checks


def index(v, key):
    """v[key]: ints, slices, Ellipsis and index expressions (nl.arange, nl.mgrid)."""
    from vneuron.nki._index import IndexExpr
    if not isinstance(key, tuple):
        key = (key,)
    shape = v.shape
    nd = len(shape)
    if any(k is Ellipsis for k in key):
        i = key.index(Ellipsis)
        key = key[:i] + (slice(None),) * (nd - len(key) + 1) + key[i + 1:]
    if len(key) > nd:
        raise error(ShapeError, f"{len(key)} indices for {nd} dimensions {list(shape)}")
    key = key + (slice(None),) * (nd - len(key))
    is_tile = isinstance(v.base, Tile)
    # the items as affine forms over the new grid: (c, {axis: (n, k)}) per old dim
    forms = []
    pos = 0
    rank = 0
    for d, k in enumerate(key):
        L = shape[d]
        if isinstance(k, IndexExpr):
            if k.rank is None:
                (n, kk), = k.terms.values() if k.terms else ((1, 0),)
                forms.append((k.c, {pos: (n, kk)} if k.terms else {}))
                pos += 1
            else:
                forms.append((k.c, dict(k.terms)))
                rank = max(rank, k.rank)
                pos += 1
            continue
        if isinstance(k, slice):
            start, stop, step = k.indices(L)
            n = len(range(start, stop, step))
            if n <= 0:
                raise error(ShapeError, f"empty slice {k} of a dimension of {L}")
            forms.append((start, {pos: (n, step)}))
            pos += 1
            continue
        if isinstance(k, bool) or not hasattr(k, "__index__"):
            if k is None:
                raise error(UnsupportedError, "None (a new axis) in an index is not "
                            "supported", errno.ENOTSUP)
            raise error(UnsupportedError, f"an index of type {type(k).__name__}: indices "
                        "are ints, slices and nl.arange expressions (dynamic indexing by "
                        "tile values is not supported)", errno.ENOTSUP)
        i = k.__index__()
        if i < 0:
            i += L
        if not 0 <= i < L:
            raise error(ShapeError, f"index {k} is outside a dimension of {L}")
        if is_tile and d == 0:
            forms.append((i, {pos: (1, 1)}))       # a tile keeps its partition axis
            pos += 1
        else:
            forms.append((i, {}))
    rank = max(rank, pos)
    counts = [1] * rank
    for c, terms in forms:
        for g, (n, kk) in terms.items():
            if counts[g] == 1:
                counts[g] = n
            elif n != 1 and counts[g] != n:
                raise error(ShapeError, f"index shapes do not match: {counts[g]} and {n} "
                            f"elements along axis {g}")
    # substitute: old i_d = c_d + sum_g k_dg j_g
    subs = []
    checks = list(v.checks)
    new_checks = []
    for d, (c, terms) in enumerate(forms):
        kv = [0] * rank
        lo = hi = c
        for g, (n, kk) in terms.items():
            kv[g] = kk
            if kk > 0:
                hi += kk * (counts[g] - 1)
            else:
                lo += kk * (counts[g] - 1)
        subs.append((c, kv))
        if lo < 0 or hi >= shape[d]:
            new_checks.append((c, tuple(kv), shape[d], d))
    maps = tuple(_compose(m, subs, rank) for m in v.maps)
    checks = [(cc, kk, size, dim) for cc, kk, size, dim in
              (_compose((c0, k0), subs, rank) + (size, dim) for c0, k0, size, dim in checks)]
    nv = View(v.base, tuple(counts), maps, tuple(checks + new_checks))
    if is_tile:
        kp = maps[0][1]
        kf = maps[1][1]
        if any(kp[g] for g in range(1, rank)) or (kf and kf[0] and counts[0] > 1) or \
                (counts[0] > 1 and kp[0] != 1):
            raise error(UnsupportedError, "the partition dimension of a tile must be "
                        "indexed by the first index axis, one partition per step",
                        errno.ENOTSUP)
    return nv


def _compose(m, subs, rank):
    c, k = m
    nc = c
    nk = [0] * rank
    for d, kd in enumerate(k):
        if kd:
            sc, sk = subs[d]
            nc += kd * sc
            for g in range(rank):
                nk[g] += kd * sk[g]
    return (nc, tuple(nk))


def check_bounds(v, region, site):
    """The masked-only bounds of v hold over region (else a ShapeError)."""
    for c, k, size, dim in v.checks:
        lo = hi = c
        for g, kg in enumerate(k):
            if kg:
                a, b = (region[g] if region is not None else (0, v.shape[g]))
                if kg > 0:
                    lo += kg * a
                    hi += kg * (b - 1)
                else:
                    lo += kg * (b - 1)
                    hi += kg * a
        if lo < 0 or hi >= size:
            bad = lo if lo < 0 else hi
            raise v.base.tr.fail(ShapeError, site, f"index {bad} of dimension {dim} is "
                                 f"outside its {size} elements (of "
                                 f"{getattr(v.base, 'name', 'a tile')}); a mask= that "
                                 "keeps the access inside is needed")


def _merge(dims):
    """Merge (count, stride) free dims, outer to inner, where they are contiguous."""
    out = []
    for n, s in dims:
        if n == 1:
            continue
        if out and out[-1][1] == n * s:
            out[-1] = (out[-1][0] * n, s)
        else:
            out.append((n, s))
    return out


def operand(v, region, site):
    """The builder's 8-tuple for tile view v restricted to region."""
    if region is None and v._op is not None:
        return v._op
    t = v.base
    if t.tid is None or t.tid not in t.tr.live:
        if t.tid is None and t.pending is not None:
            t.tr.flush()
        else:
            raise t.tr.dead_error(t)
    if v.checks:
        check_bounds(v, region, site)
    (cp, kp), (cf, kf) = v.maps
    shape = v.shape
    if region is None:
        lo = [0] * len(shape)
        cnt = shape
    else:
        lo = [a for a, _ in region]
        cnt = [b - a for a, b in region]
    p0 = cp + (kp[0] * lo[0] if kp else 0)
    f0 = cf
    for g in range(len(shape)):
        if kf[g]:
            f0 += kf[g] * lo[g]
    dims = _merge([(cnt[g], kf[g]) for g in range(1, len(shape))])
    if not dims:
        op = (t.tid, p0, cnt[0] if shape else 1, f0, 1, 1, 1, 0)
    elif len(dims) == 1:
        op = (t.tid, p0, cnt[0], f0, dims[0][0], dims[0][1], 1, 0)
    elif len(dims) == 2:
        op = (t.tid, p0, cnt[0], f0, dims[1][0], dims[1][1], dims[0][0], dims[0][1])
    else:
        raise t.tr.fail(UnsupportedError, site, f"a view of tile '{t.name}' with "
                        f"{len(dims)} free dimensions that do not merge: an instruction "
                        "reads at most 2 free dimensions", errno.ENOTSUP)
    if region is None:
        v._op = op
        if v.maps is t._wmaps:
            t._wop = op
    return op


def hbm_operand(v, region, site):
    """(tensor index, offset, dims) of HBM view v over region: dims (count, stride) per
    grid axis, elements."""
    if v.checks:
        check_bounds(v, region, site)
    (c, k), = v.maps
    shape = v.shape
    if region is None:
        return v.base.tix, c, [(shape[g], k[g]) for g in range(len(shape))]
    off = c
    dims = []
    for g, (a, b) in enumerate(region):
        off += k[g] * a
        dims.append((b - a, k[g]))
    return v.base.tix, off, dims


def wrote(t, dst, site, via=None):
    """Tile t was written over the 8-tuple dst: the aliases of what it overlaps (but
    via, the alias written through) go stale."""
    if not t.aliases:
        return
    keep = []
    p0, p1, f0, f1 = _box(dst)
    for ref in t.aliases:
        a = ref()
        if a is None or a.alias is None or a.stale is not None:
            continue
        if a is not via:
            q0, q1, g0, g1 = _box(operand(a.alias, None, site))
            if p0 < q1 and q0 < p1 and f0 < g1 and g0 < f1:
                a.stale = f"the write at {site}"
                continue
        keep.append(ref)
    t.aliases = keep


def _box(op):
    _, p0, np_, f0, c0, s0, c1, s1 = op
    lo = f0 + min(0, (c0 - 1) * s0) + min(0, (c1 - 1) * s1)
    hi = f0 + max(0, (c0 - 1) * s0) + max(0, (c1 - 1) * s1) + 1
    return p0, p0 + np_, lo, hi


def materialize(t, site):
    """Emit a tile's deferred fill (nl.zeros, nl.full) before anything else uses it."""
    v = t.fill
    t.fill = None
    tr = t.tr
    tr.call(t.site, tr.b.instr, _c.ND_GPSIMD, _c.VNEF_OP_MEMSET, operand(t.whole(), None,
            site), None, None, 0, 0, float(v), 0.0, 0.0, t.site.file, t.site.line)


# ---------------------------------------------------------------------------------
# Loops

def loop(kind, args):
    """The body of nl.affine_range / sequential_range / static_range: the iterations
    run one after another while tracing; each frees the tiles it created when it ends."""
    tr = _current
    r = range(*args)
    if tr is None:
        yield from r
        return
    if tr.pending is not None:
        tr.flush()
    it = _Iter(tr.site(), kind)
    tr.frames.append(it)
    try:
        for i in r:
            yield i
            if tr.active:
                tr.end_iteration(it)
    finally:
        if tr.active and it in tr.frames:
            tr.end_iteration(it)
            tr.frames.remove(it)


def start(name, code, builder=None):
    global _current
    if _current is not None:
        raise error(NkiError, "a kernel is already being traced in this process (kernels "
                    "trace one at a time)")
    _current = Trace(name, code, builder)
    return _current


def stop(tr):
    global _current
    if _current is tr:
        _current = None
    tr.close()
