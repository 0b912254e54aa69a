"""Switches from the manifest's `switch` descriptors (the pause)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from homeassistant.components.switch import SwitchEntity
from homeassistant.core import HomeAssistant
from homeassistant.helpers.entity_platform import AddEntitiesCallback

from .entity import ManifestEntity, setup_manifest_platform

if TYPE_CHECKING:
    from . import RaincheckConfigEntry

PARALLEL_UPDATES = 1


async def async_setup_entry(
    hass: HomeAssistant, entry: RaincheckConfigEntry, async_add_entities: AddEntitiesCallback
) -> None:
    setup_manifest_platform(hass, entry, async_add_entities, "switch", RaincheckSwitch)


class RaincheckSwitch(ManifestEntity, SwitchEntity):
    @property
    def is_on(self) -> bool | None:
        text = self.state_text
        return None if text is None else text == self.descriptor.get("payload_on", "ON")

    async def async_turn_on(self, **kwargs: Any) -> None:
        await self.send_command(self.descriptor.get("payload_on", "ON"))

    async def async_turn_off(self, **kwargs: Any) -> None:
        await self.send_command(self.descriptor.get("payload_off", "OFF"))
