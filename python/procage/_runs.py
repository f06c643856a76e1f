"""Run: one caged process, in the manner of subprocess.Popen; run()."""

import ctypes
import dataclasses
import errno
import os
import select
import selectors
import signal
import subprocess
import threading
import time

from . import _ask, _changes, _denials, _lib, _stdio
from ._errors import ProcageError, call, from_struct
from ._policy import Cage, Policy

_READ_SIZE = 65536


@dataclasses.dataclass(frozen=True)
class Report:
    """A system call the seccomp filter refused (arguments as the cage wrote them)."""

    call: str
    args: str
    pid: int
    count: int
    first: float  # seconds since the epoch
    last: float


class CompletedRun(subprocess.CompletedProcess):
    """subprocess.CompletedProcess with what procage adds.

    reports  the refused system calls (Report), empty with reports off
    denials  the refusals the run met (Denial: path or host, operation,
             rule or class, the flag that would allow it), empty with
             explain off or on a host without seccomp user notification
    tier     the tier the cage was enforced with ("T1", "T2")
    changes  with changes="overlay": the run's change set once apply= was
             applied (Changes: .entries, .report, .apply(), .diff(),
             .discard()); else None
    """

    def __init__(self, args, returncode, stdout=None, stderr=None, reports=(), tier=None,
                 denials=(), changes=None):
        super().__init__(args, returncode, stdout, stderr)
        self.reports = list(reports)
        self.denials = list(denials)
        self.tier = tier
        self.changes = changes

    def __repr__(self):
        return super().__repr__()[:-1] + f", tier={self.tier!r}, reports={len(self.reports)})"


def _argv(args):
    if isinstance(args, (str, bytes, os.PathLike)):
        args = [args]
    encoded = [_lib.c_bytes(a, "argv") for a in args]
    if not encoded:
        raise ValueError("argv is empty")
    return encoded


def _envp(env):
    if env is None:
        return None  # the library filters this process's environment
    items = []
    for k, v in env.items():
        k = _lib.c_bytes(k, "env")
        if not k or b"=" in k:
            raise ValueError(f"env: illegal variable name {k!r}")
        items.append(k + b"=" + _lib.c_bytes(v, "env"))
    return (ctypes.c_char_p * (len(items) + 1))(*items, None)


def _cage_for(cage, policy, workspace, policy_options):
    """(cage, owned): the cage to spawn from, and whether this call made it."""
    if cage is not None:
        if policy is not None or workspace is not None or policy_options:
            raise TypeError("cage= already holds the policy: no policy, workspace or "
                            "policy options with it")
        return cage, False
    if policy is not None:
        if workspace is not None or policy_options:
            raise TypeError("policy= is the whole policy: no workspace or policy options "
                            "with it")
        return Cage(policy), True
    if workspace is None:
        raise TypeError("a run needs workspace=, policy= or cage=")
    # Explanations on unless asked off, as procage run has them.
    policy_options = dict(policy_options, explain=policy_options.get("explain", True))
    with Policy.default(workspace, **policy_options) as made:
        return Cage(made), True


class Run:
    """A caged process, like subprocess.Popen.

    Run(argv, workspace=DIR, ...) caged by the default policy for DIR plus
    the policy options of procage.run (write, read, hide, network, ...);
    or Run(argv, policy=POLICY) or Run(argv, cage=CAGE). stdin, stdout and
    stderr take None (this process's own), PIPE, DEVNULL, STDOUT (stderr),
    a descriptor or a file; pass_fds lists more descriptors the child keeps
    at the same numbers. cwd defaults to the workspace, or to this
    process's working directory with policy= or cage=. env (a mapping) is
    the child's environment before procage drops secret-looking variables;
    None takes this process's.

    The run's processes all end when its target ends (procage's reaper
    kills what is left), when kill() is called, and when the Run is closed:
    close() (or leaving a with block by an exception) kills a run that is
    still going; leaving a with block normally waits for it.

    Threads: the library lets one thread at a time use a run; the binding
    holds the Run's lock around every library call on it, and wait() polls
    a duplicate of the run's descriptor without it. So wait() and poll()
    may be called from any thread, and kill() or send_signal() while
    another thread waits; Ctrl-C (KeyboardInterrupt) interrupts wait() at
    once.
    """

    def __init__(self, argv, *, workspace=None, policy=None, cage=None, stdin=None,
                 stdout=None, stderr=None, pass_fds=(), env=None, cwd=None, report_json=None,
                 **policy_options):
        self.args = argv
        self.returncode = None
        self.stdin = self.stdout = self.stderr = None
        self._lock = threading.RLock()
        self._run = None
        self._reports = None
        self._denials = None
        self._pending = {}  # what communicate() read so far, per stream
        self.pid = None
        self.tmpdir = None
        #: The ID of the run's change set (changes="overlay"), else None.
        self.changes_id = None
        self._owner = os.getpid()
        self._failure = None  # the error of a wait that failed: the run is over
        if cwd is None and workspace is not None and cage is None and policy is None:
            cwd = workspace
        argv_b = _argv(argv)
        argv_c = (ctypes.c_char_p * (len(argv_b) + 1))(*argv_b, None)
        envp = _envp(env)
        the_cage, owned = _cage_for(cage, policy, workspace, policy_options)
        try:
            self.tier = the_cage.tier
            stdio = _stdio.build(stdin, stdout, stderr, pass_fds)
            try:
                self._spawn(the_cage, argv_c, envp, cwd, report_json, stdio)
            except BaseException:
                stdio.close_all()
                self.close()  # a run that did start is ended, not left behind
                raise
            stdio.close_after()
        finally:
            if owned:
                the_cage.close()  # a run does not need its cage
        self._open_pipes(stdio.parent)

    def _spawn(self, cage, argv_c, envp, cwd, report_json, stdio):
        fds = (_lib.FdMap * max(len(stdio.map), 1))(*stdio.map)
        opts = _lib.SpawnOpts(
            size=ctypes.sizeof(_lib.SpawnOpts),
            argv=ctypes.cast(argv_c, ctypes.POINTER(ctypes.c_char_p)),
            envp=ctypes.cast(envp, ctypes.POINTER(ctypes.c_char_p)) if envp else None,
            cwd=None if cwd is None else _lib.c_bytes(os.path.abspath(os.fspath(cwd)), "cwd"),
            fds=ctypes.cast(fds, ctypes.POINTER(_lib.FdMap)) if stdio.map else None,
            n_fds=len(stdio.map),
            report_json_path=None if report_json is None else _lib.c_bytes(report_json,
                                                                           "report_json"),
        )
        out = ctypes.c_void_p()
        try:
            with cage._use() as c:
                call("procage_spawn", c, ctypes.byref(opts), ctypes.byref(out))
        finally:
            # Owned at once: a signal's exception (Ctrl-C) raised just after
            # the call must not leave a run nobody can end.
            self._run = out.value
        self.pid = _lib.lib.procage_run_pid(self._run)
        #: The run's private temporary directory (removed when it ends), or None.
        self.tmpdir = _lib.decode(_lib.lib.procage_run_tmpdir(self._run))
        self.changes_id = _lib.decode(_lib.lib.procage_run_changes_id(self._run))

    def _open_pipes(self, parent):
        if parent[0] is not None:
            self.stdin = open(parent[0], "wb", buffering=0)
        if parent[1] is not None:
            self.stdout = open(parent[1], "rb")
        if parent[2] is not None:
            self.stderr = open(parent[2], "rb")

    # ---- the run's end -------------------------------------------------

    def fileno(self):
        """The run's descriptor, readable once the run has ended (-1 after
        the wait). Owned by the run: never close it; prefer wait(),
        wait_async() or a dup() of it, which stays valid."""
        with self._lock:
            return -1 if self._run is None else _lib.lib.procage_run_fd(self._run)

    def _end_fd(self):
        """A duplicate of the run's descriptor (ours to close), or None once reaped."""
        with self._lock:
            if self.returncode is not None:
                return None
            if self._failure is not None:
                raise self._failure
            if self._run is None:
                raise ValueError("operation on a closed run")
            return os.dup(_lib.lib.procage_run_fd(self._run))

    def _reap(self):
        """procage_run_wait once the run has ended (it then returns at once)."""
        with self._lock:
            if self.returncode is not None:
                return
            if self._failure is not None:
                raise self._failure
            status = ctypes.c_int()
            try:
                call("procage_run_wait", self._run, ctypes.byref(status))
            except ProcageError as e:
                # The library has closed the run's descriptor: waiting again
                # gives this error again, and close() only frees.
                self._failure = e
                raise
            self.returncode = os.waitstatus_to_exitcode(status.value)

    def poll(self):
        """The return code if the run has ended, else None."""
        fd = self._end_fd()
        if fd is None:
            return self.returncode
        try:
            ended = bool(select.select([fd], [], [], 0)[0])
        finally:
            os.close(fd)
        if ended:
            self._reap()
        return self.returncode

    def wait(self, timeout=None):
        """Wait for the run to end; its return code (-N: killed by signal N).
        subprocess.TimeoutExpired after timeout seconds (the run goes on)."""
        fd = self._end_fd()
        if fd is None:
            return self.returncode
        try:
            poller = select.poll()
            poller.register(fd, select.POLLIN)
            # Retried on EINTR after Python's signal handlers ran (PEP 475).
            ms = None if timeout is None else max(0, int(timeout * 1000 + 0.999))
            if not poller.poll(ms):
                raise subprocess.TimeoutExpired(self.args, timeout)
        finally:
            os.close(fd)
        self._reap()
        return self.returncode

    def send_signal(self, sig):
        """Signal the run as a terminal would (its target's process group)."""
        with self._lock:
            if self.returncode is not None or self._run is None:
                return
            err = _lib.Error()
            rc = _lib.lib.procage_run_signal(self._run, int(sig), ctypes.byref(err))
            if rc < 0 and rc != -errno.ESRCH:
                raise from_struct(rc, err, "procage_run_signal")

    def terminate(self):
        self.send_signal(signal.SIGTERM)

    def kill(self):
        """End the run now: every process of it gets SIGKILL."""
        with self._lock:
            if self.returncode is not None or self._run is None:
                return
            err = _lib.Error()
            rc = _lib.lib.procage_run_kill(self._run, ctypes.byref(err))
            if rc < 0 and rc != -errno.ESRCH:
                raise from_struct(rc, err, "procage_run_kill")

    def reports(self):
        """The refused system calls so far (all of them once the run has ended)."""
        with self._lock:
            if self._run is None:
                return list(self._reports or ())
            array = ctypes.POINTER(_lib.Report)()
            n = ctypes.c_size_t()
            call("procage_run_reports_sized", self._run, ctypes.sizeof(_lib.Report),
                 ctypes.byref(array), ctypes.byref(n))
            try:
                reports = [_report(array[i]) for i in range(n.value)]
            finally:
                _lib.lib.procage_free(array)
            if self.returncode is not None:
                self._reports = reports
            return reports

    def denials(self):
        """The refusals the run met so far (Denial), with explain on."""
        with self._lock:
            if self._run is None:
                return list(self._denials or ())
            lines = ctypes.POINTER(ctypes.c_char_p)()
            call("procage_run_denials", self._run, ctypes.byref(lines))
            denials = [d for d in map(_denials.parse, _lib.strings(lines)) if d is not None]
            if self.returncode is not None:
                self._denials = denials
            return denials

    # ---- pipes ---------------------------------------------------------

    def communicate(self, input=None, timeout=None):
        """Send input, read stdout and stderr to their end, wait: (stdout,
        stderr), as Popen.communicate. On TimeoutExpired nothing read is
        lost: call it again (after kill(), say) to get the rest."""
        deadline = None if timeout is None else time.monotonic() + timeout
        try:
            self._exchange(input, deadline, timeout)
        except subprocess.TimeoutExpired:
            raise
        remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
        try:
            self.wait(remaining)
        except subprocess.TimeoutExpired:
            raise subprocess.TimeoutExpired(self.args, timeout) from None
        return self._collected()

    def _collected(self):
        out = b"".join(self._pending.pop("stdout", [])) if self.stdout else None
        err = b"".join(self._pending.pop("stderr", [])) if self.stderr else None
        return out, err

    def _exchange(self, input, deadline, timeout):
        streams = {}
        if self.stdin is not None and not self.stdin.closed:
            if input:
                streams[self.stdin.fileno()] = ("stdin", memoryview(bytes(input)))
            else:
                self.stdin.close()
        for name in ("stdout", "stderr"):
            f = getattr(self, name)
            self._pending.setdefault(name, [])
            if f is not None and not f.closed:
                streams[f.fileno()] = (name, None)
        if not streams:
            return
        with selectors.PollSelector() as sel:
            for fd, (name, data) in streams.items():
                sel.register(fd, selectors.EVENT_WRITE if data is not None
                             else selectors.EVENT_READ)
            while sel.get_map():
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    raise subprocess.TimeoutExpired(self.args, timeout)
                for key, _ in sel.select(remaining):
                    self._transfer(sel, key.fd, streams)

    def _transfer(self, sel, fd, streams):
        name, data = streams[fd]
        if data is not None:
            try:
                written = os.write(fd, data[:select.PIPE_BUF])
            except BrokenPipeError:
                written = len(data)
            data = data[written:]
            streams[fd] = (name, data)
            if not data:
                sel.unregister(fd)
                self.stdin.close()
            return
        chunk = os.read(fd, _READ_SIZE)
        if chunk:
            self._pending[name].append(chunk)
        else:
            sel.unregister(fd)
            getattr(self, name).close()

    # ---- lifetime of the handle -----------------------------------------

    def _close_pipes(self):
        for f in (self.stdin, self.stdout, self.stderr):
            if f is not None:
                try:
                    f.close()
                except OSError:
                    pass

    def close(self):
        """Kill the run if it is still going, reap it, free it. Twice is harmless.

        In a process forked from the one that started the run (the copy of
        this object a fork made) close() only forgets the run: the run is
        the parent's, and its end is the parent's to decide."""
        with self._lock:
            if self._run is None:
                return
            if os.getpid() != self._owner:
                self._run = None
                self._close_pipes()
                return
            try:
                if self.returncode is None and self._failure is None:
                    self.kill()
                    self.wait()
                if self._failure is None:
                    self.reports()
                    self.denials()
            finally:
                run, self._run = self._run, None
                _lib.lib.procage_run_free(run)
                self._close_pipes()

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        try:
            if exc_type is None:
                if self.stdin is not None:
                    self.stdin.close()
                self.wait()
        finally:
            self.close()

    def __del__(self):
        # A run nobody holds any more is ended, not left running.
        try:
            if getattr(self, "_run", None) is not None:
                self.close()
        except Exception:
            pass

    def __repr__(self):
        return f"<procage.Run pid={getattr(self, 'pid', None)} returncode={self.returncode}>"


def _report(r):
    return Report(call=_lib.decode(r.call), args=_lib.decode(r.args), pid=r.pid, count=r.count,
                  first=r.first.tv_sec + r.first.tv_nsec / 1e9,
                  last=r.last.tv_sec + r.last.tv_nsec / 1e9)


def _run_options(input, capture_output, stdin, stdout, stderr):
    if input is not None:
        if stdin is not None:
            raise ValueError("stdin and input cannot both be given")
        stdin = _stdio.PIPE
    if capture_output:
        if stdout is not None or stderr is not None:
            raise ValueError("stdout and stderr cannot be given with capture_output")
        stdout = stderr = _stdio.PIPE
    return stdin, stdout, stderr


# The policy options of run() whose value says "not given".
_UNSET = {"network": "off", "report": False, "private_tmp": None, "env_set": None,
          "changes": None, "changes_limit": None}


def _policy_options(cage, policy, explain, **options):
    if cage is not None or policy is not None:
        given = [name for name, value in options.items()
                 if value != _UNSET.get(name, ()) and value is not None]
        if given or explain is not None:
            raise TypeError("policy options (" + ", ".join(given or ["explain"])
                            + ") go into the policy, not beside policy= or cage=")
        return {}
    return dict(options, explain=True if explain is None else explain)


def _finish(r, out, err, text, check, apply):
    if text:
        out = None if out is None else out.decode("utf-8", "replace")
        err = None if err is None else err.decode("utf-8", "replace")
    changes = _changes.after_run(r.changes_id, apply)
    result = CompletedRun(r.args, r.returncode, out, err, r.reports(), r.tier, r.denials(),
                          changes)
    if check:
        result.check_returncode()
    return result


def run(argv, *, workspace=None, write=(), read=(), hide=(), network="off", allow_hosts=(),
        env=None, cwd=None, input=None, capture_output=False, timeout=None, report=False,
        check=False, policy=None, cage=None, stdin=None, stdout=None, stderr=None, text=False,
        write_new=(), waive=(), accept=(), explain=None, protect=(), env_pass=(),
        env_set=None, private_tmp=None, profiles=(), publish=(), on_host=None,
        ask_timeout=None, changes=None, apply="safe", allow_ssh=(), changes_limit=None):
    """Run argv caged, wait for it, return a CompletedRun.

    The cage: the default policy for workspace (system directories and the
    home readable, workspace writable, network off, a private temporary
    directory, every hard-deny class on) plus write, read and hide (paths),
    network ("off", "on", "proxy", "loopback") and allow_hosts and allow_ssh (with
    "proxy"; allow_ssh: hosts ssh and git reach, docs/ssh.md), publish (with
    "loopback" on tier T1: ports of the run the host reaches at its own
    127.0.0.1, --publish), and
    report (refused system calls come back in .reports), write_new
    (directories made when missing, then writable: --write-new), waive
    (hard-deny classes, "CLASS" or "CLASS:PATH": --waive), accept
    (approximations by name: --accept) and explain (on unless False: the
    refusals come back in .denials, each with the flag that would allow
    it; policy= and cage= carry their own, Policy.set_explain), protect
    (paths kept read-only), env_pass (variables passed although they look
    like secrets), env_set (a mapping set in the command's environment)
    private_tmp (False: no TMPDIR of the run's own) and profiles (shipped
    profiles by name, as --profile: "pip", "npm"); python/README.md
    maps every procage run option to its argument; or policy= (a
    Policy), or cage= (a Cage, reused across runs). cwd defaults to the
    workspace. The rest is subprocess.run's: input, capture_output, timeout
    (the run is killed, then subprocess.TimeoutExpired), check
    (subprocess.CalledProcessError), stdin, stdout, stderr, text. With
    network="proxy", on_host(host, port) is asked about each host name the
    allowlist does not name, within ask_timeout seconds (_ask.py). With
    changes="overlay" (tier T1) the run writes into a change set, applied
    when it ends by apply= ("safe", the default; "all"; "none" keeps it
    whole) and handed back as .changes (_changes.py); changes_limit bounds
    it in bytes (--limit changes=).

    A policy the host cannot enforce, or a spawn that fails (command not
    found included), raises ProcageError before anything runs. Ctrl-C
    during the run kills it and raises KeyboardInterrupt.
    """
    stdin, stdout, stderr = _run_options(input, capture_output, stdin, stdout, stderr)
    _changes._rule(apply)  # a wrong rule is refused before anything runs
    options = _policy_options(cage, policy, explain, write=write, read=read, hide=hide,
                              network=network, allow_hosts=allow_hosts, allow_ssh=allow_ssh,
                              report=report,
                              write_new=write_new, waive=waive, accept=accept,
                              protect=protect, env_pass=env_pass, env_set=env_set,
                              private_tmp=private_tmp, profiles=profiles, changes=changes,
                              changes_limit=changes_limit, publish=publish)
    if on_host is not None:  # a proxy that asks on_host (_ask.py)
        cage = _ask.cage_asking(on_host, ask_timeout, None, workspace=workspace,
                                policy=policy, **options)
        cwd = workspace if cwd is None and policy is None else cwd
        workspace = policy = None
        options = {}
    if text and isinstance(input, str):
        input = input.encode("utf-8")
    with Run(argv, workspace=workspace, policy=policy, cage=cage, stdin=stdin, stdout=stdout,
             stderr=stderr, env=env, cwd=cwd, **options) as r:
        try:
            out, err = r.communicate(input, timeout)
        except subprocess.TimeoutExpired:
            r.kill()
            out, err = r.communicate()
            raise subprocess.TimeoutExpired(r.args, timeout, out, err) from None
        return _finish(r, out, err, text, check, apply)
