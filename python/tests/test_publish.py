"""publish=: a listener of a --net loopback run reached from the host (tier T1)."""

import socket
import sys

import pytest

import procage

SERVER = r"""
import socket, sys
s = socket.socket()
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(4)
print("ready", flush=True)
conn, _ = s.accept()
conn.sendall(b"from the run")
conn.close()
sys.stdin.read()
"""


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _tier_t1(workspace):
    r = procage.run(["true"], workspace=workspace, network="loopback")
    return r.tier == "T1"


def test_published_port_is_reached(workspace):
    if not _tier_t1(workspace):
        pytest.skip("tier T2: no network namespace of the run's own to publish from")
    port = _free_port()
    with procage.Run([sys.executable, "-c", SERVER, str(port)], workspace=workspace,
                     network="loopback", publish=[port], stdin=procage.PIPE,
                     stdout=procage.PIPE) as r:
        assert r.stdout.readline() == b"ready\n"
        with socket.create_connection(("127.0.0.1", port), timeout=30) as c:
            assert c.recv(64) == b"from the run"
        r.stdin.close()
        assert r.wait() == 0


def test_publish_refusals(workspace):
    with pytest.raises(procage.ProcageError, match="not a TCP port"):
        procage.run(["true"], workspace=workspace, network="loopback", publish=[0])
    with pytest.raises(procage.ProcageError, match="published twice"):
        procage.run(["true"], workspace=workspace, network="loopback", publish=[8000, 8000])
    with pytest.raises(procage.ProcageError, match="needs --net loopback"):
        procage.run(["true"], workspace=workspace, publish=[8000])
    with pytest.raises(TypeError):
        procage.run(["true"], workspace=workspace, network="loopback", publish=["8000"])
