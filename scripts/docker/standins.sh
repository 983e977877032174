#!/usr/bin/env bash
# Stand-in base images for `make test-docker` (test fixtures only: never pushed, never named in
# the user's instructions). No image registry is reachable here, so the images the Dockerfile
# and docker-compose.yml name are built locally from Debian (debootstrap) and tagged with
# those names:
#   python:3.11-slim-bookworm  Debian's Python 3.11 with pip and venv
#   node:20-bookworm-slim      Node 20 from Debian trixie, npm from the npm registry
#   redis:7-alpine             Debian's Redis 7 in /data, protected mode off without a config
#   nginx:1.27-alpine          Debian's nginx reading conf.d
# They trust this machine's CA bundle, so that builds inside the engine reach the package
# registries. Each carries the label org.gin-rummy.standin=<hash of this recipe and of the CA
# bundle>: an image whose label matches is kept (cached between runs), one whose label differs
# is rebuilt, and a tag with no such label (a real image, pulled) is left alone and used.
set -euo pipefail

HERE="$(cd "$(dirname "$0")" && pwd)"
STATE="${GIN_DOCKER_STATE:-/var/lib/gin-rummy-docker-test}"
MIRROR="${GIN_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
CA_BUNDLE="${GIN_CA_BUNDLE:-/etc/ssl/certs/ca-certificates.crt}"
BASE=gin-rummy-standin/debian:bookworm
LABEL=org.gin-rummy.standin
declare -A IMAGES=(
    [python:3.11-slim-bookworm]=python
    [node:20-bookworm-slim]=node
    [redis:7-alpine]=redis
    [nginx:1.27-alpine]=nginx
)

HASH="$(cat "$0" "$HERE"/standins/* "$CA_BUNDLE" | sha256sum | cut -c1-16)"
export DOCKER_BUILDKIT=0

label_of() {
    docker image inspect --format "{{ index .Config.Labels \"$LABEL\" }}" "$1" 2>/dev/null || echo absent
}

build_base() {
    local root="$STATE/rootfs-$HASH"
    echo "standins: debootstrap bookworm (minbase) into $root"
    rm -rf "$root"
    debootstrap --variant=minbase --include=ca-certificates bookworm "$root" "$MIRROR" \
        >"$STATE/debootstrap.log" 2>&1 || { tail -20 "$STATE/debootstrap.log" >&2; exit 1; }
    # This machine's CA bundle, kept through later ca-certificates runs.
    mkdir -p "$root/usr/local/share/ca-certificates/build-machine"
    csplit --quiet --prefix="$root/usr/local/share/ca-certificates/build-machine/ca-" \
        --suffix-format='%04d.crt' --elide-empty-files "$CA_BUNDLE" \
        '/-----BEGIN CERTIFICATE-----/' '{*}'
    find "$root/usr/local/share/ca-certificates/build-machine" -name '*.crt' -size -60c -delete
    chroot "$root" update-ca-certificates >/dev/null 2>&1
    cp "$CA_BUNDLE" "$root/etc/ssl/certs/ca-certificates.crt"
    # Slim like the official images: no package caches, documentation or translations.
    cat >"$root/etc/apt/apt.conf.d/90gin-standin" <<'APT'
Acquire::Check-Valid-Until "false";
APT::Install-Recommends "false";
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb || true"; };
APT
    printf '%s\n' 'path-exclude /usr/share/doc/*' 'path-include /usr/share/doc/*/copyright' \
        'path-exclude /usr/share/man/*' 'path-exclude /usr/share/info/*' \
        'path-exclude /usr/share/locale/*' >"$root/etc/dpkg/dpkg.cfg.d/90gin-standin"
    rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/* "$root"/usr/share/man/* \
        "$root"/usr/share/info/* "$root"/usr/share/locale/*
    find "$root/usr/share/doc" -type f ! -name copyright -delete
    tar -C "$root" -c . | docker import --change "LABEL $LABEL=$HASH" \
        --change 'CMD ["bash"]' --change 'ENV LANG=C.UTF-8' - "$BASE" >/dev/null
    rm -rf "$root"
}

start=$SECONDS
if [ "$(label_of "$BASE")" != "$HASH" ]; then
    build_base
fi
# The images are built side by side (each mostly waits on its package downloads), then
# each build's result is read: a failed one shows its log's tail.
declare -A BUILDS=()
for tag in "${!IMAGES[@]}"; do
    current="$(label_of "$tag")"
    if [ "$current" = "$HASH" ]; then
        continue
    fi
    if [ "$current" != absent ] && [ -z "$current" ]; then
        echo "standins: $tag is a real image (no $LABEL label): used as it is"
        continue
    fi
    name="${IMAGES[$tag]}"
    echo "standins: building $tag"
    docker build --quiet --label "$LABEL=$HASH" -t "$tag" \
        -f "$HERE/standins/$name.Dockerfile" "$HERE/standins" >"$STATE/standin-$name.log" 2>&1 &
    BUILDS[$name]=$!
done
failed=0
for name in "${!BUILDS[@]}"; do
    if ! wait "${BUILDS[$name]}"; then
        echo "standins: building the $name stand-in failed ($STATE/standin-$name.log):" >&2
        tail -30 "$STATE/standin-$name.log" >&2
        failed=1
    fi
done
[ "$failed" = 0 ] || exit 1
echo "standins: ready ($HASH) in $((SECONDS - start)) s"
