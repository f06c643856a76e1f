"""Change sets: what a run with changes="overlay" wrote, kept for review.

A run whose policy has changes="overlay" (tier T1) writes into an overlay
of its own; when it ends, procage.run applies the change set by the rule
apply= names ("safe", "all" or "none") and hands back what remains as
CompletedRun.changes, a Changes. The calls are the library's
procage_changes_*: the same change sets `procage changes` shows.
"""

import ctypes
import dataclasses

from . import _lib
from ._errors import call

#: apply= values, as enum procage_apply_rule.
RULES = {"safe": 0, "all": 1, "none": 2}


@dataclasses.dataclass(frozen=True)
class Change:
    """One change: the host path, its kind ("added", "modified", "removed",
    "added link", "changed link", "directory", "added directory",
    "renamed": a directory or file moved to path, root's overlays only), the
    bytes the change set holds for it (None for a removal or a directory),
    why the safe rule holds it back (None when it does not), and for a
    rename the host path it was moved from (None for any other kind)."""

    path: str
    kind: str
    size: int
    held: str
    source: str = None


def _rule(rule):
    if rule not in RULES:
        raise ValueError(f"apply: {rule!r} is no rule (safe, all or none)")
    return RULES[rule]


def _paths_array(paths):
    encoded = [_lib.c_bytes(p, "paths") for p in paths]
    return (ctypes.c_char_p * (len(encoded) + 1))(*encoded, None), len(encoded)


def _entry(line, sources):
    kind, size, held, path = line.split("\t", 3)
    return Change(path=path, kind=kind, size=None if int(size) < 0 else int(size),
                  held=held or None, source=sources.get(path) if kind == "renamed" else None)


def _renames(id):
    """Each rename's new host path mapped to its old one."""
    lines = ctypes.POINTER(ctypes.c_char_p)()
    call("procage_changes_renames", _lib.c_bytes(id, "id"), ctypes.byref(lines))
    paths = _lib.strings(lines)
    return dict(zip(paths[1::2], paths[0::2]))


class Changes:
    """A change set in the store, by its ID.

    entries   the changes it still holds (Change), read anew by refresh()
    report    what applying said last: "held back: PATH (WHY)", "not
              applied: PATH: WHY", "applied: PATH" lines
    kept      whether the change set is still in the store
    """

    def __init__(self, id, report=(), kept=True):
        self.id = id
        self.report = list(report)
        self.kept = kept
        self.entries = []
        if kept:
            self.refresh()

    def refresh(self):
        """Read the change list again from the store."""
        if not self.kept:
            self.entries = []
            return self.entries
        lines = ctypes.POINTER(ctypes.c_char_p)()
        call("procage_changes_entries", _lib.c_bytes(self.id, "id"), ctypes.byref(lines))
        found = _lib.strings(lines)
        sources = _renames(self.id) if any(line.startswith("renamed\t") for line in found) else {}
        self.entries = [_entry(line, sources) for line in found]
        return self.entries

    def __iter__(self):
        return iter(self.entries)

    def __len__(self):
        return len(self.entries)

    def apply(self, paths=None, rule=None):
        """Apply the change set: everything by the safe rule (paths None), or
        only what lies below the absolute host paths given, applied as asked
        (rule "all", as `procage changes apply ID PATH` does: the caller has
        looked at them). The lines of the report; what is not applied stays."""
        if not self.kept:
            return []
        if rule is None:
            rule = "safe" if paths is None else "all"
        array, n = _paths_array(paths or ())
        lines = ctypes.POINTER(ctypes.c_char_p)()
        kept = ctypes.c_int()
        call("procage_changes_apply", _lib.c_bytes(self.id, "id"), _rule(rule), array, n,
             ctypes.byref(lines), ctypes.byref(kept))
        self.report = _lib.strings(lines)
        self.kept = bool(kept.value)
        self.refresh()
        return self.report

    def discard(self):
        """Remove the change set, applying nothing."""
        if self.kept:
            call("procage_changes_discard", _lib.c_bytes(self.id, "id"))
        self.kept = False
        self.entries = []

    def diff(self, paths=None):
        """A unified diff of the change set against the host trees (str; the
        files' bytes decoded as UTF-8, undecodable ones replaced)."""
        if not self.kept:
            return ""
        array, n = _paths_array(paths or ())
        text = ctypes.c_void_p()
        call("procage_changes_diff", _lib.c_bytes(self.id, "id"), array, n,
             ctypes.byref(text))
        try:
            return ctypes.string_at(text.value).decode("utf-8", "replace") if text.value else ""
        finally:
            _lib.lib.procage_free(text)

    def __repr__(self):
        return f"<procage.Changes {self.id} kept={self.kept} entries={len(self.entries)}>"


def after_run(changes_id, rule):
    """The run's change set applied by rule (apply= of procage.run): a Changes."""
    if changes_id is None:
        return None
    if rule == "none":
        return Changes(changes_id)
    lines = ctypes.POINTER(ctypes.c_char_p)()
    kept = ctypes.c_int()
    call("procage_changes_apply", _lib.c_bytes(changes_id, "id"), _rule(rule), None, 0,
         ctypes.byref(lines), ctypes.byref(kept))
    return Changes(changes_id, _lib.strings(lines), bool(kept.value))


def kept_ids():
    """The IDs of the change sets in the store, oldest first."""
    ids = ctypes.POINTER(ctypes.c_char_p)()
    call("procage_changes_list", ctypes.byref(ids))
    return _lib.strings(ids)
