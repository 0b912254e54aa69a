"""Actions, registered once in async_setup; each names its config entry and maps to
POST /irrigation/action (spec 4.4)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

import voluptuous as vol

from homeassistant.config_entries import ConfigEntryState
from homeassistant.core import HomeAssistant, ServiceCall, ServiceResponse, SupportsResponse, callback
from homeassistant.exceptions import ServiceValidationError
from homeassistant.helpers import config_validation as cv
from homeassistant.util import dt as dt_util

from .api import RaincheckClient, RaincheckError
from .const import DOMAIN
from .entity import refusal

if TYPE_CHECKING:
    from . import RaincheckConfigEntry

BodyOf = Callable[[ServiceCall], dict[str, Any]]

ATTR_CONFIG_ENTRY_ID = "config_entry_id"
ATTR_ZONE = "zone"
ATTR_SECONDS = "seconds"
ATTR_UNTIL = "until"
ATTR_DURATION = "duration"
ATTR_MODE = "mode"
ATTR_KEY = "key"
ATTR_VALUE = "value"
ATTR_STATE = "state"

MAX_RUN_SECONDS = 7200
OVERRIDE_MODES = ["auto", "skip", "run"]
THRESHOLD_KEYS = ["max_wind_mph", "min_temp_f", "rain_skip_in"]
SOIL_STATES = ["soaked"]
ATTR_DATE = "date"

BASE = {vol.Required(ATTR_CONFIG_ENTRY_ID): cv.string}
ZONE = {vol.Required(ATTR_ZONE): vol.All(cv.string, vol.Match(r"^[a-z0-9_]+$"))}


def _run(call: ServiceCall) -> dict[str, Any]:
    return {"kind": "run", "zone": call.data[ATTR_ZONE], "seconds": call.data[ATTR_SECONDS]}


def _pause(call: ServiceCall) -> dict[str, Any]:
    until: datetime | None = call.data.get(ATTR_UNTIL)
    duration: timedelta | None = call.data.get(ATTR_DURATION)
    if until is None and duration is not None:
        until = dt_util.utcnow() + duration
    elif until is not None and duration is None:
        if until.tzinfo is None:
            until = until.replace(tzinfo=dt_util.get_default_time_zone())
    else:
        raise ServiceValidationError(translation_domain=DOMAIN, translation_key="pause_until_or_duration")
    if until <= dt_util.utcnow():
        raise ServiceValidationError(translation_domain=DOMAIN, translation_key="pause_in_past")
    return {"kind": "set_pause_until", "epoch": int(until.timestamp())}


def _soil(call: ServiceCall) -> dict[str, Any]:
    """declare_soil_state: the owner soaked the zone's root zone on `date` (default today)."""
    body = {"kind": "declare_soil_state", "zone": call.data[ATTR_ZONE], "state": call.data[ATTR_STATE]}
    if (day := call.data.get(ATTR_DATE)) is not None:
        body["date"] = day.isoformat()
    return body


# name -> (schema fields, body from the call)
ACTIONS: dict[str, tuple[dict[Any, Any], BodyOf]] = {
    "run_zone": (
        {**ZONE, vol.Required(ATTR_SECONDS): vol.All(vol.Coerce(int), vol.Range(min=1, max=MAX_RUN_SECONDS))},
        _run,
    ),
    "stop_zone": (ZONE, lambda call: {"kind": "stop", "zone": call.data[ATTR_ZONE]}),
    "stop_all": ({}, lambda call: {"kind": "stop_all"}),
    "pause": (
        {
            vol.Optional(ATTR_UNTIL): cv.datetime,
            vol.Optional(ATTR_DURATION): cv.positive_time_period,
        },
        _pause,
    ),
    "resume": ({}, lambda call: {"kind": "set_pause_until", "epoch": 0}),
    "skip_tomorrow": ({}, lambda call: {"kind": "set_override_tomorrow", "mode": "skip"}),
    "set_global_override": (
        {vol.Required(ATTR_MODE): vol.In(OVERRIDE_MODES)},
        lambda call: {"kind": "set_global_override", "mode": call.data[ATTR_MODE]},
    ),
    "set_zone_override": (
        {**ZONE, vol.Required(ATTR_MODE): vol.In(OVERRIDE_MODES)},
        lambda call: {
            "kind": "set_zone_override",
            "zone": call.data[ATTR_ZONE],
            "mode": call.data[ATTR_MODE],
        },
    ),
    "set_threshold": (
        {vol.Required(ATTR_KEY): vol.In(THRESHOLD_KEYS), vol.Required(ATTR_VALUE): vol.Coerce(float)},
        lambda call: {"kind": "set_threshold", "key": call.data[ATTR_KEY], "value": call.data[ATTR_VALUE]},
    ),
    "declare_soil_state": (
        {**ZONE, vol.Required(ATTR_STATE): vol.In(SOIL_STATES), vol.Optional(ATTR_DATE): cv.date},
        _soil,
    ),
}


def _client(hass: HomeAssistant, entry_id: str) -> RaincheckClient:
    entry: RaincheckConfigEntry | None = hass.config_entries.async_get_entry(entry_id)
    if entry is None or entry.domain != DOMAIN:
        raise ServiceValidationError(
            translation_domain=DOMAIN,
            translation_key="entry_unknown",
            translation_placeholders={"entry_id": entry_id},
        )
    if entry.state is not ConfigEntryState.LOADED:
        raise ServiceValidationError(
            translation_domain=DOMAIN,
            translation_key="entry_not_loaded",
            translation_placeholders={"entry_id": entry_id},
        )
    return entry.runtime_data.client


@callback
def async_register_services(hass: HomeAssistant) -> None:
    for name, (fields, body_of) in ACTIONS.items():

        async def handle(call: ServiceCall, body_of: BodyOf = body_of) -> ServiceResponse:
            client = _client(hass, call.data[ATTR_CONFIG_ENTRY_ID])
            body = body_of(call)
            try:
                result = await client.action(body)
            except RaincheckError as err:
                raise refusal(err) from err
            return result if call.return_response else None

        hass.services.async_register(
            DOMAIN,
            name,
            handle,
            schema=vol.Schema({**BASE, **fields}),
            supports_response=SupportsResponse.OPTIONAL,
        )
