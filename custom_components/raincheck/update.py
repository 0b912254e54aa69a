"""An update entity when the service's update check is on (`GET /updates`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from homeassistant.components.update import UpdateEntity
from homeassistant.core import HomeAssistant
from homeassistant.helpers.entity_platform import AddEntitiesCallback

from .coordinator import RaincheckCoordinator
from .entity import RaincheckEntity, device_info

if TYPE_CHECKING:
    from . import RaincheckConfigEntry

PARALLEL_UPDATES = 0


async def async_setup_entry(
    hass: HomeAssistant, entry: RaincheckConfigEntry, async_add_entities: AddEntitiesCallback
) -> None:
    coordinator = entry.runtime_data.coordinator
    if coordinator.data.updates is not None:
        async_add_entities([RaincheckUpdate(coordinator)])


class RaincheckUpdate(RaincheckEntity, UpdateEntity):
    """Read-only: Raincheck is updated where it runs (the add-on store, the host)."""

    _attr_translation_key = "service_update"

    def __init__(self, coordinator: RaincheckCoordinator) -> None:
        super().__init__(coordinator, "update")
        self._attr_device_info = device_info(coordinator, {"kind": "service"})

    @property
    def installed_version(self) -> str | None:
        updates = self.coordinator.data.updates or {}
        return updates.get("current")

    @property
    def latest_version(self) -> str | None:
        updates = self.coordinator.data.updates or {}
        return updates.get("latest") or updates.get("current")

    @property
    def release_url(self) -> str | None:
        return (self.coordinator.data.updates or {}).get("release_url")
