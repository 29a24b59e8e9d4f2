"""vneuron.nki.isa: each call is one instruction (TensorE's matmul: its LoadStationary +
MultiplyMoving pair) on the engine NKI names, or the one the caller picks; numerics
against NumPy."""

import inspect
import math

import numpy as np
import pytest

from vneuron import nki
import vneuron.nki.isa as nisa
import vneuron.nki.language as nl

RNG = np.random.default_rng(2026)
U = 2.0 ** -24


@pytest.fixture(autouse=True, scope="module")
def _close_devices():
    """Free the module's core for the other tests and processes (a run claims it)."""
    yield
    nki.close()


def rand(*shape, lo=-2.0, hi=2.0):
    return RNG.uniform(lo, hi, shape).astype(np.float32)


def run(f, *arrays, out_shape=None):
    """Trace and run a kernel: tiles = loads of arrays, out = f(*tiles) (copied to SBUF
    when it is in PSUM). Returns (result, compute entries [(engine, mnemonic)])."""
    def isa_kernel(*xs):
        tiles = [nl.load(x) for x in xs]
        r = f(*tiles)
        out = nl.ndarray(out_shape or r.shape, dtype=r.dtype, buffer=nl.shared_hbm)
        if r.buffer == 2:        # PSUM: a TensorE result
            r = nl.copy(r)       # psum copy
        nl.store(out, value=r)
        return out
    k = nki.jit(isa_kernel)
    res = k(*arrays)
    ents = [(s, m.split(".")[0]) for s, m, _, line, _ in k.trace(*arrays).entries()
            if not s.startswith("DMA") and m != "nop" and line != PSUM_COPY_LINE]
    return res, ents


_src, _first = inspect.getsourcelines(run)
PSUM_COPY_LINE = _first + next(i for i, ln in enumerate(_src) if "# psum copy" in ln)


def test_nc_matmul():
    st, mv = rand(128, 100), rand(128, 512)
    r, ents = run(nisa.nc_matmul, st, mv)
    ref = st.T.astype(np.float64) @ mv
    tol = 128 * U * (np.abs(st.T.astype(np.float64)) @ np.abs(mv))
    assert np.all(np.abs(r - ref) <= tol)
    assert ents == [("TensorE", "load_stationary"), ("TensorE", "multiply_moving")]


def test_nc_transpose():
    x = rand(128, 96)
    r, ents = run(nisa.nc_transpose, x)
    np.testing.assert_array_equal(r, x.T)
    assert ents == [("TensorE", "transpose")]


def tanh64(x):
    """libm's tanh element by element (NumPy's vectorised one fails in the QEMU guest)."""
    return np.frompyfunc(math.tanh, 1, 1)(x).astype(np.float64)


@pytest.mark.parametrize("op,ref", [(nl.exp, np.exp), (np.exp, np.exp),
                                    (nl.tanh, tanh64), (np.sqrt, np.sqrt)])
def test_activation_scale_bias(op, ref):
    x = rand(128, 64, lo=0.1, hi=2.0)
    r, ents = run(lambda t: nisa.activation(op, t, scale=0.5, bias=0.25), x)
    want = ref(x.astype(np.float64) * np.float32(0.5) + np.float32(0.25))
    np.testing.assert_allclose(r, want, rtol=2e-6)
    assert ents == [("ScalarE", "activate")]


def test_activation_bias_column():
    x, b = rand(128, 64), rand(128, 1)
    r, ents = run(lambda t, c: nisa.activation(nl.copy, t, bias=c, scale=2.0), x, b)
    np.testing.assert_array_equal(r, x * np.float32(2) + b)
    assert ents == [("ScalarE", "activate")]


@pytest.mark.parametrize("op,ref", [(nl.add, np.add), (np.subtract, np.subtract),
                                    (nl.multiply, np.multiply), (np.maximum, np.maximum),
                                    (nl.minimum, np.minimum), (np.divide, np.divide)])
def test_tensor_tensor(op, ref):
    x, y = rand(128, 80), rand(128, 80, lo=0.5, hi=2.0)
    r, ents = run(lambda a, b: nisa.tensor_tensor(a, b, op), x, y)
    np.testing.assert_array_equal(r, ref(x, y))
    assert ents == [("VectorE", "tensor_tensor")]


def test_tensor_tensor_on_gpsimd():
    x, y = rand(128, 80), rand(128, 80)
    r, ents = run(lambda a, b: nisa.tensor_tensor(a, b, np.add, engine=nisa.gpsimd_engine),
                  x, y)
    np.testing.assert_array_equal(r, x + y)
    assert ents == [("GpSimdE", "tensor_tensor")]


def test_tensor_scalar_one_and_two_ops():
    x, c = rand(128, 64), rand(128, 1, lo=1.0, hi=2.0)
    r, ents = run(lambda t: nisa.tensor_scalar(t, np.multiply, 3.0), x)
    np.testing.assert_array_equal(r, x * np.float32(3))
    assert ents == [("VectorE", "tensor_scalar")]
    r, ents = run(lambda t, k: nisa.tensor_scalar(t, np.subtract, k, reverse0=True,
                                                  op1=np.divide, operand1=4.0), x, c)
    np.testing.assert_array_equal(r, (c - x) / np.float32(4))
    assert ents == [("VectorE", "tensor_scalar"), ("VectorE", "tensor_scalar")]


@pytest.mark.parametrize("op,ref", [(np.add, None), (nl.max, np.max), (np.min, np.min)])
def test_tensor_reduce(op, ref):
    x = rand(128, 300)
    r, ents = run(lambda t: nisa.tensor_reduce(op, t, axis=[1], keepdims=True), x)
    want = np.cumsum(x, axis=1, dtype=np.float32)[:, -1:] if ref is None else \
        ref(x, axis=1, keepdims=True)
    np.testing.assert_array_equal(r, want)
    assert len(ents) == 1 and ents[0][0] == "VectorE" and ents[0][1].startswith("reduce")


def test_tensor_reduce_negate():
    x = rand(64, 32)
    r, ents = run(lambda t: nisa.tensor_reduce(np.max, t, axis=1, negate=True,
                                               keepdims=True), x)
    np.testing.assert_array_equal(r, -x.max(axis=1, keepdims=True))
    assert [e[0] for e in ents] == ["VectorE", "VectorE"]


def test_tensor_partition_reduce():
    x = rand(128, 40)
    r, ents = run(lambda t: nisa.tensor_partition_reduce(np.max, t), x)
    np.testing.assert_array_equal(r, x.max(axis=0, keepdims=True))
    assert ents == [("GpSimdE", "partition_reduce")]


def test_tensor_copy_engines():
    x = rand(128, 40)
    for eng, name in ((nisa.vector_engine, "VectorE"), (nisa.scalar_engine, "ScalarE"),
                      (nisa.gpsimd_engine, "GpSimdE")):
        def f(t):
            return nisa.tensor_copy(t, dtype=nl.bfloat16, engine=eng)
        r, ents = run(f, x)
        assert r.dtype == np.uint16
        assert ents == [(name, "copy")]


def test_iota():
    expr = 5 + 3 * nl.arange(128)[:, None] + 2 * nl.arange(64)[None, :]

    def f(t):
        return nisa.iota(expr, dtype=nl.float32)
    r, ents = run(f, rand(1, 1))
    want = 5 + 3 * np.arange(128)[:, None] + 2 * np.arange(64)[None, :]
    np.testing.assert_array_equal(r, want.astype(np.float32))
    assert ents == [("GpSimdE", "iota")]


def test_memset_engines():
    for eng, name in ((nisa.unknown_engine, "GpSimdE"), (nisa.vector_engine, "VectorE")):
        r, ents = run(lambda t: nisa.memset((128, 32), 4.5, nl.float32, engine=eng),
                      rand(1, 1))
        np.testing.assert_array_equal(r, np.full((128, 32), 4.5, np.float32))
        assert ents == [(name, "memset")]


def test_dma_copy_hbm_to_hbm_and_to_a_tile():
    @nki.jit
    def dk(x):
        out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
        out2 = nl.ndarray((64, 32), dtype=x.dtype, buffer=nl.shared_hbm)
        nisa.dma_copy(dst=out, src=x)
        t = nl.ndarray((64, 32), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[0:64, 0:32])
        nl.store(out2, value=t)
        return out, out2
    x = rand(128, 96)
    a, b = dk(x)
    np.testing.assert_array_equal(a, x)
    np.testing.assert_array_equal(b, x[:64, :32])
    dmas = [e for e in dk.trace(x).entries() if e[0].startswith("DMA")]
    assert [e[4] for e in dmas].count("dk/dma") == 2
