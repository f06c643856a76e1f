"""Asking before a host the proxy's allowlist does not name.

run(..., network="proxy", on_host=CALLABLE) and run_async(...): a request
of the caged command for a host name the allowlist does not name is held
in the run's proxy while procage calls on_host(host, port) on a thread of
this process (never in the cage). It returns "once" (or True: the
requests waiting for this answer), "run" (that host and port for the
rest of the run) or "deny" (or False, None); anything else, an exception,
or no answer within ask_timeout seconds (default 60) is a deny. Calls for
different hosts may come at once, from different threads. With
run_async, on_host may be a coroutine function: it is awaited on the
run's event loop.
"""

import asyncio
import ctypes
import sys

from . import _lib
from ._errors import call
from ._policy import Cage, Policy

_ANSWERS = {"deny": 0, "once": 1, "run": 2, True: 1, False: 0, None: 0}
_ASK_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int,
                           ctypes.c_int)


def _answer(value):
    try:
        return _ANSWERS.get(value, 0)
    except TypeError:  # unhashable: no answer
        return 0


def _callback(on_host, loop):
    """The C callback for on_host, kept alive by the caller as long as the cage."""
    def ask(_ctx, host, port, timeout_ms):
        try:
            name = host.decode("ascii")
            if loop is not None and asyncio.iscoroutinefunction(on_host):
                future = asyncio.run_coroutine_threadsafe(on_host(name, port), loop)
                return _answer(future.result(timeout_ms / 1000))
            return _answer(on_host(name, port))
        except BaseException as e:  # the question is denied; the run goes on
            print(f"procage: on_host raised {e!r}: {host!r} denied", file=sys.stderr)
            return 0
    return _ASK_FN(ask)


def _timeout_ms(ask_timeout):
    if ask_timeout is None:
        return 0
    if ask_timeout <= 0:
        raise ValueError("ask_timeout must be a number of seconds above 0")
    return max(1, int(ask_timeout * 1000))


def cage_asking(on_host, ask_timeout, loop, *, workspace=None, policy=None, cage=None,
                **policy_options):
    """A new cage whose proxy asks on_host (the cage keeps the callback alive)."""
    if cage is not None:
        raise TypeError("on_host goes into the cage when it is made: give workspace= or "
                        "policy=, not cage=")
    if policy is None:
        if workspace is None:
            raise TypeError("a run needs workspace=, policy= or cage=")
        policy = Policy.default(workspace, **policy_options)
    elif policy_options:
        raise TypeError("policy= is the whole policy: no policy options with it")
    keep = _callback(on_host, loop)
    timeout_ms = _timeout_ms(ask_timeout)
    _declare()
    with policy._use() as p:
        call("procage_policy_set_host_ask", p, keep, None, timeout_ms)
        try:
            made = Cage(policy)
        finally:
            call("procage_policy_set_host_ask", p, _ASK_FN(), None, 0)
    made._on_host = keep  # called by the runs of this cage: alive as long as it
    return made


def _declare():
    f = _lib.lib.procage_policy_set_host_ask
    if f.argtypes is None:
        f.restype = ctypes.c_int
        f.argtypes = [ctypes.c_void_p, _ASK_FN, ctypes.c_void_p, ctypes.c_int,
                      ctypes.POINTER(_lib.Error)]
