# Stand-in for nginx:*-alpine (test fixture): Debian's nginx reading /etc/nginx/conf.d, logging
# to the container's output, its user named nginx as in the official image.
FROM gin-rummy-standin/debian:bookworm
RUN apt-get update \
    && apt-get install -y --no-install-recommends nginx \
    && rm -rf /var/lib/apt/lists/* /etc/nginx/sites-enabled/* \
    && groupadd --system --gid 101 nginx && useradd --system --uid 101 --gid 101 nginx \
    && sed -i 's/^user .*;/user nginx;/' /etc/nginx/nginx.conf \
    && ln -sf /dev/stdout /var/log/nginx/access.log && ln -sf /dev/stderr /var/log/nginx/error.log
EXPOSE 80
STOPSIGNAL SIGQUIT
CMD ["nginx", "-g", "daemon off;"]
