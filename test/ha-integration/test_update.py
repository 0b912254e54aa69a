"""The update entity follows the service's opt-in release check: it comes and goes with
the check and shows what the check found (the manifest's `update` descriptor)."""

from __future__ import annotations

from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
import json
import sqlite3
import threading
import time

import pytest

from homeassistant.const import STATE_ON, STATE_UNKNOWN
from homeassistant.core import HomeAssistant
from homeassistant.helpers import device_registry as dr, entity_registry as er

from conftest import api
from custom_components.raincheck.const import DOMAIN
from ha_helpers import entity_id, eventually, setup_entry, unload
from raincheck_process import Raincheck, remove, start_raincheck

RELEASE_TAG = "v99.0.0"
RELEASE_PAGE = f"https://example.test/releases/{RELEASE_TAG}"


class ReleasesFeed:
    """A loopback peer answering like GitHub's `releases/latest`; it counts what it is asked."""

    def __init__(self) -> None:
        body = json.dumps({"tag_name": RELEASE_TAG, "html_url": RELEASE_PAGE, "draft": False}).encode()
        feed = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
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


@pytest.fixture
def feed() -> Iterator[ReleasesFeed]:
    peer = ReleasesFeed()
    yield peer
    peer.close()


def with_check(config: dict, feed: ReleasesFeed) -> dict:
    return {**config, "updates": {"check_enabled": True, "releases_url": feed.url}}


@pytest.fixture
def checked(feed: ReleasesFeed) -> Iterator[Raincheck]:
    """A demo install whose release check has run against `feed`.

    The service checks a minute after the check is switched on, then daily, and keeps the
    next due time across restarts. Rather than wait, the install is stopped, its kept due
    time moved into the past (as if it had been off past its daily check), and started
    again: a check overdue at start runs at once."""
    instance = start_raincheck({"DEMO": "1"})
    _, config = instance.request("GET", "/config")
    status, body = instance.request("PUT", "/config", with_check(config, feed))
    assert status == 200, body
    instance.stop()
    with sqlite3.connect(instance.data_dir / "raincheck.db") as db:
        (value,) = db.execute("SELECT value FROM controls WHERE key = 'update_check'").fetchone()
        kept = json.loads(value)
        assert kept["latest"] is None and kept["releases_url"] == feed.url
        db.execute(
            "UPDATE controls SET value = ? WHERE key = 'update_check'",
            (json.dumps({**kept, "next_attempt_epoch": 0}),),
        )
    db.close()
    instance.start()
    deadline = time.monotonic() + 15
    while instance.request("GET", "/updates")[1]["latest"] is None:
        assert time.monotonic() < deadline, "the overdue check did not run at start"
        time.sleep(0.1)
    yield instance
    remove(instance)


async def test_the_update_entity_comes_and_goes_with_the_release_check(
    hass: HomeAssistant, demo: Raincheck, feed: ReleasesFeed
) -> None:
    entry = await setup_entry(hass, demo)
    entities = er.async_get(hass)
    update_uid = f"{entry.unique_id}_update"
    _, original = await api(demo, "GET", "/config")
    _, info = await api(demo, "GET", "/info")
    assert "updates" not in original
    assert entities.async_get_entity_id("update", DOMAIN, update_uid) is None

    # Switched on through the same config write the web app uses.
    status, body = await api(demo, "PUT", "/config", with_check(original, feed))
    assert status == 200, body
    await eventually(lambda: entities.async_get_entity_id("update", DOMAIN, update_uid) is not None)
    update = entities.async_get(entities.async_get_entity_id("update", DOMAIN, update_uid))
    assert update.device_id == dr.async_get(hass).async_get_device({(DOMAIN, entry.unique_id)}).id
    state = hass.states.get(update.entity_id)
    assert state.attributes["installed_version"] == info["service_version"]
    assert state.attributes["device_class"] == "firmware"
    # The first check runs a minute after the switch: until a check has succeeded the
    # latest version is unknown, never the running one passed off as the latest.
    assert feed.requests == 0
    assert state.attributes["latest_version"] is None
    assert state.attributes["release_url"] is None
    assert state.state == STATE_UNKNOWN

    status, body = await api(demo, "PUT", "/config", original)
    assert status == 200, body
    await eventually(lambda: entities.async_get_entity_id("update", DOMAIN, update_uid) is None)
    await unload(hass, entry)


async def test_the_update_entity_shows_what_the_check_found(
    hass: HomeAssistant, checked: Raincheck, feed: ReleasesFeed
) -> None:
    entry = await setup_entry(hass, checked)
    _, info = await api(checked, "GET", "/info")
    state = hass.states.get(entity_id(hass, entry, "update", "update"))
    assert feed.requests == 1
    assert state.attributes["installed_version"] == info["service_version"]
    assert state.attributes["latest_version"] == RELEASE_TAG.removeprefix("v")
    assert state.attributes["release_url"] == RELEASE_PAGE
    # 99.0.0 is newer than any version this repository runs.
    assert state.state == STATE_ON
    await unload(hass, entry)
