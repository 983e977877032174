"""``docker compose up`` runs the whole thing. Docker is not available here: these tests read
the files as compose and the builder would, and hold them against the code and the README.

- redis: append-only persistence on a named volume, a healthcheck;
- server: ``python -m server``, a healthcheck on ``/readyz``, several replicas (a published port
  for each), waits for a healthy Redis, a stop grace longer than its own shutdown;
- ai-worker: ``python -m client.ai``, scalable, the server's address and the same key, a drain
  that ends before Docker's SIGKILL;
- proxy (optional profile): nginx in front of the replicas, websockets upgraded, the browser's
  Host passed on (the server checks the websocket's Origin against it);
- every variable the file sets is read by the code, has the code's default unless meant
  otherwise, and is documented in the README; every server setting of the README can be set;
- every command is a real entry point, and the runtime image (its build context filtered by
  ``.dockerignore``) holds what they import, with the third-party packages pinned.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib.util
import json
import re
import subprocess
import sys
from collections.abc import Callable, Mapping
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest

from client.ai.worker import WorkerSettings
from client.review.worker import ReviewWorkerSettings
from server.settings import Settings
from tests.deploy.compose import (
    ROOT,
    MissingVariable,
    duration_seconds,
    environment,
    ignore_rules,
    in_build_context,
    load_compose,
    load_dockerfile,
    python_module,
    resolve,
    runtime_stage,
    stage_image_tree,
)

#: What the host sets: only the required secret. Everything else takes the file's defaults.
HOST_ENV = {"GIN_AI_WORKER_KEY": "a-long-random-secret"}
#: Variables of the compose file itself (replicas, ports, the image's tag), read by compose,
#: not by the code.
COMPOSE_KNOBS = frozenset(
    {
        "GIN_SERVER_REPLICAS",
        "GIN_PUBLISH_PORTS",
        "GIN_AI_WORKERS",
        "GIN_REVIEW_WORKERS",
        "GIN_PROXY_PORT",
        "GIN_REDIS_NODES",
        "GIN_IMAGE",
    }
)
#: Where the compose file deliberately differs from the code's defaults, and why.
MEANT_TO_DIFFER = {
    "redis_url": "the redis service",
    "ai_worker_key": "the required secret",
    "worker_key": "the required secret",
    "capacity": "100 seats per worker instead of 50",
    "drain_seconds": "drains within the stop grace period",
    "allowed_hosts": "the AI workers reach the server as `server`",
    "trusted_proxies": "the bundled nginx, on the compose network",
}


def _service(name: str) -> dict[str, Any]:
    services = load_compose()["services"]
    assert name in services, f"no {name} service in docker-compose.yml"
    service: dict[str, Any] = services[name]
    return service


def _command(service: dict[str, Any]) -> list[str]:
    command = service.get("command")
    assert isinstance(command, list), "commands are written as lists (exec form)"
    return [str(part) for part in resolve(command, HOST_ENV)]


def _readme_section(title: str) -> str:
    text = (ROOT / "README.md").read_text()
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## )", text, re.S | re.M)
    assert match, f"no '## {title}' section in the README"
    return match[1]


def _environ_reads(path: Path) -> set[str]:
    """The names a ``__main__`` reads with ``os.environ.get("NAME", ...)``/``environ["NAME"]``
    (those outside the settings classes: where to listen, the worker's log level)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr in ("get", "getenv"):
                names.add(str(node.args[0].value))
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
            names.add(str(node.slice.value))
    return names


#: Values to try a variable with: the first the code accepts shows whether it reads it.
PROBES = (
    "4321",
    "1",
    "text",
    "DEBUG",
    "https://probe.example",
    "redis://probe:1/0",
    "secret",
    "192.0.2.1",
    __file__,  # a file that exists (GIN_REDIS_CA, GIN_REDIS_CERT, GIN_REDIS_KEY)
)


def _read_by(name: str, parse: Callable[[Mapping[str, str]], Any], base: Mapping[str, str]) -> bool:
    """Whether ``parse`` (a settings constructor) reads ``name``: some value of it changes the
    settings it makes."""
    plain = parse(base)
    for probe in PROBES:
        try:
            if parse({**base, name: probe}) != plain:
                return True
        except ValueError:
            continue
    return False


def _differences(a: Any, b: Any) -> dict[str, tuple[Any, Any]]:
    return {
        f.name: (getattr(a, f.name), getattr(b, f.name))
        for f in dataclasses.fields(a)
        if getattr(a, f.name) != getattr(b, f.name)
    }


def test_redis_keeps_its_data_in_an_append_only_file_on_a_named_volume() -> None:
    compose = load_compose()
    redis = _service("redis")
    command = _command(redis)
    assert command[0] == "redis-server"
    options = dict(zip(command[1::2], command[2::2], strict=False))
    assert options.get("--appendonly") == "yes", command
    assert options.get("--appendfsync") in ("always", "everysec"), command
    volumes = [str(volume) for volume in redis.get("volumes", [])]
    data = [volume for volume in volumes if volume.split(":")[1:2] == ["/data"]]
    assert data, f"no volume on /data (redis:7 keeps its files there): {volumes}"
    name = data[0].split(":")[0]
    assert not name.startswith((".", "/")), f"/data is a bind mount, not a named volume: {name}"
    assert name in (compose.get("volumes") or {}), f"volume {name} is not declared"
    test = resolve(redis["healthcheck"]["test"], HOST_ENV)
    assert test[0] == "CMD" and test[1:] == ["redis-cli", "ping"], test
    assert redis.get("restart") in ("unless-stopped", "always")
    print(f"\nredis: {' '.join(command)}; volume {name}:/data; healthcheck {test[1:]}")


def test_server_replicas_are_healthchecked_on_readyz_and_stop_within_their_grace() -> None:
    server = _service("server")
    assert _command(server) == ["python", "-m", "server"]
    env = environment(server, HOST_ENV)
    port = env["GIN_PORT"]
    assert env["GIN_HOST"] == "0.0.0.0", "inside a container the server listens on all"
    assert env["REDIS_URL"].startswith("redis://redis:6379/"), env["REDIS_URL"]
    test = " ".join(resolve(server["healthcheck"]["test"], HOST_ENV))
    assert f"127.0.0.1:{port}/readyz" in test, f"the healthcheck does not ask /readyz: {test}"
    # scalable: replicas, no fixed container name, a published port for each replica
    replicas = int(resolve(server.get("deploy", {}).get("replicas", 1), HOST_ENV))
    assert replicas >= 2 and "container_name" not in server, server
    published = [str(resolve(p, HOST_ENV)) for p in server.get("ports", [])]
    assert published, "no published port"
    for mapping in published:
        host, _, container = mapping.rpartition(":")
        assert container == port, f"{mapping} does not reach the server's port {port}"
        low, _, high = host.partition("-")
        span = int(high or low) - int(low) + 1
        assert span >= replicas, f"{mapping}: {span} host ports for {replicas} replicas"
    assert server["depends_on"]["redis"]["condition"] == "service_healthy"
    # on SIGTERM: drain (tell clients to reconnect), then uvicorn's graceful shutdown
    from server.__main__ import DRAIN_SECONDS, UVICORN_OPTIONS  # noqa: PLC0415

    graceful = UVICORN_OPTIONS.get("timeout_graceful_shutdown")
    assert isinstance(graceful, int | float), "uvicorn's timeout_graceful_shutdown is not set"
    shutdown = DRAIN_SECONDS + float(graceful)
    grace = duration_seconds(server.get("stop_grace_period", "10s"))
    assert grace > shutdown, f"stop_grace_period {grace} s < the server's shutdown {shutdown} s"
    print(
        f"\nserver: {replicas} replicas on host ports {published}, healthcheck {test!r}, "
        f"shutdown up to {shutdown:.0f} s within a stop grace of {grace:.0f} s"
    )


def test_ai_workers_scale_find_the_server_and_drain_before_they_are_killed() -> None:
    worker = _service("ai-worker")
    server = _service("server")
    assert _command(worker) == ["python", "-m", "client.ai"]
    assert "container_name" not in worker and not worker.get("ports")
    replicas = int(resolve(worker.get("deploy", {}).get("replicas", 1), HOST_ENV))
    assert replicas >= 1
    env = environment(worker, HOST_ENV)
    server_env = environment(server, HOST_ENV)
    assert env["GIN_SERVER_URL"] == f"ws://server:{server_env['GIN_PORT']}/ws", env
    assert (
        env["GIN_AI_WORKER_KEY"] == server_env["GIN_AI_WORKER_KEY"] == HOST_ENV["GIN_AI_WORKER_KEY"]
    )
    assert worker.get("image") == server.get("image"), "the worker runs the server's image"
    assert worker["depends_on"]["server"]["condition"] == "service_healthy"
    # on `docker compose stop` the worker gets SIGTERM, drains, and is killed after the grace:
    # its drain must end first, or it never hands its seats back by itself
    settings = WorkerSettings.from_env(env)
    grace = duration_seconds(worker.get("stop_grace_period", "10s"))
    print(
        f"\nai-worker: {replicas} replica(s) of {settings.capacity} seats, drain "
        f"{settings.drain_seconds:.0f} s, stop grace {grace:.0f} s"
    )
    assert settings.drain_seconds + 2 < grace, (
        f"the worker drains for up to {settings.drain_seconds:.0f} s (GIN_AI_DRAIN_SECONDS) "
        f"but compose kills it {grace:.0f} s after SIGTERM (stop_grace_period)"
    )


def test_every_variable_is_read_by_the_code_defaults_agree_and_the_readme_documents_it() -> None:
    compose = load_compose()
    text = (ROOT / "docker-compose.yml").read_text()
    readme = (ROOT / "README.md").read_text()
    hosting = _readme_section("Self-hosting")
    server_env = environment(_service("server"), HOST_ENV)
    worker_env = environment(_service("ai-worker"), HOST_ENV)
    review_env = environment(_service("review-worker"), HOST_ENV)
    key = {"GIN_AI_WORKER_KEY": "k"}
    readers: dict[str, Callable[[str], bool]] = {
        "server": lambda name: (
            name in _environ_reads(ROOT / "server" / "__main__.py")
            or name in _environ_reads(ROOT / "server" / "heap_trace.py")  # given os.environ
            or _read_by(name, Settings.from_env, {})
        ),
        "ai-worker": lambda name: (
            name in _environ_reads(ROOT / "client" / "ai" / "__main__.py")
            or _read_by(name, WorkerSettings.from_env, key)
        ),
        "review-worker": lambda name: (
            name in _environ_reads(ROOT / "client" / "review" / "__main__.py")
            or _read_by(name, ReviewWorkerSettings.from_env, key)
        ),
    }
    # 1. every variable a service gets is read by that service's process...
    for service, env in (
        ("server", server_env),
        ("ai-worker", worker_env),
        ("review-worker", review_env),
    ):
        for name in env:
            assert readers[service](name), f"{service}: {name} is read by nothing"
            # ...and documented
            assert f"`{name}`" in readme, f"{name} ({service}) is not in the README"
    for name, service in compose["services"].items():
        if name not in ("server", "ai-worker", "review-worker"):
            assert not service.get("environment"), f"{name}: variables nobody checks"
    # 2. every ${VARIABLE} is passed to a service, or is one of compose's own knobs
    used = set(re.findall(r"\$\{([A-Z_][A-Z0-9_]*)", text))
    for name in used - set(server_env) - set(worker_env) - set(review_env):
        assert name in COMPOSE_KNOBS, f"${{{name}}} is neither passed on nor a compose knob"
        assert f"`{name}`" in hosting, f"{name} is not in the README's Self-hosting section"
    # 3. with only the secret set, the settings are the code's defaults (none drifted)
    drift = _differences(Settings.from_env(server_env), Settings())
    drift |= _differences(WorkerSettings.from_env(worker_env), WorkerSettings("", ""))
    drift |= _differences(ReviewWorkerSettings.from_env(review_env), ReviewWorkerSettings("", ""))
    drift.pop("url", None)  # ws://server:8000/ws: the server service
    unexpected = {name: values for name, values in drift.items() if name not in MEANT_TO_DIFFER}
    assert not unexpected, f"the compose file's defaults differ from the code's: {unexpected}"
    # 4. every server setting of the README's table can be set from the host (.env)
    table = _readme_section("Self-hosting").split("### Settings", 1)[1]
    documented = set(re.findall(r"`(GIN_[A-Z_]+|REDIS_URL)`", table))
    fixed = {"GIN_HOST", "GIN_PORT", "REDIS_URL"}  # the containers' own
    for name in sorted(documented - fixed):
        passed = environment(_service("server"), {**HOST_ENV, name: "probe"}).get(name)
        assert passed == "probe", f"{name}=... in .env does not reach the server ({passed!r})"
    # 5. without the secret, `docker compose up` stops at once
    for service in ("server", "ai-worker"):
        with pytest.raises(MissingVariable):
            environment(_service(service), {})
    print(
        f"\nserver gets {sorted(server_env)};\nai-worker gets {sorted(worker_env)};\n"
        f"compose knobs {sorted(used & COMPOSE_KNOBS)}; meant differences from the code's "
        f"defaults: {drift}; settable from .env: {sorted(documented - fixed)}"
    )


def test_the_optional_proxy_upgrades_websockets_and_passes_the_browsers_host() -> None:
    proxy = _service("proxy")
    server_env = environment(_service("server"), HOST_ENV)
    assert proxy.get("profiles"), "the proxy is optional (a profile)"
    mounts = [str(volume) for volume in proxy.get("volumes", [])]
    conf = [m for m in mounts if m.endswith((".conf", ".conf:ro"))]
    assert conf, mounts
    local = ROOT / conf[0].split(":")[0]
    assert local.is_file(), f"{local} is mounted but missing"
    text = local.read_text()
    assert f"server:{server_env['GIN_PORT']}" in text
    assert re.search(r"proxy_set_header\s+Upgrade\s+\$http_upgrade", text)
    assert re.search(r"proxy_set_header\s+Connection\s+\$connection_upgrade", text)
    assert "proxy_http_version 1.1" in text
    # The server lets a browser's websocket in when its Origin is the Host it was asked for:
    # nginx's $host has no port (a browser on :8080 would be refused), $http_host has it.
    host = re.search(r"proxy_set_header\s+Host\s+(\S+);", text)
    assert host and host[1] == "$http_host", f"Host is passed as {host and host[1]}"
    # a resolver and a variable upstream: each request asks Docker's DNS for every replica
    assert re.search(r"resolver\s+127\.0\.0\.11", text) and "set $backend" in text
    timeout = re.search(r"proxy_read_timeout\s+(\d+)s", text)
    assert timeout and int(timeout[1]) > 20, "websockets idle between pings (20 s) are cut"
    print(f"\nproxy: {conf[0]}, Host {host[1]}, read timeout {timeout[1]} s")


def test_commands_are_entry_points_and_the_image_holds_what_they_import(
    tmp_path: Path,
) -> None:
    stages = load_dockerfile()
    runtime = runtime_stage(stages)
    compose = load_compose()
    modules = {}
    for name, service in compose["services"].items():
        if "command" not in service:
            continue
        module = python_module(_command(service))
        if module is None:
            continue
        spec = importlib.util.find_spec(f"{module}.__main__") or importlib.util.find_spec(module)
        assert spec is not None and spec.origin, f"{name}: python -m {module} finds nothing"
        tree = ast.parse(Path(spec.origin).read_text())
        functions = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
        assert "main" in functions, f"{spec.origin} has no main()"
        assert "__main__" in Path(spec.origin).read_text(), f"{spec.origin} runs nothing"
        modules[name] = module
    assert set(modules) >= {"server", "ai-worker", "review-worker"}, modules
    assert runtime.cmd == _command(_service("server")), (runtime.cmd, "image CMD")
    assert runtime.env.get("PYTHONPATH") == runtime.workdir, "python -m needs WORKDIR on the path"
    assert runtime.user not in (None, "root", "0"), "the image runs as root"
    port = environment(_service("server"), HOST_ENV)["GIN_PORT"]
    assert port in runtime.expose
    assert any("runtime.lock" in run for run in runtime.runs)

    # the build context: what .dockerignore leaves out
    rules = ignore_rules()
    kept_out = [".venv", ".git", ".data", "client/web/node_modules", "server/__pycache__"]
    sent = [path for path in kept_out if in_build_context(path, rules)]
    assert not sent, f"sent to the builder (add them to .dockerignore): {sent}"

    # the image's file tree, and the entry points imported from it alone
    app = stage_image_tree(runtime, tmp_path / "image")
    probe = (
        "import importlib, json, sys\n"
        "at_start = set(sys.modules)\n"
        f"for name in {sorted(set(modules.values()))!r}:\n"
        "    importlib.import_module(name + '.__main__')\n"
        "import server.app, server.store, client.ai.worker\n"
        "print(json.dumps({n: getattr(m, '__file__', None) for n, m in sys.modules.items()"
        " if n not in at_start}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        check=False,
        cwd=tmp_path,  # not the repository: nothing may come from it
        env={"PYTHONPATH": str(app), "PATH": "/usr/bin:/bin", "PYTHONNOUSERSITE": "1"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    loaded: dict[str, str | None] = json.loads(done.stdout.splitlines()[-1])
    ours = {
        name: path
        for name, path in loaded.items()
        if name.split(".")[0] in ("protocol", "server", "client")
    }
    outside = {name: path for name, path in ours.items() if path and not path.startswith(str(app))}
    assert not outside, f"imported from outside the image: {outside}"
    lua = sorted(p.name for p in (app / "server" / "lua").glob("*.lua"))
    assert lua == sorted(p.name for p in (ROOT / "server" / "lua").glob("*.lua"))
    # every third-party distribution they import is pinned in the image's lock
    distributions = metadata.packages_distributions()
    pinned = {
        line.split("==")[0].strip().lower().replace("_", "-")
        for line in (ROOT / "requirements" / "runtime.lock").read_text().splitlines()
        if "==" in line and not line.startswith("#")
    }
    missing = set()
    for name in {n.split(".")[0] for n in loaded}:
        if name in sys.stdlib_module_names or name in ("protocol", "server", "client"):
            continue
        for dist in distributions.get(name, []):
            if dist.lower().replace("_", "-") not in pinned:
                missing.add(f"{name} ({dist})")
    assert not missing, f"imported but not in requirements/runtime.lock: {sorted(missing)}"
    print(
        f"\nentry points {modules}; the runtime image ({len(runtime.copies)} COPY) holds the "
        f"{len(ours)} project modules they load and {len(lua)} Lua scripts; "
        f"{kept_out} stay out of the build context"
    )
