#!/usr/bin/env bash
# Make sure `redis-server` and `redis-cli` are installed. The tests start their own redis-server
# on a free port with a temporary folder (and a Redis Cluster of six, made with redis-cli);
# they never use a Redis that is already running.
#
# Quiet and instant when redis-server is on PATH. Otherwise installs Debian's redis-server
# package (apt-get update first; sudo only when not root) WITHOUT starting its service: a
# Redis may already be listening on 6379 here, and the binary is all we need. Idempotent.
set -euo pipefail

if command -v redis-server >/dev/null 2>&1 && command -v redis-cli >/dev/null 2>&1; then
    exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
    echo "ensure-redis: redis-server is missing and apt-get is not available;" \
         "install Redis 7 (redis-server) with your package manager." >&2
    exit 1
fi

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
    if ! command -v sudo >/dev/null 2>&1; then
        echo "ensure-redis: need root or sudo to install redis-server" >&2
        exit 1
    fi
    SUDO=(sudo)
fi

echo "ensure-redis: installing Debian's redis-server (binary only, service not started)"

# policy-rc.d exit 101 = "do not start services": honoured by invoke-rc.d and
# deb-systemd-invoke during the package's postinst. Only ours is removed afterwards.
POLICY=/usr/sbin/policy-rc.d
OUR_POLICY=0
if [ ! -e "$POLICY" ]; then
    printf '#!/bin/sh\nexit 101\n' | "${SUDO[@]}" tee "$POLICY" >/dev/null
    "${SUDO[@]}" chmod 755 "$POLICY"
    OUR_POLICY=1
fi
cleanup() {
    if [ "$OUR_POLICY" = 1 ]; then
        "${SUDO[@]}" rm -f "$POLICY"
    fi
}
trap cleanup EXIT

export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
    --no-install-recommends redis-server redis-tools >/dev/null

# Nor should it start at the next boot (where systemd runs at all).
if [ -d /run/systemd/system ] && command -v systemctl >/dev/null 2>&1; then
    "${SUDO[@]}" systemctl disable --now redis-server >/dev/null 2>&1 || true
fi

if ! command -v redis-server >/dev/null 2>&1 || ! command -v redis-cli >/dev/null 2>&1; then
    echo "ensure-redis: redis-server or redis-cli still not on PATH after installing" >&2
    exit 1
fi
echo "ensure-redis: $(redis-server --version)"
