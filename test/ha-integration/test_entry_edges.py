"""Edges of an entry's life: a calendar turned off, a device removed by hand, a claim
the service could not record."""

from __future__ import annotations

import logging

import pytest

from homeassistant.core import HomeAssistant
from homeassistant.helpers import device_registry as dr, entity_registry as er

from custom_components.raincheck import async_remove_config_entry_device
from custom_components.raincheck.const import DOMAIN, OPT_CALENDAR, OPT_DIAGNOSTIC_ENTITIES, OPT_WEATHER
from ha_helpers import entity_id, setup_entry, unload
from raincheck_process import Raincheck, remove, start_raincheck


async def test_the_calendar_option_off_removes_the_calendar(hass: HomeAssistant, demo: Raincheck) -> None:
    entry = await setup_entry(hass, demo)
    calendar = entity_id(hass, entry, "calendar", "water_plan")
    result = await hass.config_entries.options.async_init(entry.entry_id)
    await hass.config_entries.options.async_configure(
        result["flow_id"], {OPT_WEATHER: True, OPT_CALENDAR: False, OPT_DIAGNOSTIC_ENTITIES: True}
    )
    await hass.async_block_till_done()
    assert hass.states.get(calendar) is None
    assert er.async_get(hass).async_get(calendar) is None
    assert hass.states.get(entity_id(hass, entry, "weather", "weather")) is not None
    await unload(hass, entry)


async def test_only_a_device_the_service_no_longer_has_may_be_removed(
    hass: HomeAssistant, demo: Raincheck
) -> None:
    entry = await setup_entry(hass, demo)
    registry = dr.async_get(hass)
    service = registry.async_get_device(identifiers={(DOMAIN, str(entry.unique_id))})
    controller = registry.async_get_device(
        identifiers={(DOMAIN, f"{entry.unique_id}_controller_demo_controller")}
    )
    assert service is not None and controller is not None
    assert await async_remove_config_entry_device(hass, entry, service) is False
    assert await async_remove_config_entry_device(hass, entry, controller) is False
    gone = registry.async_get_or_create(
        config_entry_id=entry.entry_id, identifiers={(DOMAIN, f"{entry.unique_id}_controller_retired")}
    )
    assert await async_remove_config_entry_device(hass, entry, gone) is True
    await unload(hass, entry)


async def test_a_release_the_service_cannot_record_is_a_warning_not_a_failure(
    hass: HomeAssistant, caplog: pytest.LogCaptureFixture
) -> None:
    instance = start_raincheck({"DEMO": "1"})
    try:
        entry = await setup_entry(hass, instance)
        await unload(hass, entry)
        instance.stop()
        with caplog.at_level(logging.WARNING):
            assert await hass.config_entries.async_remove(entry.entry_id)
            await hass.async_block_till_done()
    finally:
        remove(instance)
    assert "could not record the claim" in caplog.text
