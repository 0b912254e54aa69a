"""The Raincheck integration: weather-aware irrigation, pushed over SSE."""

from __future__ import annotations

from dataclasses import dataclass
import logging

from homeassistant.config_entries import ConfigEntry
from homeassistant.const import CONF_HOST, CONF_PORT, CONF_TOKEN, Platform
from homeassistant.core import HomeAssistant
from homeassistant.helpers import config_validation as cv, device_registry as dr
from homeassistant.helpers.aiohttp_client import async_get_clientsession
from homeassistant.helpers.typing import ConfigType

from .api import RaincheckClient, RaincheckError
from .const import DOMAIN
from .coordinator import RaincheckCoordinator
from .entity import device_info
from .services import async_register_services

_LOGGER = logging.getLogger(__name__)

PLATFORMS: list[Platform] = [
    Platform.BINARY_SENSOR,
    Platform.BUTTON,
    Platform.CALENDAR,
    Platform.DATETIME,
    Platform.NUMBER,
    Platform.SELECT,
    Platform.SENSOR,
    Platform.SWITCH,
    Platform.UPDATE,
    Platform.VALVE,
    Platform.WEATHER,
]

CONFIG_SCHEMA = cv.config_entry_only_config_schema(DOMAIN)


@dataclass(slots=True)
class RaincheckRuntime:
    """What a loaded entry holds (entry.runtime_data)."""

    client: RaincheckClient
    coordinator: RaincheckCoordinator


type RaincheckConfigEntry = ConfigEntry[RaincheckRuntime]


async def async_setup(hass: HomeAssistant, config: ConfigType) -> bool:
    """Register the actions once, for every entry."""
    async_register_services(hass)
    return True


async def async_setup_entry(hass: HomeAssistant, entry: RaincheckConfigEntry) -> bool:
    client = RaincheckClient(
        async_get_clientsession(hass),
        entry.data[CONF_HOST],
        entry.data[CONF_PORT],
        entry.data.get(CONF_TOKEN),
    )
    coordinator = RaincheckCoordinator(hass, entry, client)
    await coordinator.async_config_entry_first_refresh()
    entry.runtime_data = RaincheckRuntime(client=client, coordinator=coordinator)
    await _claim(client, True)
    # The service device first: controllers name it as their via_device.
    dr.async_get(hass).async_get_or_create(
        config_entry_id=entry.entry_id, **device_info(coordinator, {"kind": "service"})
    )
    await hass.config_entries.async_forward_entry_setups(entry, PLATFORMS)
    entry.async_on_unload(coordinator.async_add_listener(lambda: _remove_stale_devices(hass, entry)))
    entry.async_on_unload(entry.add_update_listener(_options_changed))
    coordinator.start_push()
    return True


async def _options_changed(hass: HomeAssistant, entry: RaincheckConfigEntry) -> None:
    """What to expose changed: set the entry up again with the new options."""
    await hass.config_entries.async_reload(entry.entry_id)


def _live_identifiers(entry: RaincheckConfigEntry) -> set[str]:
    uuid = str(entry.unique_id)
    return {uuid} | {
        f"{uuid}_controller_{e['device']['id']}"
        for e in entry.runtime_data.coordinator.data.entities.values()
        if e["device"]["kind"] == "controller"
    }


def _remove_stale_devices(hass: HomeAssistant, entry: RaincheckConfigEntry) -> None:
    """A controller the service no longer has leaves with its device (stale-devices)."""
    if not entry.runtime_data.coordinator.last_update_success:
        return
    live = _live_identifiers(entry)
    registry = dr.async_get(hass)
    for device in dr.async_entries_for_config_entry(registry, entry.entry_id):
        ours = {ident for domain, ident in device.identifiers if domain == DOMAIN}
        if ours and not ours & live:
            registry.async_update_device(device.id, remove_config_entry_id=entry.entry_id)


async def async_unload_entry(hass: HomeAssistant, entry: RaincheckConfigEntry) -> bool:
    return await hass.config_entries.async_unload_platforms(entry, PLATFORMS)


async def async_remove_entry(hass: HomeAssistant, entry: RaincheckConfigEntry) -> None:
    """The integration no longer represents this install: MQTT discovery may publish again."""
    client = RaincheckClient(
        async_get_clientsession(hass),
        entry.data[CONF_HOST],
        entry.data[CONF_PORT],
        entry.data.get(CONF_TOKEN),
    )
    await _claim(client, False)


async def _claim(client: RaincheckClient, claimed: bool) -> None:
    """One entity per fact: a claimed install stops its MQTT discovery copies (docs/ha.md)."""
    try:
        await client.claim(claimed)
    except RaincheckError as err:
        _LOGGER.warning("Raincheck could not record the claim (%s): MQTT copies may stay", err)


async def async_remove_config_entry_device(
    hass: HomeAssistant, entry: RaincheckConfigEntry, device: dr.DeviceEntry
) -> bool:
    """A device may be removed by hand once the service no longer has it."""
    live = _live_identifiers(entry)
    return not any(domain == DOMAIN and ident in live for domain, ident in device.identifiers)
