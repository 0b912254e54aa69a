"""Constants of the Raincheck integration."""

from __future__ import annotations

from typing import Final

DOMAIN: Final = "raincheck"
DEFAULT_PORT: Final = 8099
API_PREFIX: Final = "/api/v1"
SUPPORTED_API_MAJOR: Final = 2

CONF_INSTALL_UUID: Final = "install_uuid"

# Options: what to expose beyond the manifest's entities.
OPT_WEATHER: Final = "expose_weather"
OPT_CALENDAR: Final = "expose_calendar"
OPT_DIAGNOSTIC_ENTITIES: Final = "expose_diagnostic"

# The three SSE feeds (spec 6.1): each sends `snapshot` events.
FEED_WEATHER: Final = "/stream"
FEED_IRRIGATION: Final = "/irrigation/stream"
FEED_FORECAST: Final = "/forecast/stream"

# Reconnect back-off of a feed, seconds: doubles from the first to the last.
BACKOFF_FIRST_S: Final = 1.0
BACKOFF_MAX_S: Final = 60.0
# A feed that sends nothing (not even its 15/30 s keep-alive) for this long is dead.
FEED_READ_TIMEOUT_S: Final = 75.0
# Bursts of snapshot events are folded into one manifest read.
MANIFEST_DEBOUNCE_S: Final = 0.5
