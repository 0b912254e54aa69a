"""Less used, noisy entities start disabled (entity-disabled-by-default); enabling one works."""

from __future__ import annotations

from homeassistant.core import HomeAssistant
from homeassistant.helpers import entity_registry as er

from ha_helpers import entity_id, setup_entry, unload
from raincheck_process import Raincheck


async def test_the_battery_voltage_and_the_wind_lull_start_disabled_and_can_be_enabled(
    hass: HomeAssistant, demo: Raincheck
) -> None:
    entry = await setup_entry(hass, demo)
    registry = er.async_get(hass)
    disabled = [
        entity_id(hass, entry, "sensor", key) for key in ("weather_battery_v", "weather_wind_lull_mph")
    ]
    for entity in disabled:
        assert registry.async_get(entity).disabled_by is er.RegistryEntryDisabler.INTEGRATION
        assert hass.states.get(entity) is None
    # What users watch stays on, diagnostic or not.
    for key in ("weather_wind_gust_mph", "verdict"):
        assert registry.async_get(entity_id(hass, entry, "sensor", key)).disabled_by is None
        assert hass.states.get(entity_id(hass, entry, "sensor", key)) is not None

    registry.async_update_entity(disabled[0], disabled_by=None)
    assert await hass.config_entries.async_reload(entry.entry_id)
    await hass.async_block_till_done()
    battery = hass.states.get(disabled[0])
    assert battery is not None and float(battery.state) > 0
    assert battery.attributes["unit_of_measurement"] == "V"
    await unload(hass, entry)


def test_a_zone_s_usual_flow_starts_disabled_and_its_flow_state_does_not() -> None:
    from custom_components.raincheck.entity import enabled_by_default

    baseline = {
        "key": "zone_beds_flow_baseline",
        "platform": "sensor",
        "name": "Beds usual flow",
        "zone": "beds",
        "entity_category": "diagnostic",
    }
    assert enabled_by_default(baseline) is False
    flow = {**baseline, "key": "zone_beds_flow", "name": "Beds flow", "entity_category": None}
    assert enabled_by_default(flow) is True
    # A key the integration does not know is on (the service offered it).
    assert enabled_by_default({"key": "something_new", "platform": "sensor", "name": "New"}) is True
