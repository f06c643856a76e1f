"""Fixtures: a workspace and a place outside it, both in pytest's temporary directory."""

import os
import sys

import pytest

# The package from this checkout, and the library from its build/ unless
# PROCAGE_LIBRARY names another.
sys.path.insert(0, os.path.join(os.path.dirname(__file__), os.pardir))


@pytest.fixture
def workspace(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws


@pytest.fixture
def outside(tmp_path):
    """A directory no default policy grants, with a secret in it."""
    d = tmp_path / "outside"
    d.mkdir()
    (d / "secret").write_text("the-secret-value\n")
    return d


# PROCAGE_TEST_SANDBOX_OFF=1: a check of the tests themselves. Every Run
# starts its command uncaged (subprocess, inheriting descriptors as a plain
# fork and exec would), so each test of what the cage refuses must fail,
# and so must a test of what a policy sets (env_set); the rest (controls,
# threads, handles, asyncio) pass.
SANDBOX_OFF = os.environ.get("PROCAGE_TEST_SANDBOX_OFF") == "1"


def _uncaged(monkeypatch):
    import subprocess

    from procage import _runs as run_module

    def spawn(self, cage, argv_c, envp, cwd, report_json, stdio):
        with cage._use():  # a closed cage is refused as before
            pass
        argv = [argv_c[i] for i in range(len(argv_c) - 1)]
        env = None
        if envp:
            env = dict(envp[i].split(b"=", 1) for i in range(len(envp) - 1))
        std = {child: parent for parent, child in stdio.map}
        self._popen = subprocess.Popen(
            argv, stdin=std.get(0), stdout=std.get(1), stderr=std.get(2), cwd=cwd, env=env,
            close_fds=False)
        self._run = self._popen
        self.pid = self._popen.pid

    def end_fd(self):
        with self._lock:
            if self.returncode is not None:
                return None
            return os.pidfd_open(self._popen.pid)

    def reap(self):
        with self._lock:
            if self.returncode is None:
                self.returncode = self._popen.wait()

    def signal(self, sig):
        if self.returncode is None:
            self._popen.send_signal(sig)

    def close(self):
        with self._lock:
            if self._run is None:
                return
            if os.getpid() != self._owner:  # a forked copy, as the binding does
                self._run = None
                self._close_pipes()
                return
            if self.returncode is None:
                self._popen.kill()
                self.wait()
            self._run = None
            self._close_pipes()

    for name, f in (("_spawn", spawn), ("_end_fd", end_fd), ("_reap", reap),
                    ("send_signal", signal), ("kill", lambda self: signal(self, 9)),
                    ("reports", lambda self: []), ("denials", lambda self: []),
                    ("close", close),
                    ("fileno", lambda self: -1)):
        monkeypatch.setattr(run_module.Run, name, f)


@pytest.fixture(autouse=True)
def sandbox_off(monkeypatch):
    if SANDBOX_OFF:
        _uncaged(monkeypatch)


def pytest_report_header(config):
    if SANDBOX_OFF:
        return ("!!! PROCAGE_TEST_SANDBOX_OFF=1: runs are NOT caged; every test of a "
                "refusal must FAIL, the others pass !!!")
