"""Zones and controllers added or removed in Raincheck appear or leave without a restart."""

from __future__ import annotations

import copy

from homeassistant.core import HomeAssistant
from homeassistant.helpers import device_registry as dr, entity_registry as er

from conftest import api
from custom_components.raincheck.const import DOMAIN
from ha_helpers import eventually, setup_entry, unload
from raincheck_process import Raincheck


async def put_config(demo: Raincheck, config: dict) -> None:
    status, body = await api(demo, "PUT", "/config", config)
    assert status == 200, body


async def test_a_zone_on_a_new_controller_comes_and_goes_with_its_device(
    hass: HomeAssistant, demo: Raincheck
) -> None:
    entry = await setup_entry(hass, demo)
    entities, devices = er.async_get(hass), dr.async_get(hass)
    valve_uid = f"{entry.unique_id}_zone_patio_valve"
    controller = {(DOMAIN, f"{entry.unique_id}_controller_patio_controller")}
    _, original = await api(demo, "GET", "/config")
    assert entities.async_get_entity_id("valve", DOMAIN, valve_uid) is None

    grown = copy.deepcopy(original)
    grown["controllers"].append({"id": "patio_controller", "kind": "dry_run", "enabled": True, "config": {}})
    grown["zones"]["patio"] = {
        **original["zones"]["xeriscape"],
        "display_name": "Patio pots",
        "controller_id": "patio_controller",
        "controller_station": "1",
    }
    await put_config(demo, grown)
    await eventually(lambda: entities.async_get_entity_id("valve", DOMAIN, valve_uid) is not None)
    device = devices.async_get_device(controller)
    assert device is not None
    valve = entities.async_get(entities.async_get_entity_id("valve", DOMAIN, valve_uid))
    assert valve.device_id == device.id
    assert hass.states.get(valve.entity_id).state == "closed"

    await put_config(demo, original)
    await eventually(lambda: entities.async_get_entity_id("valve", DOMAIN, valve_uid) is None)
    await eventually(lambda: devices.async_get_device(controller) is None)
    # The service's own device and the demo controller stay.
    assert devices.async_get_device({(DOMAIN, entry.unique_id)}) is not None
    assert devices.async_get_device({(DOMAIN, f"{entry.unique_id}_controller_demo_controller")})
    await unload(hass, entry)
