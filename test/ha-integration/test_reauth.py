"""A revoked token starts reauth; a new token brings the entry back."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from homeassistant.config_entries import SOURCE_REAUTH, ConfigEntryState
from homeassistant.const import CONF_TOKEN
from homeassistant.core import HomeAssistant
from homeassistant.data_entry_flow import FlowResultType

from custom_components.raincheck.const import DOMAIN
from ha_helpers import eventually, setup_entry, unload
from raincheck_process import AUTH_REQUIRED_CONFIG, Raincheck, owner_token, remove, start_raincheck


@pytest.fixture(scope="module")
def secured() -> Iterator[Raincheck]:
    instance = start_raincheck(config_toml=AUTH_REQUIRED_CONFIG)
    yield instance
    remove(instance)


def reauth_flows(hass: HomeAssistant) -> list[dict]:
    return [
        flow
        for flow in hass.config_entries.flow.async_progress_by_handler(DOMAIN)
        if flow["context"]["source"] == SOURCE_REAUTH
    ]


async def test_a_revoked_token_starts_reauth_and_a_new_token_restores_the_entry(
    hass: HomeAssistant, secured: Raincheck
) -> None:
    token, token_id = await hass.async_add_executor_job(owner_token, secured, "ha-first")
    entry = await setup_entry(hass, secured, token)
    assert reauth_flows(hass) == []

    status, _ = await hass.async_add_executor_job(secured.request, "DELETE", f"/auth/tokens/{token_id}")
    assert status in (200, 204)
    # The service ends the feeds the revoked token opened; reconnecting answers 401.
    await eventually(lambda: len(reauth_flows(hass)) == 1)

    flow = reauth_flows(hass)[0]
    result = await hass.config_entries.flow.async_configure(flow["flow_id"], {CONF_TOKEN: "wrong"})
    assert result["errors"] == {"base": "invalid_auth"}
    new_token, _ = await hass.async_add_executor_job(owner_token, secured, "ha-second")
    result = await hass.config_entries.flow.async_configure(flow["flow_id"], {CONF_TOKEN: new_token})
    assert result["type"] is FlowResultType.ABORT
    assert result["reason"] == "reauth_successful"
    await hass.async_block_till_done()
    assert entry.data[CONF_TOKEN] == new_token
    assert entry.state is ConfigEntryState.LOADED
    await unload(hass, entry)


async def test_setup_with_a_refused_token_starts_reauth(hass: HomeAssistant, secured: Raincheck) -> None:
    from pytest_homeassistant_custom_component.common import MockConfigEntry
    from homeassistant.const import CONF_HOST, CONF_PORT

    _, info = await hass.async_add_executor_job(secured.request, "GET", "/info")
    entry = MockConfigEntry(
        domain=DOMAIN,
        unique_id=info["uuid"],
        data={CONF_HOST: "127.0.0.1", CONF_PORT: secured.port, CONF_TOKEN: "revoked-long-ago"},
    )
    entry.add_to_hass(hass)
    assert not await hass.config_entries.async_setup(entry.entry_id)
    assert entry.state is ConfigEntryState.SETUP_ERROR
    assert len(reauth_flows(hass)) == 1
