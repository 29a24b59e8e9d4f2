"""vneuron.nki.language, call by call, against NumPy.

Each test traces a small NKI kernel, runs it on vneuron.Device() (the host backend in the
host phase, the module in the guest) and compares with NumPy: exactly where the device
computes exactly what NumPy does in float32 (add, subtract, multiply, divide, max, min,
negative, copies, transposes, left-to-right sums), else within the documented
tolerance (docs/python.md, "Numerics").
"""

import math

import numpy as np
import pytest

import vneuron
from vneuron import nki
import vneuron.nki.language as nl

RNG = np.random.default_rng(26)
U = 2.0 ** -24


def tanh64(x):
    """tanh in float64 through libm, element by element: NumPy's vectorised float64 tanh
    (its AVX-512 path) returns garbage in the QEMU guest the tests also run in."""
    return np.frompyfunc(math.tanh, 1, 1)(x).astype(np.float64)


@pytest.fixture(autouse=True, scope="module")
def _close_devices():
    """Free the module's core for the other tests and processes (a run claims it)."""
    yield
    nki.close()


def rand(*shape, lo=-2.0, hi=2.0):
    return RNG.uniform(lo, hi, shape).astype(np.float32)


def unary(f):
    """A kernel: load x whole, out = f(tile), store."""
    def unary_kernel(x):
        out = nl.ndarray(x.shape, dtype=nl.float32, buffer=nl.shared_hbm)
        t = nl.load(x)
        nl.store(out, value=f(t))
        return out
    return nki.jit(unary_kernel)


def binary(f, yshape=None):
    def binary_kernel(x, y):
        out = nl.ndarray(x.shape, dtype=nl.float32, buffer=nl.shared_hbm)
        a = nl.load(x)
        b = nl.load(y)
        nl.store(out, value=f(a, b))
        return out
    return nki.jit(binary_kernel)


def bf16(a):
    """float32 -> bf16 bit patterns, the device's rounding (nearest even)."""
    return vneuron.bf16_from_float32(np.ascontiguousarray(a, np.float32))


def f32(h):
    return vneuron.bf16_to_float32(h)


def test_bf16_helpers_round_to_nearest_even():
    """The package's conversions are the rounding the tests expect of the device."""
    a = rand(64, 64, lo=-1000, hi=1000)
    u = a.view(np.uint32)
    want = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    np.testing.assert_array_equal(bf16(a), want)
    np.testing.assert_array_equal(f32(want), (want.astype(np.uint32) << 16).view(np.float32))


# -- elementwise, exact -------------------------------------------------------------

@pytest.mark.parametrize("name,ref", [
    ("add", np.add), ("subtract", np.subtract), ("multiply", np.multiply),
    ("divide", np.divide), ("maximum", np.maximum), ("minimum", np.minimum)])
def test_binary_calls_exact(name, ref):
    x, y = rand(128, 256), rand(128, 256, lo=0.5, hi=3.0)
    k = binary(getattr(nl, name))
    np.testing.assert_array_equal(k(x, y), ref(x, y))


@pytest.mark.parametrize("op,ref", [
    (lambda a, b: a + b, np.add), (lambda a, b: a - b, np.subtract),
    (lambda a, b: a * b, np.multiply), (lambda a, b: a / b, np.divide)])
def test_operators_exact(op, ref):
    x, y = rand(64, 100), rand(64, 100, lo=0.5, hi=3.0)
    np.testing.assert_array_equal(binary(op)(x, y), ref(x, y))


@pytest.mark.parametrize("op,ref", [
    (lambda t: t + 3.0, lambda x: x + np.float32(3)),
    (lambda t: 3.0 - t, lambda x: np.float32(3) - x),
    (lambda t: t * 0.5, lambda x: x * np.float32(0.5)),
    (lambda t: 1.5 / t, lambda x: np.float32(1.5) / x),
    (lambda t: -t, np.negative), (nl.negative, np.negative),
    (lambda t: nl.maximum(t, 0.25), lambda x: np.maximum(x, np.float32(0.25)))])
def test_scalar_broadcast_exact(op, ref):
    x = rand(128, 64, lo=0.5, hi=4.0)
    np.testing.assert_array_equal(unary(op)(x), ref(x))


def test_column_broadcast_exact():
    """A [P, 1] tile broadcasts along the free axis, on either side of the operator."""
    x, c = rand(128, 300), rand(128, 1, lo=0.5, hi=2.0)
    np.testing.assert_array_equal(binary(lambda a, b: a - b)(x, c), x - c)
    np.testing.assert_array_equal(binary(lambda a, b: b / a)(x + 3, c), c / (x + 3))
    np.testing.assert_array_equal(binary(nl.multiply)(x, c), x * c)


def test_free_axis_broadcast_of_3d_tiles():
    """[P, 4, 1] against [P, 4, 64]: a stride-0 source, one tensor_tensor."""
    def k3(x, y):
        out = nl.ndarray(x.shape, dtype=nl.float32, buffer=nl.shared_hbm)
        a = nl.load(x)
        b = nl.load(y)
        nl.store(out, value=a + b)
        return out
    x, y = rand(32, 4, 64), rand(32, 4, 1)
    np.testing.assert_array_equal(nki.jit(k3)(x, y), x + y)


# -- activations (ScalarE) ------------------------------------------------------------

@pytest.mark.parametrize("name,ref,lo,hi,rtol", [
    ("exp", np.exp, -8, 8, 4e-7 * 5), ("log", np.log, 0.01, 100, 2e-6),
    ("tanh", tanh64, -4, 4, 2e-6), ("sigmoid", lambda x: 1 / (1 + np.exp(-x)), -8, 8, 2e-6),
    ("relu", lambda x: np.maximum(x, 0), -2, 2, 0),
    ("sqrt", np.sqrt, 0.01, 100, 2e-6), ("rsqrt", lambda x: 1 / np.sqrt(x), 0.01, 100, 2e-6),
    ("reciprocal", lambda x: 1 / x, 0.01, 100, 2e-6), ("square", np.square, -8, 8, 0),
    ("gelu", lambda x: 0.5 * x * (1 + tanh64(0.7978845608 * (x + 0.044715 * x ** 3))),
     -4, 4, 2e-6)])
def test_activations(name, ref, lo, hi, rtol):
    x = rand(128, 512, lo=lo, hi=hi)
    got = unary(getattr(nl, name))(x)
    want = ref(x.astype(np.float64))
    if rtol == 0:
        np.testing.assert_array_equal(got, want.astype(np.float32))
    else:
        np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-6 if name == "gelu" else 0)


# -- reductions -------------------------------------------------------------------------

def _seq_sum(x):
    """float32 sums left to right, as VectorE adds."""
    return np.cumsum(x, axis=1, dtype=np.float32)[:, -1:]


@pytest.mark.parametrize("axis", [1, [1], (1,), -1])
def test_sum_exact_left_to_right(axis):
    x = rand(128, 512)
    k = nki.jit(_reduce_kernel(lambda t: nl.sum(t, axis=axis, keepdims=True)))
    np.testing.assert_array_equal(k(x), _seq_sum(x))


def _reduce_kernel(f, shape=None):
    def reduce_kernel(x):
        t = nl.load(x)
        r = f(t)
        out = nl.ndarray(shape or r.shape, dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(out, value=r)
        return out
    return reduce_kernel


@pytest.mark.parametrize("name,ref", [("max", np.max), ("min", np.min)])
def test_max_min_exact(name, ref):
    x = rand(100, 333)
    k = nki.jit(_reduce_kernel(lambda t: getattr(nl, name)(t, axis=1, keepdims=True)))
    np.testing.assert_array_equal(k(x), ref(x, axis=1, keepdims=True))


def test_mean_is_sum_times_reciprocal():
    x = rand(128, 200)
    k = nki.jit(_reduce_kernel(lambda t: nl.mean(t, axis=1, keepdims=True)))
    np.testing.assert_array_equal(k(x), _seq_sum(x) * np.float32(1.0 / 200))


def test_reduce_without_keepdims_is_one_dimensional():
    x = rand(64, 32)
    k = nki.jit(_reduce_kernel(lambda t: nl.sum(t, axis=1)))
    out = k(x)
    assert out.shape == (64,)
    np.testing.assert_array_equal(out, _seq_sum(x)[:, 0])


def test_reduce_over_3d_free_axes():
    x = rand(32, 4, 50)
    k = nki.jit(_reduce_kernel(lambda t: nl.max(t, axis=[1, 2], keepdims=True)))
    np.testing.assert_array_equal(k(x), x.max(axis=(1, 2), keepdims=True))


def test_sum_over_partitions():
    x = rand(128, 96)
    k = nki.jit(_reduce_kernel(lambda t: nl.sum(t, axis=0)))
    want = np.cumsum(x, axis=0, dtype=np.float32)[-1:, :]
    np.testing.assert_array_equal(k(x), want)


# -- TensorE ---------------------------------------------------------------------------

def _mm_tol(a, b):
    k = a.shape[-1]
    return k * U * (np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64)))


def test_matmul_transpose_x():
    a_t, b = rand(128, 96), rand(128, 400)          # a_t is [K, M]

    def mm(x, y):
        out = nl.ndarray((96, 400), dtype=nl.float32, buffer=nl.shared_hbm)
        r = nl.matmul(nl.load(x), nl.load(y), transpose_x=True)
        nl.store(out, value=nl.copy(r))
        return out
    got = nki.jit(mm)(a_t, b)
    ref = a_t.T.astype(np.float64) @ b
    assert np.all(np.abs(got - ref) <= _mm_tol(a_t.T, b))


def test_matmul_transposes_x_itself():
    a, b = rand(64, 128), rand(128, 200)             # a is [M, K]

    def mm(x, y):
        out = nl.ndarray((64, 200), dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(out, value=nl.copy(nl.matmul(nl.load(x), nl.load(y))))
        return out
    k = nki.jit(mm)
    got = k(a, b)
    assert np.all(np.abs(got - a.astype(np.float64) @ b) <= _mm_tol(a, b))
    ops = [(s, m) for s, m, *_ in k.trace(a, b).entries() if s == "TensorE"]
    assert ("TensorE", "transpose") in ops and ("TensorE", "multiply_moving") in ops


def test_psum_accumulation_with_iadd():
    a_t, b = rand(384, 128), rand(384, 512)

    def mm(x, y):
        out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
        acc = nl.zeros((128, 512), nl.float32, buffer=nl.psum)
        for k in nl.affine_range(3):
            acc += nl.matmul(nl.load(x[k * 128:(k + 1) * 128, :]),
                             nl.load(y[k * 128:(k + 1) * 128, :]), transpose_x=True)
        nl.store(out, value=nl.copy(acc))
        return out
    k = nki.jit(mm)
    got = k(a_t, b)
    assert np.all(np.abs(got - a_t.T.astype(np.float64) @ b) <= _mm_tol(a_t.T, b))
    ents = k.trace(a_t, b).entries()
    # nl.zeros emitted no memset: the first += overwrote the whole PSUM tile
    assert not [e for e in ents if e[1] == "memset"]
    assert sum(1 for e in ents if e[1] == "multiply_moving") == 3


def test_transpose_exact():
    x = rand(100, 70)

    def tk(x):
        out = nl.ndarray((70, 100), dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(out, value=nl.copy(nl.transpose(nl.load(x))))
        return out
    np.testing.assert_array_equal(nki.jit(tk)(x), x.T)


# -- creation, copies, dtypes -------------------------------------------------------------

def test_zeros_full_ones_empty_like():
    def ck(x):
        o1 = nl.ndarray(x.shape, dtype=nl.float32, buffer=nl.shared_hbm)
        o2 = nl.ndarray(x.shape, dtype=nl.float32, buffer=nl.shared_hbm)
        o3 = nl.ndarray(x.shape, dtype=nl.float32, buffer=nl.shared_hbm)
        t = nl.load(x)
        z = nl.zeros(x.shape, nl.float32)
        f = nl.full(x.shape, 2.5, nl.float32)
        e = nl.empty_like(t)
        e[...] = t * 2.0
        nl.store(o1, value=z + t)
        nl.store(o2, value=f)
        nl.store(o3, value=e)
        return o1, o2, o3
    x = rand(16, 8)
    a, b, c = nki.jit(ck)(x)
    np.testing.assert_array_equal(a, x)
    np.testing.assert_array_equal(b, np.full_like(x, 2.5))
    np.testing.assert_array_equal(c, x * 2)


def test_copy_to_bfloat16_rounds_to_nearest_even():
    def ck(x):
        out = nl.ndarray(x.shape, dtype=nl.bfloat16, buffer=nl.shared_hbm)
        nl.store(out, value=nl.copy(nl.load(x), dtype=nl.bfloat16))
        return out
    x = rand(128, 64, lo=-100, hi=100)
    got = nki.jit(ck)(x)
    assert got.dtype == np.uint16
    np.testing.assert_array_equal(got, bf16(x))


def test_bfloat16_inputs_and_arithmetic():
    """bf16 crosses as uint16 bit patterns; the engines widen to fp32 and round once."""
    a, b = bf16(rand(128, 128)), bf16(rand(128, 128))

    def bk(x, y):
        out = nl.ndarray(x.shape, dtype=nl.bfloat16, buffer=nl.shared_hbm)
        nl.store(out, value=nl.add(nl.load(x), nl.load(y), dtype=nl.bfloat16))
        return out
    k = nki.jit(bk)
    np.testing.assert_array_equal(k(a, b), bf16(f32(a) + f32(b)))
    assert k.trace(a, b).inputs[0][1] is nl.bfloat16


def test_bfloat16_matmul_accumulates_in_fp32():
    a_t, b = bf16(rand(128, 64)), bf16(rand(128, 256))

    def mm(x, y):
        out = nl.ndarray((64, 256), dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(out, value=nl.copy(nl.matmul(nl.load(x), nl.load(y), transpose_x=True)))
        return out
    got = nki.jit(mm)(a_t, b)
    fa, fb = f32(a_t).T, f32(b)
    assert np.all(np.abs(got - fa.astype(np.float64) @ fb) <= _mm_tol(fa, fb))


# -- indexing, masks, tile methods --------------------------------------------------------

def test_masked_tail_tiles_leave_the_rest_alone():
    """A tensor of 300 rows in tiles of 128: the third tile is masked to 44 rows; the
    output rows beyond them keep what was stored there before (-1)."""
    def mk(x):
        out = nl.ndarray((384, 64), dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(out[256:384, :], value=nl.full((128, 64), -1.0, nl.float32))
        i_p = nl.arange(128)[:, None]
        i_f = nl.arange(64)[None, :]
        for t in nl.affine_range(3):
            r = t * 128 + i_p
            tile = nl.load(x[r, i_f], mask=(r < 300))
            nl.store(out[r, i_f], value=tile * 2.0, mask=(r < 300))
        return out
    x = rand(300, 64)
    got = nki.jit(mk)(x)
    np.testing.assert_array_equal(got[:300], x * 2)
    np.testing.assert_array_equal(got[300:], -1)


def test_mask_on_the_free_axis_and_combined():
    def mk(x):
        out = nl.ndarray((128, 100), dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(out, value=nl.full((128, 100), -1.0, nl.float32))
        ip, jf = nl.mgrid[0:128, 0:128]
        tile = nl.load(x[ip, jf], mask=(jf < 100) & (ip < 120))
        nl.store(out[ip, jf], value=tile, mask=(jf < 100) & (ip < 120))
        return out
    x = rand(128, 100)
    got = nki.jit(mk)(x)
    np.testing.assert_array_equal(got[:120], x[:120])
    np.testing.assert_array_equal(got[120:], -1)


def test_mgrid_attributes_and_strided_index():
    def sk(x):
        out = nl.ndarray((64, 32), dtype=nl.float32, buffer=nl.shared_hbm)
        g = nl.mgrid[0:64, 0:32]
        tile = nl.load(x[2 * g.p + 1, g.x * 3])     # every other row, every third column
        nl.store(out, value=tile)
        return out
    x = rand(128, 96)
    np.testing.assert_array_equal(nki.jit(sk)(x), x[1::2, ::3])


def test_slices_ints_and_ds():
    def sk(x):
        out = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
        a = nl.load(x[1, 0:128, nl.ds(64, 64)])
        nl.store(out[:, :], value=a)
        return out
    x = rand(2, 128, 128)
    np.testing.assert_array_equal(nki.jit(sk)(x), x[1, :, 64:])


def test_tile_slices_reshape_and_broadcast_to():
    def tk(x, v):
        out = nl.ndarray((128, 256), dtype=nl.float32, buffer=nl.shared_hbm)
        t = nl.load(x).reshape((128, 2, 128))
        c = nl.load(v.reshape((1, 128)).broadcast_to((128, 128)))
        r = nl.ndarray((128, 2, 128), dtype=nl.float32)
        r[:, 0, :] = t[:, 1, :] + c
        r[:, 1, :] = t[:, 0, :] - c
        nl.store(out, value=r.reshape((128, 256)))
        return out
    x, v = rand(128, 256), rand(128)
    got = nki.jit(tk)(x, v)
    np.testing.assert_array_equal(got[:, :128], x[:, 128:] + v)
    np.testing.assert_array_equal(got[:, 128:], x[:, :128] - v)


def test_column_broadcast_to():
    def bk(x):
        out = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
        c = nl.load(x)
        nl.store(out, value=c.broadcast_to((128, 64)) * 1.0)
        return out
    x = rand(128, 1)
    np.testing.assert_array_equal(nki.jit(bk)(x), np.broadcast_to(x, (128, 64)))


def test_setitem_scalar_and_iadd_on_sbuf():
    def sk(x):
        out = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
        t = nl.load(x)
        t[:, 0:8] = 7.0
        t[...] += 1.0
        t *= 2.0
        nl.store(out, value=t)
        return out
    x = rand(128, 64)
    want = x.copy()
    want[:, :8] = 7
    np.testing.assert_array_equal(nki.jit(sk)(x), (want + 1) * 2)


def test_loops_sequential_and_static_range():
    def lk(x):
        out = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
        acc = nl.zeros((128, 64), nl.float32)
        for i in nl.sequential_range(3):
            acc[...] = acc + nl.load(x[i])
        for _ in nl.static_range(2):
            acc[...] = acc * 0.5
        nl.store(out, value=acc)
        return out
    x = rand(3, 128, 64)
    want = ((np.float32(0) + x[0]) + x[1] + x[2]) * np.float32(0.5) * np.float32(0.5)
    np.testing.assert_array_equal(nki.jit(lk)(x), want)


def test_tile_size_constants_are_the_device_models():
    assert nl.tile_size.pmax == 128
    assert nl.tile_size.psum_fmax == 512
    assert nl.tile_size.gemm_stationary_fmax == 128
    assert nl.tile_size.gemm_moving_fmax == 512


def test_zeros_then_partial_write_keeps_the_zeros():
    def zk(x):
        out = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
        z = nl.zeros((128, 64), nl.float32)
        z[:, 0:8] = nl.load(x)
        nl.store(out, value=z)
        return out
    x = rand(128, 8)
    want = np.zeros((128, 64), np.float32)
    want[:, :8] = x
    np.testing.assert_array_equal(nki.jit(zk)(x), want)


def test_full_psum_then_matmul_accumulates_onto_the_fill():
    a_t, b = rand(128, 64), rand(128, 128)

    def fk(x, y):
        out = nl.ndarray((64, 128), dtype=nl.float32, buffer=nl.shared_hbm)
        acc = nl.full((64, 128), 1.0, nl.float32, buffer=nl.psum)
        acc[...] += nl.matmul(nl.load(x), nl.load(y), transpose_x=True)
        nl.store(out, value=nl.copy(acc))
        return out
    k = nki.jit(fk)
    got = k(a_t, b)
    ref = 1.0 + a_t.T.astype(np.float64) @ b
    assert np.all(np.abs(got - ref) <= _mm_tol(a_t.T, b) + U * np.abs(ref))
    assert [m for _, m, *_ in k.trace(a_t, b).entries()].count("memset") == 1


def test_zeros_psum_subscript_iadd_needs_no_memset():
    a_t, b = rand(128, 64), rand(128, 128)

    def zk(x, y):
        out = nl.ndarray((64, 128), dtype=nl.float32, buffer=nl.shared_hbm)
        acc = nl.zeros((64, 128), nl.float32, buffer=nl.psum)
        acc[...] += nl.matmul(nl.load(x), nl.load(y), transpose_x=True)
        nl.store(out, value=nl.copy(acc))
        return out
    k = nki.jit(zk)
    got = k(a_t, b)
    assert np.all(np.abs(got - a_t.T.astype(np.float64) @ b) <= _mm_tol(a_t.T, b))
    assert "memset" not in [m for _, m, *_ in k.trace(a_t, b).entries()]


def test_one_partition_tile_broadcast_to_every_partition():
    """NKI's RMSNorm tutorial loads its weight to one partition and broadcasts it: one
    SBUF-to-SBUF DMA reading that partition 128 times."""
    def bk(x, g):
        out = nl.ndarray(x.shape, dtype=nl.float32, buffer=nl.shared_hbm)
        g_tile = nl.load(g.reshape((1, g.shape[0]))[nl.arange(1)[:, None],
                                                    nl.arange(g.shape[0])[None, :]])
        gb = g_tile.broadcast_to((128, g.shape[0]))
        nl.store(out, value=nl.multiply(nl.load(x), gb))
        return out
    x, g = rand(128, 96), rand(96)
    k = nki.jit(bk)
    np.testing.assert_array_equal(k(x, g), x * g)
    dmas = [e[4] for e in k.trace(x, g).entries() if e[0].startswith("DMA")]
    assert sorted(dmas) == ["bk/dma", "bk/load", "bk/load", "bk/store"]
