"""The errors of vneuron.nki, and where in the user's kernel they happened.

Every error the tracer raises is a vneuron.BuildError (an OSError: errno and message)
whose message starts with the kernel's "file:line:"; the same place is in the
attributes source_file and source_line. The place is the innermost stack frame outside
vneuron.nki, i.e. the user's statement that made the call.
"""

import errno
import sys

from vneuron import BuildError

# Modules whose frames are ours, not the user's (each adds itself on import).
INTERNAL = {__name__}


def user_frame(depth=1):
    """The innermost frame outside vneuron.nki (None if there is none)."""
    f = sys._getframe(depth)
    internal = INTERNAL
    while f is not None and f.f_globals.get("__name__") in internal:
        f = f.f_back
    return f


class NkiError(BuildError):
    """A kernel cannot be built: the message names the kernel's file and line."""

    def __init__(self, err, msg, source_file=None, source_line=None):
        super().__init__(err, msg)
        self.source_file = source_file
        self.source_line = source_line


class ShapeError(NkiError):
    """Shapes that do not fit: operands that differ, a partition dimension over 128,
    an index outside its tensor or tile."""


class UnsupportedError(NkiError):
    """An NKI call, argument or dtype vneuron.nki does not support (docs/python.md)."""


class TileLifetimeError(NkiError):
    """A tile used after the loop iteration that created it ended."""


def error(cls, msg, err=errno.EINVAL, frame=None):
    """An exception of class cls for msg at the user's current statement."""
    f = frame if frame is not None else user_frame(2)
    if f is None:
        return cls(err, msg)
    file, line = f.f_code.co_filename, f.f_lineno
    return cls(err, f"{file}:{line}: {msg}", file, line)
