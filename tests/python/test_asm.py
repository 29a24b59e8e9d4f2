"""vneuron.assemble() and vneuron.disassemble()."""

import errno

import pytest

import vneuron
from vnpytest import ADD, add_image


def test_round_trip():
    img = add_image()
    text = vneuron.disassemble(img)
    assert "tensor_tensor add" in text and '.program "add"' in text
    assert vneuron.assemble(text, "add.vasm") == img


def test_assembler_errors_name_file_line_and_column():
    bad = ADD.replace("tensor_tensor add", "tensor_tensor frob")
    with pytest.raises(vneuron.BuildError) as e:
        vneuron.assemble(bad, "k.vasm")
    assert e.value.errno == errno.EINVAL
    assert str(e.value).startswith("[Errno 22] k.vasm:13:")
    assert "error:" in str(e.value)


def test_assembler_reports_every_error():
    bad = "frob\n.queue 99\n"
    with pytest.raises(vneuron.BuildError) as e:
        vneuron.assemble(bad)
    msg = str(e.value)
    assert "<string>:1:" in msg and "<string>:2:" in msg


def test_validator_refusal_at_its_line():
    bad = ADD.replace("wait s1 >= 1", "wait s1 >= 5")
    with pytest.raises(vneuron.BuildError) as e:
        vneuron.assemble(bad, "add.vasm")
    assert ("add.vasm:16:2: error: the device would refuse this program (deadlock check"
            in str(e.value))


def test_disassemble_refuses_a_bad_image():
    with pytest.raises(vneuron.ValidationError, match="magic"):
        vneuron.disassemble(b"\0" * 128)
    with pytest.raises(TypeError):
        vneuron.disassemble("text")
