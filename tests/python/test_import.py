"""The package imports and its exceptions carry an errno and a message."""

import errno

import vneuron


def test_error_is_oserror():
    assert issubclass(vneuron.Error, OSError)
    for cls in (vneuron.ValidationError, vneuron.DeviceError, vneuron.BuildError):
        assert issubclass(cls, vneuron.Error)


def test_error_carries_errno_and_message():
    e = vneuron.DeviceError(errno.ENODEV, "no /dev/vneuron0")
    assert e.errno == errno.ENODEV
    assert e.strerror == "no /dev/vneuron0"
