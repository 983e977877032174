#!/bin/sh
# The stand-in redis image's entry point (see redis.Dockerfile).
set -e
if [ "${1#-}" != "$1" ]; then
    set -- redis-server "$@"
fi
if [ "$1" = "redis-server" ]; then
    case "${2:-}" in
        *.conf) ;;
        *) set -- "$@" --protected-mode no ;;
    esac
fi
exec "$@"
