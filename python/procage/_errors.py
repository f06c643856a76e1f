"""ProcageError: what the library said, as an OSError."""

import ctypes

from . import _lib


class ProcageError(OSError):
    """A call into libprocage failed.

    Attributes, besides OSError's:
      message   procage's own message (names the path, step, capability)
      code      the library's return value, a negative errno
      errno     the failing system call's errno, else -code
      step      the spawn step that failed ("landlock", "exec", ...), or None
                when the error happened outside a spawn
      function  the library function that failed
    """

    def __init__(self, code, message, sys_errno=0, step=None, function=None):
        number = sys_errno or -code
        super().__init__(number, message)
        self.code = code
        self.message = message
        self.step = step
        self.function = function

    def __str__(self):
        return self.message

    def __reduce__(self):
        return (type(self), (self.code, self.message, self.errno if self.errno != -self.code
                             else 0, self.step, self.function))


def from_struct(code, err, function):
    """Build the exception from a filled struct procage_error."""
    step = None
    if err.step != _lib.STEP_NONE:
        step = _lib.decode(_lib.lib.procage_step_name(err.step))
    message = _lib.decode(err.message) or f"{function}: error {code}"
    return ProcageError(code, message, err.sys_errno, step, function)


def call(function, *args):
    """Call a library function whose last argument is a struct procage_error."""
    err = _lib.Error()
    rc = getattr(_lib.lib, function)(*args, ctypes.byref(err))
    if rc < 0:
        raise from_struct(rc, err, function)
    return rc
