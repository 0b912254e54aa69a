"""Diagnostics: the entry, /info, the manifest and the snapshots, secrets redacted."""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from homeassistant.components.diagnostics import async_redact_data
from homeassistant.const import CONF_HOST, CONF_TOKEN
from homeassistant.core import HomeAssistant

if TYPE_CHECKING:
    from . import RaincheckConfigEntry

# The token, where the install is, and the install's identity.
TO_REDACT = {CONF_TOKEN, CONF_HOST, "uuid", "unique_id", "install_uuid", "access_token", "password"}


async def async_get_config_entry_diagnostics(
    hass: HomeAssistant, entry: RaincheckConfigEntry
) -> dict[str, Any]:
    coordinator = entry.runtime_data.coordinator
    return async_redact_data(
        {
            "entry": {"data": dict(entry.data), "options": dict(entry.options), "unique_id": entry.unique_id},
            "last_update_success": coordinator.last_update_success,
            "data": asdict(coordinator.data) if coordinator.data else None,
        },
        TO_REDACT,
    )
