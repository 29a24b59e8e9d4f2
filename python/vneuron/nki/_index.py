"""Index expressions: nl.arange, nl.mgrid, affine expressions over them, and masks.

An expression is c + sum_g k_g * i_g, where i_g runs over [0, n_g) along axis g of the
index grid: nl.arange(128)[:, None] is axis 0 (the partition axis) of a 2-D grid,
nl.arange(512)[None, :] axis 1. Loop variables are plain Python ints (loops are
unrolled while tracing), so `p * nl.tile_size.pmax + nl.arange(128)[:, None]` is an
expression with c = 128 p. Only affine arithmetic is allowed: + and - of expressions
and ints, * by an int, unary -. A comparison with an int is a mask (Predicate): an
interval of i_g per axis, combined with &.
"""

import errno

from vneuron.nki import _errors
from vneuron.nki._errors import UnsupportedError, error

_errors.INTERNAL.add(__name__)


def _bad(what):
    return error(UnsupportedError, f"{what}: an index expression must be affine "
                 "(expressions of nl.arange and ints combined with +, - and * by an int); "
                 "this one cannot be mapped onto one access pattern", errno.ENOTSUP)


class IndexExpr:
    """An affine index expression; see the module's docstring.

    c: the constant; terms: {axis: (n, k)}; rank: the grid's rank, or None for a bare
    1-D nl.arange (its axis is its position in the index where it is used).
    """

    __slots__ = ("c", "terms", "rank")

    def __init__(self, c, terms, rank):
        self.c = c
        self.terms = terms
        self.rank = rank

    # -- construction
    def __getitem__(self, key):
        if self.rank is not None or len(self.terms) != 1:
            raise _bad("indexing an index expression")
        if not isinstance(key, tuple):
            key = (key,)
        axes = [i for i, k in enumerate(key) if isinstance(k, slice)]
        if len(axes) != 1 or key[axes[0]] != slice(None) or \
                any(k is not None for i, k in enumerate(key) if i != axes[0]):
            raise _bad("nl.arange(n)[...] takes one ':' and Nones, as [:, None]")
        (n, k), = self.terms.values()
        return IndexExpr(self.c, {axes[0]: (n, k)}, len(key))

    @property
    def shape(self):
        r = self.rank if self.rank is not None else 1
        s = [1] * r
        for g, (n, _) in self.terms.items():
            s[g if self.rank is not None else 0] = n
        return tuple(s)

    def __repr__(self):
        t = " + ".join(f"{k}*i{g}[{n}]" for g, (n, k) in sorted(self.terms.items()))
        return f"IndexExpr({self.c} + {t})" if t else f"IndexExpr({self.c})"

    # -- affine arithmetic
    def _combine(self, other, sign):
        if isinstance(other, bool) or not isinstance(other, (int, IndexExpr)):
            if hasattr(other, "__index__") and not isinstance(other, bool):
                other = other.__index__()
            else:
                return NotImplemented
        if isinstance(other, int):
            return IndexExpr(self.c + sign * other, self.terms, self.rank)
        if (self.rank is None) != (other.rank is None) and self.terms and other.terms:
            raise _bad("combining a bare nl.arange with a positioned one")
        terms = dict(self.terms)
        for g, (n, k) in other.terms.items():
            if g in terms:
                n0, k0 = terms[g]
                if n0 != n:
                    raise error(_errors.ShapeError, f"index expressions of {n0} and {n} "
                                f"elements along axis {g} do not combine")
                terms[g] = (n, k0 + sign * k)
            else:
                terms[g] = (n, sign * k)
        ranks = [r for r in (self.rank, other.rank) if r is not None]
        return IndexExpr(self.c + sign * other.c, terms, max(ranks) if ranks else None)

    def __add__(self, other):
        return self._combine(other, 1)

    __radd__ = __add__

    def __sub__(self, other):
        return self._combine(other, -1)

    def __rsub__(self, other):
        return (-self)._combine(other, 1)

    def __neg__(self):
        return IndexExpr(-self.c, {g: (n, -k) for g, (n, k) in self.terms.items()},
                         self.rank)

    def __mul__(self, other):
        if isinstance(other, IndexExpr):
            if not other.terms:
                other = other.c
            elif not self.terms:
                return other * self.c
            else:
                raise _bad("a product of two index expressions")
        if isinstance(other, bool) or not hasattr(other, "__index__"):
            if isinstance(other, float) and other.is_integer():
                other = int(other)
            else:
                return NotImplemented
        other = other.__index__()
        return IndexExpr(self.c * other, {g: (n, k * other)
                                          for g, (n, k) in self.terms.items()}, self.rank)

    __rmul__ = __mul__

    def _nonaffine(self, *_):
        raise _bad("//, %, / and ** of an index expression")

    __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = _nonaffine
    __truediv__ = __rtruediv__ = __pow__ = __rpow__ = _nonaffine

    # -- masks
    def _cmp(self, other, op):
        if isinstance(other, IndexExpr):
            d = self - other
            if len(d.terms) == 0:
                return Predicate.const(_CMP[op](d.c, 0))
            if len(d.terms) == 1:
                return d._cmp(0, op)
            raise error(UnsupportedError, "a mask comparing two index axes is not a "
                        "rectangle; vneuron.nki masks are intervals per axis",
                        errno.ENOTSUP)
        if isinstance(other, bool) or not hasattr(other, "__index__"):
            return NotImplemented
        v = other.__index__()
        if not self.terms:
            return Predicate.const(_CMP[op](self.c, v))
        if len(self.terms) != 1:
            raise error(UnsupportedError, "a mask over several index axes at once is not "
                        "a rectangle; compare each axis and combine with &", errno.ENOTSUP)
        (g, (n, k)), = self.terms.items()
        g = 0 if self.rank is None else g
        # c + k*i OP v, as lo <= i < hi over the integers
        lo, hi = 0, n
        if k == 0:
            return Predicate.const(_CMP[op](self.c, v))
        if op in ("<", "<="):
            bound = v - self.c - (1 if op == "<" else 0)     # k*i <= bound
            if k > 0:
                hi = min(hi, bound // k + 1)
            else:
                lo = max(lo, -(bound // -k))                 # i >= ceil(bound / k)
        else:
            bound = v - self.c + (1 if op == ">" else 0)     # k*i >= bound
            if k > 0:
                lo = max(lo, -(-bound // k))
            else:
                hi = min(hi, (-bound) // (-k) + 1)
        return Predicate({g: (max(lo, 0), max(min(hi, n), 0))})

    def __lt__(self, other):
        return self._cmp(other, "<")

    def __le__(self, other):
        return self._cmp(other, "<=")

    def __gt__(self, other):
        return self._cmp(other, ">")

    def __ge__(self, other):
        return self._cmp(other, ">=")

    def __eq__(self, other):
        raise error(UnsupportedError, "== of an index expression: masks are <, <=, >, >= "
                    "combined with &", errno.ENOTSUP)

    __ne__ = __eq__
    __hash__ = None


_CMP = {"<": int.__lt__, "<=": int.__le__, ">": int.__gt__, ">=": int.__ge__}


class Predicate:
    """A mask: for each grid axis g an interval lo <= i_g < hi (axes not named are
    whole); a constant mask is all (True) or nothing (False)."""

    __slots__ = ("bounds", "value")

    def __init__(self, bounds, value=True):
        self.bounds = bounds
        self.value = value

    @staticmethod
    def const(v):
        return Predicate({}, bool(v))

    def __and__(self, other):
        if isinstance(other, bool):
            other = Predicate.const(other)
        if not isinstance(other, Predicate):
            return NotImplemented
        b = dict(self.bounds)
        for g, (lo, hi) in other.bounds.items():
            if g in b:
                lo, hi = max(lo, b[g][0]), min(hi, b[g][1])
            b[g] = (lo, hi)
        return Predicate(b, self.value and other.value)

    __rand__ = __and__

    def __or__(self, other):
        raise error(UnsupportedError, "| of masks is not a rectangle; vneuron.nki masks "
                    "are intervals per axis combined with &", errno.ENOTSUP)

    __ror__ = __or__

    def __invert__(self):
        raise error(UnsupportedError, "~ of a mask is not a rectangle", errno.ENOTSUP)

    def __bool__(self):
        raise error(UnsupportedError, "a mask has no truth value while tracing; pass it "
                    "as mask=", errno.ENOTSUP)

    def __repr__(self):
        return f"Predicate({self.bounds}, {self.value})"


def arange(start, stop=None, step=1):
    """nl.arange: the integers start, start + step, ... below stop, as an index
    expression; index it with [:, None] or [None, :] to place it on a grid axis."""
    if stop is None:
        start, stop = 0, start
    for v in (start, stop, step):
        if isinstance(v, bool) or not hasattr(v, "__index__"):
            raise error(UnsupportedError, f"nl.arange({start}, {stop}, {step}): the "
                        "bounds must be Python ints while tracing", errno.ENOTSUP)
    start, stop, step = start.__index__(), stop.__index__(), step.__index__()
    if step == 0:
        raise error(_errors.ShapeError, "nl.arange: step 0")
    n = len(range(start, stop, step))
    if n <= 0:
        raise error(_errors.ShapeError, f"nl.arange({start}, {stop}, {step}) is empty")
    return IndexExpr(start, {0: (n, step)}, None)


class _MGrid:
    """nl.mgrid[0:128, 0:512]: one expression per axis, as a tuple that also has the
    attributes p (axis 0) and x (axis 1) (and y, z for more axes)."""

    def __getitem__(self, key):
        if not isinstance(key, tuple):
            key = (key,)
        exprs = []
        for g, s in enumerate(key):
            if not isinstance(s, slice):
                raise error(UnsupportedError, "nl.mgrid takes slices: nl.mgrid[0:128, "
                            "0:512]", errno.ENOTSUP)
            a = arange(0 if s.start is None else s.start, s.stop,
                       1 if s.step is None else s.step)
            (n, k), = a.terms.values()
            exprs.append(IndexExpr(a.c, {g: (n, k)}, len(key)))
        return MGridResult(exprs)


class MGridResult(tuple):
    """The expressions of nl.mgrid, one per axis; .p, .x, .y, .z name them."""

    def __getattr__(self, name):
        i = {"p": 0, "x": 1, "y": 2, "z": 3}.get(name)
        if i is None or i >= len(self):
            raise AttributeError(name)
        return self[i]


mgrid = _MGrid()
