"""Every refusal of vneuron.nki: a vneuron.BuildError (an OSError with an errno) of a
clear class whose message starts with the kernel's file:line, and whose source_file and
source_line name that line."""

import errno
import inspect

import numpy as np
import pytest

import vneuron
from vneuron import nki
import vneuron.nki.isa as nisa
import vneuron.nki.language as nl

X = np.zeros((128, 64), np.float32)


@pytest.fixture(autouse=True, scope="module")
def _close_devices():
    """Free the module's core for the other tests and processes (a run claims it)."""
    yield
    nki.close()


def line_of(fn, needle):
    lines, start = inspect.getsourcelines(fn)
    for i, ln in enumerate(lines):
        if needle in ln:
            return start + i
    raise AssertionError(f"{needle!r} not in {fn.__name__}")


def refused(fn, cls, needle, words, *args, err=None):
    """Trace fn (wrapped in nki.jit) with args and check the error: its class, errno,
    the words of its message, and that it names the line of fn containing needle."""
    with pytest.raises(cls) as ei:
        nki.jit(fn).trace(*(args or (X,)))
    e = ei.value
    assert isinstance(e, vneuron.BuildError) and isinstance(e, OSError)
    line = line_of(fn, needle)
    assert e.source_file == __file__ and e.source_line == line, str(e)
    assert e.strerror.startswith(f"{__file__}:{line}: "), e.strerror
    for w in words:
        assert w in e.strerror, (w, e.strerror)
    if err is not None:
        assert e.errno == err
    return e


def test_partition_dimension_over_128():
    def k(x):
        t = nl.ndarray((256, 64), dtype=nl.float32, buffer=nl.sbuf)   # here
        return t
    refused(k, nki.ShapeError, "# here", ["partition dimension", "256", "1..128"])


def test_load_of_more_than_128_partitions():
    def k(x):
        return nl.load(x)                                             # here
    refused(k, nki.ShapeError, "# here", ["256", "pmax"], np.zeros((256, 8), np.float32))


def test_sbuf_overflow():
    def k(x):
        keep = []
        for i in range(8):
            keep.append(nl.ndarray((128, 8192), dtype=nl.float32))    # here
        return keep
    refused(k, nki.NkiError, "# here", ["out of SBUF", "largest free range"],
            err=errno.ENOSPC)


def test_psum_overflow():
    def k(x):
        keep = []
        for i in range(9):
            keep.append(nl.zeros((128, 512), nl.float32, buffer=nl.psum))   # here
        return keep
    refused(k, nki.NkiError, "# here", ["out of PSUM"], err=errno.ENOSPC)


def test_shape_mismatch_free():
    def k(x):
        a = nl.load(x[:, 0:32])
        b = nl.load(x[:, 0:16])
        return a + b                                                  # here
    refused(k, nki.ShapeError, "# here", ["shape mismatch", "[128, 32]", "[128, 16]"])


def test_shape_mismatch_partitions():
    def k(x):
        a = nl.load(x[0:64, :])
        b = nl.load(x)
        return nl.add(a, b)                                           # here
    refused(k, nki.ShapeError, "# here", ["64 and 128 partitions"])


def test_matmul_contraction_mismatch():
    def k(x):
        a = nl.load(x[:, 0:32])
        b = nl.load(x[0:64, :])
        return nl.matmul(a, b, transpose_x=True)                      # here
    refused(k, nki.ShapeError, "# here", ["contraction sizes 128 and 64 differ"])


def test_store_shape_and_dtype_mismatch():
    def k(x):
        out = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(out, value=nl.load(x[:, 0:32]))                      # here
        return out
    refused(k, nki.ShapeError, "# here", ["shape mismatch", "[128, 32]"])

    def k2(x):
        out = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(out, value=nl.copy(nl.load(x), dtype=nl.bfloat16))   # here
        return out
    refused(k2, nki.ShapeError, "# here", ["dtype mismatch", "bfloat16"])


def test_unsupported_language_call():
    def k(x):
        return nl.sin(nl.load(x))                                     # here
    refused(k, nki.UnsupportedError, "# here", ["nl.sin is not supported"],
            err=errno.ENOTSUP)


def test_unsupported_isa_call():
    def k(x):
        return nisa.affine_select(nl.load(x))                         # here
    refused(k, nki.UnsupportedError, "# here", ["nisa.affine_select is not supported"])


def test_unsupported_argument():
    def k(x):
        return nl.exp(nl.load(x), fast=True)                          # here
    refused(k, nki.UnsupportedError, "# here", ["nl.exp", "fast"])


def test_unsupported_dtype():
    def k(x):
        return nl.ndarray((128, 8), dtype=nl.int32)                   # here
    refused(k, nki.UnsupportedError, "# here", ["int32", "float32 and bfloat16"])


def test_load_does_not_convert():
    def k(x):
        return nl.load(x, dtype=nl.bfloat16)                          # here
    refused(k, nki.UnsupportedError, "# here", ["DMA does not convert"])


def test_non_affine_index():
    def k(x):
        i_p = nl.arange(128)[:, None]
        i_f = nl.arange(64)[None, :]
        return nl.load(x[i_p, i_f // 2])                              # here
    refused(k, nki.UnsupportedError, "# here", ["affine", "one access pattern"])

    def k2(x):
        i_p = nl.arange(128)[:, None]
        i_f = nl.arange(64)[None, :]
        return nl.load(x[i_p * i_f, i_f])                             # here
    refused(k2, nki.UnsupportedError, "# here", ["a product of two index expressions"])


def test_mask_that_is_not_a_rectangle():
    def k(x):
        i_p = nl.arange(128)[:, None]
        i_f = nl.arange(64)[None, :]
        return nl.load(x[i_p, i_f], mask=(i_p < 10) | (i_f < 3))      # here
    refused(k, nki.UnsupportedError, "# here", ["not a rectangle"])

    def k2(x):
        i_p = nl.arange(128)[:, None]
        i_f = nl.arange(64)[None, :]
        return nl.load(x[i_p, i_f], mask=(i_p < i_f))                 # here
    refused(k2, nki.UnsupportedError, "# here", ["not a rectangle"])


def test_index_outside_its_tensor_without_a_mask():
    def k(x):
        i_p = 1 * 128 + nl.arange(128)[:, None]
        i_f = nl.arange(64)[None, :]
        return nl.load(x[i_p, i_f])                                   # here
    refused(k, nki.ShapeError, "# here", ["outside its 200 elements", "mask"],
            np.zeros((200, 64), np.float32))


def test_tile_used_after_its_loop_iteration():
    def k(x):
        out = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
        for i in nl.affine_range(2):                                  # loop
            t = nl.load(x)                                            # made
        nl.store(out, value=t)                                        # here
        return out
    e = refused(k, nki.TileLifetimeError, "# here", ["is dead", "affine_range"])
    assert f":{line_of(k, '# made')}" in e.strerror      # the tile's line
    assert f":{line_of(k, '# loop')}" in e.strerror      # the loop's line


def test_temporary_read_after_its_target_was_overwritten():
    def k(x):
        t = nl.ndarray((128, 64), dtype=nl.float32)
        e = nl.exp(nl.load(x))
        t[...] = e
        t[...] = 0.0
        return e + 1.0                                                # here
    refused(k, nki.TileLifetimeError, "# here", ["overwritten", "nl.copy"])


def test_writing_an_input_tensor():
    def k(x):
        nl.store(x, value=nl.load(x))                                 # here
    refused(k, nki.NkiError, "# here", ["input tensor 'x'", "read-only"])


def test_tensor_engine_reads_sbuf_only():
    def k(x):
        p = nl.zeros((128, 64), nl.float32, buffer=nl.psum)
        return nl.matmul(p, nl.load(x), transpose_x=True)             # here
    refused(k, nki.NkiError, "# here", ["PSUM", "TensorE reads SBUF"])


def test_partial_reduction_unsupported():
    def k(x):
        t = nl.load(x.reshape((128, 4, 16)))
        return nl.sum(t, axis=1)                                      # here
    refused(k, nki.UnsupportedError, "# here", ["reduction over axes [1]"])


def test_returning_a_tile_or_an_input():
    def k(x):
        return nl.load(x)
    with pytest.raises(nki.UnsupportedError, match="returns a Tile"):
        nki.jit(k).trace(X)

    def k2(x):
        return x
    with pytest.raises(nki.UnsupportedError, match="returns input tensor 'x'"):
        nki.jit(k2).trace(X)


def test_float64_and_integer_arguments():
    def k(x):
        return None
    with pytest.raises(nki.UnsupportedError, match=r"float64 array.*astype\(numpy.float32\)"):
        nki.jit(k)(np.zeros((4, 4)))
    with pytest.raises(nki.UnsupportedError, match="int32 array"):
        nki.jit(k)(np.zeros((4, 4), np.int32))


def test_language_call_outside_a_kernel():
    with pytest.raises(nki.NkiError, match="outside a kernel") as ei:
        nl.exp(X)                                                     # outside
    assert ei.value.source_line == line_of(test_language_call_outside_a_kernel, "# outside")


def test_isa_engine_refused():
    def k(x):
        return nisa.tensor_tensor(nl.load(x), nl.load(x), nl.add,     # here
                                  engine=nisa.scalar_engine)
    refused(k, nki.UnsupportedError, "# here", ["tensor_tensor on engine 'scalar'"])


def test_isa_op_refused():
    def k(x):
        return nisa.tensor_scalar(nl.load(x), np.power, 2.0)          # here
    refused(k, nki.UnsupportedError, "# here", ["op0", "ALU"])


def test_jax_mode_refused():
    with pytest.raises(nki.UnsupportedError, match="NumPy arrays only"):
        nki.jit(mode="jax")


def test_errors_do_not_leave_a_trace_behind():
    """After a refused kernel, the next kernel traces normally."""
    def bad(x):
        return nl.sin(x)
    with pytest.raises(nki.UnsupportedError):
        nki.jit(bad).trace(X)

    @nki.jit
    def good(x):
        out = nl.ndarray(x.shape, dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(out, value=nl.load(x) + 1.0)
        return out
    np.testing.assert_array_equal(good(X), X + 1)


def test_objects_of_another_trace():
    """A tensor or tile kept from one trace is refused in the next."""
    kept = {}

    def first(x):
        kept["t"] = x
        kept["tile"] = nl.load(x)
        out = nl.ndarray(x.shape, dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(out, value=kept["tile"])
        return out
    nki.jit(first).trace(X)

    def second(x):
        return nl.load(kept["t"])                                     # here
    refused(second, nki.UnsupportedError, "# here", ["another kernel's trace"])

    def third(x):
        return nl.exp(kept["tile"])                                   # here
    refused(third, nki.UnsupportedError, "# here", ["another kernel's trace"])
