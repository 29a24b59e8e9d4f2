"""bf16: bit patterns in uint16 arrays, rounded as the device rounds, both ways."""

import errno

import numpy
import pytest

import vneuron
from vnpytest import convert_image, dev  # noqa: F401

bf = vneuron.bf16_from_float32
f32 = vneuron.bf16_to_float32


def bits(a):
    return numpy.asarray(a, numpy.float32).view(numpy.uint32)


def test_round_to_nearest_even():
    one = 1.0
    ulp = 2.0 ** -7  # of bf16 at 1
    x = numpy.array([one, one + ulp / 2, one + 1.5 * ulp, one + ulp / 2 + 2 ** -20,
                     -(one + ulp / 2), 3.0], numpy.float32)
    assert list(f32(bf(x))) == [1.0, 1.0, 1.0 + 2 * ulp, 1.0 + ulp, -1.0, 3.0]


def test_specials():
    x = numpy.array([numpy.inf, -numpy.inf, 0.0, -0.0, 3.4e38, 1e-40, numpy.nan],
                    numpy.float32)
    b = bf(x)
    assert b.dtype == numpy.uint16
    assert list(b[:4]) == [0x7F80, 0xFF80, 0x0000, 0x8000]
    assert b[4] == 0x7F80  # rounds past the largest bf16 to infinity
    assert b[5] == 0x0001  # a denormal stays a denormal
    assert numpy.isnan(f32(b[6:]))[0] and b[6] & 0x0040  # quiet NaN
    # a signalling NaN's payload in the top bits stays a NaN, made quiet
    snan = numpy.array([0x7F810000], numpy.uint32).view(numpy.float32)
    assert bf(snan)[0] == 0x7FC1


def test_to_float32_is_exact_for_every_pattern():
    b = numpy.arange(65536, dtype=numpy.uint32).astype(numpy.uint16)
    f = f32(b)
    assert f.dtype == numpy.float32
    assert numpy.array_equal(bits(f), b.astype(numpy.uint32) << 16)
    # and back: every bf16 but the NaNs comes back to itself
    ok = ~numpy.isnan(f)
    assert numpy.array_equal(bf(f)[ok], b[ok])


def test_shapes_and_inputs():
    x = numpy.arange(24, dtype=numpy.float32).reshape(2, 3, 4)
    assert bf(x).shape == (2, 3, 4)
    assert f32(bf(x)).shape == (2, 3, 4)
    assert list(f32(bf([1.0, 2.5]))) == [1.0, 2.5]  # anything numpy.asarray takes
    assert bf(x[:, ::2]).shape == (2, 2, 4)  # strided
    assert bf(numpy.float32(2.0)).shape == ()


def test_to_float32_wants_uint16():
    with pytest.raises(vneuron.TensorError, match="bf16 bit patterns come as a numpy.uint16 "
                       "array, not numpy.float32") as e:
        f32(numpy.zeros(3, numpy.float32))
    assert e.value.errno == errno.EINVAL


def test_device_rounds_as_bf16_from_float32(dev):
    """fp32 -> bf16 on the device (a VectorE copy) gives bf16_from_float32's bits."""
    p = dev.load(convert_image("fp32", "bf16"))
    t = p.tensors[1]
    assert t.bf16 and t.dtype == numpy.uint16 and t.nbytes == 128 * 64 * 2
    rng = numpy.random.default_rng(16)
    x = (rng.standard_normal((128, 64)) * 10.0 ** rng.integers(-40, 38, (128, 64)))
    x = x.astype(numpy.float32)
    x[0, :6] = [numpy.inf, -numpy.inf, -0.0, 1e-40, 1.0 + 2 ** -8, numpy.nan]
    y = p.run({"x": x})["y"]
    assert y.dtype == numpy.uint16
    assert numpy.array_equal(y, bf(x))


def test_device_widens_bf16_exactly(dev):
    """bf16 -> fp32 on the device gives bf16_to_float32's bits."""
    p = dev.load(convert_image("bf16", "fp32"))
    assert p.tensors[0].bf16
    b = numpy.arange(0, 65536, 8, dtype=numpy.uint32).astype(numpy.uint16).reshape(128, 64)
    y = p.run({"x": b})["y"]
    ref = f32(b)
    nan = numpy.isnan(ref)
    assert numpy.array_equal(bits(y)[~nan], bits(ref)[~nan])
    assert numpy.isnan(y[nan]).all()


def test_bf16_tensor_refuses_float32(dev):
    p = dev.load(convert_image("bf16", "fp32"))
    with pytest.raises(vneuron.TensorError) as e:
        p.run({"x": numpy.zeros((128, 64), numpy.float32)})
    assert str(e.value) == ("[Errno 22] input 'x': dtype numpy.float32, the tensor is bf16: "
                            "give its bit patterns as a numpy.uint16 array "
                            "(vneuron.bf16_from_float32(x))")
