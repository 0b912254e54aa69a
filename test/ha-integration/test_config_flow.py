"""Every config flow, against a real Raincheck process."""

from __future__ import annotations

from collections.abc import Iterator
from ipaddress import ip_address
from unittest.mock import patch

from aiohttp import web
import pytest

from homeassistant import config_entries
from homeassistant.const import CONF_HOST, CONF_PORT, CONF_TOKEN
from homeassistant.core import HomeAssistant
from homeassistant.data_entry_flow import FlowResultType

from custom_components.raincheck.const import DOMAIN, OPT_CALENDAR, OPT_DIAGNOSTIC_ENTITIES, OPT_WEATHER
from raincheck_process import (
    AUTH_REQUIRED_CONFIG,
    Raincheck,
    free_port,
    owner_token,
    remove,
    start_raincheck,
)

try:
    from homeassistant.helpers.service_info.hassio import HassioServiceInfo
    from homeassistant.helpers.service_info.zeroconf import ZeroconfServiceInfo
except ImportError:  # pragma: no cover
    from homeassistant.components.hassio import HassioServiceInfo
    from homeassistant.components.zeroconf import ZeroconfServiceInfo


@pytest.fixture(scope="module")
def secured() -> Iterator[Raincheck]:
    """An install with auth required and an owner."""
    instance = start_raincheck(config_toml=AUTH_REQUIRED_CONFIG)
    yield instance
    remove(instance)


def uuid_of(instance: Raincheck) -> str:
    return instance.request("GET", "/info")[1]["uuid"]


def no_setup():
    """The flows are under test here; setting the entry up is test_setup's."""
    return patch("custom_components.raincheck.async_setup_entry", return_value=True)


def zeroconf_info(instance: Raincheck, uuid: str) -> ZeroconfServiceInfo:
    return ZeroconfServiceInfo(
        ip_address=ip_address("127.0.0.1"),
        ip_addresses=[ip_address("127.0.0.1")],
        hostname="raincheck-test.local.",
        name=f"Raincheck {uuid[:8]}._raincheck._tcp.local.",
        port=instance.port,
        type="_raincheck._tcp.local.",
        properties={"uuid": uuid, "api_version": "2.4.0", "base_path": "/api/v1"},
    )


async def test_manual_creates_the_entry_keyed_by_the_install_uuid(
    hass: HomeAssistant, demo: Raincheck
) -> None:
    result = await hass.config_entries.flow.async_init(DOMAIN, context={"source": config_entries.SOURCE_USER})
    assert result["type"] is FlowResultType.FORM
    assert result["step_id"] == "user"
    with no_setup():
        result = await hass.config_entries.flow.async_configure(
            result["flow_id"], {CONF_HOST: "127.0.0.1", CONF_PORT: demo.port}
        )
    assert result["type"] is FlowResultType.CREATE_ENTRY
    assert result["result"].unique_id == uuid_of(demo)
    assert result["data"] == {CONF_HOST: "127.0.0.1", CONF_PORT: demo.port}

    # The same install again (by another name) is refused.
    again = await hass.config_entries.flow.async_init(DOMAIN, context={"source": config_entries.SOURCE_USER})
    again = await hass.config_entries.flow.async_configure(
        again["flow_id"], {CONF_HOST: "localhost", CONF_PORT: demo.port}
    )
    assert again["type"] is FlowResultType.ABORT
    assert again["reason"] == "already_configured"
    assert result["result"].data[CONF_HOST] == "127.0.0.1"  # a manual try moves nothing


async def test_manual_with_nothing_listening_says_cannot_connect(hass: HomeAssistant) -> None:
    result = await hass.config_entries.flow.async_init(DOMAIN, context={"source": config_entries.SOURCE_USER})
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {CONF_HOST: "127.0.0.1", CONF_PORT: free_port()}
    )
    assert result["type"] is FlowResultType.FORM
    assert result["errors"] == {"base": "cannot_connect"}


async def test_an_api_major_other_than_2_is_refused_with_its_version(hass: HomeAssistant) -> None:
    # No Raincheck speaks API 3 yet: a loopback peer answers /info as one would.
    async def info(_request: web.Request) -> web.Response:
        return web.json_response(
            {"service": "raincheck", "api_version": "3.0.0", "uuid": "u-3", "auth_required": False}
        )

    app = web.Application()
    app.router.add_get("/api/v1/info", info)
    runner = web.AppRunner(app)
    await runner.setup()
    port = free_port()
    site = web.TCPSite(runner, "127.0.0.1", port)
    await site.start()
    try:
        result = await hass.config_entries.flow.async_init(
            DOMAIN, context={"source": config_entries.SOURCE_USER}
        )
        result = await hass.config_entries.flow.async_configure(
            result["flow_id"], {CONF_HOST: "127.0.0.1", CONF_PORT: port}
        )
    finally:
        await runner.cleanup()
    assert result["errors"] == {"base": "unsupported_api"}
    assert result["description_placeholders"]["api_version"] == "3.0.0"


async def test_zeroconf_confirms_and_deduplicates_by_uuid(hass: HomeAssistant, demo: Raincheck) -> None:
    uuid = uuid_of(demo)
    result = await hass.config_entries.flow.async_init(
        DOMAIN, context={"source": config_entries.SOURCE_ZEROCONF}, data=zeroconf_info(demo, uuid)
    )
    assert result["type"] is FlowResultType.FORM
    assert result["step_id"] == "discovery_confirm"
    with no_setup():
        result = await hass.config_entries.flow.async_configure(result["flow_id"], {})
    assert result["type"] is FlowResultType.CREATE_ENTRY
    assert result["result"].unique_id == uuid

    # The same uuid announced again is the same install: no second flow.
    again = await hass.config_entries.flow.async_init(
        DOMAIN, context={"source": config_entries.SOURCE_ZEROCONF}, data=zeroconf_info(demo, uuid)
    )
    assert again["type"] is FlowResultType.ABORT
    assert again["reason"] == "already_configured"


async def test_zeroconf_without_a_uuid_is_ignored(hass: HomeAssistant, demo: Raincheck) -> None:
    info = zeroconf_info(demo, "x")
    info.properties.pop("uuid")
    result = await hass.config_entries.flow.async_init(
        DOMAIN, context={"source": config_entries.SOURCE_ZEROCONF}, data=info
    )
    assert result["type"] is FlowResultType.ABORT
    assert result["reason"] == "no_install_id"


async def test_the_add_on_discovery_is_confirmed_by_the_hassio_step(
    hass: HomeAssistant, demo: Raincheck
) -> None:
    uuid = uuid_of(demo)
    discovery = HassioServiceInfo(
        config={"host": "127.0.0.1", "port": demo.port, "uuid": uuid},
        name="Raincheck",
        slug="raincheck",
        uuid="discovery-message-id",
    )
    result = await hass.config_entries.flow.async_init(
        DOMAIN, context={"source": config_entries.SOURCE_HASSIO}, data=discovery
    )
    assert result["type"] is FlowResultType.FORM
    assert result["step_id"] == "hassio_confirm"
    with no_setup():
        result = await hass.config_entries.flow.async_configure(result["flow_id"], {})
    assert result["type"] is FlowResultType.CREATE_ENTRY
    assert result["title"] == "Raincheck"
    assert result["result"].unique_id == uuid
    assert result["data"] == {CONF_HOST: "127.0.0.1", CONF_PORT: demo.port}


async def test_auth_required_asks_for_a_token_checked_against_the_session(
    hass: HomeAssistant, secured: Raincheck
) -> None:
    token, _ = await hass.async_add_executor_job(owner_token, secured, "flow-test")
    result = await hass.config_entries.flow.async_init(DOMAIN, context={"source": config_entries.SOURCE_USER})
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {CONF_HOST: "127.0.0.1", CONF_PORT: secured.port}
    )
    assert result["type"] is FlowResultType.FORM
    assert result["step_id"] == "token"
    result = await hass.config_entries.flow.async_configure(result["flow_id"], {CONF_TOKEN: "not-a-token"})
    assert result["step_id"] == "token"
    assert result["errors"] == {"base": "invalid_auth"}
    with no_setup():
        result = await hass.config_entries.flow.async_configure(result["flow_id"], {CONF_TOKEN: token})
    assert result["type"] is FlowResultType.CREATE_ENTRY
    assert result["data"][CONF_TOKEN] == token
    assert result["result"].unique_id == uuid_of(secured)


async def test_reconfigure_moves_the_entry_and_refuses_another_install(
    hass: HomeAssistant, demo: Raincheck, secured: Raincheck
) -> None:
    from pytest_homeassistant_custom_component.common import MockConfigEntry

    entry = MockConfigEntry(
        domain=DOMAIN,
        unique_id=uuid_of(demo),
        data={CONF_HOST: "127.0.0.1", CONF_PORT: free_port()},
    )
    entry.add_to_hass(hass)
    result = await entry.start_reconfigure_flow(hass)
    assert result["step_id"] == "reconfigure"
    # Another install at that address: refused, nothing changes.
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {CONF_HOST: "127.0.0.1", CONF_PORT: secured.port}
    )
    assert result["type"] is FlowResultType.ABORT
    assert result["reason"] == "wrong_install"

    result = await entry.start_reconfigure_flow(hass)
    with no_setup():
        result = await hass.config_entries.flow.async_configure(
            result["flow_id"], {CONF_HOST: "localhost", CONF_PORT: demo.port}
        )
        await hass.async_block_till_done()  # the reload, still without a real setup
    assert result["type"] is FlowResultType.ABORT
    assert result["reason"] == "reconfigure_successful"
    assert entry.data == {CONF_HOST: "localhost", CONF_PORT: demo.port}


async def test_options_choose_what_to_expose(hass: HomeAssistant) -> None:
    from pytest_homeassistant_custom_component.common import MockConfigEntry

    entry = MockConfigEntry(domain=DOMAIN, unique_id="u", data={CONF_HOST: "h", CONF_PORT: 1})
    entry.add_to_hass(hass)
    result = await hass.config_entries.options.async_init(entry.entry_id)
    assert result["step_id"] == "init"
    result = await hass.config_entries.options.async_configure(
        result["flow_id"], {OPT_WEATHER: False, OPT_CALENDAR: True, OPT_DIAGNOSTIC_ENTITIES: False}
    )
    assert result["type"] is FlowResultType.CREATE_ENTRY
    assert entry.options == {OPT_WEATHER: False, OPT_CALENDAR: True, OPT_DIAGNOSTIC_ENTITIES: False}


async def test_zeroconf_moves_a_known_install_to_its_new_address(
    hass: HomeAssistant, demo: Raincheck
) -> None:
    from pytest_homeassistant_custom_component.common import MockConfigEntry

    uuid = uuid_of(demo)
    entry = MockConfigEntry(domain=DOMAIN, unique_id=uuid, data={CONF_HOST: "127.0.0.1", CONF_PORT: 1})
    entry.add_to_hass(hass)
    with no_setup():
        result = await hass.config_entries.flow.async_init(
            DOMAIN, context={"source": config_entries.SOURCE_ZEROCONF}, data=zeroconf_info(demo, uuid)
        )
        await hass.async_block_till_done()
    assert result["type"] is FlowResultType.ABORT
    assert result["reason"] == "already_configured"
    assert entry.data == {CONF_HOST: "127.0.0.1", CONF_PORT: demo.port}


async def test_the_add_on_with_an_owner_account_asks_for_a_token(
    hass: HomeAssistant, secured: Raincheck
) -> None:
    token, _ = await hass.async_add_executor_job(owner_token, secured, "addon-flow")
    discovery = HassioServiceInfo(
        config={"host": "127.0.0.1", "port": secured.port, "uuid": uuid_of(secured)},
        name="Raincheck",
        slug="raincheck",
        uuid="discovery-message-id",
    )
    result = await hass.config_entries.flow.async_init(
        DOMAIN, context={"source": config_entries.SOURCE_HASSIO}, data=discovery
    )
    result = await hass.config_entries.flow.async_configure(result["flow_id"], {})
    assert result["step_id"] == "token"
    with no_setup():
        result = await hass.config_entries.flow.async_configure(result["flow_id"], {CONF_TOKEN: token})
    assert result["type"] is FlowResultType.CREATE_ENTRY
    assert result["title"] == "Raincheck"
    assert result["data"][CONF_TOKEN] == token


async def test_the_add_on_discovery_without_a_uuid_is_ignored(hass: HomeAssistant) -> None:
    discovery = HassioServiceInfo(
        config={"host": "127.0.0.1", "port": 8099}, name="Raincheck", slug="raincheck", uuid="x"
    )
    result = await hass.config_entries.flow.async_init(
        DOMAIN, context={"source": config_entries.SOURCE_HASSIO}, data=discovery
    )
    assert result["type"] is FlowResultType.ABORT
    assert result["reason"] == "no_install_id"


async def test_reauth_says_cannot_connect_and_refuses_another_install(
    hass: HomeAssistant, demo: Raincheck
) -> None:
    from pytest_homeassistant_custom_component.common import MockConfigEntry

    # Nothing listens at the entry's address: the token cannot be checked.
    entry = MockConfigEntry(
        domain=DOMAIN, unique_id="another-install", data={CONF_HOST: "127.0.0.1", CONF_PORT: free_port()}
    )
    entry.add_to_hass(hass)
    result = await entry.start_reauth_flow(hass)
    assert result["step_id"] == "reauth_confirm"
    result = await hass.config_entries.flow.async_configure(result["flow_id"], {CONF_TOKEN: "t"})
    assert result["errors"] == {"base": "cannot_connect"}

    # An entry whose address now answers with a different install is not given its token.
    moved = MockConfigEntry(
        domain=DOMAIN, unique_id="yet-another", data={CONF_HOST: "127.0.0.1", CONF_PORT: demo.port}
    )
    moved.add_to_hass(hass)
    result = await moved.start_reauth_flow(hass)
    result = await hass.config_entries.flow.async_configure(result["flow_id"], {CONF_TOKEN: "t"})
    assert result["type"] is FlowResultType.ABORT
    assert result["reason"] == "wrong_install"
    assert CONF_TOKEN not in moved.data


async def test_reconfigure_to_an_address_with_nothing_says_cannot_connect(
    hass: HomeAssistant, demo: Raincheck
) -> None:
    from pytest_homeassistant_custom_component.common import MockConfigEntry

    entry = MockConfigEntry(
        domain=DOMAIN, unique_id=uuid_of(demo), data={CONF_HOST: "127.0.0.1", CONF_PORT: demo.port}
    )
    entry.add_to_hass(hass)
    result = await entry.start_reconfigure_flow(hass)
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {CONF_HOST: "127.0.0.1", CONF_PORT: free_port()}
    )
    assert result["type"] is FlowResultType.FORM
    assert result["errors"] == {"base": "cannot_connect"}
    assert entry.data[CONF_PORT] == demo.port
