"""Binary sensors from the manifest's `binary_sensor` descriptors."""

from __future__ import annotations

from typing import TYPE_CHECKING

from homeassistant.components.binary_sensor import BinarySensorDeviceClass, BinarySensorEntity
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
    setup_manifest_platform(hass, entry, async_add_entities, "binary_sensor", RaincheckBinarySensor)


class RaincheckBinarySensor(ManifestEntity, BinarySensorEntity):
    def __init__(self, coordinator: RaincheckCoordinator, key: str) -> None:
        super().__init__(coordinator, key)
        value = coordinator.data.entities[key].get("device_class")
        try:
            self._attr_device_class = BinarySensorDeviceClass(value) if value else None
        except ValueError:
            self._attr_device_class = None

    @property
    def is_on(self) -> bool | None:
        text = self.state_text
        if text is None:
            return None
        return text == str(self.descriptor.get("payload_on", "ON"))
