"""Shared by the test modules: a loaded entry on a real install, and waiting for pushes."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from pytest_homeassistant_custom_component.common import MockConfigEntry

from homeassistant.config_entries import ConfigEntryState
from homeassistant.const import CONF_HOST, CONF_PORT, CONF_TOKEN
from homeassistant.core import HomeAssistant
from homeassistant.helpers import entity_registry as er

from conftest import api
from custom_components.raincheck.const import DOMAIN
from raincheck_process import Raincheck


async def setup_entry(hass: HomeAssistant, instance: Raincheck, token: str | None = None) -> MockConfigEntry:
    _, info = await api(instance, "GET", "/info")
    entry = MockConfigEntry(
        domain=DOMAIN,
        unique_id=info["uuid"],
        data={CONF_HOST: "127.0.0.1", CONF_PORT: instance.port, **({CONF_TOKEN: token} if token else {})},
        title="Raincheck",
    )
    entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()
    assert entry.state is ConfigEntryState.LOADED
    return entry


async def unload(hass: HomeAssistant, entry: MockConfigEntry) -> None:
    assert await hass.config_entries.async_unload(entry.entry_id)
    await hass.async_block_till_done()


async def eventually(check: Callable[[], bool], timeout: float = 15.0) -> None:
    """Waits for something pushed over SSE (a real process answers when it answers)."""
    async with asyncio.timeout(timeout):
        while not check():
            await asyncio.sleep(0.05)


def entity_id(hass: HomeAssistant, entry: MockConfigEntry, platform: str, key: str) -> str:
    found = er.async_get(hass).async_get_entity_id(platform, DOMAIN, f"{entry.unique_id}_{key}")
    assert found, f"no {platform} entity for {key}"
    return found
