"""vneuron.nki.isa: NKI's nki.isa (imported as nisa), one device instruction per call
on the engine NKI names, so work can be placed on an engine by hand.

Names and signatures follow AWS's public NKI documentation; docs/python.md ("NKI
kernels") lists what differs. TensorE's nc_matmul is the ISA's LoadStationary +
MultiplyMoving pair; tensor_scalar with op1, and tensor_reduce with negate=True, add a
second instruction on the same engine.
"""

import errno

import numpy

from vneuron import _vneuron as _c
from vneuron.nki import _dma, _errors, _ops
from vneuron.nki import language as _nl
from vneuron.nki._errors import UnsupportedError, error

_errors.INTERNAL.add(__name__)


class engine:
    """The engines an instruction may be placed on."""

    tensor = "tensor"
    vector = "vector"
    scalar = "scalar"
    gpsimd = "gpsimd"
    unknown = "unknown"


tensor_engine, vector_engine = engine.tensor, engine.vector
scalar_engine, gpsimd_engine, unknown_engine = engine.scalar, engine.gpsimd, engine.unknown

_ALU = {
    numpy.add: _ops.ADD, numpy.subtract: _ops.SUB, numpy.multiply: _ops.MUL,
    numpy.divide: _ops.DIV, numpy.true_divide: _ops.DIV, numpy.maximum: _ops.MAX,
    numpy.minimum: _ops.MIN, numpy.max: _ops.MAX, numpy.min: _ops.MIN,
    numpy.amax: _ops.MAX, numpy.amin: _ops.MIN, numpy.sum: _ops.ADD,
}
_ACT = {
    numpy.exp: _c.ND_ACT_EXP, numpy.log: _c.ND_ACT_LOG, numpy.tanh: _c.ND_ACT_TANH,
    numpy.sqrt: _c.ND_ACT_SQRT, numpy.reciprocal: _c.ND_ACT_RECIPROCAL,
    numpy.square: _c.ND_ACT_SQUARE, _nl.copy: _c.ND_ACT_IDENTITY,
}


def _code(op, attr, table, what, has):
    """The device code of op: an nl function's own (attribute attr), or NumPy's from
    table; else an UnsupportedError saying what the device has."""
    code = getattr(op, attr, None)
    if code is None:
        try:
            code = table.get(op)
        except TypeError:
            code = None
    if code is None:
        raise error(UnsupportedError, f"{what}={getattr(op, '__name__', op)!r}: {has}",
                    errno.ENOTSUP)
    return code


def _alu(op, what):
    return _code(op, "_vn_alu", _ALU, what, "the device's ALU has add, subtract, "
                 "multiply, divide, maximum and minimum")


def _act(op):
    return _code(op, "_vn_act", _ACT, "op", "ScalarE's functions are exp, log, tanh, "
                 "sigmoid, gelu, relu, sqrt, rsqrt, reciprocal, square and identity "
                 "(nl.copy)")


def _engine(e, allowed, default, what):
    if e is None or e == engine.unknown:
        return default
    codes = {engine.vector: _ops.VECTOR, engine.gpsimd: _ops.GPSIMD,
             engine.scalar: _ops.SCALAR}
    if e not in allowed:
        raise error(UnsupportedError, f"{what} on engine {e!r}: it runs on "
                    f"{' or '.join(allowed)}", errno.ENOTSUP)
    return codes[e]


def _no_kwargs(fn, kwargs):
    if kwargs:
        raise error(UnsupportedError, f"nisa.{fn}: argument(s) {', '.join(sorted(kwargs))} "
                    "not supported by vneuron.nki", errno.ENOTSUP)


def nc_matmul(stationary, moving, *, is_stationary_onezero=False, is_moving_onezero=False,
              is_transpose=False, mask=None, **kwargs):
    """stationary.T @ moving on TensorE into a new fp32 PSUM tile: stationary [K, M]
    (K, M <= 128), moving [K, N] (N <= 512), both in SBUF."""
    _no_kwargs("nc_matmul", kwargs)
    if is_transpose or mask is not None:
        raise error(UnsupportedError, "nc_matmul with is_transpose or mask: use "
                    "nisa.nc_transpose", errno.ENOTSUP)
    return _ops.nc_matmul(stationary, moving)


def nc_transpose(data, *, mask=None, dtype=None, engine=engine.unknown, **kwargs):
    """data [P, F] (F <= 128) transposed on TensorE into a new fp32 PSUM tile [F, P]."""
    _no_kwargs("nc_transpose", kwargs)
    if engine not in (None, "unknown", "tensor"):
        raise error(UnsupportedError, "nc_transpose on VectorE: TensorE only here",
                    errno.ENOTSUP)
    return _ops.transpose(data, dtype, mask)


def activation(op, data, *, bias=None, scale=1.0, mask=None, dtype=None, **kwargs):
    """op(data * scale + bias) on ScalarE; bias a number or a [P, 1] column."""
    _no_kwargs("activation", kwargs)
    return _ops.activation(_act(op), data, scale=scale, bias=bias, dtype=dtype, mask=mask,
                           name=getattr(op, "__name__", "activation"))


def tensor_tensor(data1, data2, op, *, dtype=None, mask=None, engine=engine.unknown,
                  **kwargs):
    """data1 <op> data2, elementwise, on VectorE (or GpSimdE)."""
    _no_kwargs("tensor_tensor", kwargs)
    e = _engine(engine, ("vector", "gpsimd"), _ops.VECTOR, "tensor_tensor")
    return _ops.binary(_alu(op, "op"), data1, data2, dtype=dtype, mask=mask,
                       name="tensor_tensor", engine=e)


def tensor_scalar(data, op0, operand0, reverse0=False, op1=None, operand1=None,
                  reverse1=False, *, dtype=None, mask=None, engine=engine.unknown,
                  **kwargs):
    """(data <op0> operand0) <op1> operand1 on VectorE (or GpSimdE); operands numbers
    or [P, 1] columns; with op1, two instructions."""
    _no_kwargs("tensor_scalar", kwargs)
    e = _engine(engine, ("vector", "gpsimd"), _ops.VECTOR, "tensor_scalar")
    ops = [(_alu(op0, "op0"), operand0, reverse0)]
    if op1 is not None:
        ops.append((_alu(op1, "op1"), operand1, reverse1))
    return _ops.tensor_scalar(data, ops, dtype=dtype, mask=mask, engine=e)


def tensor_reduce(op, data, axis, *, mask=None, dtype=None, negate=False, keepdims=False,
                  **kwargs):
    """A reduction (add, max, min) over all the free axes on VectorE; negate=True adds
    a multiply by -1."""
    _no_kwargs("tensor_reduce", kwargs)
    code = _alu(op, "op")
    if code not in (_ops.ADD, _ops.MAX, _ops.MIN):
        raise error(UnsupportedError, "tensor_reduce: VectorE reduces with add, max or "
                    "min", errno.ENOTSUP)
    return _ops.reduce(code, data, axis, dtype=dtype, mask=mask, keepdims=keepdims,
                       scale=-1.0 if negate else None, name="tensor_reduce")


def tensor_partition_reduce(op, data, *, mask=None, dtype=None, **kwargs):
    """A reduction (add, max, min) over the partitions on GpSimdE: [1, F]."""
    _no_kwargs("tensor_partition_reduce", kwargs)
    code = _alu(op, "op")
    if code not in (_ops.ADD, _ops.MAX, _ops.MIN):
        raise error(UnsupportedError, "tensor_partition_reduce: add, max or min",
                    errno.ENOTSUP)
    return _ops.reduce(code, data, 0, dtype=dtype, mask=mask, keepdims=True,
                       name="partition_reduce")


def tensor_copy(src, *, mask=None, dtype=None, engine=engine.unknown, **kwargs):
    """A copy of src into a new SBUF tile on VectorE (or ScalarE, GpSimdE)."""
    _no_kwargs("tensor_copy", kwargs)
    e = _engine(engine, ("vector", "scalar", "gpsimd"), _ops.VECTOR, "tensor_copy")
    return _ops.copy(src, dtype=dtype, mask=mask, engine=e)


def iota(expr, dtype, *, mask=None, **kwargs):
    """The values of an affine expression of nl.arange, on GpSimdE."""
    _no_kwargs("iota", kwargs)
    return _ops.iota(expr, dtype, mask)


def memset(shape, value, dtype, *, mask=None, engine=engine.unknown, **kwargs):
    """A new tile of shape filled with value, on GpSimdE (or VectorE)."""
    _no_kwargs("memset", kwargs)
    e = _engine(engine, ("vector", "gpsimd"), _ops.GPSIMD, "memset")
    return _ops.memset(shape, value, dtype, mask=mask, engine=e)


def dma_copy(*, dst, src, mask=None, dst_rmw_op=None, **kwargs):
    """One DMA descriptor from src to dst (HBM tensors or tiles of one shape and
    dtype)."""
    _no_kwargs("dma_copy", kwargs)
    if dst_rmw_op is not None:
        raise error(UnsupportedError, "dma_copy(dst_rmw_op=): DMA does not compute here",
                    errno.ENOTSUP)
    return _dma.dma_copy(dst, src, mask)


_NOT_SUPPORTED = {
    "activation_reduce", "tensor_tensor_scan", "scalar_tensor_tensor",
    "tensor_scalar_reduce", "tensor_copy_dynamic_src", "tensor_copy_dynamic_dst",
    "tensor_copy_predicated", "reciprocal", "dropout", "affine_select", "range_select",
    "select_reduce", "sequence_bounds", "bn_stats", "bn_aggr", "local_gather",
    "dma_transpose", "max8", "nc_find_index8", "nc_match_replace8", "nc_stream_shuffle",
    "nc_version", "get_nc_version", "nc_matmul_mx", "exponential", "quantize_mx",
}


def __getattr__(name):
    if name in _NOT_SUPPORTED:
        raise error(UnsupportedError, f"nisa.{name} is not supported by vneuron.nki (see "
                    "docs/python.md, \"NKI kernels\")", errno.ENOTSUP)
    raise AttributeError(f"module 'vneuron.nki.isa' has no attribute '{name}'")
