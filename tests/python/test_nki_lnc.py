"""vneuron.nki on a logical core (Device(host=True, model="trn2", lnc=2)): an SPMD launch
kernel[2] / kernel[nl.nc(2)] is one program whose two instances, one per physical core,
take their slices by DMA pid_stride; other grids, and one core, unroll. Results against
NumPy and the unrolled form; modeled times compared as a relation, never a value."""

import json

import numpy as np
import pytest

import vneuron
from vneuron import nki
from vneuron import _vneuron as _c
import vneuron.nki.language as nl
from vnpytest import needs_tools, run_tool


@pytest.fixture(scope="module")
def lnc2():
    with vneuron.Device(host=True, model="trn2", lnc=2) as d:
        yield d


@pytest.fixture(scope="module")
def lnc1():
    with vneuron.Device(host=True, model="trn2") as d:
        yield d


def exp_add_rows(a, b):
    """exp(a) + b, the rows split evenly between the programs of grid axis 0."""
    c = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    n = a.shape[0] // nl.num_programs(0)
    pid = nl.program_id(0)
    for i in nl.affine_range(n // 128):
        r = pid * n + i * 128
        x = nl.load(a[r:r + 128, :])
        y = nl.load(b[r:r + 128, :])
        nl.store(c[r:r + 128, :], value=nl.exp(x) + y)
    return c


def inputs(rows=1024, cols=512):
    a = np.random.default_rng(1).uniform(-1, 1, (rows, cols)).astype(np.float32)
    b = np.random.default_rng(2).uniform(-1, 1, (rows, cols)).astype(np.float32)
    return a, b


def expect(a, b):
    return np.exp(a.astype(np.float64)) + b


def launch(func, dev, grid, *args):
    """kernel[grid](*args) on dev: (result, Traced, modeled ns)."""
    k = nki.jit(func, device=dev)[grid]
    out = k(*args)
    return out, k.trace(*args), k.last_result.model_ns


def test_device_says_its_lnc(lnc1, lnc2):
    assert lnc1.lnc == 1 and lnc2.lnc == 2


@pytest.mark.parametrize("grid", [2, nl.nc(2)], ids=["2", "nc2"])
def test_two_instances_one_program(lnc1, lnc2, grid):
    """kernel[2] on LNC=2: one program of half the instructions, both halves of the
    output written; the same values as the unrolled form (one core), in less modeled
    time (the two cores in parallel)."""
    a, b = inputs()
    got, t, ns = launch(exp_add_rows, lnc2, grid, a, b)
    ref, tu, ns_u = launch(exp_add_rows, lnc1, grid, a, b)
    assert t.lnc == 2 and t.lnc_reason is None
    assert tu.lnc == 1 and "lnc=1" in tu.lnc_reason
    np.testing.assert_allclose(got, expect(a, b), rtol=2e-6, atol=1e-6)
    np.testing.assert_array_equal(got, ref)
    ops = [e[1] for e in t.entries()]
    assert ops.count("activate.exp") == 4
    assert [e[1] for e in tu.entries()].count("activate.exp") == 8
    assert "+pid*0x" in t.listing()
    assert ns < 0.75 * ns_u


def test_lnc_program_on_one_core_is_program_id_0(lnc1, lnc2):
    """The logical core's program run on one core does program 0's half only."""
    a, b = inputs()
    t = nki.jit(exp_add_rows, device=lnc2)[2].trace(a, b)
    out = lnc1.load(t.image).run({"a": a, "b": b}).outputs["out"]
    np.testing.assert_allclose(out[:512], expect(a[:512], b[:512]), rtol=2e-6, atol=1e-6)
    assert (out[512:] == 0).all()


def test_nc_axis_with_more_programs(lnc1, lnc2):
    """kernel[nl.nc(2), 2]: each physical core runs its two programs of axis 1
    (NKI's nl.nc: core c runs kernel[c, 0] and kernel[c, 1])."""
    def add_tiles(a, b):
        c = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        ox = nl.program_id(0) * 128
        oy = nl.program_id(1) * 256
        t = nl.load(a[ox:ox + 128, oy:oy + 256]) + nl.load(b[ox:ox + 128, oy:oy + 256])
        nl.store(c[ox:ox + 128, oy:oy + 256], value=t)
        return c
    a, b = inputs(256, 512)
    got, t, ns = launch(add_tiles, lnc2, (nl.nc(2), 2), a, b)
    ref, tu, ns_u = launch(add_tiles, lnc1, (nl.nc(2), 2), a, b)
    assert t.lnc == 2
    np.testing.assert_array_equal(got, a + b)
    np.testing.assert_array_equal(ref, a + b)
    assert [e[1] for e in t.entries()].count("tensor_tensor.add") == 2
    assert ns < ns_u


def test_grids_that_do_not_map_unroll(lnc2):
    """kernel[4] on LNC=2 and kernel[1, 2] keep the unrolled program (each instance
    then runs all of it, writing the same values), saying why."""
    a, b = inputs()
    got, t, _ = launch(exp_add_rows, lnc2, 4, a, b)
    assert t.lnc == 1 and "first axis is not 2" in t.lnc_reason
    np.testing.assert_allclose(got, expect(a, b), rtol=2e-6, atol=1e-6)
    got, t, _ = launch(exp_add_rows, lnc2, (1, 2), a, b)
    assert t.lnc == 1
    np.testing.assert_allclose(got, expect(a, b), rtol=2e-6, atol=1e-6)


def test_program_id_as_a_value_unrolls(lnc2):
    """A program id used as a number (a scalar operand) is not an HBM offset: the
    launch unrolls, with the same results as NumPy."""
    def scaled(a):
        c = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        pid = nl.program_id(0)
        x = nl.load(a[pid * 128:(pid + 1) * 128, :])
        nl.store(c[pid * 128:(pid + 1) * 128, :], value=nl.multiply(x, pid + 1.0))
        return c
    a, _ = inputs(256, 64)
    got, t, _ = launch(scaled, lnc2, 2, a)
    assert t.lnc == 1 and "more than the HBM offsets" in t.lnc_reason
    np.testing.assert_array_equal(got[:128], a[:128])
    np.testing.assert_array_equal(got[128:], a[128:] * 2)


def test_branch_on_program_id_unrolls(lnc2):
    """Programs that emit different instructions (a Python branch) unroll."""
    def branchy(a):
        c = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        pid = nl.program_id(0)
        x = nl.load(a[pid * 128:(pid + 1) * 128, :])
        if pid == 0:
            x = nl.exp(x)
        nl.store(c[pid * 128:(pid + 1) * 128, :], value=x)
        return c
    a, _ = inputs(256, 64)
    got, t, _ = launch(branchy, lnc2, 2, a)
    assert t.lnc == 1 and "different programs" in t.lnc_reason
    np.testing.assert_allclose(got[:128], np.exp(a[:128].astype(np.float64)), rtol=2e-6)
    np.testing.assert_array_equal(got[128:], a[128:])


def test_reversed_slices_unroll(lnc2):
    """Program 1's slice below program 0's has no (unsigned) pid_stride: unrolled."""
    def rev(a):
        c = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        q = 1 - nl.program_id(0)
        nl.store(c[q * 128:(q + 1) * 128, :], value=nl.load(a[q * 128:(q + 1) * 128, :]))
        return c
    a, _ = inputs(256, 64)
    got, t, _ = launch(rev, lnc2, 2, a)
    assert t.lnc == 1 and "below program 0's" in t.lnc_reason
    np.testing.assert_array_equal(got, a)


def test_scratch_hbm_unrolls(lnc2):
    """An nl.hbm scratch tensor would be one tensor for both cores: unrolled."""
    def via_scratch(a):
        c = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        s = nl.ndarray((128, 64), dtype=a.dtype, buffer=nl.hbm)
        pid = nl.program_id(0)
        nl.store(s, value=nl.load(a[pid * 128:(pid + 1) * 128, :]))
        nl.store(c[pid * 128:(pid + 1) * 128, :], value=nl.load(s))
        return c
    a, _ = inputs(256, 64)
    got, t, _ = launch(via_scratch, lnc2, 2, a)
    assert t.lnc == 1 and "scratch" in t.lnc_reason
    np.testing.assert_array_equal(got, a)


def test_trace_cache_keys_the_launch(lnc1, lnc2):
    """The same kernel and grid traced for one core and for a logical core: two
    programs in the cache."""
    a, b = inputs(256, 64)
    k = nki.jit(exp_add_rows)
    assert k[2].trace(a, b, lnc=2).lnc == 2
    assert k[2].trace(a, b).lnc == 1
    assert k.cache_info().currsize == 2


def test_nc_refusals():
    for bad in (0, -1, 1.5, True):
        with pytest.raises(nki.UnsupportedError, match="positive int"):
            nl.nc(bad)
    with pytest.raises(nki.UnsupportedError, match="first axis"):
        nki.jit(exp_add_rows)[2, nl.nc(2)]


def test_builder_pid_stride_checks():
    """pid_stride is for HBM endpoints and must keep program 1's slice in its tensor."""
    b = _c.Builder("p")
    x = b.input("x", _c.ND_FP32, (256, 64))
    y = b.output("y", _c.ND_FP32, (256, 64))
    t = b.tile(_c.ND_SBUF, "t", _c.ND_FP32, 128, 64)
    row = 64 * 4
    hx = (0, x, 0, 0, 0, 0, row, 0, 128 * row)
    tile = (1, t, 0, 0, 1, 0, 0, 0)
    b.dma(-1, row, 128, 1, hx, tile, "f.py", 1)
    with pytest.raises(vneuron.BuildError, match="pid_stride is for HBM"):
        b.dma(-1, row, 128, 1, hx, tile[:8] + (row,), "f.py", 2)
    with pytest.raises(vneuron.BuildError, match="program id 1's slice"):
        b.dma(-1, row, 128, 1, hx[:8] + (129 * row,), tile, "f.py", 3)


@needs_tools
def test_profile_groups_the_physical_cores(lnc2, tmp_path):
    """nki.profile of kernel[2] on a logical core: a profile whose logical-cores
    section puts both physical cores (program ids 0 and 1) under logical core 0."""
    a, b = inputs(512, 128)
    k = nki.profile(exp_add_rows, working_directory=tmp_path, device=lnc2)
    got = k[2](a, b)
    np.testing.assert_allclose(got, expect(a, b), rtol=2e-6, atol=1e-6)
    j = json.loads(run_tool("vneuron-profile", "view", "-n", str(tmp_path / "file.neff"),
                            "-s", str(tmp_path / "profile.ntff"),
                            "-f", "summary-json").stdout)
    assert j["logical_cores"] == [{"logical_core": 0, "lnc": 2, "cores": [0, 1]}]
    assert j["model"] == "trn2"
    # the program profiled is the logical core's (one per physical core), not unrolled
    lnc_image = nki.jit(exp_add_rows)[2].trace(a, b, lnc=2).image
    assert (tmp_path / "file.neff").read_bytes() == lnc_image


def test_benchmark_runs_the_logical_core_program(lnc1, lnc2, tmp_path):
    """nki.benchmark of kernel[2] on LNC=2 benchmarks the one program of both cores:
    its modeled latency is below the same benchmark's on one core."""
    import io
    a, b = inputs(512, 128)
    lat = {}
    for d in (lnc1, lnc2):
        k = nki.benchmark(exp_add_rows, warmup=1, iters=2, device=d)[2]
        k.out = io.StringIO()
        np.testing.assert_allclose(k(a, b), expect(a, b), rtol=2e-6, atol=1e-6)
        lat[d.lnc] = k.benchmark_result.nc_latency.get_latency_percentile(50)
    assert lat[2] < lat[1]


def test_builder_orders_per_instance():
    """Hazards between HBM transfers are per instance: two stores of disjoint slices
    (the same pid_stride) do not wait for each other, though together their instances
    cover both; a store without one that meets program 1's slice of another waits."""
    b = _c.Builder("p")
    x = b.input("x", _c.ND_FP32, (128, 64))
    y = b.output("y", _c.ND_FP32, (512, 64))
    t = b.tile(_c.ND_SBUF, "t", _c.ND_FP32, 128, 64)
    row = 64 * 4
    tile = (1, t, 0, 0, 1, 0, 0, 0)
    b.dma(0, row, 128, 1, (0, x, 0, 0, 0, 0, row, 0), tile, "f.py", 1)
    for q, first in ((1, 0), (2, 128)):
        b.dma(q, row, 128, 1, tile, (0, y, first * row, 0, 0, 0, row, 0, 256 * row),
              "f.py", 1 + q)
    b.dma(3, row, 128, 1, tile, (0, y, 256 * row, 0, 0, 0, row, 0), "f.py", 4)
    lines = [ln for ln in _c.vnef_dump(b.finish()).splitlines() if " dma " in ln]
    sem = {ln.split(";")[1].split()[0]: ln for ln in lines}
    load_sig = sem["f.py:1"].split("signal ")[1].split()[0]
    a_sig = sem["f.py:2"].split("signal ")[1].split()[0]
    assert "+pid*0x10000" in sem["f.py:2"] and "+pid*" not in sem["f.py:4"]
    assert f"wait {load_sig}>=1" in sem["f.py:3"]          # not after store A
    assert f"wait {a_sig}>=1" in sem["f.py:4"]             # after store A
