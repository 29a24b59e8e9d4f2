#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR MIT
"""The fp8 reference for tests/host/test_fp8.c, computed with NumPy independently of
core/vn_fp8.h.

Decoding uses the formats' definitions (sign, biased exponent, mantissa, specials) with
numpy.ldexp in float64; encoding picks, among every finite value of the format, the
nearest to the input by absolute difference (float64: exact for these), ties to the even
code, then applies the saturation and NaN rules of docs/isa.md ("Data types").

Output, one line each:
    D <format> <code> <fp32 bits, hex>     every code decoded (NaN: 7fc00000 and sign)
    E <format> <fp32 bits, hex> <code>     inputs encoded
Formats: e4m3 (AWS cFP8, IEEE-like, max 240), e5m2 (max 57344), e4m3fn (OCP, max 448).
"""

import sys

import numpy as np

FORMATS = {
    # name: (exponent bits, mantissa bits, bias, has infinity)
    "e4m3": (4, 3, 7, True),
    "e5m2": (5, 2, 15, True),
    "e4m3fn": (4, 3, 7, False),
}


def decode(fmt, code):
    """The float64 value of a code; NaN for a NaN code."""
    eb, mb, bias, has_inf = FORMATS[fmt]
    sign = -1.0 if code & 0x80 else 1.0
    e = (code >> mb) & ((1 << eb) - 1)
    m = code & ((1 << mb) - 1)
    emax = (1 << eb) - 1
    if e == emax and has_inf:
        return sign * np.inf if m == 0 else np.nan
    if e == emax and not has_inf and m == (1 << mb) - 1:
        return np.nan
    if e == 0:
        return sign * np.ldexp(float(m), 1 - bias - mb)
    return sign * np.ldexp(float((1 << mb) + m), e - bias - mb)


def f32_bits(x):
    return int(np.array([x], dtype=np.float32).view(np.uint32)[0])


def finite_codes(fmt):
    """(value, code) of every finite non-negative code, by value."""
    out = []
    for c in range(0x80):
        v = decode(fmt, c)
        if np.isfinite(v):
            out.append((v, c))
    return sorted(out)


def encode(fmt, x):
    """The code of float32 x (given as float64) by nearest-even and saturation."""
    _, _, _, has_inf = FORMATS[fmt]
    fin = finite_codes(fmt)
    vals = np.array([v for v, _ in fin])
    codes = np.array([c for _, c in fin])
    sign = 0x80 if np.signbit(x) else 0
    if np.isnan(x):
        return sign | 0x7F
    a = abs(x)
    if np.isinf(a):
        if has_inf:
            eb, mb, _, _ = FORMATS[fmt]
            return sign | (((1 << eb) - 1) << mb)
        return sign | int(codes[-1])
    if a >= vals[-1]:
        return sign | int(codes[-1])
    d = np.abs(vals - a)
    best = np.flatnonzero(d == d.min())
    pick = [int(codes[i]) for i in best]
    even = [c for c in pick if c % 2 == 0]
    return sign | (even[0] if even else pick[0])


def inputs(fmt):
    """Every code's value, the midpoints between neighbours and the fp32 values next to
    them, and the edges: saturation, infinities, NaN, zeros, tiny values."""
    fin = [v for v, _ in finite_codes(fmt)]
    xs = set()
    for v in fin:
        xs.add(v)
    ext = fin + [2 * fin[-1]]
    for lo, hi in zip(ext, ext[1:]):
        mid = (lo + hi) / 2
        m32 = np.float32(mid)
        xs.update([float(mid), float(np.nextafter(m32, np.float32(0))),
                   float(np.nextafter(m32, np.float32(np.inf)))])
    xs.update([fin[1] / 2, fin[1] / 4, fin[1] * 0.75, 1e-30, 1.4e-45, 1e30, 3.0e38,
               np.inf, np.nan])
    out = []
    for x in sorted(xs, key=lambda v: (np.isnan(v), v)):
        x32 = np.float32(x)
        out += [x32, -x32]
    return out


def main():
    w = sys.stdout.write
    for fmt in FORMATS:
        for code in range(256):
            v = decode(fmt, code)
            bits = f32_bits(v) if not np.isnan(v) else (0x7FC00000 | (code & 0x80) << 24)
            w("D %s %d %08x\n" % (fmt, code, bits))
        for x in inputs(fmt):
            w("E %s %08x %d\n" % (fmt, f32_bits(x), encode(fmt, float(x))))
        # every decoded code back (NaNs included)
        for code in range(256):
            v = decode(fmt, code)
            if np.isnan(v):
                x = np.float32(np.nan) * (-1 if code & 0x80 else 1)
                bits = 0x7FC00000 | (code & 0x80) << 24
            else:
                bits = f32_bits(v)
                x = np.float32(v)
            w("E %s %08x %d\n" % (fmt, bits, encode(fmt, float(x)) if not np.isnan(v)
                                  else (code & 0x80) | 0x7F))
    return 0


if __name__ == "__main__":
    sys.exit(main())
