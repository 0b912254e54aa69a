# Home Assistant add-on image. The Supervisor builds it on the device with
# `docker buildx build --platform <arch>` and, since there is no build.yaml,
# passes no BUILD_FROM: the default below is used, a multi-arch HA base image
# pinned to its Alpine release (Alpine 3.22: Node.js 22, npm, su-exec).
ARG BUILD_FROM=ghcr.io/home-assistant/base:3.22

# Production dependencies only, for the target architecture. better-sqlite3's
# install script (allowed in package.json's allowScripts, which npm 12
# enforces) fetches a prebuilt binary or compiles one with python3/make/g++;
# the require below fails the build if neither produced a loadable module.
FROM ${BUILD_FROM} AS deps
RUN apk add --no-cache nodejs npm python3 make g++
WORKDIR /build
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund \
  && node -e "new (require('better-sqlite3'))(':memory:').close()"

# Build: the TypeScript server into dist/server (then minified, with its
# production dependencies mirrored minified into dist/server/node_modules:
# scripts/slim-server-build.mjs) and the web app (Vite) into dist/web. Both
# need the dev dependencies but no install scripts (the bundler's native
# binding for musl is an optional dependency, not a script).
FROM ${BUILD_FROM} AS build
RUN apk add --no-cache nodejs npm
WORKDIR /build
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/slim-server-build.mjs ./scripts/
COPY server ./server
COPY web ./web
RUN npm run build && test -f dist/web/index.html

FROM ${BUILD_FROM}
# BUILD_VERSION and BUILD_ARCH are passed by the Supervisor and HA's builder;
# the defaults only serve a plain `docker build` (the test keeps
# BUILD_VERSION's default equal to config.yaml's version).
ARG BUILD_VERSION=0.1.0
ARG BUILD_ARCH=amd64
ARG BUILD_REVISION=dev
# jq reads the options, curl asks the Supervisor for the MQTT broker and runs
# the healthcheck, su-exec drops root, tzdata backs server/src/core/tz/.
RUN apk add --no-cache nodejs curl jq su-exec tzdata \
  && addgroup -S raincheck \
  && adduser -S -D -H -h /app -s /sbin/nologin -G raincheck raincheck
WORKDIR /app
COPY package.json ./
COPY --from=deps /build/node_modules ./node_modules
# dist/server (the service) and dist/web (the built web app it serves).
COPY --from=build /build/dist ./dist
# The web app's icons, served at /icon.png, /icon-192.png and /icon-512.png (server/src/web/assets.ts).
COPY icon.png ./
COPY web ./web
COPY bin ./bin
COPY addon/run.sh /run.sh
RUN chmod 0755 /run.sh /app/bin/raincheck /app/bin/raincheck-ha-backup
# RAINCHECK_USER: run.sh hands /data (root-owned in HA) to this user and
# drops root before starting the service.
ENV NODE_ENV=production \
  RAINCHECK_BUILD_REVISION=${BUILD_REVISION} \
  RAINCHECK_USER=raincheck
LABEL \
  io.hass.type="addon" \
  io.hass.version="${BUILD_VERSION}" \
  io.hass.arch="${BUILD_ARCH}" \
  io.hass.name="Raincheck"
# Liveness, not strict health: an offline weather source must not mark the
# add-on unhealthy, so no ?strict=1. The port is the one the Supervisor chose
# (ingress_port: 0), which run.sh writes to /run/raincheck/port.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD curl -fsS -o /dev/null --max-time 4 "http://127.0.0.1:$(cat /run/raincheck/port 2>/dev/null || echo 8099)/api/v1/health" || exit 1
# No s6-overlay: the base image's /init is cleared and run.sh is PID 1, then
# execs into node (config.yaml's init: false explains why that is safe).
ENTRYPOINT []
CMD ["/run.sh"]
