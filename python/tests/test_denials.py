"""What procage run gives a user, through the binding: the refusals a run met
with the flag that lifts each, write_new, waive, accept, and bad names
refused before anything runs."""

import os
import stat

import pytest

import procage


@pytest.fixture
def home(tmp_path, monkeypatch):
    """A temporary HOME with secrets in it: the classes cover it, not the real one."""
    h = tmp_path / "home"
    (h / ".ssh").mkdir(parents=True)
    (h / ".ssh" / "id_rsa").write_text("the-private-key\n")
    (h / ".netrc").write_text("machine x password the-netrc\n")
    monkeypatch.setenv("HOME", str(h))
    return h


def _argument(flag, home):
    """The run() keyword argument of a refusal's flag ("--waive secrets:~/.ssh")."""
    option, _, value = flag.partition(" ")
    value = value.replace("~/", str(home) + "/", 1) if option != "--waive" else value
    names = {"--waive": "waive", "--read": "read", "--write": "write"}
    assert option in names, f"no argument for the flag {flag!r}"
    return {names[option]: [value]}


def _denial_of(result, path):
    found = [d for d in result.denials if d.subject == str(path)]
    assert found, f"no denial names {path}: {result.denials!r}"
    return found[0]


def test_hidden_read_names_path_and_flag(workspace, home):
    key = home / ".ssh" / "id_rsa"
    refused = procage.run(["cat", str(key)], workspace=workspace, capture_output=True)
    assert refused.returncode != 0 and b"the-private-key" not in refused.stdout
    d = _denial_of(refused, key)
    assert (d.op, d.reason, d.rule) == ("read", "hidden", "secrets")
    assert d.flag == "--waive secrets:~/.ssh"
    assert d.line.startswith(f"read {key}: hidden")
    # The flag's argument lifts it, and nothing is refused any more.
    granted = procage.run(["cat", str(key)], workspace=workspace, capture_output=True,
                          **_argument(d.flag, home))
    assert (granted.returncode, granted.stdout) == (0, b"the-private-key\n")
    assert granted.denials == []


def test_ungranted_read_flag_grants_it(workspace, outside, home):
    secret = outside / "secret"
    refused = procage.run(["cat", str(secret)], workspace=workspace, capture_output=True)
    assert refused.returncode != 0
    d = _denial_of(refused, secret)
    assert (d.op, d.rule) == ("read", "grants") and d.flag.startswith("--read ")
    granted = procage.run(["cat", str(secret)], workspace=workspace, capture_output=True,
                          **_argument(d.flag, home))
    assert (granted.returncode, granted.stdout) == (0, b"the-secret-value\n")


def test_explain_off_and_run_handle(workspace, home):
    key = home / ".ssh" / "id_rsa"
    quiet = procage.run(["cat", str(key)], workspace=workspace, capture_output=True,
                        explain=False)
    assert quiet.returncode != 0 and quiet.denials == []
    with procage.Run(["cat", str(key)], workspace=workspace, stderr=procage.DEVNULL) as r:
        assert r.wait() != 0
    assert [d.subject for d in r.denials()] == [str(key)]  # kept after close
    with pytest.raises(TypeError, match="explain"):
        procage.run(["true"], policy=procage.Policy.default(workspace), explain=True)
    with procage.Policy.default(workspace).set_explain(True) as p:
        explained = procage.run(["cat", str(key)], policy=p, capture_output=True)
    assert _denial_of(explained, key).rule == "secrets"


def test_waive_one_location_keeps_the_rest(workspace, home):
    cmd = ["sh", "-c", f"cat {home}/.ssh/id_rsa; cat {home}/.netrc"]
    r = procage.run(cmd, workspace=workspace, capture_output=True,
                    waive=["secrets:~/.ssh"])
    assert b"the-private-key" in r.stdout
    assert b"the-netrc" not in r.stdout and r.returncode != 0
    assert _denial_of(r, home / ".netrc").flag == "--waive secrets:~/.netrc"
    # Control: the whole class waived, both readable.
    both = procage.run(cmd, workspace=workspace, capture_output=True, waive="secrets")
    assert both.returncode == 0 and b"the-netrc" in both.stdout


def test_write_new_makes_and_grants(workspace, home):
    cache = home / ".npm"
    cmd = ["sh", "-c", f"echo cached > {cache}/x"]
    refused = procage.run(cmd, workspace=workspace, capture_output=True)
    assert refused.returncode != 0 and not cache.exists()
    r = procage.run(cmd, workspace=workspace, capture_output=True, write_new=[cache])
    assert r.returncode == 0 and (cache / "x").read_text() == "cached\n"
    assert stat.S_IMODE(cache.stat().st_mode) == 0o700
    # The grant is that directory alone: the home beside it stays read-only.
    beside = procage.run(["sh", "-c", f"echo no > {home}/planted"], workspace=workspace,
                         capture_output=True, write_new=[cache])
    assert beside.returncode != 0 and not (home / "planted").exists()


@pytest.mark.parametrize("where, words", [
    ("~/.ssh/made", "ssh"),            # inside a class location
    ("~/no/such/parent", "no/such"),   # no chain of directories
])
def test_write_new_refused(workspace, home, where, words):
    path = where.replace("~", str(home), 1)
    with pytest.raises(procage.ProcageError) as e:
        procage.run(["touch", f"{workspace}/ran"], workspace=workspace, write_new=[path])
    assert words in str(e.value)
    assert not os.path.exists(path) and not (workspace / "ran").exists()


def test_accept_lets_the_cage_be_made(workspace, home):
    with pytest.raises(procage.ProcageError, match="proc-other-processes"):
        procage.run(["true"], workspace=workspace, read=["/proc"])
    r = procage.run(["true"], workspace=workspace, read=["/proc"],
                    accept=["proc-other-processes"])
    assert r.returncode == 0


@pytest.mark.parametrize("option, value, message", [
    ("waive", "nope", "unknown hard-deny class 'nope' (known: secrets,"),
    ("accept", "nope", "unknown approximation 'nope' (known: spawn-snapshot,"),
    ("waive", "secrets:/nowhere", "waiver secrets:/nowhere: /nowhere is not there"),
    ("waive", "secrets:~/.bashrc", "waiver secrets:~/.bashrc: "),
])
def test_bad_names_refused_before_the_run(workspace, home, option, value, message):
    marker = workspace / "ran"
    with pytest.raises(procage.ProcageError) as e:
        procage.run(["touch", str(marker)], workspace=workspace, **{option: [value]})
    assert str(e.value).startswith(message), str(e.value)
    assert not marker.exists()


def test_denial_lines_read_back():
    from procage._denials import parse
    d = parse("write '/w/a b': not granted (add --write '/w/a b'; ~/.ssh stays held)")
    assert (d.op, d.subject, d.reason, d.rule) == ("write", "/w/a b", "not granted", "grants")
    assert (d.flag, d.held) == ("--write '/w/a b'", "~/.ssh stays held")
    # A name the cage chose, holding the separator, stays inside its quotes.
    d = parse("write '/w/a; --waive secrets': not granted "
              "(add --write '/w/a; --waive secrets'; ~/.ssh stays held)")
    assert (d.subject, d.flag) == ("/w/a; --waive secrets", "--write '/w/a; --waive secrets'")
    assert d.held == "~/.ssh stays held"
    d = parse("read /h/it\\'s: hidden (secrets; --waive secrets:~/.aws)")
    assert (d.subject, d.rule, d.flag) == ("/h/it's", "secrets", "--waive secrets:~/.aws")
    d = parse("socket udp: network is off (--net on, or --net proxy --allow-host HOST)")
    assert (d.rule, d.flag, d.why) == ("network", "--net on, or --net proxy --allow-host HOST",
                                       None)
    d = parse("read $'/x\\x01': hidden (a mount of a hidden location)")
    assert (d.subject, d.flag, d.why) == ("$'/x\\x01'", None, "a mount of a hidden location")
    assert parse("and 3 more refused accesses not listed") is None


def test_profile_makes_its_cache_writable(workspace, home):
    cache = home / ".cache" / "pip"
    cmd = ["sh", "-c", f"mkdir -p {cache} && echo wheel > {cache}/w"]
    refused = procage.run(cmd, workspace=workspace, capture_output=True)
    assert refused.returncode != 0 and not cache.exists()
    r = procage.run(cmd, workspace=workspace, capture_output=True, profiles=["pip"])
    assert r.returncode == 0 and (cache / "w").read_text() == "wheel\n"
    # Its registry hosts, for network="proxy", as procage run --profile pip adds them.
    with procage.Policy.default(workspace, profiles="pip") as p:
        assert "pypi.org" in p.to_dict()["allow_hosts"]
    # The profile grants its cache only: the rest of the home stays read-only.
    beside = procage.run(["sh", "-c", f"echo no > {home}/planted"], workspace=workspace,
                         capture_output=True, profiles=["pip"])
    assert beside.returncode != 0 and not (home / "planted").exists()


@pytest.mark.parametrize("name, message", [
    ("Pip", "--profile Pip: a profile's name is lower-case letters"),
    ("no-such-tool", "--profile no-such-tool: no such profile ("),
    ("../pip", "--profile ../pip: a profile's name is lower-case letters"),
])
def test_bad_profile_refused_before_the_run(workspace, home, name, message):
    marker = workspace / "ran"
    with pytest.raises(procage.ProcageError) as e:
        procage.run(["touch", str(marker)], workspace=workspace, profiles=[name])
    assert str(e.value).startswith(message), str(e.value)
    assert not marker.exists()
