"""Ownership of one library handle from Python threads.

A handle is freed exactly once: close() twice, close() racing a call in
another thread, or the garbage collector after close() all end in one free
call. A call that started before close() keeps the handle until it
returns; the last such call frees it.
"""

import contextlib
import threading

from . import _lib


class Handle:
    _free_function = None  # the library's free function for this handle
    _kind = "handle"
    #: True: every call holds the lock (the C object needs the caller's lock).
    _exclusive = False

    def __init__(self, pointer):
        self._pointer = pointer
        self._lock = threading.RLock()
        self._users = 0
        self._closing = False

    @contextlib.contextmanager
    def _use(self):
        with self._lock:
            if self._pointer is None or self._closing:
                raise ValueError(f"operation on a closed {self._kind}")
            if self._exclusive:
                yield self._pointer
                return
            self._users += 1
            pointer = self._pointer
        try:
            yield pointer
        finally:
            with self._lock:
                self._users -= 1
                if self._closing and self._users == 0:
                    self._release()

    @property
    def closed(self):
        return self._pointer is None or self._closing

    def close(self):
        """Free the handle; closing a closed handle does nothing."""
        lock = getattr(self, "_lock", None)
        if lock is None:  # __init__ failed before the handle existed
            return
        with lock:
            if self._pointer is None or self._closing:
                return
            self._closing = True
            if self._users == 0:
                self._release()

    def _release(self):
        pointer, self._pointer = self._pointer, None
        if pointer is not None:
            getattr(_lib.lib, self._free_function)(pointer)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:  # interpreter shutdown: the library may be gone
            pass
