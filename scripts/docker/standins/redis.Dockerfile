# Stand-in for redis:7-alpine (test fixture): Debian's Redis 7 working in /data as user redis,
# with the official image's rule that a redis-server started without a config file runs with
# protected mode off (it is reached from other containers).
FROM gin-rummy-standin/debian:bookworm
RUN apt-get update \
    && apt-get install -y --no-install-recommends redis-server redis-tools \
    && rm -rf /var/lib/apt/lists/* \
    && mkdir -p /data && chown redis:redis /data
COPY redis-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
WORKDIR /data
VOLUME /data
USER redis
EXPOSE 6379
ENTRYPOINT ["docker-entrypoint.sh"]
CMD ["redis-server"]
