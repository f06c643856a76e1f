"""Denial: one refusal a run met, read from a line of procage_run_denials.

The library gives each distinct refusal as one line, the line the command
prints ("read /home/u/.ssh/id_rsa: hidden (secrets; --waive secrets:~/.ssh)").
Its parts are laid out in a fixed order, so they are read back here:

    OP SUBJECT: REASON (add FLAG[; HELD])   a path no grant reaches
    OP SUBJECT: REASON (RULE; FLAG)         a class or rule, with its flag
    OP SUBJECT: REASON (FLAG)               the network, the proxy, the lifetime
    OP SUBJECT: REASON (WHY)                a rule no flag lifts

SUBJECT is a shell word (bare, or quoted so that nothing in it expands); it
is unquoted here when it can be read back exactly, else kept as printed.
"""

import dataclasses

# Rules whose line carries the flag alone (denials_store.c).
_FLAG_ONLY_RULES = {"socket": "network", "connect": "proxy", "call": "lifetime"}


@dataclasses.dataclass(frozen=True)
class Denial:
    """A refusal the run met (procage.run with explain on, the default).

    op       "read", "write", "exec", "connect", "socket", ...
    subject  the path or host the cage named
    reason   "hidden", "not granted", "read-only", "network is off", ...
    rule     what refused it: "grants", a class ("secrets"), "policy",
             "network", "proxy", ...; None when the line does not say
    flag     the procage run flag that would allow it ("--read ~/x",
             "--waive secrets:~/.ssh"), or None when no flag does
    held     for a grant, the class locations that stay refused even
             with the flag ("~/.ssh stays held"), or None
    why      the words of a rule no flag lifts, or None
    line     the whole line, as the command prints it
    """

    op: str
    subject: str
    reason: str
    rule: object = None
    flag: object = None
    held: object = None
    why: object = None
    line: str = ""


def _unquote_word(text):
    """(word, rest): the shell word at the start of text, read back.

    Bare text, '...' runs and \\' or \\\\ between them are read; a word
    written $'...' (a byte that is not text) is kept as printed."""
    if text.startswith("$'"):
        end = text.find("'", 2)
        while end > 0 and text[end - 1] == "\\":
            end = text.find("'", end + 1)
        return (text, "") if end < 0 else (text[:end + 1], text[end + 1:])
    out = []
    i = 0
    while i < len(text):
        c = text[i]
        if c == "'":
            end = text.find("'", i + 1)
            if end < 0:
                return text, ""
            out.append(text[i + 1:end])
            i = end + 1
        elif c == "\\" and i + 1 < len(text):
            out.append(text[i + 1])
            i += 2
        elif c == ":" and text.startswith(": ", i):
            break
        else:
            out.append(c)
            i += 1
    return "".join(out), text[i:]


def _split_unquoted(text, separator):
    """text cut at the first separator outside '...' (a quoted path may hold one)."""
    quoted = False
    i = 0
    while i < len(text):
        c = text[i]
        if c == "'":
            quoted = not quoted
        elif c == "\\" and not quoted:
            i += 1  # an escaped byte (\' or \\) outside quotes
        elif not quoted and text.startswith(separator, i):
            return text[:i], text[i + len(separator):]
        i += 1
    return text, ""


def _parenthesis(op, body):
    """rule, flag, held, why of the text inside the line's last parentheses."""
    if body.startswith("add "):
        flag, held = _split_unquoted(body[4:], "; ")
        return "grants", flag, held or None, None
    rule, sep, flag = body.partition("; ")
    if sep and " " not in rule:
        return rule, flag, None, None
    if body.startswith("--"):
        return _FLAG_ONLY_RULES.get(op), body, None, None
    return None, None, None, body


def parse(line):
    """A Denial from one line, or None for the line counting the rest."""
    op, _, rest = line.partition(" ")
    if op == "and" and rest.endswith("more refused accesses not listed"):
        return None
    subject, rest = _unquote_word(rest)
    rest = rest[2:] if rest.startswith(": ") else rest
    rule = flag = held = why = None
    reason = rest
    if rest.endswith(")") and " (" in rest:
        reason, _, body = rest.partition(" (")
        rule, flag, held, why = _parenthesis(op, body[:-1])
    return Denial(op=op, subject=subject, reason=reason, rule=rule, flag=flag, held=held,
                  why=why, line=line)
