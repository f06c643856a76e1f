# The docs are true: every policy example in README.md and docs/*.md is
# checked with the real command, and every `procage check` or `procage fit`
# example command is run, its output compared with what the doc says it
# prints. The conventions, in the markdown:
#   - a ```json block holding a policy (an object with "version") is a whole
#     policy.json; the ```console block right after it, if any, shows
#     "$ procage check policy.json" and the exact output (stdout and stderr);
#     without one, the policy must be valid;
#   - "```console tier=T1" is output of a tier T1 host only;
#   - in output, the home is /home/me, and "tier T1" stands for the host's tier;
#   - a `procage check FILE` or `procage fit --policy FILE` line in a ```sh
#     block runs against the first policy example of docs/policy.md and must
#     succeed.
# Each run uses a home of its own, with every "~/" path the policies name.
. "$(dirname "$0")/lib.sh"

/usr/bin/python3 - "$PROCAGE" "$top" "$work" <<'PY'
import glob, json, os, re, subprocess, sys

procage, top, work = sys.argv[1:4]
n = failed = 0
def ok(cond, what, diag=""):
    global n, failed
    n += 1
    print(("ok" if cond else "not ok") + " %d - %s" % (n, what))
    if not cond:
        failed += 1
        for line in diag.splitlines():
            print("#   " + line)

home = os.path.join(work, "home")
tier = subprocess.run([procage, "facts", "--json"], capture_output=True, text=True)
tier = json.loads(tier.stdout)["tier"] if tier.returncode == 0 else "unsupported"

def blocks(path):
    """The fenced blocks of a markdown file: (info string, text, line)."""
    out, info, body, start = [], None, [], 0
    for i, line in enumerate(open(path, encoding="utf-8"), 1):
        if line.startswith("```"):
            if info is None:
                info, body, start = line[3:].strip(), [], i
            else:
                out.append((info, "".join(body), start))
                info = None
        elif info is not None:
            body.append(line)
    return out

def prepare_home(policy_text):
    for p in re.findall(r'"~/([^"]+)"', policy_text):
        os.makedirs(os.path.join(home, p), exist_ok=True)

def run(cmd, cwd):
    env = dict(os.environ, HOME=home)
    r = subprocess.run(cmd, shell=True, cwd=cwd, env=env, capture_output=True, text=True,
                       timeout=120)
    out = (r.stdout + r.stderr).replace(home, "/home/me")
    out = re.sub(r"tier T[12]\b", "tier T1", out)
    # Hints depend on the host (why it is tier T2): not part of what docs show.
    out = "".join(l for l in out.splitlines(True) if not l.startswith("hint: "))
    return r.returncode, out

docs = [os.path.join(top, "README.md")] + sorted(glob.glob(os.path.join(top, "docs", "*.md")))
first_policy = None
case = 0
for doc in docs:
    name = os.path.relpath(doc, top)
    bs = blocks(doc)
    for k, (info, text, line) in enumerate(bs):
        if info != "json":
            continue
        try:
            parsed = json.loads(text)
        except ValueError:
            parsed = None
        if not (isinstance(parsed, dict) and "version" in parsed) and '"version"' not in text:
            continue
        case += 1
        d = os.path.join(work, "case%d" % case)
        os.makedirs(d)
        open(os.path.join(d, "policy.json"), "w").write(text)
        prepare_home(text)
        if first_policy is None and parsed is not None:
            first_policy = text
        after = bs[k + 1] if k + 1 < len(bs) else None
        if after and after[0].split()[0:1] == ["console"]:
            cmd_line, *expected = after[1].splitlines()
            if "tier=T1" in after[0] and tier != "T1":
                print("# SKIP %s:%d shows tier T1 output; this host is %s" % (name, after[2], tier))
                continue
            ok(cmd_line.startswith("$ procage "), "%s:%d: the output block begins with the command"
               % (name, after[2]))
            rc, out = run(cmd_line[2:].replace("procage ", procage + " ", 1), d)
            want = "\n".join(expected) + "\n"
            ok(out == want, "%s:%d: %s prints what the doc shows" % (name, after[2], cmd_line[2:]),
               "got:\n" + out + "expected:\n" + want)
            ok((rc == 0) == ("valid" in want and not want.startswith("procage:")),
               "%s:%d: and exits %d accordingly" % (name, after[2], rc))
        else:
            rc, out = run(procage + " check policy.json", d)
            ok(rc == 0, "%s:%d: the policy example is valid" % (name, line), out)

ok(case >= 9, "policy examples were found (%d)" % case)
ok(first_policy is not None, "docs/policy.md has a policy example for the command lines")
commands = 0
d = os.path.join(work, "commands")
os.makedirs(d)
open(os.path.join(d, "policy.json"), "w").write(first_policy or "")
for doc in docs:
    name = os.path.relpath(doc, top)
    for info, text, line in blocks(doc):
        if info not in ("sh", "console", "shell", "bash"):
            continue
        for i, l in enumerate(text.splitlines()):
            l = l.lstrip("$ ").split("#")[0].strip()
            m = re.match(r"procage (check|fit)( .*)?$", l)
            if not m or "console" in info:
                continue
            commands += 1
            rc, out = run(l.replace("procage ", procage + " ", 1), d)
            ok(rc == 0, "%s:%d: %s succeeds" % (name, line + 1 + i, l), out)
ok(commands >= 2, "procage check/fit example commands were found (%d)" % commands)
print("1..%d" % n)
sys.exit(1 if failed else 0)
PY
