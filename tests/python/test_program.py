"""vneuron.Program: loading, tensors, runs with NumPy arrays and every error path."""

import errno
import pathlib
import struct
import threading

import numpy
import pytest

import vneuron
from vnpytest import (ADD, add_image, dev, exp_image, host, long_inputs,  # noqa: F401
                      long_program)

RNG = numpy.random.default_rng(26)


def add_inputs():
    return {"x": RNG.random((128, 64), dtype=numpy.float32),
            "y": RNG.random((128, 64), dtype=numpy.float32)}


def test_tensors(dev):
    p = dev.load(exp_image())
    assert p.name == "exp"
    assert p.device is dev
    assert p.inputs == ["in"] and p.outputs == ["out"]
    t_in, t_out = p.tensors
    assert tuple(t_in) == ("in", "input", numpy.dtype(numpy.float32), (250, 512))
    name, kind, dtype, shape = t_out
    assert (name, kind, dtype, shape) == ("out", "output", numpy.float32, (250, 512))
    assert isinstance(t_in, vneuron.TensorInfo)
    assert t_in.bf16 is False and t_in.nbytes == 250 * 512 * 4
    assert "vneuron.Program 'exp'" in repr(p)


def test_exp_against_numpy(dev):
    p = dev.load(exp_image())
    x = RNG.standard_normal((250, 512), dtype=numpy.float32)
    res = p.run({"in": x})
    assert res.status == 0
    assert set(res.outputs) == {"out"}
    y = res.outputs["out"]
    assert y.dtype == numpy.float32 and y.shape == (250, 512)
    # relative 4e-7, the exp kernel's documented tolerance (docs/libvnprog.md)
    assert numpy.allclose(y, numpy.exp(x.astype(numpy.float64)), rtol=4e-7, atol=0)
    assert res["out"] is y


def test_add_is_exact_and_modeled(dev):
    p = dev.load(add_image())
    a = add_inputs()
    r1 = p.run(a)
    r2 = p.run(a)
    assert numpy.array_equal(r1["z"], a["x"] + a["y"])
    assert type(r1.model_ps) is int and r1.model_ps > 0
    assert r1.model_ns == r1.model_ps / 1000
    assert r1.model_ps == r2.model_ps  # deterministic
    assert r1.host_s > 0
    assert "status 0" in repr(r1)


def test_same_modeled_time_on_every_backend():
    from vnpytest import HAVE_MODULE, open_backend
    times = set()
    for b in ["host"] + (["device"] if HAVE_MODULE else []):
        with open_backend(b) as d:
            times.add(d.load(add_image()).run(add_inputs()).model_ps)
    assert len(times) == 1


def test_output_written_in_place(dev):
    p = dev.load(add_image())
    a = add_inputs()
    out = numpy.full((128, 64), 7.0, numpy.float32)
    res = p.run(a, outputs={"z": out})
    assert res.outputs["z"] is out
    assert numpy.array_equal(out, a["x"] + a["y"])


def store_image(stores):
    """z = x + y, fp32 [128, 64], z stored by the DMA entries `stores` (each "ROW0 ROWS",
    on queues of their own): what a program leaves of a new output array is zeros."""
    lines = [ADD.split(".queue 2")[0]]
    for q, (row, rows) in enumerate(stores):
        lines.append(f".queue {q + 2}\n\tdma z@{row * 256:#x}[0, 256], "
                     f"sbuf[{row}; 0, 1]@0x200, 1 x {rows} x 256 wait s1 >= 1")
    return vneuron.assemble("\n".join(lines) + "\n", "store.vasm")


@pytest.mark.parametrize("stores", [[(0, 64)], [(0, 40), (100, 28)], [(0, 64), (64, 64)],
                                    [(0, 100), (50, 78)]])
def test_new_output_holds_zeros_where_not_written(dev, stores):
    # Programs that write all of z get a new array left unzeroed (the core writes every
    # byte: Program.run() skips the zeroing); the others get zeros where they do not write.
    p = dev.load(store_image(stores))
    a = add_inputs()
    want = numpy.zeros((128, 64), numpy.float32)
    for row, rows in stores:
        want[row:row + rows] = (a["x"] + a["y"])[row:row + rows]
    for _ in range(3):
        junk = [numpy.full((128, 64), numpy.nan, numpy.float32) for _ in range(4)]
        del junk  # freed memory the next array may take
        assert numpy.array_equal(p.run(a)["z"], want)


def test_runs_see_new_arrays_new_contents_and_other_programs(dev):
    # A run binds only the buffers that changed since its runner's last binding: a new
    # array, the same array with new contents, and another program run in between (on
    # the host backend it takes the device's one runner, which unbinds) all count.
    p, q = dev.load(add_image()), dev.load(store_image([(0, 64)]))
    a, b = add_inputs(), add_inputs()
    for _ in range(2):
        assert numpy.array_equal(p.run(a)["z"], a["x"] + a["y"])
        assert numpy.array_equal(p.run(b)["z"], b["x"] + b["y"])
        a["x"] += 1.0
        assert numpy.array_equal(p.run(a)["z"], a["x"] + a["y"])
        half = q.run(b)["z"]
        assert numpy.array_equal(half[:64], (b["x"] + b["y"])[:64]) and not half[64:].any()
        out = numpy.empty((128, 64), numpy.float32)
        assert p.run(a, outputs={"z": out})["z"] is out
        assert numpy.array_equal(out, a["x"] + a["y"])


def test_non_contiguous_input_is_made_contiguous(dev):
    p = dev.load(add_image())
    big = RNG.random((128, 128), dtype=numpy.float32)
    x = big[:, ::2]
    assert not x.flags.c_contiguous
    y = numpy.ones((128, 64), numpy.float32)
    assert numpy.array_equal(p.run({"x": x, "y": y})["z"], x + y)


def test_inputs_by_any_mapping(dev):
    import collections
    p = dev.load(add_image())
    a = collections.OrderedDict(add_inputs())
    assert numpy.array_equal(p.run(a)["z"], a["x"] + a["y"])


def tensor_error(p, inputs, outputs=None, **kw):
    with pytest.raises(vneuron.TensorError) as e:
        p.run(inputs, outputs, **kw)
    assert e.value.errno == errno.EINVAL
    assert isinstance(e.value, ValueError) and isinstance(e.value, vneuron.Error)
    return str(e.value)


def test_wrong_dtype_names_the_tensor(dev):
    p = dev.load(add_image())
    a = add_inputs()
    a["y"] = a["y"].astype(numpy.float64)
    assert tensor_error(p, a) == ("[Errno 22] input 'y': dtype numpy.float64, the tensor is "
                                  "fp32: give a numpy.float32 array "
                                  "(x.astype(numpy.float32))")
    a["y"] = a["x"].astype(">f4")
    assert "input 'y': dtype numpy.float32 (byte-swapped), the tensor is fp32" in \
        tensor_error(p, a)
    a["y"] = numpy.zeros((128, 64), numpy.uint16)
    assert "input 'y': dtype numpy.uint16, the tensor is fp32" in tensor_error(p, a)


def test_wrong_shape_names_the_tensor(dev):
    p = dev.load(add_image())
    a = add_inputs()
    a["x"] = a["x"].reshape(64, 128)
    assert tensor_error(p, a) == ("[Errno 22] input 'x': shape (64, 128), the tensor is "
                                  "fp32 (128, 64)")
    a["x"] = a["y"].ravel()
    assert "input 'x': shape (8192,), the tensor is fp32 (128, 64)" in tensor_error(p, a)


def test_missing_and_unknown_names(dev):
    p = dev.load(add_image())
    a = add_inputs()
    del a["y"]
    assert "input 'y' is not given (inputs needs every input tensor of program 'add')" in \
        tensor_error(p, a)
    assert "input 'x' is not given" in tensor_error(p, None)
    a = add_inputs()
    a["w"] = a["x"]
    assert ("inputs: the program 'add' has no input tensor 'w'; its inputs: 'x', 'y'" in
            tensor_error(p, a))
    a = add_inputs()
    a["z"] = a["x"]
    assert "has no input tensor 'z'" in tensor_error(p, a)
    assert ("outputs: the program 'add' has no output tensor 'x'; its outputs: 'z'" in
            tensor_error(p, add_inputs(), {"x": a["x"]}))


def test_not_arrays(dev):
    p = dev.load(add_image())
    a = add_inputs()
    a["x"] = a["x"].tolist()
    assert "input 'x': a numpy.ndarray is needed, not list" in tensor_error(p, a)
    assert "inputs: a dict of arrays by tensor name is needed, not list" in \
        tensor_error(p, [1])
    assert "outputs: a dict of arrays by tensor name is needed, not int" in \
        tensor_error(p, add_inputs(), 3)


def test_bad_outputs(dev):
    p = dev.load(add_image())
    a = add_inputs()
    ro = numpy.zeros((128, 64), numpy.float32)
    ro.flags.writeable = False
    assert ("output 'z': the array must be writable, the program writes it in place" in
            tensor_error(p, a, {"z": ro}))
    strided = numpy.zeros((128, 128), numpy.float32)[:, ::2]
    assert "output 'z': the array must be C-contiguous and aligned" in \
        tensor_error(p, a, {"z": strided})
    assert "output 'z': dtype numpy.float64" in \
        tensor_error(p, a, {"z": numpy.zeros((128, 64))})
    assert "output 'z': shape (64, 128)" in \
        tensor_error(p, a, {"z": numpy.zeros((64, 128), numpy.float32)})


def test_bad_time_limit(dev):
    p = dev.load(add_image())
    for bad in (0, -1, float("nan")):
        with pytest.raises(vneuron.Error, match="time_limit .*: a number of seconds above 0"):
            p.run(add_inputs(), time_limit=bad)
    with pytest.raises(TypeError):
        p.run(add_inputs(), time_limit="1")


def test_time_limit_ends_a_run_and_the_device_runs_again(dev):
    p = long_program(dev, 1.0)
    with pytest.raises(vneuron.ExecutionError) as e:
        p.run(long_inputs(), time_limit=0.01)
    err = e.value
    assert isinstance(err, vneuron.DeviceError)
    assert err.errno == errno.ETIMEDOUT
    assert (err.status, err.reason) == ("TIMEOUT", "time-limit")
    assert "timeout" in str(err)
    q = dev.load(add_image())
    a = add_inputs()
    assert numpy.array_equal(q.run(a)["z"], a["x"] + a["y"])


def test_load_from_paths(dev, tmp_path):
    f = tmp_path / "add.vnef"
    f.write_bytes(add_image())
    for arg in (str(f), f, bytearray(f.read_bytes()), memoryview(f.read_bytes())):
        assert dev.load(arg).name == "add"
    with pytest.raises(FileNotFoundError) as e:
        dev.load(str(tmp_path / "none.vnef"))
    assert "none.vnef" in str(e.value)
    with pytest.raises(TypeError):
        dev.load(3)


def test_image_round_trip(dev):
    img = add_image()
    p = dev.load(img)
    assert p.image == img
    assert dev.load(p.image).tensors == p.tensors


def test_validation_error_names_the_check(dev):
    img = bytearray(add_image())
    bad = bytearray(img)
    struct.pack_into("<I", bad, 4, 99)  # the version
    with pytest.raises(vneuron.ValidationError) as e:
        dev.load(bytes(bad))
    v = e.value
    assert v.errno == errno.EINVAL and v.check == "version"
    assert (v.section, v.entry) == (None, None)
    assert "version check" in str(v)
    with pytest.raises(vneuron.ValidationError, match="magic check") as e:
        dev.load(b"\0" * 64)
    with pytest.raises(vneuron.ValidationError, match="size check"):
        dev.load(b"")


def test_validation_error_names_section_and_entry(dev):
    img = add_image()
    # Tensor 2 ('z', output fp32 [128, 64]) gets dtype 7: the tensor check, its entry.
    entry = struct.pack("<III", 2, 1, 2) + struct.pack("<QQ", 128, 64)
    i = img.find(entry)
    assert i > 0
    bad = bytearray(img)
    struct.pack_into("<I", bad, i + 4, 7)
    with pytest.raises(vneuron.ValidationError) as e:
        dev.load(bytes(bad))
    v = e.value
    assert v.check == "tensor" and v.entry == 2 and v.section is not None
    assert "tensor check" in str(v)
    assert "(section %d, entry 2)" % v.section in str(v)


def test_unload(dev):
    p = dev.load(add_image())
    with p as q:
        assert q is p
    assert p.unloaded
    p.unload()
    with pytest.raises(vneuron.Error, match="program 'add' was unloaded") as e:
        p.run(add_inputs())
    assert e.value.errno == errno.EBADF
    with pytest.raises(vneuron.Error, match="was unloaded"):
        p.__enter__()


def test_program_outlives_its_device_object():
    p = vneuron.Device(host=True).load(add_image())
    a = add_inputs()
    assert numpy.array_equal(p.run(a)["z"], a["x"] + a["y"])
    assert p.device.backend == "host" and not p.device.closed


def test_closed_device_refuses_runs(dev):
    p = dev.load(add_image())
    dev.close()
    with pytest.raises(vneuron.DeviceError, match="program 'add': its device is closed") as e:
        p.run(add_inputs())
    assert e.value.errno == errno.EBADF


def _run_in_thread(p, inputs):
    box = {}

    def body():
        try:
            box["res"] = p.run(inputs)
        except BaseException as e:  # noqa: B902 (reported by the test)
            box["err"] = e
    t = threading.Thread(target=body)
    t.start()
    while vneuron.counters()["running"] == 0 and t.is_alive():
        pass
    return t, box


@pytest.mark.parametrize("how", ["close", "unload"])
def test_freed_while_in_use_waits_for_the_run(dev, how):
    p = long_program(dev, 0.5)
    t, box = _run_in_thread(p, long_inputs())
    if how == "close":
        dev.close()
    else:
        p.unload()
    # close() and unload() returned: the run they waited for ended OK.
    assert not t.is_alive() or t.join() is None
    t.join()
    assert "err" not in box, box.get("err")
    assert box["res"].status == 0
    assert p.unloaded
    with pytest.raises(vneuron.Error):
        p.run(long_inputs())


def test_counters_follow_objects(dev):
    c0 = vneuron.counters()
    p = dev.load(add_image())
    r = p.run(add_inputs())
    c1 = vneuron.counters()
    assert c1["programs"] == c0["programs"] + 1 and c1["results"] == c0["results"] + 1
    assert c1["runs"] == c0["runs"] + 1 and c1["running"] == 0
    if dev.backend == "device":
        assert c1["buffers"] == c0["buffers"] + 3
        assert c1["buffer_bytes"] == c0["buffer_bytes"] + 3 * 128 * 64 * 4
    del p, r
    c2 = vneuron.counters()
    for k in ("programs", "results", "buffers", "buffer_bytes"):
        assert c2[k] == c0[k], k


def test_docstrings():
    doc = vneuron.Program.run.__doc__
    for w in ("inputs", "outputs", "time_limit", "GIL", "TensorError", "ExecutionError",
              "KeyboardInterrupt", "bf16", "Copies"):
        assert w in doc, w
    assert "Example" in vneuron.Program.__doc__
    assert "model_ns" in vneuron.Result.__doc__
