# Stand-in for node:20-bookworm-slim (test fixture): Node 20 and npm from Debian trixie.
FROM gin-rummy-standin/debian:bookworm
RUN echo 'deb http://deb.debian.org/debian trixie main' > /etc/apt/sources.list.d/trixie.list \
    && apt-get update \
    && apt-get install -y --no-install-recommends -t trixie nodejs npm \
    && rm -rf /var/lib/apt/lists/* \
    && node --version && npm --version
ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
CMD ["node"]
