"""Selects from the manifest's `select` descriptors (overrides)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from homeassistant.components.select import SelectEntity
from homeassistant.core import HomeAssistant
from homeassistant.helpers.entity_platform import AddEntitiesCallback

from .coordinator import RaincheckCoordinator
from .entity import ManifestEntity, setup_manifest_platform

if TYPE_CHECKING:
    from . import RaincheckConfigEntry

PARALLEL_UPDATES = 1


async def async_setup_entry(
    hass: HomeAssistant, entry: RaincheckConfigEntry, async_add_entities: AddEntitiesCallback
) -> None:
    setup_manifest_platform(hass, entry, async_add_entities, "select", RaincheckSelect)


class RaincheckSelect(ManifestEntity, SelectEntity):
    def __init__(self, coordinator: RaincheckCoordinator, key: str) -> None:
        super().__init__(coordinator, key)
        self._attr_options = list(coordinator.data.entities[key].get("options") or [])

    @property
    def current_option(self) -> str | None:
        text = self.state_text
        return text if text in self._attr_options else None

    async def async_select_option(self, option: str) -> None:
        await self.send_command(option)
