# Stand-in for python:3.11-slim-bookworm (test fixture, built only by scripts/docker/standins.sh):
# Debian's Python 3.11 as a venv in /usr/local, so that `python` and `pip` are on PATH and pip
# installs where the official image's does.
FROM gin-rummy-standin/debian:bookworm
RUN apt-get update \
    && apt-get install -y --no-install-recommends python3 python3-venv \
    && rm -rf /var/lib/apt/lists/* \
    && python3 -m venv /usr/local \
    && /usr/local/bin/pip --version
ENV LANG=C.UTF-8 PIP_CERT=/etc/ssl/certs/ca-certificates.crt
CMD ["python3"]
