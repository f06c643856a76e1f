"""Handles and threads: closing, sharing a cage, Ctrl-C, asyncio."""

import asyncio
import os
import signal
import subprocess
import threading
import time

import pytest

import procage


def _gone(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_double_close_and_use_after_close(workspace):
    policy = procage.Policy.default(workspace)
    cage = procage.Cage(policy)
    r = cage.spawn(["sleep", "60"])
    pid = r.pid
    cage.close()
    cage.close()
    # A run does not need its cage.
    assert r.poll() is None
    r.close()
    r.close()
    assert r.returncode == -signal.SIGKILL and _gone(pid)
    policy.close()
    policy.close()
    for call in (lambda: cage.spawn(["true"]), lambda: policy.to_json(),
                 lambda: procage.Cage(policy)):
        with pytest.raises(ValueError):
            call()
    assert r.wait() == -signal.SIGKILL  # the code stays known after close
    del r, cage, policy  # the collector after close frees nothing twice


def test_close_while_another_thread_waits(workspace):
    r = procage.Run(["sleep", "60"], workspace=workspace)
    results = []
    waiter = threading.Thread(target=lambda: results.append(r.wait()))
    waiter.start()
    r.close()
    waiter.join(timeout=30)
    assert not waiter.is_alive()
    assert results == [-signal.SIGKILL]


def test_many_threads_share_a_cage(workspace):
    cage = procage.Cage(procage.Policy.default(workspace))
    failures = []

    def worker(t):
        for i in range(5):
            n = t * 5 + i
            try:
                if t % 2:
                    r = cage.run(["sh", "-c", f"echo {n} > f{n}; cat f{n}"],
                                 capture_output=True, cwd=workspace)
                else:
                    r = procage.run(["sh", "-c", f"echo {n} > f{n}; cat f{n}"],
                                    workspace=workspace, capture_output=True)
                if (r.returncode, r.stdout) != (0, f"{n}\n".encode()):
                    failures.append((n, r))
            except Exception as e:  # reported below, not lost in the thread
                failures.append((n, e))

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    cage.close()
    assert failures == []
    assert sorted(os.listdir(workspace)) == sorted(f"f{n}" for n in range(20))


def _blocked_in_poll(tid):
    """The thread is inside poll(2) (x86_64 number 7) now."""
    with open(f"/proc/self/task/{tid}/syscall") as f:
        return f.read().split()[0] == "7"


def test_ctrl_c_interrupts_wait(workspace):
    main = threading.get_native_id()
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    sent = []

    def interrupt():
        # The signal goes when the main thread is blocked in the wait:
        # the deadline only bounds a failure.
        deadline = time.monotonic() + 30
        while not _blocked_in_poll(main) and time.monotonic() < deadline:
            threading.Event().wait(0.001)
        sent.append(time.monotonic())
        signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)

    try:
        with pytest.raises(KeyboardInterrupt):
            with procage.Run(["sleep", "60"], workspace=workspace) as r:
                pid = r.pid
                threading.Thread(target=interrupt).start()
                r.wait()
        interrupted = time.monotonic()
    finally:
        signal.signal(signal.SIGINT, previous)
    assert sent and interrupted - sent[0] < 5  # not the run's 60 s
    assert r.returncode == -signal.SIGKILL and _gone(pid)


def test_policy_json_and_fit(workspace):
    policy = procage.Policy.default(workspace, network="on")
    policy.set_reports(True).env_set("GREETING", "hi")
    text = policy.to_json()
    again = procage.Policy.from_json(text)
    assert again.to_json() == text
    assert policy.to_dict()["network"] == "on"
    fitted, changes = policy.fit()
    assert isinstance(changes, list) and all(isinstance(c, str) for c in changes)
    r = procage.run(["sh", "-c", "echo $GREETING"], policy=fitted, cwd=workspace,
                    capture_output=True)
    assert r.stdout == b"hi\n"


def test_run_async_without_threads(workspace):
    async def main():
        threads = threading.active_count()
        tasks = [procage.run_async(["sh", "-c", f"cat; echo {i}"], workspace=workspace,
                                   input=b"in ", capture_output=True) for i in range(6)]
        pending = asyncio.gather(*tasks)
        await asyncio.sleep(0)
        during = threading.active_count()
        results = await pending
        # A run that outlives its deadline is killed.
        with pytest.raises(subprocess.TimeoutExpired):
            await procage.run_async(["sleep", "60"], workspace=workspace, timeout=0.2)
        return threads, during, results

    threads, during, results = asyncio.run(main())
    assert during == threads
    assert [r.stdout for r in results] == [f"in {i}\n".encode() for i in range(6)]


def test_run_async_cancel_kills(workspace):
    async def main():
        r = procage.Run(["sleep", "60"], workspace=workspace)
        task = asyncio.ensure_future(r.wait_async())
        await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert r.poll() is None
        r.kill()
        return r, await r.wait_async()

    r, code = asyncio.run(main())
    assert code == -signal.SIGKILL
    r.close()


def test_forked_copy_does_not_end_the_run(workspace):
    with procage.Run(["sh", "-c", "read line; echo got $line"], workspace=workspace,
                     stdin=procage.PIPE, stdout=procage.PIPE) as r:
        child = os.fork()
        if child == 0:
            r.close()  # the copy: must leave the parent's run alone
            os._exit(0)
        assert os.waitpid(child, 0)[1] == 0
        out, _ = r.communicate(b"hello\n")
    assert (r.returncode, out) == (0, b"got hello\n")
