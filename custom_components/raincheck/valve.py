"""A valve per zone: open runs the zone for its default time (10 min), close stops it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from homeassistant.components.valve import ValveDeviceClass, ValveEntity, ValveEntityFeature
from homeassistant.core import HomeAssistant
from homeassistant.helpers.entity_platform import AddEntitiesCallback

from .entity import ManifestEntity, setup_manifest_platform

if TYPE_CHECKING:
    from . import RaincheckConfigEntry

PARALLEL_UPDATES = 1


async def async_setup_entry(
    hass: HomeAssistant, entry: RaincheckConfigEntry, async_add_entities: AddEntitiesCallback
) -> None:
    setup_manifest_platform(hass, entry, async_add_entities, "valve", RaincheckValve)


class RaincheckValve(ManifestEntity, ValveEntity):
    _attr_device_class = ValveDeviceClass.WATER
    _attr_reports_position = False
    _attr_supported_features = ValveEntityFeature.OPEN | ValveEntityFeature.CLOSE

    @property
    def is_closed(self) -> bool | None:
        text = self.state_text
        return None if text is None else text == "closed"

    async def async_open_valve(self) -> None:
        await self.send_command(self.descriptor.get("payload_on", "OPEN"))

    async def async_close_valve(self) -> None:
        await self.send_command(self.descriptor.get("payload_off", "CLOSE"))
