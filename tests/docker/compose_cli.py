"""The ``docker compose`` command line, as the suite drives it: one project of its own name,
the project's real ``docker-compose.yml`` (plus ``compose.test.yml``: Redis published on
127.0.0.1 for the test to read, the AI's pause off), the host's settings in the environment
as a user's shell or ``.env`` would give them, and every port on 127.0.0.1."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.docker import engine
from tests.support.ports import free_port

ROOT = Path(__file__).resolve().parents[2]
COMPOSE_FILE = ROOT / "docker-compose.yml"
TLS_FILE = ROOT / "deploy" / "compose.tls.yml"
TEST_FILE = Path(__file__).with_name("compose.test.yml")
#: The project's own name and image tag, one per checkout (two checkouts on one machine run
#: side by side): `down -v` at the start and at the end touches nothing else.
_CHECKOUT = hashlib.sha256(str(ROOT).encode()).hexdigest()[:8]
PROJECT = f"gin-rummy-docker-test-{_CHECKOUT}"
IMAGE = f"gin-rummy-docker-test:{_CHECKOUT}"
PROFILES = ("proxy", "cluster")


def free_port_pair() -> int:
    """A port ``p`` of 127.0.0.1 with ``p`` and ``p + 1`` free (the two server replicas)."""
    return free_port(also=(1,))


class ComposeError(AssertionError):
    """A compose command that exited non-zero (its output is in the message)."""


@dataclass
class Compose:
    """``docker compose -p PROJECT -f docker-compose.yml -f compose.test.yml`` with ``env``."""

    env: dict[str, str]
    profiles: tuple[str, ...] = ()
    #: Files after docker-compose.yml and compose.test.yml (the project's deploy/*.yml).
    extra_files: tuple[Path, ...] = ()
    #: (what, seconds) of every command run, in order.
    timings: list[tuple[str, float]] = field(default_factory=list)

    def command(self, *args: str, profiles: Sequence[str] | None = None) -> list[str]:
        chosen = self.profiles if profiles is None else tuple(profiles)
        head = ["docker", "compose", "-p", PROJECT, "-f", str(COMPOSE_FILE), "-f", str(TEST_FILE)]
        for extra in self.extra_files:
            head += ["-f", str(extra)]
        for profile in chosen:
            head += ["--profile", profile]
        return [*head, *args]

    def run(
        self,
        *args: str,
        check: bool = True,
        timeout: float = 300,
        profiles: Sequence[str] | None = None,
        extra_env: Mapping[str, str] | None = None,
    ) -> subprocess.CompletedProcess[str]:
        started = time.monotonic()
        done = subprocess.run(
            self.command(*args, profiles=profiles),
            cwd=ROOT,
            env={**os.environ, **self.env, **(extra_env or {})},
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        self.timings.append((" ".join(args[:2]), time.monotonic() - started))
        if check and done.returncode != 0:
            about = engine.diagnosis() if engine.UNREACHABLE in done.stderr else self.logs()
            raise ComposeError(
                f"docker compose {' '.join(args)} exited {done.returncode}:\n"
                f"{done.stdout[-3000:]}\n{done.stderr[-5000:]}\n{about}"
            )
        return done

    def containers(self, service: str | None = None) -> list[dict[str, Any]]:
        """``docker compose ps -a`` as JSON objects (every profile)."""
        args = ["ps", "-a", "--format", "json"] + ([service] if service else [])
        out = self.run(*args, profiles=PROFILES).stdout
        rows: list[dict[str, Any]] = []
        for line in out.splitlines():
            if not line.strip():
                continue
            parsed = json.loads(line)
            rows.extend(parsed if isinstance(parsed, list) else [parsed])
        return rows

    def port(self, service: str, private: int, index: int = 1) -> int:
        out = self.run("port", "--index", str(index), service, str(private)).stdout.strip()
        host, _, port = out.rpartition(":")
        assert host == "127.0.0.1", f"{service} {private} published on {out!r}"
        return int(port)

    def exec(self, service: str, *command: str, index: int = 1) -> str:
        return self.run("exec", "-T", "--index", str(index), service, *command).stdout

    def logs(self, tail: int = 60) -> str:
        done = subprocess.run(
            self.command("logs", "--no-color", "--tail", str(tail), profiles=PROFILES),
            cwd=ROOT,
            env={**os.environ, **self.env},
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        return f"--- docker compose logs (last {tail} lines each) ---\n{done.stdout[-12000:]}"


def docker(*args: str, timeout: float = 60) -> str:
    done = subprocess.run(
        ["docker", *args], capture_output=True, text=True, timeout=timeout, check=False
    )
    if done.returncode != 0:
        raise AssertionError(f"docker {' '.join(args)} exited {done.returncode}: {done.stderr}")
    return done.stdout


def process_users(container: str) -> list[tuple[int, str]]:
    """(uid, command line) of every process of a running container, as the host sees them."""
    out = docker("top", container, "-eo", "pid,uid,args")  # Docker needs the pid column
    rows = []
    for line in out.splitlines()[1:]:
        _pid, uid, args = line.split(None, 2)
        rows.append((int(uid), args))
    return rows
