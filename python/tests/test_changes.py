"""changes="overlay": the run's writes kept apart, listed, diffed, applied or discarded."""

import os

import pytest

import procage

pytestmark = [
    pytest.mark.skipif("-fsanitize" in os.environ.get("TEST_CFLAGS", ""),
                       reason="the sanitizer build's library cannot be loaded into python"),
    pytest.mark.skipif(procage.host_facts().tier != "T1",
                       reason="changes as an overlay need tier T1 (a mount namespace)"),
]


@pytest.fixture
def store(tmp_path, monkeypatch):
    """A store of change sets of the test's own, outside the workspace."""
    state = tmp_path / "state"
    state.mkdir()
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    return state


def _tree(workspace):
    (workspace / "a").write_text("one\ntwo\n")
    (workspace / "gone").write_text("bye\n")
    (workspace / ".git" / "hooks").mkdir(parents=True)


AGENT = ("echo three >>a; rm gone; echo new >fresh; "
         "printf '#!/bin/sh\\n' >.git/hooks/pre-commit")


def test_apply_none_keeps_everything_listed(workspace, store):
    _tree(workspace)
    r = procage.run(["sh", "-c", AGENT], workspace=workspace, changes="overlay", apply="none")
    assert r.returncode == 0
    ch = r.changes
    assert isinstance(ch, procage.Changes) and ch.kept
    # The host tree is unchanged until applied.
    assert (workspace / "a").read_text() == "one\ntwo\n"
    assert (workspace / "gone").exists() and not (workspace / "fresh").exists()
    by_path = {c.path: c for c in ch.entries}
    assert by_path[str(workspace / "a")].kind == "modified"
    assert by_path[str(workspace / "a")].size == len("one\ntwo\nthree\n")
    assert by_path[str(workspace / "gone")].kind == "removed"
    assert by_path[str(workspace / "gone")].size is None
    assert by_path[str(workspace / "fresh")].kind == "added"
    hook = by_path[str(workspace / ".git" / "hooks" / "pre-commit")]
    assert hook.held is not None and "hook" in hook.held
    assert by_path[str(workspace / "a")].held is None
    diff = ch.diff()
    assert f"--- {workspace}/a\n+++ {workspace}/a\n@@ -1,2 +1,3 @@\n one\n two\n+three\n" in diff
    assert f"--- /dev/null\n+++ {workspace}/fresh\n" in diff
    assert f"--- {workspace}/gone\n+++ /dev/null\n" in diff
    assert ch.diff(paths=[str(workspace / "fresh")]).count("--- ") == 1
    # The safe rule: the ordinary changes, the hook held back and named.
    report = ch.apply()
    assert (workspace / "a").read_text() == "one\ntwo\nthree\n"
    assert not (workspace / "gone").exists() and (workspace / "fresh").exists()
    assert not (workspace / ".git" / "hooks" / "pre-commit").exists()
    assert any(line.startswith("held back: ") and "pre-commit" in line for line in report)
    files = [c.path for c in ch.entries if "directory" not in c.kind]
    assert ch.kept and files == [str(hook.path)]
    # A held item applied when named.
    ch.apply(paths=[hook.path])
    assert (workspace / ".git" / "hooks" / "pre-commit").exists()
    assert not ch.kept and ch.entries == []


def test_default_rule_applies_at_the_end_and_discard(workspace, store):
    _tree(workspace)
    r = procage.run(["sh", "-c", AGENT], workspace=workspace, changes="overlay")
    assert r.returncode == 0
    assert (workspace / "a").read_text() == "one\ntwo\nthree\n"
    assert not (workspace / ".git" / "hooks" / "pre-commit").exists()
    assert r.changes.kept
    assert [c.kind for c in r.changes if "directory" not in c.kind] == ["added"]
    assert any("held back: " in line for line in r.changes.report)
    r.changes.discard()
    assert not r.changes.kept
    assert procage.Changes(r.changes.id, kept=False).entries == []
    assert r.changes.id not in os.listdir(store / "procage" / "changes")


def test_apply_all_and_bad_rule(workspace, store):
    _tree(workspace)
    r = procage.run(["sh", "-c", AGENT], workspace=workspace, changes="overlay", apply="all")
    assert (workspace / ".git" / "hooks" / "pre-commit").exists()
    assert not r.changes.kept
    with pytest.raises(ValueError):
        procage.run(["true"], workspace=workspace, changes="overlay", apply="some")
    with pytest.raises(ValueError):
        procage.run(["true"], workspace=workspace, changes="copy")


def test_in_place_has_no_changes(workspace, store):
    r = procage.run(["sh", "-c", "echo x >f"], workspace=workspace)
    assert r.changes is None and (workspace / "f").read_text() == "x\n"


def test_bounded_change_set(workspace, store):
    """changes_limit: a write past the bound fails in the run (ENOSPC); what
    fits is kept whole, copied into the store, and applies as any."""
    _tree(workspace)
    script = ("echo three >>a; rm gone; "
              "head -c 3145728 /dev/zero >big 2>/dev/null && exit 7; "
              "rm big; echo fits >fresh")
    r = procage.run(["sh", "-c", script], workspace=workspace, changes="overlay",
                    changes_limit=2 << 20, apply="none")
    assert r.returncode == 0, r
    kinds = sorted((c.kind, os.path.basename(c.path)) for c in r.changes)
    assert kinds == [("added", "fresh"), ("modified", "a"), ("removed", "gone")], kinds
    assert not (workspace / "fresh").exists()
    r.changes.apply(rule="all")
    assert (workspace / "a").read_text() == "one\ntwo\nthree\n"
    assert (workspace / "fresh").read_text() == "fits\n"
    assert not (workspace / "gone").exists()
    with pytest.raises(procage.ProcageError):
        procage.run(["true"], workspace=workspace, changes_limit=2 << 20)
    with pytest.raises(procage.ProcageError):
        procage.run(["true"], workspace=workspace, changes="overlay", changes_limit=4096)


@pytest.mark.skipif(os.geteuid() != 0,
                    reason="a rename is one change only where root made the overlay "
                           "(redirects); for anyone else it is a removal and an addition")
def test_rename_names_its_source(workspace, store):
    (workspace / "old").mkdir()
    (workspace / "old" / "f").write_text("f\n")
    (workspace / "file").write_text("r\n")
    r = procage.run(["sh", "-c", "mv old new && mv file new/file2"], workspace=workspace,
                    changes="overlay", apply="none")
    assert r.returncode == 0, r
    renamed = {c.path: c.source for c in r.changes if c.kind == "renamed"}
    assert renamed == {str(workspace / "new"): str(workspace / "old"),
                       str(workspace / "new" / "file2"): str(workspace / "file")}, renamed
    assert all(c.source is None for c in r.changes if c.kind != "renamed")
    r.changes.discard()
