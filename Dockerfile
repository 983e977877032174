# Multi-stage: build the web client with Node; run the server and the workers on slim Python.

FROM node:20-bookworm-slim AS web
WORKDIR /src/client/web
COPY client/web/package.json client/web/package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY client/web/ ./
COPY protocol/fixtures/ /src/protocol/fixtures/
RUN npm run build

FROM python:3.11-slim-bookworm AS runtime
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PYTHONPATH=/app
WORKDIR /app
COPY requirements/runtime.lock requirements/runtime.lock
RUN pip install --no-cache-dir -r requirements/runtime.lock
COPY protocol/ protocol/
COPY server/ server/
COPY client/__init__.py client/session.py client/worker_run.py client/
COPY client/ai/ client/ai/
COPY client/review/ client/review/
COPY --from=web /src/client/web/dist/ client/web/dist/
RUN useradd --system --uid 10001 gin
USER gin
ENV GIN_HOST=0.0.0.0 GIN_PORT=8000
EXPOSE 8000
CMD ["python", "-m", "server"]
