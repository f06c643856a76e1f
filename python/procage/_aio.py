"""asyncio: runs awaited on the event loop, without a thread per run.

The run's descriptor (procage_run_fd) becomes readable when the run has
ended; a duplicate of it is registered with loop.add_reader, and the pipes
are read and written by the loop too. Only the spawn itself (a few
milliseconds: the child's setup) runs on the loop's thread.
"""

import asyncio
import os
import subprocess

from . import _ask
from . import _runs as _run


async def wait_async(r):
    """Wait for Run r on the running loop; its return code."""
    fd = r._end_fd()
    if fd is None:
        return r.returncode
    loop = asyncio.get_running_loop()
    ended = loop.create_future()
    loop.add_reader(fd, lambda: ended.done() or ended.set_result(None))
    try:
        await ended
    finally:
        # Out of the loop's epoll set before the descriptor goes.
        loop.remove_reader(fd)
        os.close(fd)
    r._reap()
    return r.returncode


async def _pump_out(loop, r, name):
    f = getattr(r, name)
    if f is None or f.closed:
        return
    fd = f.fileno()
    os.set_blocking(fd, False)
    chunks = r._pending.setdefault(name, [])
    while True:
        ready = loop.create_future()
        loop.add_reader(fd, lambda: ready.done() or ready.set_result(None))
        try:
            await ready
        finally:
            loop.remove_reader(fd)
        try:
            chunk = os.read(fd, _run._READ_SIZE)
        except BlockingIOError:
            continue
        if not chunk:
            f.close()
            return
        chunks.append(chunk)


async def _pump_in(loop, r, data):
    f = r.stdin
    if f is None or f.closed:
        return
    if not data:
        f.close()
        return
    fd = f.fileno()
    os.set_blocking(fd, False)
    view = memoryview(bytes(data))
    while view:
        ready = loop.create_future()
        loop.add_writer(fd, lambda: ready.done() or ready.set_result(None))
        try:
            await ready
        finally:
            loop.remove_writer(fd)
        try:
            view = view[os.write(fd, view):]
        except BlockingIOError:
            continue
        except BrokenPipeError:
            break
    f.close()


async def communicate_async(r, input=None):
    """Popen.communicate for Run r, on the running loop."""
    loop = asyncio.get_running_loop()
    await asyncio.gather(_pump_in(loop, r, input), _pump_out(loop, r, "stdout"),
                         _pump_out(loop, r, "stderr"))
    await wait_async(r)
    return r._collected()


async def run_async(argv, *, workspace=None, write=(), read=(), hide=(), network="off",
                    allow_hosts=(), env=None, cwd=None, input=None, capture_output=False,
                    timeout=None, report=False, check=False, policy=None, cage=None,
                    stdin=None, stdout=None, stderr=None, text=False, write_new=(), waive=(),
                    accept=(), explain=None, protect=(), env_pass=(), env_set=None,
                    private_tmp=None, profiles=(), publish=(), on_host=None,
                    ask_timeout=None, changes=None, apply="safe", allow_ssh=()):
    """procage.run, awaited: the same arguments and result. Cancelling the
    task, or the timeout, kills the run."""
    stdin, stdout, stderr = _run._run_options(input, capture_output, stdin, stdout, stderr)
    _run._changes._rule(apply)
    options = _run._policy_options(cage, policy, explain, write=write, read=read, hide=hide,
                                   network=network, allow_hosts=allow_hosts,
                                   allow_ssh=allow_ssh, report=report,
                                   write_new=write_new, waive=waive, accept=accept,
                                   protect=protect, env_pass=env_pass, env_set=env_set,
                                   private_tmp=private_tmp, profiles=profiles,
                                   changes=changes, publish=publish)
    if on_host is not None:  # on_host may be a coroutine function, awaited on this loop
        cage = _ask.cage_asking(on_host, ask_timeout, asyncio.get_running_loop(),
                                workspace=workspace, policy=policy, **options)
        cwd = workspace if cwd is None and policy is None else cwd
        workspace = policy = None
        options = {}
    if text and isinstance(input, str):
        input = input.encode("utf-8")
    r = _run.Run(argv, workspace=workspace, policy=policy, cage=cage, stdin=stdin,
                 stdout=stdout, stderr=stderr, env=env, cwd=cwd, **options)
    try:
        try:
            out, err = await asyncio.wait_for(communicate_async(r, input), timeout)
        except asyncio.TimeoutError:
            r.kill()
            out, err = await communicate_async(r)
            raise subprocess.TimeoutExpired(r.args, timeout, out, err) from None
        return _run._finish(r, out, err, text, check, apply)
    finally:
        r.close()
