"""The update entity, from the manifest's `update` descriptor.

The service lists that descriptor only while its opt-in release check is on
(`[updates] check_enabled`), so the entity comes and goes with the check like
any manifest entity. Read-only: Raincheck is updated where it runs (the add-on
store, the host), so the entity offers no install.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from homeassistant.components.update import UpdateDeviceClass, UpdateEntity
from homeassistant.core import HomeAssistant
from homeassistant.helpers.entity_platform import AddEntitiesCallback

from .coordinator import RaincheckCoordinator
from .entity import ManifestEntity, setup_manifest_platform

if TYPE_CHECKING:
    from . import RaincheckConfigEntry

PARALLEL_UPDATES = 0


async def async_setup_entry(
    hass: HomeAssistant, entry: RaincheckConfigEntry, async_add_entities: AddEntitiesCallback
) -> None:
    setup_manifest_platform(hass, entry, async_add_entities, "update", RaincheckUpdate)


class RaincheckUpdate(ManifestEntity, UpdateEntity):
    def __init__(self, coordinator: RaincheckCoordinator, key: str) -> None:
        super().__init__(coordinator, key)
        value = coordinator.data.entities[key].get("device_class")
        try:
            self._attr_device_class = UpdateDeviceClass(value) if value else None
        except ValueError:
            self._attr_device_class = None

    @property
    def installed_version(self) -> str | None:
        return self.descriptor.get("installed_version")

    @property
    def latest_version(self) -> str | None:
        # None until a check succeeded: HA shows the state as unknown, not "up to date".
        return self.descriptor.get("latest_version")

    @property
    def release_url(self) -> str | None:
        return self.descriptor.get("release_url")
