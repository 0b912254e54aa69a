"""Numbers from the manifest's `number` descriptors (the skip thresholds)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from homeassistant.components.number import NumberDeviceClass, NumberEntity, NumberMode
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
    setup_manifest_platform(hass, entry, async_add_entities, "number", RaincheckNumber)


class RaincheckNumber(ManifestEntity, NumberEntity):
    """Range and step are the server-enforced ones from the manifest."""

    def __init__(self, coordinator: RaincheckCoordinator, key: str) -> None:
        super().__init__(coordinator, key)
        descriptor = coordinator.data.entities[key]
        if "min" in descriptor:
            self._attr_native_min_value = descriptor["min"]
        if "max" in descriptor:
            self._attr_native_max_value = descriptor["max"]
        if "step" in descriptor:
            self._attr_native_step = descriptor["step"]
        self._attr_native_unit_of_measurement = descriptor.get("unit_of_measurement")
        self._attr_mode = NumberMode(descriptor.get("mode", "auto"))
        try:
            value = descriptor.get("device_class")
            self._attr_device_class = NumberDeviceClass(value) if value else None
        except ValueError:
            self._attr_device_class = None

    @property
    def native_value(self) -> float | None:
        text = self.state_text
        try:
            return float(text) if text is not None else None
        except ValueError:
            return None

    async def async_set_native_value(self, value: float) -> None:
        await self.send_command(f"{value:g}")
