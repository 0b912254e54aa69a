#!/bin/sh
# Add-on entry point, PID 1 in the container (see the init comment in
# config.yaml). Maps the add-on options the Supervisor writes to
# /data/options.json onto the service's environment (README, "Environment"),
# finds the ingress port and the MQTT broker, and execs the service.
#
# Network: the add-on runs on the host network (Tempest UDP broadcasts and
# mDNS reach it; it announces itself as _raincheck._tcp). config.yaml's
# ingress_port: 0 lets the Supervisor pick a port that is free on the host;
# the service listens there on every interface (ingress reaches it from
# 172.30.32.2, the only trusted proxy; LAN clients are ordinary clients). The
# port comes from GET /addons/self/info (every add-on may call it); without an
# answer, 8099. It is also written to $RAINCHECK_PORT_FILE for the image's
# HEALTHCHECK.
#
# MQTT: a broker set in the options (mqtt_host) wins; otherwise the one the
# Supervisor provides (the Mosquitto broker add-on) through
# GET /services/mqtt. Any failure there is one line on stderr and a start
# without MQTT, never a failed start. Nothing printed carries a password or
# the Supervisor token.
#
# The production defaults can be overridden (test/addon/run-script.test.ts):
#   RAINCHECK_OPTIONS_FILE  the options file          (/data/options.json)
#   SUPERVISOR_API          the Supervisor API        (http://supervisor)
#   RAINCHECK_EXEC          what runs at the end      (/app/bin/raincheck)
#   RAINCHECK_ADDON_DATA    the add-on's data folder  (/data)
#   RAINCHECK_PORT_FILE     where the port is written (/run/raincheck/port)
#   RAINCHECK_USER          the user the service runs as, when started as
#                           root (the Dockerfile sets "raincheck"; unset: no
#                           change of user)
set -eu

OPTIONS="${RAINCHECK_OPTIONS_FILE:-/data/options.json}"
SUPERVISOR="${SUPERVISOR_API:-http://supervisor}"
TARGET="${RAINCHECK_EXEC:-/app/bin/raincheck}"
DATA_DIR="${RAINCHECK_ADDON_DATA:-/data}"
PORT_FILE="${RAINCHECK_PORT_FILE:-/run/raincheck/port}"
DEFAULT_PORT=8099

log() { printf 'raincheck: %s\n' "$*" >&2; }

if ! command -v jq >/dev/null 2>&1; then
  log "jq is missing from the image, so $OPTIONS cannot be read; not starting"
  exit 1
fi
if [ -f "$OPTIONS" ]; then
  if ! jq -e 'type == "object"' "$OPTIONS" >/dev/null 2>&1; then
    log "$OPTIONS is not a JSON object; not starting"
    exit 1
  fi
else
  log "$OPTIONS not found; starting with the default options"
  OPTIONS=''
fi

# option KEY: the option as text; nothing when it is missing or null.
option() {
  [ -n "$OPTIONS" ] || return 0
  jq -r --arg k "$1" '.[$k] | select(. != null) | tostring' "$OPTIONS"
}

# coordinate KEY LIMIT: the option when it is a number in -LIMIT..LIMIT.
coordinate() {
  [ -n "$OPTIONS" ] || return 0
  jq -r --arg k "$1" --argjson limit "$2" \
    '.[$k] | select(type == "number" and . >= -$limit and . <= $limit) | tostring' "$OPTIONS"
}

# Only what this script decides reaches the service.
unset LAT LON DRY_RUN MQTT_HOST MQTT_PORT MQTT_USERNAME MQTT_PASSWORD MQTT_TLS MQTT_DISCOVERY_PREFIX

export RAINCHECK_DATA_DIR="$DATA_DIR"
export HOST=0.0.0.0
LOG_LEVEL="$(option log_level)"
export LOG_LEVEL="${LOG_LEVEL:-info}"

# Location fallback: both coordinates or neither (the schema cannot hold a
# negative range on every Supervisor, so the ranges are checked here).
if [ -n "$(option latitude)$(option longitude)" ]; then
  lat="$(coordinate latitude 90)"
  lon="$(coordinate longitude 180)"
  if [ -n "$lat" ] && [ -n "$lon" ]; then
    export LAT="$lat" LON="$lon"
  else
    log "location fallback ignored: it needs both latitude (-90..90) and longitude (-180..180)"
  fi
fi

if [ "$(option dry_run)" = true ]; then
  export DRY_RUN=1
fi

# --- Ingress port -----------------------------------------------------------

# supervisor_get PATH BODYFILE: GET from the Supervisor API; prints the HTTP
# status (000 when it did not answer). The token goes in on stdin (curl
# --config -), never on the command line.
supervisor_get() {
  printf 'header = "Authorization: Bearer %s"\n' "$SUPERVISOR_TOKEN" |
    curl -sS --config - --connect-timeout 5 --max-time 15 --retry 2 \
      -o "$2" -w '%{http_code}' "$SUPERVISOR$1" 2>/dev/null || true
}

# The Supervisor's answer is {"result":"ok","data":{..., "ingress_port": N,
# "host_network": true, "ip_address": ...}}; with ingress_port: 0 in
# config.yaml, N is the free host port the Supervisor chose for this add-on.
ingress_port() {
  if [ -z "${SUPERVISOR_TOKEN:-}" ] || ! command -v curl >/dev/null 2>&1; then
    log "ingress port: not running under the Supervisor; listening on $DEFAULT_PORT"
    PORT=$DEFAULT_PORT
    return 0
  fi
  body="$(mktemp)"
  status="$(supervisor_get /addons/self/info "$body")"
  port="$(jq -r '.data.ingress_port // empty | select(type == "number" and . >= 1 and . <= 65535) | tostring' "$body" 2>/dev/null)" || port=''
  rm -f "$body"
  if [ "${status:-000}" = 200 ] && [ -n "$port" ]; then
    PORT=$port
    log "ingress port $PORT (chosen by the Supervisor)"
  else
    PORT=$DEFAULT_PORT
    log "ingress port: the Supervisor did not name one (HTTP ${status:-000}); listening on $DEFAULT_PORT"
  fi
}

ingress_port
export PORT
if mkdir -p "$(dirname "$PORT_FILE")" 2>/dev/null && printf '%s\n' "$PORT" >"$PORT_FILE" 2>/dev/null; then
  :
else
  log "could not write $PORT_FILE; the health check will try $DEFAULT_PORT"
fi

# --- MQTT -------------------------------------------------------------------

mqtt_from_options() {
  MQTT_HOST="$(option mqtt_host)"
  MQTT_PORT="$(option mqtt_port)"
  if [ "$(option mqtt_tls)" = true ]; then
    export MQTT_TLS=1
    MQTT_PORT="${MQTT_PORT:-8883}"
  else
    MQTT_PORT="${MQTT_PORT:-1883}"
  fi
  export MQTT_HOST MQTT_PORT
  value="$(option mqtt_username)"
  if [ -n "$value" ]; then export MQTT_USERNAME="$value"; fi
  value="$(option mqtt_password)"
  if [ -n "$value" ]; then export MQTT_PASSWORD="$value"; fi
  log "MQTT: broker from the add-on options, $MQTT_HOST:$MQTT_PORT${MQTT_TLS:+ (TLS)}"
}

# The Supervisor's answer is {"result":"ok","data":{"host","port","ssl",
# "username","password","protocol"}}; 403 when config.yaml lacks
# services: mqtt:want, 400 {"result":"error","message":...} when no add-on
# provides the service.
mqtt_from_supervisor() {
  if [ -z "${SUPERVISOR_TOKEN:-}" ]; then
    log "MQTT: SUPERVISOR_TOKEN is not set, so the broker cannot be asked of the Supervisor; starting without MQTT"
    return 0
  fi
  if ! command -v curl >/dev/null 2>&1; then
    log "MQTT: curl is missing from the image, so the broker cannot be asked of the Supervisor; starting without MQTT"
    return 0
  fi
  body="$(mktemp)"
  status="$(supervisor_get /services/mqtt "$body")"
  message="$(jq -r '.message // empty' "$body" 2>/dev/null | tr '\n' ' ' | cut -c1-200)" || message=''
  case "${status:-000}" in
    200)
      if jq -e '.result == "ok" and (.data.host | type == "string" and length > 0)' "$body" >/dev/null 2>&1; then
        MQTT_HOST="$(jq -r '.data.host' "$body")"
        MQTT_PORT="$(jq -r '.data.port // 1883 | tostring' "$body")"
        export MQTT_HOST MQTT_PORT
        value="$(jq -r '.data.username // empty' "$body")"
        if [ -n "$value" ]; then export MQTT_USERNAME="$value"; fi
        value="$(jq -r '.data.password // empty' "$body")"
        if [ -n "$value" ]; then export MQTT_PASSWORD="$value"; fi
        if [ "$(jq -r '.data.ssl // false' "$body")" = true ]; then export MQTT_TLS=1; fi
        log "MQTT: broker from the Supervisor, $MQTT_HOST:$MQTT_PORT${MQTT_TLS:+ (TLS)}"
      else
        log "MQTT: the Supervisor's answer names no broker; starting without MQTT"
      fi
      ;;
    403)
      log "MQTT: the Supervisor refused the MQTT lookup (HTTP 403${message:+: $message}); the add-on needs services: mqtt:want; starting without MQTT"
      ;;
    000)
      log "MQTT: the Supervisor at $SUPERVISOR did not answer; starting without MQTT"
      ;;
    *)
      log "MQTT: the Supervisor has no MQTT broker to offer (HTTP $status${message:+: $message}); install the Mosquitto broker add-on or set mqtt_host; starting without MQTT"
      ;;
  esac
  rm -f "$body"
}

if [ -n "$(option mqtt_host)" ]; then
  mqtt_from_options
else
  if [ -n "$(option mqtt_username)$(option mqtt_password)$(option mqtt_port)$(option mqtt_tls)" ]; then
    log "MQTT: mqtt_port, mqtt_username, mqtt_password and mqtt_tls apply only with mqtt_host; ignoring them"
  fi
  mqtt_from_supervisor
fi
if [ -n "${MQTT_HOST:-}" ]; then
  prefix="$(option mqtt_discovery_prefix)"
  export MQTT_DISCOVERY_PREFIX="${prefix:-homeassistant}"
fi

# --- Start ------------------------------------------------------------------

# HA mounts /data owned by root (and restores backups as root). Started as
# root, hand it to the service user and drop root; when that is not possible,
# say so and keep running as root rather than not at all.
run_as="${RAINCHECK_USER:-}"
if [ -n "$run_as" ] && [ "$(id -u)" = 0 ]; then
  if ! id "$run_as" >/dev/null 2>&1 || ! command -v su-exec >/dev/null 2>&1; then
    log "user $run_as or su-exec is missing; running as root"
  elif chown -R "$run_as:$run_as" "$RAINCHECK_DATA_DIR"; then
    exec su-exec "$run_as:$run_as" "$TARGET"
  else
    log "could not hand $RAINCHECK_DATA_DIR to $run_as; running as root"
  fi
fi
exec "$TARGET"
