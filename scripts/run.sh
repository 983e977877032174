#!/usr/bin/env bash
# `make run`: a local Redis (unless REDIS_URL is set), the server, an AI worker and a review
# worker; prints the URL.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python
export PYTHONPATH="$PWD"
HOST="${GIN_HOST:-127.0.0.1}"
PORT="${GIN_PORT:-8000}"
pids=()
cleanup() {
  trap - EXIT INT TERM
  # Stop in reverse order of start: the worker and the server before Redis.
  for ((i=${#pids[@]}-1; i>=0; i--)); do
    kill "${pids[i]}" 2>/dev/null || true
    wait "${pids[i]}" 2>/dev/null || true
  done
}
trap cleanup EXIT INT TERM

free_port() { "$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_for() {  # wait_for DESCRIPTION PYTHON-EXPRESSION
  for _ in $(seq 1 100); do
    if "$PY" -c "$2" 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  echo "$1 did not start" >&2; return 1
}

if [ -z "${REDIS_URL:-}" ]; then
  bash scripts/ensure-redis.sh
  mkdir -p .data/redis
  redis_port="$(free_port)"
  setsid redis-server --port "$redis_port" --bind 127.0.0.1 --dir "$PWD/.data/redis" \
    --appendonly yes --appendfsync everysec --save "" --logfile "$PWD/.data/redis.log" &
  pids+=($!)
  export REDIS_URL="redis://127.0.0.1:$redis_port/0"
  wait_for "redis-server" "import redis; redis.Redis.from_url('$REDIS_URL').ping()"
  echo "Redis: $REDIS_URL (data in .data/redis, AOF on)"
fi

export GIN_AI_WORKER_KEY="${GIN_AI_WORKER_KEY:-$("$PY" -c 'import secrets; print(secrets.token_urlsafe(24))')}"
export GIN_LOG_FORMAT="${GIN_LOG_FORMAT:-text}"
GIN_HOST="$HOST" GIN_PORT="$PORT" setsid "$PY" -m server &
pids+=($!)
wait_for "the server" "import urllib.request; urllib.request.urlopen('http://$HOST:$PORT/readyz')"

if "$PY" -c 'import client.ai.worker' 2>/dev/null; then
  # Ctrl-C stops within seconds: the worker hands back the seats still in play (the next
  # `make run` plays them on) instead of finishing those matches (its default drain: 600 s).
  GIN_SERVER_URL="ws://$HOST:$PORT/ws" GIN_AI_DRAIN_SECONDS="${GIN_AI_DRAIN_SECONDS:-3}" \
    setsid "$PY" -m client.ai &
  pids+=($!)
  echo "AI worker: started"
else
  echo "AI worker: not built yet (AI seats wait until one connects)"
fi

# The review worker judges the finished hands people ask about (docs/review.md).
GIN_SERVER_URL="ws://$HOST:$PORT/ws" setsid "$PY" -m client.review &
pids+=($!)
echo "review worker: started"

echo
echo "Gin Rummy is running: http://$HOST:$PORT/"
echo "Press Ctrl-C to stop."
wait -n "${pids[@]}"
