# Shotline: Deno + Debian's Chromium, run as a non-root user under tini.
FROM denoland/deno:debian-2.9.6

# Chromium for local captures (156 or newer is tested: the base image's Debian includes its
# security updates; an older one is checked by the boundary self-test at every start), fonts so
# CJK and emoji render, ffmpeg to encode recordings (mp4, webm, gif), tini to reap Chromium's
# zombies.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      chromium ffmpeg fonts-noto-cjk fonts-noto-color-emoji fonts-liberation tini ca-certificates \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /app
# Dependencies first, so source edits do not re-download them.
COPY deno.json deno.lock ./
RUN deno install --frozen
COPY . .
RUN deno cache --frozen main.ts && mkdir -p /app/data && chown -R deno:deno /app

USER deno
# DENO_NO_UPDATE_CHECK: the Deno CLI's own version check would otherwise reach out at start
# (through HTTPS_PROXY where one is set); the service has no use for it.
ENV PORT=8000 HOST=0.0.0.0 CHROME_PATH=/usr/bin/chromium KV_PATH=/app/data/shotline.kv \
    DENO_NO_UPDATE_CHECK=1
EXPOSE 8000

# Readiness, not liveness: a container whose Chromium is gone (no capture backend ready) is
# unhealthy. The start period is the start-up grace: a cold Chromium launch and its boundary
# self-test take seconds to tens of seconds on a loaded host.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["deno", "eval", "const r = await fetch('http://127.0.0.1:' + (Deno.env.get('PORT') ?? '8000') + '/readyz'); Deno.exit(r.ok ? 0 : 1)"]

ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["deno", "task", "start"]
