"""Zones and controllers added or removed in Raincheck, and its release check switched on or off,
appear or leave without a restart."""

from __future__ import annotations

import copy
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
import json
import threading

from homeassistant.const import STATE_UNKNOWN
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


class ReleasesFeed:
    """A loopback peer answering like GitHub's `releases/latest`; it counts what it is asked."""

    def __init__(self, tag: str) -> None:
        body = json.dumps(
            {"tag_name": tag, "html_url": f"https://example.test/releases/{tag}", "draft": False}
        ).encode()
        feed = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                feed.requests += 1
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.requests = 0
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/releases/latest"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()


async def test_the_update_entity_comes_and_goes_with_the_services_release_check(
    hass: HomeAssistant, demo: Raincheck
) -> None:
    entry = await setup_entry(hass, demo)
    entities = er.async_get(hass)
    update_uid = f"{entry.unique_id}_update"
    _, original = await api(demo, "GET", "/config")
    _, info = await api(demo, "GET", "/info")
    assert "updates" not in original
    assert entities.async_get_entity_id("update", DOMAIN, update_uid) is None

    feed = ReleasesFeed("v99.0.0")
    try:
        await put_config(demo, {**original, "updates": {"check_enabled": True, "releases_url": feed.url}})
        await eventually(lambda: entities.async_get_entity_id("update", DOMAIN, update_uid) is not None)
        update = entities.async_get(entities.async_get_entity_id("update", DOMAIN, update_uid))
        assert update.device_id == dr.async_get(hass).async_get_device({(DOMAIN, entry.unique_id)}).id
        state = hass.states.get(update.entity_id)
        assert state.attributes["installed_version"] == info["service_version"]
        assert state.attributes["device_class"] == "firmware"
        # The service checks a minute after the check is switched on: until a check has
        # succeeded the latest version is unknown, not the running one passed off as latest.
        assert feed.requests == 0
        assert state.attributes["latest_version"] is None
        assert state.attributes["release_url"] is None
        assert state.state == STATE_UNKNOWN

        await put_config(demo, original)
        await eventually(lambda: entities.async_get_entity_id("update", DOMAIN, update_uid) is None)
    finally:
        feed.close()
    await unload(hass, entry)
