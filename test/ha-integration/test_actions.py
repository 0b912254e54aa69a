"""Each action reaches the real service; a refusal comes back as an HA error with its code."""

from __future__ import annotations

from datetime import timedelta

import pytest
import voluptuous as vol

from homeassistant.core import HomeAssistant
from homeassistant.exceptions import HomeAssistantError, ServiceValidationError
from homeassistant.util import dt as dt_util

from conftest import api
from custom_components.raincheck.const import DOMAIN
from raincheck_process import Raincheck
from ha_helpers import setup_entry, unload


async def call(hass: HomeAssistant, entry_id: str, action: str, **fields) -> dict | None:
    return await hass.services.async_call(
        DOMAIN,
        action,
        {"config_entry_id": entry_id, **fields},
        blocking=True,
        return_response=True,
    )


async def snapshot(demo: Raincheck) -> dict:
    status, body = await api(demo, "GET", "/irrigation/snapshot")
    assert status == 200
    return body


async def test_the_actions_are_registered_once_before_any_entry(hass: HomeAssistant) -> None:
    from homeassistant.setup import async_setup_component

    assert await async_setup_component(hass, DOMAIN, {})
    assert set(hass.services.async_services_for_domain(DOMAIN)) == {
        "run_zone",
        "stop_zone",
        "stop_all",
        "pause",
        "resume",
        "skip_tomorrow",
        "set_global_override",
        "set_zone_override",
        "set_threshold",
        "declare_soil_state",
    }


async def test_each_action_reaches_the_service(hass: HomeAssistant, demo: Raincheck) -> None:
    entry = await setup_entry(hass, demo)
    entry_id = entry.entry_id

    await call(hass, entry_id, "run_zone", zone="front_lawn", seconds=120)
    running = next(z for z in (await snapshot(demo))["zones"] if z["slug"] == "front_lawn")
    assert running["running"] is True
    await call(hass, entry_id, "stop_zone", zone="front_lawn")
    stopped = next(z for z in (await snapshot(demo))["zones"] if z["slug"] == "front_lawn")
    assert stopped["running"] is False
    await call(hass, entry_id, "run_zone", zone="back_lawn", seconds=60)
    await call(hass, entry_id, "stop_all")
    assert not any(z["running"] for z in (await snapshot(demo))["zones"])

    until = dt_util.utcnow().replace(microsecond=0) + timedelta(hours=3)
    await call(hass, entry_id, "pause", until=until)
    assert (await snapshot(demo))["pause_until_epoch"] == int(until.timestamp())
    before = dt_util.utcnow()
    await call(hass, entry_id, "pause", duration={"hours": 2})
    epoch = (await snapshot(demo))["pause_until_epoch"]
    assert (
        int((before + timedelta(hours=2)).timestamp())
        <= epoch
        <= int((dt_util.utcnow() + timedelta(hours=2)).timestamp())
    )
    await call(hass, entry_id, "resume")
    assert (await snapshot(demo))["pause_until_epoch"] == 0

    await call(hass, entry_id, "skip_tomorrow")
    assert (await snapshot(demo))["override_tomorrow"] == "skip"

    await call(hass, entry_id, "set_global_override", mode="run")
    _, manifest = await api(demo, "GET", "/sensors/manifest")
    state = {e["key"]: e["state"] for e in manifest["entities"]}
    assert state["global_override"] == "run"
    await call(hass, entry_id, "set_zone_override", zone="vegetables", mode="skip")
    await call(hass, entry_id, "set_threshold", key="min_temp_f", value=41)
    _, manifest = await api(demo, "GET", "/sensors/manifest")
    state = {e["key"]: e["state"] for e in manifest["entities"]}
    assert state["zone_vegetables_override"] == "skip"
    assert float(state["threshold_min_temp_f"]) == 41
    await call(hass, entry_id, "set_global_override", mode="auto")
    await call(hass, entry_id, "set_zone_override", zone="vegetables", mode="auto")

    result = await call(hass, entry_id, "declare_soil_state", zone="shade_bed", state="soaked")
    assert result["kind"] == "declare_soil_state"
    assert (result["zone"], result["state"], result["source"]) == ("shade_bed", "soaked", "owner")
    dated = await call(
        hass, entry_id, "declare_soil_state", zone="shade_bed", state="soaked", date=result["date"]
    )
    assert dated["date"] == result["date"]
    await unload(hass, entry)


async def test_a_refusal_comes_back_with_the_servers_code(hass: HomeAssistant, demo: Raincheck) -> None:
    entry = await setup_entry(hass, demo)
    with pytest.raises(ServiceValidationError) as refused:
        await call(hass, entry.entry_id, "set_threshold", key="max_wind_mph", value=99)
    assert refused.value.translation_key == "action_refused"
    assert refused.value.translation_placeholders["code"] == "threshold_out_of_range"
    assert "threshold_out_of_range" in str(refused.value)

    with pytest.raises(ServiceValidationError) as unknown:
        await call(hass, entry.entry_id, "run_zone", zone="no_such_zone", seconds=60)
    assert unknown.value.translation_placeholders["code"] == "zone_unknown"

    # A field HA can validate never reaches the server.
    with pytest.raises(vol.Invalid):
        await call(hass, entry.entry_id, "run_zone", zone="front_lawn", seconds=99999)
    await unload(hass, entry)


async def test_an_unknown_or_unloaded_entry_is_an_error(hass: HomeAssistant, demo: Raincheck) -> None:
    entry = await setup_entry(hass, demo)
    with pytest.raises(ServiceValidationError) as unknown:
        await call(hass, "nope", "stop_all")
    assert unknown.value.translation_key == "entry_unknown"
    await unload(hass, entry)
    with pytest.raises(ServiceValidationError) as unloaded:
        await call(hass, entry.entry_id, "stop_all")
    assert unloaded.value.translation_key == "entry_not_loaded"


async def test_a_service_that_went_away_is_an_ha_error(hass: HomeAssistant) -> None:
    from raincheck_process import remove, start_raincheck

    instance = await hass.async_add_executor_job(start_raincheck, {"DEMO": "1"})
    try:
        entry = await setup_entry(hass, instance)
        await hass.async_add_executor_job(instance.stop)
        with pytest.raises(HomeAssistantError) as failed:
            await call(hass, entry.entry_id, "stop_all")
        assert not isinstance(failed.value, ServiceValidationError)
        assert failed.value.translation_key == "cannot_reach"
        await unload(hass, entry)
    finally:
        await hass.async_add_executor_job(remove, instance)


async def test_pause_takes_a_local_time_and_refuses_both_neither_or_the_past(
    hass: HomeAssistant, demo: Raincheck
) -> None:
    entry = await setup_entry(hass, demo)
    entry_id = entry.entry_id
    # A time without an offset is Home Assistant's local time.
    local = dt_util.now().replace(microsecond=0, tzinfo=None) + timedelta(hours=4)
    await call(hass, entry_id, "pause", until=local.isoformat())
    expected = local.replace(tzinfo=dt_util.get_default_time_zone())
    assert (await snapshot(demo))["pause_until_epoch"] == int(expected.timestamp())

    for fields, key in (
        ({}, "pause_until_or_duration"),
        ({"until": local.isoformat(), "duration": {"hours": 1}}, "pause_until_or_duration"),
        ({"until": (dt_util.utcnow() - timedelta(hours=1)).isoformat()}, "pause_in_past"),
    ):
        with pytest.raises(ServiceValidationError) as refused:
            await call(hass, entry_id, "pause", **fields)
        assert refused.value.translation_key == key
    # Nothing refused reached the service.
    assert (await snapshot(demo))["pause_until_epoch"] == int(expected.timestamp())
    await call(hass, entry_id, "resume")
    await unload(hass, entry)
