"""Reading the deployment files as Docker would: ``docker-compose.yml`` (with compose's
variable interpolation) and the ``Dockerfile`` (stages, COPY, ENV, CMD), and laying out the
runtime image's file tree in a folder, so that tests can run its commands without Docker."""

from __future__ import annotations

import re
import shutil
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
COMPOSE_FILE = ROOT / "docker-compose.yml"
DOCKERFILE = ROOT / "Dockerfile"
DOCKERIGNORE = ROOT / ".dockerignore"

_VARIABLE = re.compile(
    r"\$(?:(?P<escaped>\$)|\{(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?:(?P<op>:?[-?])(?P<arg>[^}]*))?\}"
    r"|(?P<bare>[A-Za-z_][A-Za-z0-9_]*))"
)


class MissingVariable(KeyError):
    """A ``${NAME:?message}`` variable that is not set."""


def load_compose() -> dict[str, Any]:
    data = yaml.safe_load(COMPOSE_FILE.read_text())
    assert isinstance(data, dict), "docker-compose.yml is a map"
    return data


def interpolate(value: str, env: Mapping[str, str]) -> str:
    """Compose's interpolation: ``$$``, ``$NAME``, ``${NAME}``, ``${NAME:-default}``,
    ``${NAME-default}``, ``${NAME:?error}``, ``${NAME?error}``."""

    def replace(match: re.Match[str]) -> str:
        if match["escaped"]:
            return "$"
        name = match["name"] or match["bare"]
        op, arg = match["op"], match["arg"] or ""
        present = name in env
        current = env.get(name, "")
        if op == ":-":
            return current if current else arg
        if op == "-":
            return current if present else arg
        if op in (":?", "?") and (not present or (op == ":?" and not current)):
            raise MissingVariable(f"{name}: {arg}")
        return current

    return _VARIABLE.sub(replace, value)


def resolve(value: Any, env: Mapping[str, str]) -> Any:
    """``value`` with every string interpolated (recursively)."""
    if isinstance(value, str):
        return interpolate(value, env)
    if isinstance(value, list):
        return [resolve(item, env) for item in value]
    if isinstance(value, dict):
        return {key: resolve(item, env) for key, item in value.items()}
    return value


def environment(service: Mapping[str, Any], env: Mapping[str, str]) -> dict[str, str]:
    """A service's environment (map or list form), interpolated."""
    raw = service.get("environment") or {}
    if isinstance(raw, list):
        raw = dict(item.split("=", 1) if "=" in item else (item, "") for item in raw)
    return {
        str(key): "" if value is None else str(resolve(value, env)) for key, value in raw.items()
    }


def duration_seconds(text: str) -> float:
    """A compose duration (``10s``, ``1m30s``, ``500ms``) in seconds."""
    units = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001, "us": 1e-6}
    total = 0.0
    parts = re.findall(r"(\d+(?:\.\d+)?)(ms|us|h|m|s)", text)
    assert parts and "".join(a + b for a, b in parts) == text, f"bad duration {text!r}"
    for amount, unit in parts:
        total += float(amount) * units[unit]
    return total


# --- the Dockerfile -----------------------------------------------------------------------------


@dataclass
class Stage:
    name: str | None
    base: str
    workdir: str = "/"
    env: dict[str, str] = field(default_factory=dict)
    copies: list[tuple[str | None, list[str], str]] = field(default_factory=list)
    runs: list[str] = field(default_factory=list)
    cmd: list[str] | None = None
    user: str | None = None
    expose: list[str] = field(default_factory=list)


def _instructions(text: str) -> list[tuple[str, str]]:
    joined = re.sub(r"\\\n", " ", text)
    out = []
    for raw in joined.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        keyword, _, rest = line.partition(" ")
        out.append((keyword.upper(), rest.strip()))
    return out


def _env_pairs(rest: str) -> dict[str, str]:
    if "=" not in rest.split(maxsplit=1)[0]:
        key, _, value = rest.partition(" ")
        return {key: value.strip()}
    return dict(pair.split("=", 1) for pair in rest.split())


def load_dockerfile() -> list[Stage]:
    stages: list[Stage] = []
    for keyword, rest in _instructions(DOCKERFILE.read_text()):
        if keyword == "FROM":
            words = rest.split()
            name = words[2] if len(words) >= 3 and words[1].upper() == "AS" else None
            stages.append(Stage(name=name, base=words[0]))
            continue
        if not stages:
            continue
        stage = stages[-1]
        if keyword == "WORKDIR":
            stage.workdir = rest
        elif keyword == "ENV":
            stage.env.update(_env_pairs(rest))
        elif keyword == "COPY":
            words = rest.split()
            source_stage = None
            while words and words[0].startswith("--"):
                flag = words.pop(0)
                if flag.startswith("--from="):
                    source_stage = flag.split("=", 1)[1]
            stage.copies.append((source_stage, words[:-1], words[-1]))
        elif keyword == "RUN":
            stage.runs.append(rest)
        elif keyword == "CMD":
            stage.cmd = list(yaml.safe_load(rest)) if rest.startswith("[") else ["sh", "-c", rest]
        elif keyword == "USER":
            stage.user = rest
        elif keyword == "EXPOSE":
            stage.expose.extend(rest.split())
    return stages


def runtime_stage(stages: list[Stage]) -> Stage:
    """The image ``docker compose`` runs: the last stage."""
    return stages[-1]


# --- the build context (.dockerignore) ----------------------------------------------------------


def _ignore_regex(pattern: str) -> re.Pattern[str]:
    """A .dockerignore pattern (Go's filepath.Match, plus ``**``) as a regex on a relative
    path with ``/`` separators."""
    out = ""
    index = 0
    while index < len(pattern):
        if pattern.startswith("**/", index):
            out += "(?:.*/)?"
            index += 3
        elif pattern.startswith("**", index):
            out += ".*"
            index += 2
        elif pattern[index] == "*":
            out += "[^/]*"
            index += 1
        elif pattern[index] == "?":
            out += "[^/]"
            index += 1
        else:
            out += re.escape(pattern[index])
            index += 1
    return re.compile(out)


def ignore_rules() -> list[tuple[bool, re.Pattern[str]]]:
    """The .dockerignore rules, in order: (excludes, pattern); ``!`` lines re-include."""
    if not DOCKERIGNORE.is_file():
        return []
    rules = []
    for raw in DOCKERIGNORE.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        include = line.startswith("!")
        pattern = line[1:] if include else line
        pattern = pattern.strip().strip("/")
        if pattern.startswith("./"):
            pattern = pattern[2:]
        rules.append((not include, _ignore_regex(pattern)))
    return rules


def in_build_context(relative: str, rules: list[tuple[bool, re.Pattern[str]]]) -> bool:
    """Whether ``relative`` (a path in the repository) is sent to the builder: the last rule
    that matches it or one of its parent folders decides."""
    parts = relative.strip("/").split("/")
    excluded = False
    for excludes, regex in rules:
        for depth in range(1, len(parts) + 1):
            if regex.fullmatch("/".join(parts[:depth])):
                excluded = excludes
                break
    return not excluded


def stage_image_tree(stage: Stage, target: Path) -> Path:
    """Lay out in ``target`` the files the runtime stage COPYs from the build context (and,
    for ``COPY --from`` of another stage, the files that stage built when they exist in the
    working tree, e.g. ``client/web/dist``), at their place under WORKDIR. Returns the folder
    that stands for WORKDIR."""
    workdir = target / stage.workdir.lstrip("/")
    workdir.mkdir(parents=True, exist_ok=True)
    rules = ignore_rules()

    def ignored(folder: str, names: list[str]) -> set[str]:
        base = Path(folder).relative_to(ROOT).as_posix()
        return {
            name
            for name in names
            if not in_build_context(name if base == "." else f"{base}/{name}", rules)
        }

    for source_stage, sources, destination in stage.copies:
        for written in sources:
            # /src/client/web/dist/ of the web stage is client/web/dist of the repository
            source = re.sub(r"^/src/", "", written) if source_stage is not None else written
            origin = ROOT / source.rstrip("/")
            place = destination if destination.startswith("/") else f"{stage.workdir}/{destination}"
            dest = target / place.lstrip("/")
            if destination.endswith("/") and not source.endswith("/") and origin.is_file():
                dest = dest / origin.name
            if source_stage is None:
                relative = origin.relative_to(ROOT).as_posix()
                present = origin.exists() and in_build_context(relative, rules)
                assert present, f"COPY {source}: not in the build context (.dockerignore?)"
            elif not origin.exists():
                continue  # built by that stage, not built here
            if origin.is_dir():
                shutil.copytree(
                    origin,
                    dest,
                    dirs_exist_ok=True,
                    ignore=ignored if source_stage is None else None,
                )
            else:
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(origin, dest)
    return workdir


def python_module(command: list[str]) -> str | None:
    """``X`` of a ``python -m X ...`` command, else None."""
    if len(command) >= 3 and Path(command[0]).name.startswith("python") and command[1] == "-m":
        return command[2]
    return None
