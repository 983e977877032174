# Stand-in for node:20-bookworm-slim (test fixture): Node 20 from Debian trixie, and npm from
# the npm registry (one self-contained tarball: Debian's npm package pulls in some 400 node-*
# packages, most of the stand-ins' cold build time).
FROM gin-rummy-standin/debian:bookworm
ARG NPM_VERSION=10.9.2
ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
RUN echo 'deb http://deb.debian.org/debian trixie main' > /etc/apt/sources.list.d/trixie.list \
    && apt-get update \
    && apt-get install -y --no-install-recommends -t trixie nodejs \
    && rm -rf /var/lib/apt/lists/* \
    && node -e "fetch('https://registry.npmjs.org/npm/-/npm-${NPM_VERSION}.tgz') \
        .then((r) => { if (!r.ok) throw new Error('npm tarball: HTTP ' + r.status); return r.arrayBuffer(); }) \
        .then((b) => require('fs').writeFileSync('/tmp/npm.tgz', Buffer.from(b)))" \
    && mkdir /tmp/npm && tar -xzf /tmp/npm.tgz -C /tmp/npm \
    && node /tmp/npm/package/bin/npm-cli.js install --global --no-audit --no-fund /tmp/npm.tgz \
    && rm -rf /tmp/npm /tmp/npm.tgz /root/.npm \
    && node --version && npm --version
CMD ["node"]
