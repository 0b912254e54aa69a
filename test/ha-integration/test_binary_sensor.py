"""The binary_sensor platform, for `binary_sensor` descriptors (manifest schema 1.6 allows
them; no Raincheck catalog offers one yet). A loopback proxy in front of a real demo
install passes every request and feed through and adds two such descriptors to
`/sensors/manifest`, derived from the real manifest: "Watering" is on while any zone's
valve is open. Everything else (the run, the SSE push, the state) is the real service's."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import aiohttp
from aiohttp import web

from homeassistant.core import HomeAssistant
from homeassistant.helpers import entity_registry as er

from conftest import api
from ha_helpers import entity_id, eventually, setup_entry, unload
from raincheck_process import Raincheck, free_port

HOP_HEADERS = {"host", "content-length", "transfer-encoding", "connection"}


def binary_descriptors(manifest: dict[str, Any]) -> list[dict[str, Any]]:
    running = any(e["platform"] == "valve" and e["state"] == "open" for e in manifest["entities"])
    common = {
        "platform": "binary_sensor",
        "device": {"kind": "service"},
        "requires": "always",
        "commands": False,
    }
    watering = {
        **common,
        "key": "watering",
        "name": "Watering",
        "device_class": "running",
        "icon": "mdi:sprinkler",
        "state": "ON" if running else "OFF",
    }
    # Its own payload, a device class HA does not know, and no state yet.
    rain = {
        **common,
        "key": "rain_sensor",
        "name": "Rain sensor",
        "device_class": "not_a_class",
        "payload_on": "wet",
        "state": None,
    }
    return [watering, rain]


@asynccontextmanager
async def manifest_proxy(upstream: Raincheck) -> AsyncIterator[Raincheck]:
    session = aiohttp.ClientSession()

    async def forward(request: web.Request) -> web.StreamResponse:
        headers = {k: v for k, v in request.headers.items() if k.lower() not in HOP_HEADERS}
        url = f"http://127.0.0.1:{upstream.port}{request.path_qs}"
        async with session.request(
            request.method,
            url,
            headers=headers,
            data=await request.read(),
            timeout=aiohttp.ClientTimeout(total=None),
        ) as answer:
            kind = answer.headers.get("Content-Type", "")
            if kind.startswith("text/event-stream"):
                stream = web.StreamResponse(status=answer.status, headers={"Content-Type": kind})
                await stream.prepare(request)
                async for chunk in answer.content.iter_any():
                    await stream.write(chunk)
                return stream
            if request.method == "GET" and request.path == "/api/v1/sensors/manifest" and answer.ok:
                manifest = await answer.json()
                manifest["entities"] += binary_descriptors(manifest)
                return web.json_response(manifest)
            return web.Response(
                status=answer.status, body=await answer.read(), content_type=kind.split(";")[0] or None
            )

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", forward)
    runner = web.AppRunner(app, handler_cancellation=True, shutdown_timeout=0.5)
    await runner.setup()
    port = free_port()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    try:
        yield Raincheck(port=port, data_dir=upstream.data_dir, env={})
    finally:
        await runner.cleanup()
        await session.close()


async def test_binary_sensor_descriptors_become_binary_sensors_that_follow_the_service(
    hass: HomeAssistant, demo: Raincheck
) -> None:
    async with manifest_proxy(demo) as proxied:
        entry = await setup_entry(hass, proxied)
        watering = entity_id(hass, entry, "binary_sensor", "watering")
        state = hass.states.get(watering)
        assert state.state == "off"
        assert state.attributes["device_class"] == "running"
        assert state.attributes["friendly_name"] == "Raincheck Watering"
        # Not a key the integration translates: the service's name and icon, as given.
        assert er.async_get(hass).async_get(watering).original_icon == "mdi:sprinkler"

        rain = hass.states.get(entity_id(hass, entry, "binary_sensor", "rain_sensor"))
        assert rain.state == "unknown"
        assert "device_class" not in rain.attributes

        # A real run on the demo's dry-run controller, pushed over the (proxied) feeds.
        run = {"kind": "run", "zone": "front_lawn", "seconds": 60}
        status, _ = await api(demo, "POST", "/irrigation/action", run)
        assert status == 200
        await eventually(lambda: hass.states.get(watering).state == "on")
        await api(demo, "POST", "/irrigation/action", {"kind": "stop", "zone": "front_lawn"})
        await eventually(lambda: hass.states.get(watering).state == "off")
        await unload(hass, entry)
