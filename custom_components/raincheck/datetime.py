"""Datetimes from the manifest's `datetime` descriptors (paused until)."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from homeassistant.components.datetime import DateTimeEntity
from homeassistant.core import HomeAssistant
from homeassistant.helpers.entity_platform import AddEntitiesCallback
from homeassistant.util import dt as dt_util

from .entity import ManifestEntity, setup_manifest_platform

if TYPE_CHECKING:
    from . import RaincheckConfigEntry

PARALLEL_UPDATES = 1


async def async_setup_entry(
    hass: HomeAssistant, entry: RaincheckConfigEntry, async_add_entities: AddEntitiesCallback
) -> None:
    setup_manifest_platform(hass, entry, async_add_entities, "datetime", RaincheckDateTime)


class RaincheckDateTime(ManifestEntity, DateTimeEntity):
    @property
    def native_value(self) -> datetime | None:
        text = self.state_text
        return dt_util.parse_datetime(text) if text else None

    async def async_set_value(self, value: datetime) -> None:
        await self.send_command(value.isoformat())
