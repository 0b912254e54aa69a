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
