"""Policy, Cage and host facts."""

import ctypes
import dataclasses
import json
import os

from . import _lib
from ._handle import Handle
from ._errors import ProcageError, call  # noqa: F401 (re-exported)

_ACCESS = {"read": 1, "write": 2, "protect": 3, "hide": 4, "connect": 5}
_NETWORK = {"off": 0, "on": 1, "proxy": 2, "loopback": 3}
_LIFETIME = {"session": 0, "tree": 1}
_TERMINAL = {"inherit": 0, "new-pty": 1}
_HARDLINKS = {"refuse": 0, "report": 1}
_CGROUP = {"memory": 1, "pids": 2}


def _choice(table, value, what):
    try:
        return table[value]
    except (KeyError, TypeError):
        raise ValueError(f"{what} {value!r}: expected one of "
                         + ", ".join(repr(k) for k in table)) from None


def _path(path):
    """An absolute path as bytes: relative ones are taken from the current directory."""
    return _lib.c_bytes(os.path.abspath(os.fspath(path)), "path")


def _text(value):
    return _lib.c_bytes(value, "argument")


class Policy(Handle):
    """What a run may do: plain data, never touching the kernel.

    Policy() is empty (nothing granted, network off, private tmp on);
    Policy.default(workspace) is procage's default (system directories and
    the home readable, the workspace writable); Policy.from_json() and
    Policy.from_file() read the schema of docs/policy.md. Every setter checks
    its argument at once (ProcageError, or ValueError for a name this binding
    does not know) and returns the policy, so calls chain.

    Threads: every call on one Policy holds its lock, so a policy may be
    shared; a Cage keeps its own copy, so the policy may change afterwards.
    """

    _free_function = "procage_policy_free"
    _kind = "policy"
    _exclusive = True

    def __init__(self, _pointer=None):
        super().__init__(_pointer)
        if _pointer is None:
            out = ctypes.c_void_p()
            try:
                call("procage_policy_create", ctypes.byref(out))
            finally:
                self._pointer = out.value  # owned even if a signal's exception comes now

    @classmethod
    def _out(cls, function, *args):
        out = ctypes.c_void_p()
        try:
            call(function, *args, ctypes.byref(out))
        finally:
            # Owned at once, even if a signal's exception comes right after the call.
            policy = cls(out.value) if out.value else None
        return policy

    @classmethod
    def default(cls, workspace, **options):
        """The default policy for workspace, then options as for apply()."""
        policy = cls._out("procage_policy_new_default", _path(workspace))
        return policy.apply(**options) if options else policy

    @classmethod
    def from_json(cls, text, name="<json>"):
        """A policy from JSON text (a str, bytes, or a dict to serialise)."""
        if isinstance(text, dict):
            text = json.dumps(text)
        return cls._out("procage_policy_from_json_text", _text(text), _text(name))

    @classmethod
    def from_file(cls, path):
        """A policy from a JSON file; errors name the file, line and column."""
        return cls._out("procage_policy_from_json_file", _lib.c_bytes(path, "path"))

    def to_json(self):
        """The policy as JSON text, every key written (reads back the same)."""
        out = ctypes.c_void_p()
        with self._use() as p:
            call("procage_policy_to_json", p, ctypes.byref(out))
        try:
            return _lib.decode(ctypes.string_at(out.value))
        finally:
            _lib.lib.procage_free(out)

    def to_dict(self):
        return json.loads(self.to_json())

    def copy(self):
        return Policy.from_json(self.to_json(), "copy")

    def fit(self):
        """(policy, changes): the nearest policy this host can enforce, and
        one line per change saying what changed and what was missing."""
        fitted = ctypes.c_void_p()
        changes = ctypes.POINTER(ctypes.c_char_p)()
        try:
            with self._use() as p:
                call("procage_policy_fit", p, ctypes.byref(fitted), ctypes.byref(changes))
        finally:
            policy = Policy(fitted.value) if fitted.value else None
        return policy, _lib.strings(changes)

    def _set(self, function, *args):
        with self._use() as p:
            call(function, p, *args)
        return self

    def allow(self, path, access):
        """Grant path "read", "write", "protect", "hide" or "connect"."""
        return self._set("procage_policy_allow", _path(path), _choice(_ACCESS, access, "access"))

    def read(self, *paths):
        for path in paths:
            self.allow(path, "read")
        return self

    def write(self, *paths):
        for path in paths:
            self.allow(path, "write")
        return self

    def protect(self, *paths):
        for path in paths:
            self.allow(path, "protect")
        return self

    def hide(self, *paths):
        for path in paths:
            self.allow(path, "hide")
        return self

    def connect(self, *paths):
        for path in paths:
            self.allow(path, "connect")
        return self

    def set_network(self, mode):
        """"off", "on", "proxy" (only the hosts of allow_host) or "loopback"
        (127.0.0.0/8 and ::1 only; on tier T2 accept "host-loopback")."""
        return self._set("procage_policy_set_network", _choice(_NETWORK, mode, "network"))

    def allow_host(self, *entries):
        for entry in entries:
            self._set("procage_policy_allow_host", _text(entry))
        return self

    def publish(self, *ports):
        """With network "loopback" on tier T1: the host reaches the run's
        listener on 127.0.0.1 at each port, at its own 127.0.0.1 (--publish)."""
        for port in ports:
            if isinstance(port, bool) or not isinstance(port, int):
                raise TypeError(f"a published port is an int, not {type(port).__name__}")
            self._set("procage_policy_publish", port)

    def allow_ssh(self, *entries):
        """With network "proxy": hosts ("git.example" or "git.example:2222")
        ssh and git reach through the proxy, host keys from ~/.ssh/known_hosts,
        the caller's agent behind procage's filter (docs/ssh.md)."""
        for entry in entries:
            self._set("procage_policy_allow_ssh", _text(entry))
        return self

    def env_pass(self, *names):
        """Pass variables the secret filter would drop."""
        for name in names:
            self._set("procage_policy_env_pass", _text(name))
        return self

    def env_set(self, name, value):
        return self._set("procage_policy_env_set", _text(name), _text(value))

    def set_lifetime(self, lifetime):
        return self._set("procage_policy_set_lifetime", _choice(_LIFETIME, lifetime, "lifetime"))

    def set_terminal(self, terminal):
        return self._set("procage_policy_set_terminal", _choice(_TERMINAL, terminal, "terminal"))

    def set_private_tmp(self, on):
        return self._set("procage_policy_set_private_tmp", 1 if on else 0)

    def set_own_proc(self, on):
        """Tier T1: the run's own /proc (only its processes) readable; on by default."""
        return self._set("procage_policy_set_own_proc", 1 if on else 0)

    def set_home(self, home):
        """The home the hard-deny classes cover (None: $HOME)."""
        return self._set("procage_policy_set_home", None if home is None else _path(home))

    def set_tmp_base(self, base):
        """Where private temporary directories are made (None: $TMPDIR or /tmp)."""
        return self._set("procage_policy_set_tmp_base", None if base is None else _path(base))

    def set_rlimit(self, resource, soft, hard=None):
        """resource: an RLIMIT_* number or a name ("nofile", "as", ...)."""
        if isinstance(resource, str):
            number = _lib.lib.procage_rlimit_from_name(resource.encode())
            if number < 0:
                raise ValueError(f"unknown resource limit {resource!r}")
            resource = number
        return self._set("procage_policy_set_rlimit", resource, soft,
                         soft if hard is None else hard)

    def set_cgroup_limit(self, limit, value):
        """"memory" (bytes) or "pids" for the whole run; 0 removes it."""
        return self._set("procage_policy_set_cgroup_limit", _choice(_CGROUP, limit, "limit"),
                         value)

    def accept(self, *approximations):
        for name in approximations:
            self._set("procage_policy_accept", _text(name))
        return self

    def waive(self, *classes):
        for name in classes:
            self._set("procage_policy_waive", _text(name))
        return self

    def set_reports(self, on):
        return self._set("procage_policy_set_reports", 1 if on else 0)

    def set_explain(self, on):
        """Judge the run's refused calls and keep them, each with the flag that
        would allow it (Run.denials, CompletedRun.denials). Policy() and
        Policy.default() leave it off; procage.run turns it on unless
        explain=False."""
        return self._set("procage_policy_set_explain", 1 if on else 0)

    def write_new(self, *paths):
        """Write grants on directories made now when missing (mode 0700), as
        procage run --write-new: the parent must exist, and no location of a
        hard-deny class may lie at or under the directory."""
        for path in paths:
            self._set("procage_policy_allow_new_directory", _path(path), 0)
        return self

    def profile(self, *names):
        """Add shipped profiles by name ("pip", "npm"; procage profiles lists
        them), as procage run --profile: their caches made when missing and
        writable, their registry hosts for network="proxy"."""
        for name in names:
            self._set("procage_policy_apply_profile", _text(name))
        return self

    def set_changes(self, mode):
        """"in-place" (the default) or "overlay" (tier T1): the run's writes
        go to a change set that procage.run applies by its apply= rule."""
        return self._set("procage_policy_set_changes",
                         _choice({"in-place": 0, "overlay": 1}, mode, "changes"))

    def set_changes_limit(self, size):
        """With changes="overlay": the bytes the run's change set may hold
        (at least 1 MiB; 0 removes the bound), as --limit changes=SIZE. A
        write past it fails in the run with ENOSPC."""
        return self._set("procage_policy_set_changes_limit", size)

    def set_hardlinks(self, mode):
        return self._set("procage_policy_set_hardlinks", _choice(_HARDLINKS, mode, "hardlinks"))

    def exempt_hardlinks(self, path):
        return self._set("procage_policy_exempt_hardlinks", _path(path))

    def apply(self, *, write=(), read=(), hide=(), protect=(), network=None, allow_hosts=(),
              publish=(), allow_ssh=(), env_pass=(), env_set=None, report=None, private_tmp=None,
              home=None, tmp_base=None, accept=(), waive=(), write_new=(), explain=None,
              profiles=(), changes=None, changes_limit=None):
        """Add the keyword arguments procage.run takes to this policy."""
        self.read(*_paths(read)).write(*_paths(write))
        self.protect(*_paths(protect)).hide(*_paths(hide))
        if network is not None:
            self.set_network(network)
        self.allow_host(*_strs(allow_hosts)).allow_ssh(*_strs(allow_ssh))
        self.env_pass(*_strs(env_pass))
        self.publish(*publish)
        for name, value in (env_set or {}).items():
            self.env_set(name, value)
        if report is not None:
            self.set_reports(report)
        if private_tmp is not None:
            self.set_private_tmp(private_tmp)
        if home is not None:
            self.set_home(home)
        if tmp_base is not None:
            self.set_tmp_base(tmp_base)
        if explain is not None:
            self.set_explain(explain)
        if changes is not None:
            self.set_changes(changes)
        if changes_limit is not None:
            self.set_changes_limit(changes_limit)
        # Waived classes first: a new directory is checked against the classes
        # still in force, as the command checks it after all its flags.
        self.accept(*_strs(accept)).waive(*_strs(waive))
        return self.write_new(*_paths(write_new)).profile(*_strs(profiles))

    def cage(self):
        return Cage(self)


def _paths(value):
    """One path or several: a lone str or PathLike is not iterated."""
    if isinstance(value, (str, bytes, os.PathLike)):
        return (value,)
    return tuple(value)


def _strs(value):
    return (value,) if isinstance(value, (str, bytes)) else tuple(value)


class Cage(Handle):
    """A policy checked against this host, ready to spawn.

    procage_cage_new resolves every path and decides how each construct is
    enforced, or refuses (ProcageError naming what is missing). The header
    guarantees a cage is never changed afterwards: any number of threads
    may spawn from one Cage at once, and a run does not need its cage, so
    closing a cage never ends its runs (close waits only for spawns already
    under way). A cage holds one descriptor per path it grants until close.

    What it resolved is a snapshot: paths, and the repositories found in
    the writable trees (whose hooks and config stay read-only), as they were
    when it was made; make a new Cage when those may have changed.
    """

    _free_function = "procage_cage_free"
    _kind = "cage"

    def __init__(self, policy):
        super().__init__(None)
        out = ctypes.c_void_p()
        try:
            with policy._use() as p:
                call("procage_cage_new", p, ctypes.byref(out))
        finally:
            self._pointer = out.value  # owned even if a signal's exception comes now
        self.tier = tier_name(_lib.lib.procage_cage_tier(out.value))

    def hardlinks(self):
        """The hard-link check now: one message per file found (empty when clean)."""
        findings = ctypes.POINTER(ctypes.c_char_p)()
        with self._use() as c:
            call("procage_cage_hardlinks", c, ctypes.byref(findings))
        return _lib.strings(findings)

    def spawn(self, argv, **options):
        """A Run of argv in this cage (the options of procage.Run)."""
        from ._runs import Run
        return Run(argv, cage=self, **options)

    def run(self, argv, **options):
        """procage.run in this cage (its options but the policy's)."""
        from ._runs import run
        return run(argv, cage=self, **options)


def tier_name(tier):
    return _lib.decode(_lib.lib.procage_tier_name(tier))


@dataclasses.dataclass(frozen=True)
class HostFacts:
    """What the running kernel offers, measured once per process."""

    tier: str
    landlock_abi: int
    landlock_errno: int
    landlock_in_lsm_list: bool
    seccomp_filter: bool
    seccomp_user_notif: bool
    userns_create: bool
    userns_mount: bool
    userns_errno: int
    apparmor_restricts_userns: bool
    kernel_release: str
    pidns_private_proc: bool
    pidns_errno: int
    cgroup_memory: bool
    cgroup_pids: bool
    cgroup_base: str
    cgroup_why: str


def host_facts():
    """The host facts (procage facts) as a HostFacts."""
    facts = _lib.HostFacts()
    call("procage_host_facts_sized", ctypes.byref(facts), ctypes.sizeof(facts))
    values = {}
    for field in dataclasses.fields(HostFacts):
        if field.name == "tier":
            values["tier"] = tier_name(facts.tier)
            continue
        value = getattr(facts, field.name)
        values[field.name] = _lib.decode(value) if isinstance(value, bytes) else value
    return HostFacts(**values)


__all__ = ["Policy", "Cage", "HostFacts", "host_facts", "ProcageError"]
