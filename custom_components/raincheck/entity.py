"""Entities built from `/sensors/manifest` descriptors, and their devices."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from homeassistant.const import EntityCategory
from homeassistant.core import HomeAssistant, callback
from homeassistant.exceptions import HomeAssistantError, ServiceValidationError
from homeassistant.helpers import entity_registry as er
from homeassistant.helpers.device_registry import DeviceInfo
from homeassistant.helpers.entity import Entity
from homeassistant.helpers.entity_platform import AddEntitiesCallback
from homeassistant.helpers.update_coordinator import CoordinatorEntity

from .api import RaincheckApiError, RaincheckError
from .const import DOMAIN, OPT_DIAGNOSTIC_ENTITIES
from .coordinator import RaincheckCoordinator
from .translated import (
    DISABLED_BY_DEFAULT_KEYS,
    DISABLED_BY_DEFAULT_ZONE_KINDS,
    SCHEDULE_PREFIX,
    TRANSLATED_KEYS,
    ZONE_KINDS,
)

if TYPE_CHECKING:
    from . import RaincheckConfigEntry

# 4xx refusals caused by what the user asked (a value out of range, an unknown
# zone) are validation errors; the rest (controller down, 5xx) are HA errors.
VALIDATION_STATUSES = {400, 404, 409, 422}


def service_identifier(uuid: str) -> tuple[str, str]:
    return (DOMAIN, uuid)


def controller_identifier(uuid: str, controller_id: str) -> tuple[str, str]:
    return (DOMAIN, f"{uuid}_controller_{controller_id}")


def device_info(coordinator: RaincheckCoordinator, device: dict[str, Any]) -> DeviceInfo:
    """The service device, or a controller's device (its zones' entities) under it."""
    uuid = str(coordinator.config_entry.unique_id)
    if device.get("kind") == "controller":
        return DeviceInfo(
            identifiers={controller_identifier(uuid, str(device["id"]))},
            name=str(device.get("label") or device["id"]),
            manufacturer="Raincheck",
            model="Irrigation controller",
            via_device=service_identifier(uuid),
        )
    info = coordinator.data.info
    return DeviceInfo(
        identifiers={service_identifier(uuid)},
        name="Raincheck",
        manufacturer="Raincheck",
        model="Raincheck service",
        sw_version=str(info.get("service_version")),
        configuration_url=coordinator.client.base_url,
    )


def refusal(err: RaincheckError) -> HomeAssistantError:
    """The server's refusal as a translated HA error carrying its `code`."""
    if isinstance(err, RaincheckApiError):
        cls = ServiceValidationError if err.status in VALIDATION_STATUSES else HomeAssistantError
        return cls(
            translation_domain=DOMAIN,
            translation_key="action_refused",
            translation_placeholders={"code": err.code, "message": err.message},
        )
    return HomeAssistantError(
        translation_domain=DOMAIN,
        translation_key="cannot_reach",
        translation_placeholders={"error": str(err)},
    )


def zone_entity(descriptor: dict[str, Any]) -> tuple[str, str] | None:
    """(kind, zone name) of a zone entity the integration translates, from its key and name."""
    zone, key, name = descriptor.get("zone"), descriptor["key"], descriptor["name"]
    if not zone or not key.startswith(f"zone_{zone}_"):
        return None
    kind = key.removeprefix(f"zone_{zone}_")
    platform, suffix = ZONE_KINDS.get(kind, (None, ""))
    if platform != descriptor["platform"] or not name.endswith(suffix) or len(name) == len(suffix):
        return None
    return kind, name.removesuffix(suffix)


def enabled_by_default(descriptor: dict[str, Any]) -> bool:
    """False for the less used, noisy entities (translated.py lists them)."""
    if descriptor["key"] in DISABLED_BY_DEFAULT_KEYS:
        return False
    zone = zone_entity(descriptor)
    return zone is None or zone[0] not in DISABLED_BY_DEFAULT_ZONE_KINDS


def schedule_entity(descriptor: dict[str, Any]) -> str | None:
    """The schedule's name of a fixed schedule's switch (`schedule_<slug>`, "Schedule <name>")."""
    key, name = str(descriptor["key"]), str(descriptor["name"])
    if descriptor["platform"] != "switch" or not key.startswith("schedule_"):
        return None
    if not name.startswith(SCHEDULE_PREFIX) or len(name) == len(SCHEDULE_PREFIX):
        return None
    return name.removeprefix(SCHEDULE_PREFIX)


class RaincheckEntity(CoordinatorEntity[RaincheckCoordinator]):
    """Base of every Raincheck entity: named on its device, unique per install."""

    _attr_has_entity_name = True

    def __init__(self, coordinator: RaincheckCoordinator, key: str) -> None:
        super().__init__(coordinator)
        self.key = key
        self._attr_unique_id = f"{coordinator.config_entry.unique_id}_{key}"


class ManifestEntity(RaincheckEntity):
    """An entity described by one manifest descriptor; its state is the descriptor's."""

    def __init__(self, coordinator: RaincheckCoordinator, key: str) -> None:
        super().__init__(coordinator, key)
        descriptor = coordinator.data.entities[key]
        if key in TRANSLATED_KEYS.get(descriptor["platform"], ()):
            self._attr_translation_key = key
        elif zone := zone_entity(descriptor):
            kind, zone_name = zone
            self._attr_translation_key = f"zone_{kind}"
            self._attr_translation_placeholders = {"zone": zone_name}
        elif schedule := schedule_entity(descriptor):
            self._attr_translation_key = "schedule"
            self._attr_translation_placeholders = {"schedule": schedule}
        else:
            # A zone's valve is the zone's own name; anything new keeps the service's name
            # and the icon the manifest names (icons.json has no entry for what it does not know).
            self._attr_name = descriptor["name"]
            self._attr_icon = descriptor.get("icon")
        self._attr_entity_registry_enabled_default = enabled_by_default(descriptor)
        category = descriptor.get("entity_category")
        self._attr_entity_category = EntityCategory(category) if category else None
        self._attr_device_info = device_info(coordinator, descriptor["device"])

    @property
    def descriptor(self) -> dict[str, Any]:
        return self.coordinator.data.entities.get(self.key) or {}

    @property
    def state_text(self) -> str | None:
        return self.descriptor.get("state")

    @property
    def available(self) -> bool:
        return super().available and self.key in self.coordinator.data.entities

    async def send_command(self, payload: str) -> None:
        """The entity's command, as its MQTT payload, through POST /sensors/manifest/command."""
        try:
            await self.coordinator.client.command(self.key, payload)
        except RaincheckError as err:
            raise refusal(err) from err


def setup_manifest_platform(
    hass: HomeAssistant,
    entry: RaincheckConfigEntry,
    async_add_entities: AddEntitiesCallback,
    platform: str,
    factory: Callable[[RaincheckCoordinator, str], Entity],
) -> None:
    """Add an entity per descriptor of `platform`, now and whenever the manifest grows;
    remove the entities of descriptors that left it (a deleted zone)."""
    coordinator = entry.runtime_data.coordinator
    known: set[str] = set()
    with_diagnostic = entry.options.get(OPT_DIAGNOSTIC_ENTITIES, True)

    def wanted() -> set[str]:
        return {
            key
            for key, descriptor in coordinator.data.entities.items()
            if descriptor["platform"] == platform
            and (with_diagnostic or descriptor.get("entity_category") != "diagnostic")
        }

    @callback
    def sync() -> None:
        current = wanted()
        new = sorted(current - known)
        if new:
            known.update(new)
            async_add_entities(factory(coordinator, key) for key in new)
        known.intersection_update(current)
        # Whatever this platform registered that the manifest (or the options) no longer
        # offers leaves the registry: a deleted zone, also one deleted while HA was off.
        registry = er.async_get(hass)
        prefix = f"{entry.unique_id}_"
        for registered in er.async_entries_for_config_entry(registry, entry.entry_id):
            if registered.domain != platform or not registered.unique_id.startswith(prefix):
                continue
            if registered.unique_id.removeprefix(prefix) not in current:
                registry.async_remove(registered.entity_id)

    sync()
    entry.async_on_unload(coordinator.async_add_listener(sync))


def remove_unwanted(hass: HomeAssistant, entry: RaincheckConfigEntry, platform: str, key: str) -> None:
    """An entity the options turned off leaves the registry rather than linger unavailable."""
    registry = er.async_get(hass)
    if entity_id := registry.async_get_entity_id(platform, DOMAIN, f"{entry.unique_id}_{key}"):
        registry.async_remove(entity_id)
