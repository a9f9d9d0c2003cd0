"""Private network namespaces for multi-host tests: hosts on one bridge that lives in its own namespace.

Each host is a namespace with loopback and one veth to a bridge inside a further namespace, so the
hosts reach each other (and their own loopback) and nothing else: the root namespace gets no link,
route or address. Everything is named with a per-run suffix and removed in a finally, processes first.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
import uuid
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterator


@dataclass(frozen=True)
class Host:
    """One namespace on the private bridge: its name and IPv4 address."""

    netns: str
    address: str

    def command(self, argv: list[str]) -> list[str]:
        """Return argv wrapped to run inside this host's namespace."""
        return ["ip", "netns", "exec", self.netns, *argv]

    def pids(self) -> list[int]:
        """Return the PIDs of every process inside this host's namespace."""
        out = subprocess.run(["ip", "netns", "pids", self.netns], capture_output=True, text=True, timeout=10)
        return [int(p) for p in out.stdout.split()]


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, text=True, timeout=30)


def unavailable_reason() -> str | None:
    """Return why namespaces cannot be made here (not root, no `ip`, no netns/veth/bridge support), or None."""
    if os.geteuid() != 0:
        return "needs root to create network namespaces (ip netns add)"
    if shutil.which("ip") is None:
        return "`ip` (iproute2) is not installed"
    probe = f"mlp{uuid.uuid4().hex[:8]}"
    try:
        _ip("netns", "add", probe)
        _ip("-n", probe, "link", "add", "br0", "type", "bridge")
        _ip("-n", probe, "link", "add", "v0", "type", "veth", "peer", "name", "v1")
    except subprocess.CalledProcessError as e:
        return f"network namespaces with veth/bridge unavailable: {' '.join(e.cmd)}: {e.stderr.strip()}"
    finally:
        subprocess.run(["ip", "netns", "del", probe], capture_output=True, timeout=30)
    return None


def _kill_all(host: Host) -> None:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        pids = host.pids()
        for pid in pids:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + 5
        while pids and host.pids() and time.monotonic() < deadline:
            time.sleep(0.05)


@contextmanager
def private_hosts(names: list[str]) -> Iterator[dict[str, Host]]:
    """Yield {name: Host} on a fresh private /24; kill their processes and delete it all afterwards."""
    sfx = uuid.uuid4().hex[:6]
    net = 10 + int(sfx[:2], 16) % 200  # 10.213.<net>.0/24 — only inside the namespaces, never routed from root
    bridge = f"ml{sfx}br"
    hosts = {n: Host(f"ml{sfx}h{i}", f"10.213.{net}.{i + 1}") for i, n in enumerate(names)}
    made: list[str] = []
    try:
        _ip("netns", "add", bridge)
        made.append(bridge)
        _ip("-n", bridge, "link", "add", "br0", "type", "bridge")
        _ip("-n", bridge, "link", "set", "br0", "up")
        for i, h in enumerate(hosts.values()):
            _ip("netns", "add", h.netns)
            made.append(h.netns)
            _ip("-n", h.netns, "link", "set", "lo", "up")
            _ip("-n", bridge, "link", "add", f"p{i}", "type", "veth", "peer", "name", "eth0", "netns", h.netns)
            _ip("-n", bridge, "link", "set", f"p{i}", "master", "br0")
            _ip("-n", bridge, "link", "set", f"p{i}", "up")
            _ip("-n", h.netns, "addr", "add", f"{h.address}/24", "dev", "eth0")
            _ip("-n", h.netns, "link", "set", "eth0", "up")
        yield hosts
    finally:
        for h in hosts.values():
            if h.netns in made:
                _kill_all(h)
        for ns in reversed(made):  # deleting a namespace deletes the veth ends inside it (and their peers)
            if ns != bridge:
                subprocess.run(["ip", "-n", ns, "link", "del", "eth0"], capture_output=True, timeout=30)
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=30)


def leftovers(prefix: str = "ml") -> list[str]:
    """Return the namespaces whose name starts with `prefix` (for a test to assert its own are gone)."""
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, timeout=10).stdout
    return [line.split()[0] for line in out.splitlines() if line.startswith(prefix)]
