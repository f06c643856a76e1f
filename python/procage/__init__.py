"""procage: run a command in a cage (Landlock, seccomp, namespaces).

A ctypes binding of libprocage. The everyday call:

    import procage
    result = procage.run(["make", "test"], workspace=".", capture_output=True)
    result.returncode, result.stdout, result.tier

and, for more: Run (a caged process, like subprocess.Popen), Policy (what
a run may do), Cage (a policy checked against this host, reusable across
runs and threads), host_facts(), run_async() for asyncio, and
ProcageError (an OSError with procage's message, step and errno).
"""

from ._lib import HEADER_VERSION as __version__
from ._lib import lib as _library
from ._lib import path as library_path
from ._stdio import DEVNULL, PIPE, STDOUT
from ._aio import communicate_async, run_async, wait_async
from ._changes import Change, Changes
from ._denials import Denial
from ._errors import ProcageError
from ._policy import Cage, HostFacts, Policy, host_facts
from ._runs import CompletedRun, Report, Run, run


def library_version():
    """The version of the libprocage this binding loaded."""
    return _library.procage_version().decode()


Run.wait_async = wait_async
Run.communicate_async = communicate_async

# Errors and reprs name procage.X, where the user finds them.
for _cls in (ProcageError, Policy, Cage, HostFacts, Run, CompletedRun, Report, Denial, Change,
             Changes):
    _cls.__module__ = __name__
del _cls

__all__ = ["run", "run_async", "Run", "CompletedRun", "Report", "Denial", "Policy", "Cage", "HostFacts",
           "host_facts", "ProcageError", "PIPE", "DEVNULL", "STDOUT", "library_version",
           "library_path", "Change", "Changes"]
