"""Entity icons come from icons.json by translation key (icon-translations), not the state."""

from __future__ import annotations

import json
from pathlib import Path

from homeassistant.core import HomeAssistant
from homeassistant.helpers import entity_registry as er

from conftest import api
from ha_helpers import entity_id, setup_entry, unload
from raincheck_process import Raincheck

ICONS = json.loads(
    (Path(__file__).resolve().parents[2] / "custom_components" / "raincheck" / "icons.json").read_text()
)["entity"]


async def test_the_manifest_icons_are_icon_translations_of_the_entities(
    hass: HomeAssistant, demo: Raincheck
) -> None:
    entry = await setup_entry(hass, demo)
    registry = er.async_get(hass)
    _, manifest = await api(demo, "GET", "/sensors/manifest")
    with_icon = [d for d in manifest["entities"] if d.get("icon")]
    assert {d["key"] for d in with_icon} >= {"pause", "pause_until", "verdict", "reason"}
    for descriptor in with_icon:
        platform = descriptor["platform"]
        entry_of = registry.async_get(entity_id(hass, entry, platform, descriptor["key"]))
        assert entry_of is not None and entry_of.translation_key, descriptor["key"]
        # The service's icon is the default of the entity's icon translation ...
        assert ICONS[platform][entry_of.translation_key]["default"] == descriptor["icon"], descriptor["key"]
        # ... and no entity hard-codes it (the frontend picks it, by state where states differ).
        assert entry_of.original_icon is None, descriptor["key"]
        assert "icon" not in hass.states.get(entry_of.entity_id).attributes, descriptor["key"]
    await unload(hass, entry)


async def test_a_schedule_switch_is_translated_with_state_icons(hass: HomeAssistant) -> None:
    from homeassistant.helpers.translation import async_get_translations

    from custom_components.raincheck.const import DOMAIN
    from ha_helpers import eventually
    from raincheck_process import remove, start_raincheck

    instance = start_raincheck({"DEMO": "1"})
    try:
        entry = await setup_entry(hass, instance)
        _, config = await api(instance, "GET", "/config")
        schedule = {
            "name": "Beds by hand",
            "zones": ["front_lawn"],
            "weekdays": [1, 4],
            "start": "06:00",
            "minutes": [10],
            "mode": "floor",
        }
        status, body = await api(instance, "PUT", "/config", {**config, "schedules": [schedule]})
        assert status == 200, body
        registry = er.async_get(hass)
        unique_id = f"{entry.unique_id}_schedule_beds_by_hand"
        await eventually(lambda: registry.async_get_entity_id("switch", DOMAIN, unique_id) is not None)
        switch = registry.async_get(registry.async_get_entity_id("switch", DOMAIN, unique_id))
        assert (switch.translation_key, switch.original_icon) == ("schedule", None)
        state = hass.states.get(switch.entity_id)
        assert state.state == "on"
        assert state.attributes["friendly_name"] == "Raincheck Schedule Beds by hand"
        assert ICONS["switch"]["schedule"]["state"]["off"] != ICONS["switch"]["schedule"]["state"]["on"]
        german = await async_get_translations(hass, "de", "entity", {DOMAIN})
        assert german[f"component.{DOMAIN}.entity.switch.schedule.name"] == "Zeitplan {schedule}"
        await unload(hass, entry)
    finally:
        remove(instance)
