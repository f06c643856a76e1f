"""The binding's ctypes structures against include/procage.h, field by field.

A C program compiled from the header prints every size and offset; a
header that changes a structure the binding mirrors fails here rather than
in a caged run.
"""

import ctypes
import os
import shutil
import subprocess

import pytest

from procage import _lib

HEADER_DIR = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir, "include")
STRUCTS = {
    "procage_error": _lib.Error,
    "procage_fd_map": _lib.FdMap,
    "procage_spawn_opts": _lib.SpawnOpts,
    "procage_time": _lib.Time,
    "procage_report": _lib.Report,
    "procage_host_facts": _lib.HostFacts,
}


def test_structures_match_the_header(tmp_path):
    cc = shutil.which(os.environ.get("CC", "cc"))
    if not cc or not os.path.exists(os.path.join(HEADER_DIR, "procage.h")):
        pytest.skip("no C compiler or no include/procage.h: nothing to compare with")
    lines = ["#include <procage.h>", "#include <stdio.h>", "#include <stddef.h>",
             "int main(void) {"]
    for name, cls in STRUCTS.items():
        lines.append(f'printf("{name} %zu\\n", sizeof(struct {name}));')
        for field, _ in cls._fields_:
            lines.append(f'printf("{name}.{field} %zu\\n", offsetof(struct {name}, {field}));')
    lines.append("return 0; }")
    (tmp_path / "layout.c").write_text("\n".join(lines))
    subprocess.run([cc, "-I", HEADER_DIR, "-o", str(tmp_path / "layout"),
                    str(tmp_path / "layout.c")], check=True)
    c = dict(line.split() for line in subprocess.run(
        [str(tmp_path / "layout")], capture_output=True, text=True, check=True).stdout.splitlines())
    py = {}
    for name, cls in STRUCTS.items():
        py[name] = str(ctypes.sizeof(cls))
        for field, _ in cls._fields_:
            py[f"{name}.{field}"] = str(getattr(cls, field).offset)
    assert py == c
