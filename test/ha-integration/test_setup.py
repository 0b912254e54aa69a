"""A loaded entry against the live demo: entities from the manifest, devices, push,
entity commands, unload."""

from __future__ import annotations

import asyncio
from datetime import timedelta
import json


from homeassistant.config_entries import ConfigEntryState
from homeassistant.const import STATE_UNAVAILABLE
from homeassistant.core import HomeAssistant
from homeassistant.helpers import device_registry as dr, entity_registry as er
from homeassistant.util import dt as dt_util

from conftest import api
from custom_components.raincheck.const import DOMAIN
from custom_components.raincheck.diagnostics import async_get_config_entry_diagnostics
from ha_helpers import entity_id, eventually, setup_entry, unload
from raincheck_process import Raincheck, remove, start_raincheck


async def test_every_manifest_descriptor_becomes_an_entity_as_described(
    hass: HomeAssistant, demo: Raincheck
) -> None:
    await hass.config.async_update(unit_system="us_customary")  # the manifest's own units
    entry = await setup_entry(hass, demo)
    registry = er.async_get(hass)
    # The demo's first minutes may still add entities (a zone's deficit appears once its
    # ledger has run): the registry follows the live manifest.
    manifest: dict = {}

    async def matches() -> bool:
        nonlocal manifest
        _, manifest = await api(demo, "GET", "/sensors/manifest")
        ours = {e.unique_id: e.domain for e in er.async_entries_for_config_entry(registry, entry.entry_id)}
        wanted = {f"{entry.unique_id}_{d['key']}": d["platform"] for d in manifest["entities"]}
        return all(ours.get(unique_id) == platform for unique_id, platform in wanted.items())

    async with asyncio.timeout(15):
        while not await matches():
            await asyncio.sleep(0.2)

    temp = hass.states.get(entity_id(hass, entry, "sensor", "weather_air_temp_f"))
    assert temp.attributes["unit_of_measurement"] == "°F"
    assert temp.attributes["device_class"] == "temperature"
    assert temp.attributes["state_class"] == "measurement"
    verdict = hass.states.get(entity_id(hass, entry, "sensor", "verdict"))
    # Fixed entities are translated (strings.json); a zone's are named after the zone.
    assert registry.async_get(verdict.entity_id).translation_key == "verdict"
    assert verdict.attributes["friendly_name"] == "Raincheck Today's verdict"
    valve = hass.states.get(entity_id(hass, entry, "valve", "zone_front_lawn_valve"))
    assert valve.attributes["friendly_name"] == "demo_controller (dry_run) Front lawn"
    override = registry.async_get(entity_id(hass, entry, "select", "zone_front_lawn_override"))
    assert override.translation_key == "zone_override"
    assert hass.states.get(override.entity_id).attributes["friendly_name"] == (
        "demo_controller (dry_run) Front lawn override"
    )
    verdict_descriptor = next(d for d in manifest["entities"] if d["key"] == "verdict")
    assert verdict.attributes["options"] == verdict_descriptor["options"]
    wind = hass.states.get(entity_id(hass, entry, "number", "threshold_max_wind_mph"))
    assert (wind.attributes["min"], wind.attributes["max"]) == (0, 50)
    assert float(wind.state) == float(
        next(d for d in manifest["entities"] if d["key"] == "threshold_max_wind_mph")["state"]
    )
    assert hass.states.get(entity_id(hass, entry, "valve", "zone_front_lawn_valve")).state == "closed"
    await unload(hass, entry)


async def test_devices_are_the_service_and_each_controller_with_its_zones(
    hass: HomeAssistant, demo: Raincheck
) -> None:
    entry = await setup_entry(hass, demo)
    devices = dr.async_get(hass)
    service = devices.async_get_device({(DOMAIN, entry.unique_id)})
    controller = devices.async_get_device({(DOMAIN, f"{entry.unique_id}_controller_demo_controller")})
    assert service is not None and controller is not None
    assert controller.via_device_id == service.id
    valve = er.async_get(hass).async_get(entity_id(hass, entry, "valve", "zone_back_lawn_valve"))
    assert valve.device_id == controller.id
    pause = er.async_get(hass).async_get(entity_id(hass, entry, "switch", "pause"))
    assert pause.device_id == service.id
    await unload(hass, entry)


async def test_a_change_made_through_the_api_arrives_over_sse(hass: HomeAssistant, demo: Raincheck) -> None:
    entry = await setup_entry(hass, demo)
    select = entity_id(hass, entry, "select", "global_override")
    assert hass.states.get(select).state == "auto"
    status, _ = await api(demo, "POST", "/irrigation/action", {"kind": "set_global_override", "mode": "skip"})
    assert status == 200
    await eventually(lambda: hass.states.get(select).state == "skip")
    await api(demo, "POST", "/irrigation/action", {"kind": "set_global_override", "mode": "auto"})
    await eventually(lambda: hass.states.get(select).state == "auto")
    await unload(hass, entry)


async def test_entity_commands_reach_the_service(hass: HomeAssistant, demo: Raincheck) -> None:
    entry = await setup_entry(hass, demo)
    pause = entity_id(hass, entry, "switch", "pause")
    await hass.services.async_call("switch", "turn_on", {"entity_id": pause}, blocking=True)
    _, snapshot = await api(demo, "GET", "/irrigation/snapshot")
    assert snapshot["skip_check"]["is_paused"] is True
    await eventually(lambda: hass.states.get(pause).state == "on")
    await hass.services.async_call("switch", "turn_off", {"entity_id": pause}, blocking=True)
    await eventually(lambda: hass.states.get(pause).state == "off")

    wind = entity_id(hass, entry, "number", "threshold_max_wind_mph")
    await hass.services.async_call("number", "set_value", {"entity_id": wind, "value": 17}, blocking=True)
    await eventually(lambda: hass.states.get(wind).state == "17.0")

    valve = entity_id(hass, entry, "valve", "zone_front_lawn_valve")
    await hass.services.async_call("valve", "open_valve", {"entity_id": valve}, blocking=True)
    await eventually(lambda: hass.states.get(valve).state == "open")
    await hass.services.async_call("valve", "close_valve", {"entity_id": valve}, blocking=True)
    await eventually(lambda: hass.states.get(valve).state == "closed")

    run_now = entity_id(hass, entry, "button", "zone_back_lawn_run")
    await hass.services.async_call("button", "press", {"entity_id": run_now}, blocking=True)
    back = entity_id(hass, entry, "valve", "zone_back_lawn_valve")
    await eventually(lambda: hass.states.get(back).state == "open")
    await hass.services.async_call("valve", "close_valve", {"entity_id": back}, blocking=True)
    await eventually(lambda: hass.states.get(back).state == "closed")

    paused_until = entity_id(hass, entry, "datetime", "pause_until")
    until = dt_util.utcnow().replace(microsecond=0) + timedelta(hours=5)
    await hass.services.async_call(
        "datetime", "set_value", {"entity_id": paused_until, "datetime": until}, blocking=True
    )
    _, snapshot = await api(demo, "GET", "/irrigation/snapshot")
    assert snapshot["pause_until_epoch"] == int(until.timestamp())
    await eventually(lambda: dt_util.parse_datetime(hass.states.get(paused_until).state) == until)
    await api(demo, "POST", "/irrigation/action", {"kind": "set_pause_until", "epoch": 0})

    override = entity_id(hass, entry, "select", "override_tomorrow")
    await hass.services.async_call(
        "select", "select_option", {"entity_id": override, "option": "skip"}, blocking=True
    )
    await eventually(lambda: hass.states.get(override).state == "skip")
    await hass.services.async_call(
        "select", "select_option", {"entity_id": override, "option": "none"}, blocking=True
    )
    await unload(hass, entry)


async def test_unload_leaves_no_task_running(hass: HomeAssistant, demo: Raincheck) -> None:
    entry = await setup_entry(hass, demo)

    def ours() -> list[asyncio.Task]:
        return [t for t in asyncio.all_tasks() if t.get_name().startswith(f"{DOMAIN} ") and not t.done()]

    assert len(ours()) == 4  # three feeds and the manifest reader
    await unload(hass, entry)
    assert entry.state is ConfigEntryState.NOT_LOADED
    assert ours() == []


async def test_entities_are_unavailable_while_the_service_is_down(hass: HomeAssistant) -> None:
    instance = await hass.async_add_executor_job(start_raincheck, {"DEMO": "1"})
    try:
        entry = await setup_entry(hass, instance)
        verdict = entity_id(hass, entry, "sensor", "verdict")
        assert hass.states.get(verdict).state != STATE_UNAVAILABLE
        await hass.async_add_executor_job(instance.stop)
        await eventually(lambda: hass.states.get(verdict).state == STATE_UNAVAILABLE)
        await hass.async_add_executor_job(instance.start)  # same port, same data: the same install
        await eventually(lambda: hass.states.get(verdict).state != STATE_UNAVAILABLE, timeout=30)
        await unload(hass, entry)
    finally:
        await hass.async_add_executor_job(remove, instance)


async def test_weather_forecasts_come_from_the_forecast_snapshot(
    hass: HomeAssistant, demo: Raincheck
) -> None:
    await hass.config.async_update(unit_system="us_customary")
    entry = await setup_entry(hass, demo)
    weather = entity_id(hass, entry, "weather", "weather")
    _, snapshot = await api(demo, "GET", "/forecast/snapshot")
    for kind, rows, field in (
        ("daily", snapshot["daily"], "temp_max_f"),
        ("hourly", snapshot["hourly"], "temp_f"),
    ):
        response = await hass.services.async_call(
            "weather",
            "get_forecasts",
            {"entity_id": weather, "type": kind},
            blocking=True,
            return_response=True,
        )
        forecast = response[weather]["forecast"]
        assert len(forecast) == len(rows)
        assert [f.get("temperature") for f in forecast] == [r[field] for r in rows]
    await unload(hass, entry)


async def test_diagnostics_redact_every_secret(hass: HomeAssistant, demo: Raincheck) -> None:
    # Auth is off on the demo: the token is carried but not needed.
    entry = await setup_entry(hass, demo, token="s3cret-token")
    assert entry.data["token"] == "s3cret-token"
    diagnostics = await async_get_config_entry_diagnostics(hass, entry)
    text = json.dumps(diagnostics)
    assert "s3cret-token" not in text
    assert entry.unique_id not in text
    assert "127.0.0.1" not in text
    assert diagnostics["data"]["entities"]  # the rest is there
    await unload(hass, entry)


async def test_the_entry_claims_the_install_and_its_removal_releases_it(
    hass: HomeAssistant, demo: Raincheck
) -> None:
    """One entity per fact: a claimed install withdraws its MQTT discovery copies."""
    entry = await setup_entry(hass, demo)
    _, claim = await api(demo, "GET", "/ha/claim")
    assert claim["claimed"] is True
    await unload(hass, entry)
    _, claim = await api(demo, "GET", "/ha/claim")
    assert claim["claimed"] is True  # unloading (a restart of HA) keeps the claim
    assert await hass.config_entries.async_remove(entry.entry_id)
    await hass.async_block_till_done()
    _, claim = await api(demo, "GET", "/ha/claim")
    assert claim["claimed"] is False


async def test_options_take_effect_at_once(hass: HomeAssistant, demo: Raincheck) -> None:
    entry = await setup_entry(hass, demo)
    weather = entity_id(hass, entry, "weather", "weather")
    battery = entity_id(hass, entry, "sensor", "weather_battery_v")
    assert hass.states.get(weather) is not None
    result = await hass.config_entries.options.async_init(entry.entry_id)
    await hass.config_entries.options.async_configure(
        result["flow_id"], {"expose_weather": False, "expose_calendar": True, "expose_diagnostic": False}
    )
    await hass.async_block_till_done()
    assert entry.state is ConfigEntryState.LOADED
    registry = er.async_get(hass)
    assert registry.async_get_entity_id("weather", "raincheck", f"{entry.unique_id}_weather") is None
    assert hass.states.get(weather) is None
    assert hass.states.get(battery) is None
    assert registry.async_get_entity_id("sensor", "raincheck", f"{entry.unique_id}_weather_battery_v") is None
    await unload(hass, entry)


async def test_a_service_that_does_not_answer_at_setup_is_retried(hass: HomeAssistant) -> None:
    from pytest_homeassistant_custom_component.common import MockConfigEntry

    from homeassistant.const import CONF_HOST, CONF_PORT

    from raincheck_process import free_port

    entry = MockConfigEntry(
        domain="raincheck", unique_id="gone", data={CONF_HOST: "127.0.0.1", CONF_PORT: free_port()}
    )
    entry.add_to_hass(hass)
    assert not await hass.config_entries.async_setup(entry.entry_id)
    assert entry.state is ConfigEntryState.SETUP_RETRY


async def test_an_install_upgraded_past_api_2_stops_with_a_repair_issue(hass: HomeAssistant) -> None:
    from aiohttp import web
    from pytest_homeassistant_custom_component.common import MockConfigEntry

    from homeassistant.const import CONF_HOST, CONF_PORT
    from homeassistant.helpers import issue_registry as ir

    from raincheck_process import free_port

    # No Raincheck speaks API 3 yet: a loopback peer answers /info as one would.
    async def info(_request: web.Request) -> web.Response:
        return web.json_response({"api_version": "3.0.0", "uuid": "u-3", "auth_required": False})

    app = web.Application()
    app.router.add_get("/api/v1/info", info)
    runner = web.AppRunner(app)
    await runner.setup()
    port = free_port()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    try:
        entry = MockConfigEntry(
            domain="raincheck", unique_id="u-3", data={CONF_HOST: "127.0.0.1", CONF_PORT: port}
        )
        entry.add_to_hass(hass)
        assert not await hass.config_entries.async_setup(entry.entry_id)
        assert entry.state is ConfigEntryState.SETUP_ERROR  # not retried: retrying cannot help
        issue = ir.async_get(hass).async_get_issue("raincheck", f"unsupported_api_{entry.entry_id}")
        assert issue is not None
        assert issue.translation_key == "unsupported_api"
        assert issue.translation_placeholders["api_version"] == "3.0.0"
    finally:
        await runner.cleanup()


async def test_a_successful_setup_clears_the_api_repair_issue(hass: HomeAssistant, demo: Raincheck) -> None:
    from pytest_homeassistant_custom_component.common import MockConfigEntry

    from homeassistant.const import CONF_HOST, CONF_PORT
    from homeassistant.helpers import issue_registry as ir

    _, info = await api(demo, "GET", "/info")
    entry = MockConfigEntry(
        domain="raincheck", unique_id=info["uuid"], data={CONF_HOST: "127.0.0.1", CONF_PORT: demo.port}
    )
    entry.add_to_hass(hass)
    issue_id = f"unsupported_api_{entry.entry_id}"
    ir.async_create_issue(
        hass,
        "raincheck",
        issue_id,
        is_fixable=False,
        severity=ir.IssueSeverity.ERROR,
        translation_key="unsupported_api",
    )
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()
    assert ir.async_get(hass).async_get_issue("raincheck", issue_id) is None
    await unload(hass, entry)


async def test_entity_names_follow_the_language_of_home_assistant(
    hass: HomeAssistant, demo: Raincheck
) -> None:
    await hass.config.async_update(language="de")
    entry = await setup_entry(hass, demo)
    verdict = hass.states.get(entity_id(hass, entry, "sensor", "verdict"))
    assert verdict.attributes["friendly_name"] == "Raincheck Heutige Entscheidung"
    override = hass.states.get(entity_id(hass, entry, "select", "zone_front_lawn_override"))
    assert override.attributes["friendly_name"] == "demo_controller (dry_run) Front lawn Übersteuerung"
    await unload(hass, entry)
