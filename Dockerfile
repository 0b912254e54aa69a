# Home Assistant add-on image. The Supervisor passes BUILD_FROM (the HA base
# image for the target arch); the default lets a plain `docker build` work too.
ARG BUILD_FROM=ghcr.io/home-assistant/base:3.21

FROM ${BUILD_FROM} AS build
RUN apk add --no-cache nodejs npm python3 make g++
WORKDIR /build
COPY package.json package-lock.json ./
# better-sqlite3 compiles here, for the target architecture.
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY server ./server
RUN npm run build && npm prune --omit=dev

FROM ${BUILD_FROM}
ARG BUILD_REVISION=dev
# tzdata: local time comes from the IANA zone files (server/src/core/tz/).
RUN apk add --no-cache nodejs jq tzdata
WORKDIR /app
COPY package.json ./
COPY --from=build /build/node_modules ./node_modules
COPY --from=build /build/dist ./dist
COPY bin ./bin
COPY addon/run.sh /run.sh
ENV RAINCHECK_BUILD_REVISION=${BUILD_REVISION} NODE_ENV=production
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s \
  CMD wget -qO- http://127.0.0.1:8099/api/v1/health >/dev/null || exit 1
CMD ["/run.sh"]
