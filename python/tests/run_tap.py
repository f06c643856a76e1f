#!/usr/bin/env python3
"""The binding's tests as TAP, one line per test, for prove (scripts/run-tests).

    python3 python/tests/run_tap.py [PYTEST ARGS...]

pytest's own output is left out; a failure's report follows its line as
TAP comments. The library is the checkout's build/libprocage.so unless
$PROCAGE_LIBRARY names another. Byte-code and pytest's cache are not
written, so the tests leave nothing behind in the checkout.
"""

import os
import shutil
import sys
import tempfile

sys.dont_write_bytecode = True
import pytest  # noqa: E402


class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0

    def _line(self, text):
        sys.stdout.write(text + "\n")
        sys.stdout.flush()

    def pytest_runtest_logreport(self, report):
        name = report.nodeid
        if report.when == "call" or (report.when == "setup" and not report.passed):
            self.n += 1
            if report.skipped:
                reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else ""
                self._line(f"ok {self.n} - {name} # SKIP {reason}")
            elif report.passed:
                self._line(f"ok {self.n} - {name}")
            else:
                self._fail(name, report)
        elif report.when == "teardown" and report.failed:
            self.n += 1
            self._fail(name + " (teardown)", report)

    def _fail(self, name, report):
        self.failed += 1
        self._line(f"not ok {self.n} - {name}")
        for line in str(report.longrepr).splitlines():
            self._line("#   " + line)

    def pytest_collectreport(self, report):
        if report.failed:
            self.n += 1
            self._fail(f"collecting {report.nodeid}", report)


def sanitizer_build(here):
    """The library needs the ASan runtime loaded first (make SANITIZE=1)."""
    path = os.environ.get("PROCAGE_LIBRARY") or os.path.join(here, os.pardir, os.pardir,
                                                              "build", "libprocage.so")
    try:
        with open(path, "rb") as f:
            return b"libasan.so" in f.read()
    except OSError:
        return False  # the binding's import says what is missing


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    if sanitizer_build(here):
        print("1..0 # SKIP the library is a sanitizer build: python3 cannot load it unless "
              "the ASan runtime is preloaded; the binding is tested against the plain build")
        return 0
    tap = Tap()
    # pytest's temporary directories in one of ours, removed at the end
    # (pytest would otherwise keep the last few under /tmp).
    base = tempfile.mkdtemp(prefix="procage-pytest.")
    stdout = sys.stdout
    tap._line = lambda text: (stdout.write(text + "\n"), stdout.flush())
    if os.environ.get("PROCAGE_TEST_SANDBOX_OFF") == "1":
        tap._line("# PROCAGE_TEST_SANDBOX_OFF=1: runs are NOT caged; the tests of refusals "
                  "must fail")
    try:
        with open(os.devnull, "w") as quiet:
            sys.stdout = quiet  # pytest's terminal output; ours goes to stdout
            try:
                rc = pytest.main(["-p", "no:cacheprovider", "-q", "--basetemp",
                                  os.path.join(base, "t"), *sys.argv[1:], here], plugins=[tap])
            finally:
                sys.stdout = stdout
    finally:
        shutil.rmtree(base, ignore_errors=True)
    if rc != 0 and tap.failed == 0:
        tap.n += 1
        tap.failed += 1
        what = "no test was collected" if rc == 5 else f"pytest failed (exit {int(rc)})"
        tap._line(f"not ok {tap.n} - {what}")
    tap._line(f"1..{tap.n}")
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())
