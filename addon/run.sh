#!/bin/sh
# Add-on entry point: maps the add-on options in /data/options.json to the
# service's environment and starts it. /data is the add-on's persistent folder.
set -eu

OPTIONS=/data/options.json
option() { [ -f "$OPTIONS" ] && jq -r --arg k "$1" '.[$k] // empty' "$OPTIONS" || true; }

export RAINCHECK_DATA_DIR=/data
export PORT=8099
export HOST=0.0.0.0
LOG_LEVEL="$(option log_level)"; export LOG_LEVEL="${LOG_LEVEL:-info}"
LAT="$(option latitude)"; [ -n "$LAT" ] && export LAT
LON="$(option longitude)"; [ -n "$LON" ] && export LON
if [ "$(option dry_run)" = "true" ]; then export DRY_RUN=1; fi

exec /app/bin/raincheck
