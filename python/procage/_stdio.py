"""The run's standard descriptors: what the child gets as 0, 1 and 2.

The spawn options' descriptor map gives the child any descriptor of ours at
any number, 0 to 2 included (include/procage.h): the child end of a pipe is
mapped there, and the library closes every descriptor not mapped (and
leaves 0 to 2 the caller's when they are not mapped). Our pipe ends are
close-on-exec, so no other process, caged or not, inherits them.
"""

import io
import os
import subprocess

PIPE = subprocess.PIPE
DEVNULL = subprocess.DEVNULL
STDOUT = subprocess.STDOUT


class Stdio:
    """The map for one spawn, the parent's ends, and what to close after it."""

    def __init__(self):
        self.map = []        # (parent_fd, child_fd)
        self.after = []      # descriptors to close once the child has its copies
        self.parent = [None, None, None]  # our ends of pipes, as raw descriptors

    def close_after(self):
        for fd in self.after:
            os.close(fd)
        self.after = []

    def close_all(self):
        """A spawn failed: nothing stays open."""
        self.close_after()
        for i, fd in enumerate(self.parent):
            if fd is not None:
                os.close(fd)
                self.parent[i] = None


def _fd_of(value, what):
    if isinstance(value, int):
        if value < 0:
            raise ValueError(f"{what}: {value} is not a descriptor")
        return value
    try:
        return value.fileno()
    except (AttributeError, io.UnsupportedOperation):
        raise TypeError(f"{what}: expected None, PIPE, DEVNULL, a descriptor or a file "
                        f"with a fileno(), not {value!r}") from None


def build(stdin, stdout, stderr, pass_fds=()):
    s = Stdio()
    try:
        _stream(s, 0, stdin, "stdin")
        _stream(s, 1, stdout, "stdout")
        if stderr == STDOUT:
            # The child's 2 is whatever its 1 is: our 1 when not mapped.
            target = next((p for p, c in s.map if c == 1), 1)
            s.map.append((target, 2))
        else:
            _stream(s, 2, stderr, "stderr")
        for fd in pass_fds:
            fd = _fd_of(fd, "pass_fds")
            if fd <= 2:
                raise ValueError(f"pass_fds: {fd} is a standard descriptor; use stdin, "
                                 f"stdout or stderr")
            s.map.append((fd, fd))
    except BaseException:
        s.close_all()
        raise
    return s


def _stream(s, number, value, what):
    if value is None:
        return  # the caller's own
    if value == PIPE:
        read_end, write_end = os.pipe()  # both close-on-exec
        child, parent = (read_end, write_end) if number == 0 else (write_end, read_end)
        s.parent[number] = parent
        s.after.append(child)
        s.map.append((child, number))
    elif value == DEVNULL:
        fd = os.open(os.devnull, os.O_RDWR | os.O_CLOEXEC)
        s.after.append(fd)
        s.map.append((fd, number))
    elif value == STDOUT:
        raise ValueError(f"{what}: STDOUT is for stderr only")
    else:
        s.map.append((_fd_of(value, what), number))
