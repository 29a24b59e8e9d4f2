"""examples/python: every NKI example against NumPy, and the seed's workflow end to end:
`python3 exp.py` writes the program and the profile under the names it gives, and the
profile flags that DMA never overlaps compute (the double-buffered kernel does not)."""

import errno
import inspect
import io
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import vneuron
from vneuron import nki
import vneuron.nki.language as nl
from vneuron.nki.typing import tensor

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
EXAMPLES = os.path.join(TOP, "examples", "python")
sys.path.insert(0, EXAMPLES)

import attention  # noqa: E402
import exp  # noqa: E402
import exp_pipelined  # noqa: E402
import matmul  # noqa: E402
import rmsnorm  # noqa: E402
import softmax  # noqa: E402
import tensor_add  # noqa: E402
import tensor_add_lnc  # noqa: E402

RNG = np.random.default_rng(7)
U = 2.0 ** -24


@pytest.fixture(autouse=True, scope="module")
def _close_devices():
    """Free the module's core for the other tests and processes (a run claims it)."""
    yield
    nki.close()


def test_tensor_add_exact():
    for rows in (1, 128, 300):
        a = RNG.standard_normal((rows, 256)).astype(np.float32)
        b = RNG.standard_normal((rows, 256)).astype(np.float32)
        np.testing.assert_array_equal(tensor_add.nki_tensor_add(a, b), a + b)


def test_tensor_add_on_a_logical_core():
    """examples/python/tensor_add_lnc.py: kernel[2] on trn2 LNC=2 is one program for
    both physical cores, exact, in less modeled time than on one core."""
    a = RNG.standard_normal((512, 256)).astype(np.float32)
    b = RNG.standard_normal((512, 256)).astype(np.float32)
    c2, ns2, n2 = tensor_add_lnc.run(a, b, 2)
    c1, ns1, n1 = tensor_add_lnc.run(a, b, 1)
    assert (n2, n1) == (2, 1)
    np.testing.assert_array_equal(c2, a + b)
    np.testing.assert_array_equal(c1, a + b)
    assert ns2 < ns1


def test_tiled_matmul_with_psum_accumulation():
    a = RNG.standard_normal((256, 384)).astype(np.float32)
    b = RNG.standard_normal((384, 1024)).astype(np.float32)
    c = matmul.nki_matmul_tiled(np.ascontiguousarray(a.T), b)
    ref = a.astype(np.float64) @ b
    tol = 384 * U * (np.abs(a.astype(np.float64)) @ np.abs(b))
    assert np.all(np.abs(c - ref) <= tol)


def test_softmax():
    x = (RNG.standard_normal((300, 512)) * 4).astype(np.float32)
    y = softmax.nki_softmax(x)
    x64 = x.astype(np.float64)
    e = np.exp(x64 - x64.max(axis=1, keepdims=True))
    ref = e / e.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(y, ref, rtol=4e-6, atol=1e-9)


@pytest.mark.parametrize("rows", [100, 128, 300])
def test_rmsnorm_masked_tail_tiles(rows):
    a = RNG.standard_normal((rows, 384)).astype(np.float32)
    g = RNG.standard_normal(384).astype(np.float32)
    y = rmsnorm.nki_rmsnorm(a, g)
    a64 = a.astype(np.float64)
    ref = a64 / np.sqrt((a64 * a64).mean(axis=1, keepdims=True) + 1e-6) * g
    np.testing.assert_allclose(y, ref, rtol=2e-5, atol=2e-5)


def test_attention_head():
    q, k, v = (RNG.standard_normal((128, 64)).astype(np.float32) for _ in range(3))
    o = attention.nki_attention_head(q, k, v)
    s = (q.astype(np.float64) @ k.T) / 8.0
    p = np.exp(s - s.max(axis=1, keepdims=True))
    ref = (p / p.sum(axis=1, keepdims=True)) @ v
    np.testing.assert_allclose(o, ref, rtol=1e-4, atol=2e-5)


@pytest.mark.parametrize("mod,fn", [(exp, "tensor_exp_kernel_"),
                                    (exp_pipelined, "tensor_exp_kernel_pipelined")])
def test_exp_kernels(mod, fn):
    x = RNG.uniform(-4, 4, (250, 512)).astype(np.float32)
    y = nki.jit(getattr(mod, fn).func)(x)
    np.testing.assert_allclose(y, np.exp(x.astype(np.float64)), rtol=2e-6)


def _lines(fn, *needles):
    src, first = inspect.getsourcelines(fn)
    return {first + i for i, ln in enumerate(src) for n in needles if n in ln}


def _run_example(name, tmp_path):
    nki.close()             # the example's process may need this process's core
    env = dict(os.environ)
    r = subprocess.run([sys.executable, os.path.join(EXAMPLES, name)], cwd=tmp_path,
                       env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_seed_workflow_exp_flags_dma_never_overlapping_compute(tmp_path):
    out = _run_example("exp.py", tmp_path)
    assert "NCL(50)" in out and "Profile results are written to profile.ntff" in out
    neff, ntff = tmp_path / "file.neff", tmp_path / "profile.ntff"
    assert neff.exists() and ntff.exists()
    p = vneuron.Profile(str(ntff), programs=[str(neff)])
    rules = [f["rule"] for f in p.findings]
    assert "dma-no-overlap" in rules
    f = p.findings[rules.index("dma-no-overlap")]
    assert f["title"] == "DMA never overlaps compute"
    # every event points at the kernel's own lines of exp.py, in its scope
    ev = p.events
    files = {p.strings[i] for i in np.unique(ev["file"])}
    assert {os.path.basename(x) for x in files} == {"exp.py"}
    want = _lines(exp.tensor_exp_kernel_.func, "nl.load(", "nl.exp(", "nl.store(")
    assert set(np.unique(ev["line"]).tolist()) == want
    scopes = {p.strings[i] for i in np.unique(ev["scope"])}
    assert all(s.startswith("tensor_exp_kernel_/") for s in scopes)
    view = shutil.which("vneuron-profile") or os.path.join(TOP, "build", "bin",
                                                            "vneuron-profile")
    if os.access(view, os.X_OK):
        r = subprocess.run([view, "view", "-n", str(neff), "-s", str(ntff)],
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 0 and "DMA never overlaps compute" in r.stdout


def test_double_buffered_exp_does_not(tmp_path):
    _run_example("exp_pipelined.py", tmp_path)
    p = vneuron.Profile(str(tmp_path / "profile_pipelined.ntff"),
                        programs=[str(tmp_path / "file_pipelined.neff")])
    assert "dma-no-overlap" not in [f["rule"] for f in p.findings]


def test_benchmark_result_and_table(tmp_path):
    buf = io.StringIO()
    b = nki.benchmark(exp.tensor_exp_kernel_, warmup=1, iters=3,
                      save_neff_name=str(tmp_path / "k.neff"))
    b.out = buf
    y = b(tensor[[130, 64], nl.float32])
    assert y.shape == (130, 64)
    text = buf.getvalue()
    assert "L(50)" in text and "Program written to" in text
    assert not (tmp_path / "profile.ntff").exists()
    nc = b.benchmark_result.nc_latency
    assert nc.get_latency_percentile(1) == nc.get_latency_percentile(99) == \
        pytest.approx(b.last_result.model_ns / 1000)
    assert vneuron.Device(host=True).load(str(tmp_path / "k.neff")).inputs == ["in_tensor"]


def test_profile_decorator_writes_and_keeps_existing(tmp_path):
    k = nki.profile(tensor_add.nki_tensor_add, working_directory=str(tmp_path))
    a = np.ones((4, 8), np.float32)
    np.testing.assert_array_equal(k(a, a), 2 * a)
    assert (tmp_path / "file.neff").exists() and (tmp_path / "profile.ntff").exists()
    with pytest.raises(nki.NkiError) as ei:
        k(a, a)
    assert ei.value.errno == errno.EEXIST and "overwrite=True" in str(ei.value)
    k2 = nki.profile(tensor_add.nki_tensor_add, working_directory=str(tmp_path),
                     overwrite=True, profile_nth=2)
    k2(a, a)
    p = vneuron.Profile(str(tmp_path / "profile.ntff"),
                        programs=[str(tmp_path / "file.neff")])
    assert p.summary["executions"] == 1
