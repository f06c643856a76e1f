"""procage.run and Run: what a caged command can and cannot do, judged from outside."""

import errno
import os
import signal
import subprocess

import pytest

import procage


def test_returncode_output_input(workspace):
    r = procage.run(["sh", "-c", "echo out; echo err >&2; cat; exit 3"], workspace=workspace,
                    input=b"in\n", capture_output=True)
    assert isinstance(r, subprocess.CompletedProcess)
    assert (r.returncode, r.stdout, r.stderr) == (3, b"out\nin\n", b"err\n")
    assert r.tier in ("T1", "T2")
    assert r.tier == procage.host_facts().tier or r.tier == "T2"
    with pytest.raises(subprocess.CalledProcessError) as e:
        procage.run(["false"], workspace=workspace, check=True)
    assert e.value.returncode == 1
    t = procage.run(["echo", "é"], workspace=workspace, capture_output=True, text=True)
    assert t.stdout == "é\n"


def test_cwd_defaults_to_workspace(workspace):
    r = procage.run(["pwd"], workspace=workspace, capture_output=True)
    assert r.stdout.decode().strip() == str(workspace)


def test_caged_read_refused(workspace, outside):
    cmd = ["cat", str(outside / "secret")]
    refused = procage.run(cmd, workspace=workspace, capture_output=True)
    assert refused.returncode != 0
    assert b"the-secret-value" not in refused.stdout + refused.stderr
    # Control: the same read with the directory granted.
    granted = procage.run(cmd, workspace=workspace, read=[outside], capture_output=True)
    assert (granted.returncode, granted.stdout) == (0, b"the-secret-value\n")


def test_hide_inside_workspace(workspace):
    (workspace / "private").mkdir()
    (workspace / "private" / "key").write_text("hidden-key\n")
    cmd = ["cat", "private/key"]
    hidden = procage.run(cmd, workspace=workspace, hide=[workspace / "private"],
                         capture_output=True)
    assert hidden.returncode != 0 and b"hidden-key" not in hidden.stdout
    shown = procage.run(cmd, workspace=workspace, capture_output=True)
    assert shown.stdout == b"hidden-key\n"


def test_workspace_writes_and_nothing_else(workspace, outside):
    r = procage.run(["sh", "-c", f"echo made > made; echo no > {outside}/planted"],
                    workspace=workspace)
    assert r.returncode != 0  # the second write is refused
    assert (workspace / "made").read_text() == "made\n"
    assert not (outside / "planted").exists()
    # Control: a write grant on the other directory.
    procage.run(["sh", "-c", f"echo yes > {outside}/planted"], workspace=workspace,
                write=[outside], check=True)
    assert (outside / "planted").read_text() == "yes\n"


def test_secrets_dropped_from_env(workspace, monkeypatch):
    env = {"PATH": os.environ["PATH"], "AWS_SECRET_ACCESS_KEY": "aws-s3cr3t",
           "HARMLESS": "plain-value"}
    r = procage.run(["env"], workspace=workspace, env=env, capture_output=True)
    assert b"HARMLESS=plain-value" in r.stdout
    assert b"aws-s3cr3t" not in r.stdout
    # This process's environment, when env is None.
    monkeypatch.setenv("GITHUB_TOKEN", "ghp-token-value")
    r = procage.run(["env"], workspace=workspace, capture_output=True)
    assert r.returncode == 0 and b"ghp-token-value" not in r.stdout
    # Control: passed by name.
    policy = procage.Policy.default(workspace).env_pass("AWS_SECRET_ACCESS_KEY")
    r = procage.run(["env"], policy=policy, env=env, cwd=workspace, capture_output=True)
    assert b"AWS_SECRET_ACCESS_KEY=aws-s3cr3t" in r.stdout


def test_reports(workspace):
    # io_uring_setup, which every cage refuses (an outer filter that
    # refuses user namespaces, as on tier T2 here, would hide an unshare).
    script = ["/usr/bin/python3", "-c", "import ctypes; "
              "ctypes.CDLL(None).syscall(425, 1, 0); print('done')"]
    r = procage.run(script, workspace=workspace, report=True, capture_output=True)
    assert r.stdout == b"done\n"
    calls = [(x.call, x.count) for x in r.reports]
    assert calls == [("io_uring_setup", 1)], calls
    rep = r.reports[0]
    assert rep.pid > 0 and 0 < rep.first <= rep.last
    # Reports off: the same call is refused, and nothing is reported.
    quiet = procage.run(script, workspace=workspace, capture_output=True)
    assert quiet.stdout == b"done\n" and quiet.reports == []


def test_errors_are_exceptions(workspace):
    with pytest.raises(procage.ProcageError) as e:
        procage.run(["no-such-command-procage"], workspace=workspace)
    assert isinstance(e.value, OSError)
    assert e.value.step == "exec" and e.value.errno == errno.ENOENT
    assert "no-such-command-procage" in str(e.value)
    with pytest.raises(procage.ProcageError) as e:
        procage.run(["true"], workspace=workspace, read=["/nonexistent-procage-path"])
    assert "/nonexistent-procage-path" in e.value.message and e.value.code < 0
    with pytest.raises(procage.ProcageError) as e:
        procage.Policy.from_json('{"network": "off",\n "nope": 1}', "p.json")
    assert "p.json" in e.value.message and e.value.step is None
    with pytest.raises(ValueError):
        procage.run(["true"], workspace=workspace, network="sometimes")


def test_descriptors_not_inherited(workspace, tmp_path):
    leaked = os.open(tmp_path / "parent-file", os.O_CREAT | os.O_RDWR)
    os.set_inheritable(leaked, True)
    try:
        # sh cannot name a descriptor above 9: python can name any.
        write = ["/usr/bin/python3", "-c", f"import os; os.write({leaked}, b'x\\n')"]
        r = procage.run(write, workspace=workspace, capture_output=True)
        assert r.returncode != 0 and b"Bad file descriptor" in r.stderr
        assert (tmp_path / "parent-file").read_bytes() == b""
        # Control: passed on purpose, the same descriptor works.
        with procage.Run(write, workspace=workspace, pass_fds=[leaked]) as run:
            assert run.wait() == 0
        assert (tmp_path / "parent-file").read_bytes() == b"x\n"
    finally:
        os.close(leaked)


def test_run_pipes_and_kill(workspace):
    with procage.Run(["sh", "-c", "echo ready; echo e >&2; exec sleep 60"], workspace=workspace,
                     stdout=procage.PIPE, stderr=procage.STDOUT) as r:
        assert r.stdout.readline() == b"ready\n"
        assert r.stdout.readline() == b"e\n"
        assert r.poll() is None
        r.kill()
        assert r.wait() == -signal.SIGKILL
        assert r.stdout.read() == b""  # every process of the run is gone
    assert r.returncode == -signal.SIGKILL


def test_timeout_kills(workspace):
    with pytest.raises(subprocess.TimeoutExpired) as e:
        procage.run(["sh", "-c", "echo started; exec sleep 60"], workspace=workspace,
                    capture_output=True, timeout=0.5)
    # Whatever the run wrote before it was killed, never a cut of it.
    assert e.value.stdout in (b"", b"started\n")
    with procage.Run(["sh", "-c", "echo started; exec sleep 60"], workspace=workspace,
                     stdout=procage.PIPE) as r:
        with pytest.raises(subprocess.TimeoutExpired):
            r.communicate(timeout=0.05)
        with pytest.raises(subprocess.TimeoutExpired):
            r.wait(timeout=0.05)
        assert r.poll() is None
        r.kill()
        # Nothing read before the timeout is lost.
        assert r.communicate() == (b"started\n", None)
    assert r.returncode == -signal.SIGKILL


def test_nul_bytes_refused_not_cut(workspace, outside):
    # ctypes would pass "/x\0y" as "/x": a grant or an argument cut short.
    with pytest.raises(ValueError):
        procage.run(["true"], workspace=workspace, write=[f"{outside}\0/ignored"])
    with pytest.raises(ValueError):
        procage.Policy().hide(f"{outside}\0")
    with pytest.raises(ValueError):
        procage.run(["cat", f"{outside}/secret\0"], workspace=workspace)
    with pytest.raises(ValueError):
        procage.run(["true"], workspace=workspace, env={"A": "b\0c"})
    with pytest.raises(ValueError):
        procage.run(["true"], workspace=workspace, env={"A=B": "c"})


def test_background_process_ends_with_the_run(workspace):
    # The command leaves a process holding its stdout: procage ends it with
    # the run, so the output ends at once. Uncaged, the pipe stays open for
    # the 40 s of the sleep: the timeout only bounds that failure.
    r = procage.run(["sh", "-c", "sleep 40 & echo started"], workspace=workspace,
                    capture_output=True, timeout=20)
    assert (r.returncode, r.stdout) == (0, b"started\n")
