"""vneuron.nki's tracer: the program a kernel becomes (its tensors, its entries' source
lines and scopes), tile lifetimes and the schedule they give, the trace cache."""

import inspect
import os
import sys

import numpy as np
import pytest

from vneuron import nki
import vneuron.nki.language as nl
from vneuron.nki.typing import tensor

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "python")
sys.path.insert(0, os.path.abspath(EXAMPLES))

import exp as exp_example  # noqa: E402
import exp_pipelined  # noqa: E402


@pytest.fixture(autouse=True, scope="module")
def _close_devices():
    """Free the module's core for the other tests and processes (a run claims it)."""
    yield
    nki.close()


def line_of(fn, needle):
    """The file line of the first source line of fn containing needle."""
    lines, start = inspect.getsourcelines(fn)
    for i, ln in enumerate(lines):
        if needle in ln:
            return start + i
    raise AssertionError(f"{needle!r} not in {fn.__name__}")


def exp_traced(kernel):
    return nki.jit(kernel.func).trace(tensor[[250, 512], nl.float32])


def test_exp_program_tensors_and_source_lines():
    """Every entry of the seed's exp kernel names exp.py and the line of the NKI call
    that made it, with the kernel's name as scope."""
    t = exp_traced(exp_example.tensor_exp_kernel_)
    assert [i[0] for i in t.inputs] == ["in_tensor"]
    assert [(o.name, o.shape) for o in t.outputs] == [("out", (250, 512))]
    f = exp_example.tensor_exp_kernel_.func
    want = {"load": line_of(f, "nl.load("), "exp": line_of(f, "nl.exp("),
            "store": line_of(f, "nl.store(")}
    ents = t.entries()
    assert ents
    for stream, mn, file, line, scope in ents:
        assert os.path.samefile(file, exp_example.__file__)
        op = scope.split("/")[1].split(".")[0]
        assert scope.startswith("tensor_exp_kernel_/")
        assert line == want[op], (stream, mn, line, scope)
    kinds = {(s.rstrip("0123456789"), m) for s, m, *_ in ents}
    assert ("ScalarE", "activate.exp") in kinds and ("DMA", "dma") in kinds
    # two tiles (250 rows): loads and stores spread over DMA queues, two exps
    assert sum(1 for e in ents if e[1] == "activate.exp") == 2


def test_naive_schedule_loads_wait_for_the_previous_tiles_compute():
    """Tiles die with their loop iteration: tile 1's load reuses tile 0's space, so it
    waits for tile 0's exp (ScalarE's semaphore s2); double-buffered, it does not."""
    naive = exp_traced(exp_example.tensor_exp_kernel_).listing()
    piped = exp_traced(exp_pipelined.tensor_exp_kernel_pipelined).listing()

    def loads(text):
        return [ln for ln in text.splitlines() if "/load" in ln and " dma " in ln]
    assert any("wait s2>=" in ln for ln in loads(naive))
    assert not any("wait s2>=" in ln for ln in loads(piped))
    assert all("SBUF[p" in ln for ln in loads(naive))


def test_pipelined_exp_is_faster_and_exact():
    x = np.random.default_rng(0).uniform(-4, 4, (250, 512)).astype(np.float32)
    kn = nki.jit(exp_example.tensor_exp_kernel_.func)
    kp = nki.jit(exp_pipelined.tensor_exp_kernel_pipelined.func)
    yn, yp = kn(x), kp(x)
    np.testing.assert_array_equal(yn, yp)
    np.testing.assert_allclose(yn, np.exp(x.astype(np.float64)), rtol=4e-7 * 5)
    assert kp.last_result.model_ns < kn.last_result.model_ns


def helper_scale(t):
    return nl.multiply(t, 3.0)                     # helper line


def outer_helper(t):
    return helper_scale(t) + 1.0                   # outer line


def scoped_kernel(x):
    out = nl.ndarray(x.shape, dtype=nl.float32, buffer=nl.shared_hbm)
    t = nl.load(x)
    nl.store(out, value=outer_helper(t))
    return out


def test_helper_functions_nest_as_scopes():
    t = nki.jit(scoped_kernel).trace(np.zeros((8, 8), np.float32))
    scopes = {(m, line, scope) for _, m, _, line, scope in t.entries()}
    assert ("tensor_scalar.mul", line_of(helper_scale, "helper line"),
            "scoped_kernel/outer_helper/helper_scale/mul") in scopes
    assert ("tensor_scalar.add", line_of(outer_helper, "outer line"),
            "scoped_kernel/outer_helper/add") in scopes
    assert ("dma", line_of(scoped_kernel, "nl.load("), "scoped_kernel/load") in scopes


def test_a_jit_kernel_called_inside_a_kernel_is_inlined():
    @nki.jit
    def inner(t):
        return nl.exp(t)

    def outer(x):
        out = nl.ndarray(x.shape, dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(out, value=inner(nl.load(x)))
        return out
    k = nki.jit(outer)
    x = np.random.default_rng(1).standard_normal((16, 16)).astype(np.float32)
    np.testing.assert_allclose(k(x), np.exp(x), rtol=2e-6)
    assert ("outer/inner/exp" in {e[4] for e in k.trace(x).entries()})


def test_cache_hits_and_misses():
    calls = []

    @nki.jit
    def ck(x, scale=2.0):
        calls.append(1)
        out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
        nl.store(out, value=nl.load(x) * scale)
        return out
    a = np.ones((4, 8), np.float32)
    np.testing.assert_array_equal(ck(a), 2 * a)
    assert ck.cache_info() == (0, 1, 1)
    ck(a + 1)                                    # same shape and dtype: a hit
    assert ck.cache_info() == (1, 1, 1) and len(calls) == 1
    ck(np.ones((4, 9), np.float32))              # another shape: a miss
    ck(np.ones((4, 8), np.uint16))               # another dtype (bf16): a miss
    np.testing.assert_array_equal(ck(a, scale=3.0), 3 * a)   # another constant: a miss
    assert ck.cache_info() == (1, 4, 4) and len(calls) == 4
    ck(a, 3.0)                                   # the same constant, positionally: a hit
    assert ck.cache_info().hits == 2
    ck.cache_clear()
    assert ck.cache_info() == (0, 0, 0)


def test_outputs_named_and_returned_in_order():
    @nki.jit
    def ok(x):
        a = nl.ndarray(x.shape, dtype=nl.float32, buffer=nl.shared_hbm)
        b = nl.ndarray(x.shape, dtype=nl.float32, buffer=nl.shared_hbm, name="twice")
        c = nl.ndarray(x.shape, dtype=nl.float32, buffer=nl.shared_hbm)
        t = nl.load(x)
        nl.store(a, value=t + 1.0)
        nl.store(b, value=t * 2.0)
        nl.store(c, value=t - 1.0)
        return c, a, b
    x = np.arange(16, dtype=np.float32).reshape(2, 8)
    c, a, b = ok(x)
    np.testing.assert_array_equal(a, x + 1)
    np.testing.assert_array_equal(b, x * 2)
    np.testing.assert_array_equal(c, x - 1)
    assert [o.name for o in ok.trace(x).outputs] == ["out2", "out", "twice"]


def test_list_return_and_reshaped_output():
    @nki.jit
    def rk(x):
        o = nl.ndarray((2, 8), dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(o, value=nl.load(x))
        return [o.reshape((16,))]
    x = np.arange(16, dtype=np.float32).reshape(2, 8)
    r = rk(x)
    assert isinstance(r, list) and r[0].shape == (16,)
    np.testing.assert_array_equal(r[0], x.ravel())


def test_varargs_inputs_and_constants():
    @nki.jit
    def vk(*xs, bias=0.5):
        out = nl.ndarray(xs[0].shape, dtype=nl.float32, buffer=nl.shared_hbm)
        acc = nl.load(xs[0])
        for x in xs[1:]:
            acc = acc + nl.load(x)
        nl.store(out, value=acc + bias)
        return out
    a, b, c = (np.full((4, 4), v, np.float32) for v in (1, 2, 3))
    np.testing.assert_array_equal(vk(a, b, c), a + b + c + 0.5)
    assert [i[0] for i in vk.trace(a, b, c).inputs] == ["xs0", "xs1", "xs2"]


def test_tiles_outside_loops_die_with_their_python_object():
    """A tile whose Python object is gone gives its space back: the next tile takes it
    (both loads write SBUF offset 0)."""
    @nki.jit
    def dk(x):
        out = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
        a = nl.load(x[0])
        nl.store(out, value=a)
        del a
        b = nl.load(x[1])
        nl.store(out, value=b)
        return out
    x = np.random.default_rng(2).standard_normal((2, 128, 64)).astype(np.float32)
    np.testing.assert_array_equal(dk(x), x[1])
    loads = [ln for ln in dk.trace(x).listing().splitlines() if "/load" in ln]
    assert len(loads) == 2 and all("]+0x0{" in ln.split("->")[1] for ln in loads)


def test_assignment_writes_in_place_without_a_copy():
    """t[...] = nl.exp(x) is one instruction writing t (no copy)."""
    @nki.jit
    def ak(x):
        out = nl.ndarray(x.shape, dtype=nl.float32, buffer=nl.shared_hbm)
        t = nl.ndarray(x.shape, dtype=nl.float32, buffer=nl.sbuf)
        e = nl.exp(nl.load(x))
        t[...] = e
        nl.store(out, value=t)
        nl.store(out, value=e)          # e is t now: no extra work either
        return out
    x = np.random.default_rng(3).standard_normal((32, 32)).astype(np.float32)
    np.testing.assert_allclose(ak(x), np.exp(x), rtol=2e-6)
    mns = [m for _, m, *_ in ak.trace(x).entries()]
    assert "copy" not in mns and mns.count("activate.exp") == 1


def test_simulate_runs_on_the_host_backend():
    x = np.random.default_rng(4).standard_normal((250, 512)).astype(np.float32)
    y = nki.simulate(exp_example.tensor_exp_kernel_)(x)
    np.testing.assert_allclose(y, np.exp(x.astype(np.float64)), rtol=2e-6)
    y2 = nki.simulate_kernel(exp_example.tensor_exp_kernel_.func, x)
    np.testing.assert_array_equal(y, y2)


def test_placeholder_arguments_run_on_random_inputs():
    k = nki.jit(exp_example.tensor_exp_kernel_.func)
    y = k(tensor[[130, 64], nl.float32])
    assert y.shape == (130, 64) and np.all(y > 0)


def test_program_listing_validates():
    t = exp_traced(exp_example.tensor_exp_kernel_)
    assert t.listing().startswith('program "tensor_exp_kernel_"')


@pytest.mark.parametrize("rows", [1, 127, 128, 129, 300])
def test_exp_any_row_count(rows):
    k = nki.jit(exp_example.tensor_exp_kernel_.func)
    x = np.random.default_rng(rows).uniform(-3, 3, (rows, 96)).astype(np.float32)
    np.testing.assert_allclose(k(x), np.exp(x.astype(np.float64)), rtol=2e-6)


def test_results_assigned_into_disjoint_parts_stay_readable():
    """Two results written into different halves of one tile: writing the second half
    does not make the first result stale."""
    @nki.jit
    def hk(x):
        out = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
        t = nl.ndarray((128, 64), dtype=nl.float32)
        a = nl.load(x)
        e = nl.exp(a)
        t[:, 0:32] = e
        t[:, 32:64] = nl.exp(a * 2.0)
        nl.store(out[:, 0:32], value=e + 1.0)     # e still stands for t[:, 0:32]
        nl.store(out[:, 32:64], value=t[:, 32:64])
        return out
    x = np.random.default_rng(5).uniform(-1, 1, (128, 32)).astype(np.float32)
    got = hk(x)
    np.testing.assert_allclose(got[:, :32], np.exp(x.astype(np.float64)) + 1, rtol=2e-6)
    np.testing.assert_allclose(got[:, 32:], np.exp(2 * x.astype(np.float64)), rtol=2e-6)


def test_spmd_launch_grid():
    """kernel[gx, gy](...): one program per grid point, nl.program_id() each's place,
    the nl.shared_hbm output shared (NKI's tensor add tutorial launches so)."""
    @nki.jit
    def add_tiles(a, b):
        c = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        ox = nl.program_id(0) * 128
        oy = nl.program_id(1) * 256
        ix = ox + nl.arange(128)[:, None]
        iy = oy + nl.arange(256)[None, :]
        t = nl.load(a[ix, iy]) + nl.load(b[ix, iy])
        nl.store(c[ix, iy], value=t)
        assert nl.num_programs() == nl.num_programs(0) * nl.num_programs(1)
        assert nl.num_programs((0, 1)) == (a.shape[0] // 128, a.shape[1] // 256)
        assert nl.program_ndim() == 2
        return c
    a = np.random.default_rng(8).standard_normal((256, 512)).astype(np.float32)
    b = np.random.default_rng(9).standard_normal((256, 512)).astype(np.float32)
    np.testing.assert_array_equal(add_tiles[2, 2](a, b), a + b)
    t = add_tiles[2, 2].trace(a, b)
    assert [o.name for o in t.outputs] == ["out"]
    assert sum(1 for e in t.entries() if e[1].startswith("tensor_tensor")) == 4
    assert add_tiles.cache_info().currsize == 1
    np.testing.assert_array_equal(add_tiles[1, 2](a[:128], b[:128]), a[:128] + b[:128])
    assert add_tiles.cache_info().currsize == 2
