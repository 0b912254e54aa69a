"""Sensors from the manifest's `sensor` descriptors."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from homeassistant.components.sensor import SensorDeviceClass, SensorEntity, SensorStateClass
from homeassistant.core import HomeAssistant
from homeassistant.helpers.entity_platform import AddEntitiesCallback
from homeassistant.util import dt as dt_util

from .coordinator import RaincheckCoordinator
from .entity import ManifestEntity, setup_manifest_platform

if TYPE_CHECKING:
    from . import RaincheckConfigEntry

PARALLEL_UPDATES = 0


def state_class(value: str | None) -> SensorStateClass | None:
    """The manifest's state class; `measurement_angle` (HA 2025.10+) is `measurement` before it."""
    if value is None:
        return None
    try:
        return SensorStateClass(value)
    except ValueError:
        return SensorStateClass.MEASUREMENT if value == "measurement_angle" else None


def device_class(value: str | None) -> SensorDeviceClass | None:
    try:
        return SensorDeviceClass(value) if value else None
    except ValueError:
        return None


async def async_setup_entry(
    hass: HomeAssistant, entry: RaincheckConfigEntry, async_add_entities: AddEntitiesCallback
) -> None:
    setup_manifest_platform(hass, entry, async_add_entities, "sensor", RaincheckSensor)


class RaincheckSensor(ManifestEntity, SensorEntity):
    """A manifest sensor: units, classes, options and precision as the service describes them."""

    def __init__(self, coordinator: RaincheckCoordinator, key: str) -> None:
        super().__init__(coordinator, key)
        descriptor = coordinator.data.entities[key]
        self._attr_device_class = device_class(descriptor.get("device_class"))
        self._attr_state_class = state_class(descriptor.get("state_class"))
        self._attr_native_unit_of_measurement = descriptor.get("unit_of_measurement")
        self._attr_suggested_display_precision = descriptor.get("suggested_display_precision")
        self._attr_options = descriptor.get("options")

    @property
    def native_value(self) -> str | float | datetime | None:
        text = self.state_text
        if text is None:
            return None
        if self._attr_device_class == SensorDeviceClass.TIMESTAMP:
            return dt_util.parse_datetime(text)
        if self._attr_device_class == SensorDeviceClass.ENUM or (
            self._attr_state_class is None and self._attr_native_unit_of_measurement is None
        ):
            return text
        try:
            return float(text)
        except ValueError:
            return None
