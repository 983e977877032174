"""The Docker engine under the suite: answering before the first compose command, restarted
once by ``scripts/docker/ensure-docker.sh`` when it does not (an engine that went away between
``make test-docker``'s preparation and the suite, as it did once in CI with nothing in the log
to say why), and described in a failure that names it."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ENSURE = ROOT / "scripts" / "docker" / "ensure-docker.sh"
STATE = Path(os.environ.get("GIN_DOCKER_STATE", "/var/lib/gin-rummy-docker-test"))
UNREACHABLE = "Cannot connect to the Docker daemon"


def answers() -> bool:
    done = subprocess.run(["docker", "info"], capture_output=True, timeout=60, check=False)
    return done.returncode == 0


def diagnosis(lines: int = 30) -> str:
    """Whether dockerd runs, and the end of the log ensure-docker.sh gives it."""
    running = subprocess.run(
        ["pgrep", "-a", "dockerd"], capture_output=True, text=True, check=False
    ).stdout.strip()
    log = STATE / "dockerd.log"
    tail = log.read_text(errors="replace").splitlines()[-lines:] if log.exists() else []
    return "\n".join(
        [
            f"--- the engine: dockerd {'running: ' + running if running else 'not running'} ---",
            f"--- {log} (last {lines} lines) ---",
            *tail,
        ]
    )


def ensure() -> None:
    """The engine answers, restarted once if it did not."""
    if answers():
        return
    print(f"\nthe Docker engine does not answer: starting it again\n{diagnosis()}", flush=True)
    done = subprocess.run(
        ["bash", str(ENSURE)], capture_output=True, text=True, timeout=600, check=False
    )
    print(done.stdout, done.stderr, flush=True)
    if done.returncode != 0 or not answers():
        raise AssertionError(f"the Docker engine could not be started:\n{diagnosis()}")
