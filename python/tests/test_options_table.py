"""python/README.md maps every option `procage run --help` prints."""

import os
import re
import subprocess

import pytest

import procage

_HERE = os.path.dirname(os.path.abspath(__file__))
README = os.path.join(_HERE, os.pardir, "README.md")


def _command():
    """The procage command beside the library the binding loaded."""
    return os.path.join(os.path.dirname(procage.library_path), "procage")


def _help_options(text):
    """Every long option the help lists at the start of an entry."""
    return set(re.findall(r"^  (?:-\w, )?(--[a-z][a-z-]*)", text, re.MULTILINE))


def _table_options(text):
    """The options in the first column of the README's options table."""
    return set(re.findall(r"^\| `(?:-\w, )?(--[a-z][a-z-]*)", text, re.MULTILINE))


def test_readme_table_lists_every_run_option():
    command = _command()
    if not os.access(command, os.X_OK):
        pytest.skip(f"no procage command beside the library ({command})")
    shown = subprocess.run([command, "run", "--help"], capture_output=True, text=True)
    options = _help_options(shown.stdout + shown.stderr)
    assert {"--read", "--waive", "--profile", "--help"} <= options, options
    with open(README, encoding="utf-8") as f:
        table = _table_options(f.read())
    assert sorted(options - table) == []
    assert sorted(table - options) == []  # nor an option the command does not have
