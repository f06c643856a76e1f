"""Loading libprocage and declaring its functions for ctypes.

The library is looked for, in order: the path in $PROCAGE_LIBRARY; the
checkout's build/libprocage.so when the package runs from the source tree;
the dynamic linker's search (ctypes.util.find_library, then the soname);
the libdir pkg-config gives for procage. Every structure here mirrors
include/procage.h; the structures the library fills that may grow are
passed with their size, so an older binding keeps working with a newer
library.
"""

import ctypes
import ctypes.util
import os
import subprocess

#: The header version this binding was written against.
HEADER_VERSION = "0.1.0"

STEP_NONE = -1


class Error(ctypes.Structure):
    """struct procage_error: fixed size, later fields take reserved room."""

    _fields_ = [
        ("code", ctypes.c_int),
        ("sys_errno", ctypes.c_int),
        ("step", ctypes.c_int),
        ("reserved", ctypes.c_int * 5),
        ("message", ctypes.c_char * 512),
    ]


class FdMap(ctypes.Structure):
    _fields_ = [("parent_fd", ctypes.c_int), ("child_fd", ctypes.c_int)]


class SpawnOpts(ctypes.Structure):
    _fields_ = [
        ("size", ctypes.c_size_t),
        ("argv", ctypes.POINTER(ctypes.c_char_p)),
        ("envp", ctypes.POINTER(ctypes.c_char_p)),
        ("cwd", ctypes.c_char_p),
        ("fds", ctypes.POINTER(FdMap)),
        ("n_fds", ctypes.c_size_t),
        ("report_json_path", ctypes.c_char_p),
    ]


class Time(ctypes.Structure):
    _fields_ = [("tv_sec", ctypes.c_int64), ("tv_nsec", ctypes.c_int64)]


class Report(ctypes.Structure):
    _fields_ = [
        ("call", ctypes.c_char * 32),
        ("args", ctypes.c_char * 384),
        ("pid", ctypes.c_int32),
        ("reserved", ctypes.c_uint32),
        ("count", ctypes.c_uint64),
        ("first", Time),
        ("last", Time),
    ]


class HostFacts(ctypes.Structure):
    _fields_ = [
        ("landlock_abi", ctypes.c_int),
        ("landlock_errno", ctypes.c_int),
        ("landlock_in_lsm_list", ctypes.c_bool),
        ("seccomp_filter", ctypes.c_bool),
        ("seccomp_user_notif", ctypes.c_bool),
        ("userns_create", ctypes.c_bool),
        ("userns_mount", ctypes.c_bool),
        ("userns_errno", ctypes.c_int),
        ("apparmor_restricts_userns", ctypes.c_bool),
        ("tier", ctypes.c_int),
        ("kernel_release", ctypes.c_char * 65),
        ("pidns_private_proc", ctypes.c_bool),
        ("pidns_errno", ctypes.c_int),
        ("cgroup_memory", ctypes.c_bool),
        ("cgroup_pids", ctypes.c_bool),
        ("cgroup_base", ctypes.c_char * 256),
        ("cgroup_why", ctypes.c_char * 256),
    ]


_P = ctypes.c_void_p
_E = ctypes.POINTER(Error)
_I = ctypes.c_int
_S = ctypes.c_char_p
_PP = ctypes.POINTER(ctypes.c_void_p)
_STRS = ctypes.POINTER(ctypes.POINTER(ctypes.c_char_p))

# name: (restype, argtypes)
_FUNCTIONS = {
    "procage_version": (_S, []),
    "procage_step_name": (_S, [_I]),
    "procage_tier_name": (_S, [_I]),
    "procage_free": (None, [_P]),
    "procage_strings_free": (None, [ctypes.POINTER(ctypes.c_char_p)]),
    "procage_policy_create": (_I, [_PP, _E]),
    "procage_policy_free": (None, [_P]),
    "procage_policy_new_default": (_I, [_S, _PP, _E]),
    "procage_policy_allow": (_I, [_P, _S, _I, _E]),
    "procage_policy_set_network": (_I, [_P, _I, _E]),
    "procage_policy_allow_host": (_I, [_P, _S, _E]),
    "procage_policy_allow_ssh": (_I, [_P, _S, _E]),
    "procage_policy_publish": (_I, [_P, ctypes.c_long, _E]),
    "procage_policy_env_pass": (_I, [_P, _S, _E]),
    "procage_policy_env_set": (_I, [_P, _S, _S, _E]),
    "procage_policy_set_lifetime": (_I, [_P, _I, _E]),
    "procage_policy_set_terminal": (_I, [_P, _I, _E]),
    "procage_policy_set_private_tmp": (_I, [_P, _I, _E]),
    "procage_policy_set_own_proc": (_I, [_P, _I, _E]),
    "procage_policy_set_home": (_I, [_P, _S, _E]),
    "procage_policy_set_tmp_base": (_I, [_P, _S, _E]),
    "procage_policy_set_rlimit": (_I, [_P, _I, ctypes.c_uint64, ctypes.c_uint64, _E]),
    "procage_policy_accept": (_I, [_P, _S, _E]),
    "procage_policy_waive": (_I, [_P, _S, _E]),
    "procage_policy_set_hardlinks": (_I, [_P, _I, _E]),
    "procage_policy_exempt_hardlinks": (_I, [_P, _S, _E]),
    "procage_policy_set_cgroup_limit": (_I, [_P, _I, ctypes.c_uint64, _E]),
    "procage_policy_set_reports": (_I, [_P, _I, _E]),
    "procage_policy_set_explain": (_I, [_P, _I, _E]),
    "procage_policy_allow_new_directory": (_I, [_P, _S, _I, _E]),
    "procage_run_denials": (_I, [_P, _STRS, _E]),
    "procage_policy_apply_profile": (_I, [_P, _S, _E]),
    "procage_rlimit_from_name": (_I, [_S]),
    "procage_policy_from_json_file": (_I, [_S, _PP, _E]),
    "procage_policy_from_json_text": (_I, [_S, _S, _PP, _E]),
    "procage_policy_to_json": (_I, [_P, ctypes.POINTER(ctypes.c_void_p), _E]),
    "procage_policy_fit": (_I, [_P, _PP, _STRS, _E]),
    "procage_host_facts_sized": (_I, [ctypes.POINTER(HostFacts), ctypes.c_size_t, _E]),
    "procage_cage_new": (_I, [_P, _PP, _E]),
    "procage_cage_free": (None, [_P]),
    "procage_cage_tier": (_I, [_P]),
    "procage_cage_hardlinks": (_I, [_P, _STRS, _E]),
    "procage_spawn": (_I, [_P, ctypes.POINTER(SpawnOpts), _PP, _E]),
    "procage_run_pid": (ctypes.c_int32, [_P]),
    "procage_run_tmpdir": (_S, [_P]),
    "procage_run_signal": (_I, [_P, _I, _E]),
    "procage_run_kill": (_I, [_P, _E]),
    "procage_run_fd": (_I, [_P]),
    "procage_run_wait": (_I, [_P, ctypes.POINTER(_I), _E]),
    "procage_run_wait_for": (_I, [_P, _I, ctypes.POINTER(_I), _E]),
    "procage_run_free": (None, [_P]),
    "procage_policy_set_changes": (_I, [_P, _I, _E]),
    "procage_policy_set_changes_limit": (_I, [_P, ctypes.c_uint64, _E]),
    "procage_run_changes_id": (_S, [_P]),
    "procage_changes_list": (_I, [_STRS, _E]),
    "procage_changes_entries": (_I, [_S, _STRS, _E]),
    "procage_changes_renames": (_I, [_S, _STRS, _E]),
    "procage_changes_apply": (
        _I,
        [_S, _I, ctypes.POINTER(ctypes.c_char_p), ctypes.c_size_t, _STRS,
         ctypes.POINTER(_I), _E],
    ),
    "procage_changes_discard": (_I, [_S, _E]),
    "procage_changes_diff": (
        _I, [_S, ctypes.POINTER(ctypes.c_char_p), ctypes.c_size_t,
             ctypes.POINTER(ctypes.c_void_p), _E],
    ),
    "procage_run_reports_sized": (
        _I,
        [_P, ctypes.c_size_t, ctypes.POINTER(ctypes.POINTER(Report)),
         ctypes.POINTER(ctypes.c_size_t), _E],
    ),
}


def _candidates():
    explicit = os.environ.get("PROCAGE_LIBRARY")
    if explicit:
        # Given on purpose: no fallback to another library.
        return [explicit], True
    names = []
    here = os.path.dirname(os.path.abspath(__file__))
    tree = os.path.join(here, os.pardir, os.pardir, "build", "libprocage.so")
    if os.path.exists(tree):
        names.append(os.path.normpath(tree))
    found = ctypes.util.find_library("procage")
    if found:
        names.append(found)
    names.append("libprocage.so.0")
    try:
        libdir = subprocess.run(["pkg-config", "--variable=libdir", "procage"],
                                capture_output=True, text=True, check=True).stdout.strip()
        if libdir:
            names.append(os.path.join(libdir, "libprocage.so.0"))
    except (OSError, subprocess.CalledProcessError):
        pass
    return names, False


def _load():
    names, explicit = _candidates()
    failures = []
    for name in names:
        try:
            return ctypes.CDLL(name, use_errno=True)
        except OSError as e:
            failures.append(f"{name}: {e}")
            if explicit:
                break
    raise ImportError("libprocage not found (set PROCAGE_LIBRARY to its path, or run "
                      "'make install'); tried: " + "; ".join(failures))


def _declare(lib):
    for name, (restype, argtypes) in _FUNCTIONS.items():
        try:
            f = getattr(lib, name)
        except AttributeError:
            raise ImportError(f"{lib._name} has no {name}: the library is older "
                              f"than this binding ({HEADER_VERSION})") from None
        f.restype = restype
        f.argtypes = argtypes
    version = lib.procage_version().decode()
    if _series(version) != _series(HEADER_VERSION):
        raise ImportError(f"{lib._name} is procage {version}, this binding needs "
                          f"{'.'.join(_series(HEADER_VERSION))}.x")
    return lib


def _series(version):
    """The part of a version that must match: major, and minor while major is 0."""
    parts = version.split(".")
    return tuple(parts[:2]) if parts[0] == "0" else tuple(parts[:1])


lib = _declare(_load())
path = lib._name


def c_bytes(value, what):
    """Bytes for a char * argument: ctypes would cut at a NUL byte, so that a
    path "/a\\0b" would reach the library as "/a"; refuse it instead."""
    b = os.fsencode(value) if not isinstance(value, (bytes, bytearray)) else bytes(value)
    if b"\0" in b:
        raise ValueError(f"{what}: embedded null byte in {value!r}")
    return b


def decode(b):
    """Text the library wrote (UTF-8, or the caged process's own bytes)."""
    return b.decode("utf-8", "replace") if b is not None else None


def strings(array):
    """A NULL-terminated list of strings, copied, then freed by the library."""
    out = []
    try:
        i = 0
        while array and array[i] is not None:
            out.append(decode(array[i]))
            i += 1
    finally:
        lib.procage_strings_free(array)
    return out
