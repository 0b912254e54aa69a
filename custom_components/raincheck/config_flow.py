"""Config flow: manual, zeroconf and add-on discovery; token; reauth; reconfigure; options."""

from __future__ import annotations

from collections.abc import Mapping
import logging
from typing import Any

import voluptuous as vol

from homeassistant.config_entries import (
    ConfigEntry,
    ConfigFlow,
    ConfigFlowResult,
    OptionsFlow,
)
from homeassistant.const import CONF_HOST, CONF_PORT, CONF_TOKEN
from homeassistant.core import callback
from homeassistant.helpers.aiohttp_client import async_get_clientsession

from .api import (
    RaincheckAuthError,
    RaincheckClient,
    RaincheckConnectionError,
    RaincheckError,
    UnsupportedApiError,
)
from .const import (
    DEFAULT_PORT,
    DOMAIN,
    OPT_CALENDAR,
    OPT_DIAGNOSTIC_ENTITIES,
    OPT_WEATHER,
)

try:  # HA 2025.1 moved the discovery info classes to helpers.service_info.
    from homeassistant.helpers.service_info.hassio import HassioServiceInfo
    from homeassistant.helpers.service_info.zeroconf import ZeroconfServiceInfo
except ImportError:  # pragma: no cover - older HA
    from homeassistant.components.hassio import HassioServiceInfo  # type: ignore[no-redef]
    from homeassistant.components.zeroconf import ZeroconfServiceInfo  # type: ignore[no-redef]

_LOGGER = logging.getLogger(__name__)

USER_SCHEMA = vol.Schema(
    {
        vol.Required(CONF_HOST): str,
        vol.Required(CONF_PORT, default=DEFAULT_PORT): vol.All(int, vol.Range(min=1, max=65535)),
    }
)
TOKEN_SCHEMA = vol.Schema({vol.Required(CONF_TOKEN): str})


class CannotConnect(Exception):
    """Mapped to the `cannot_connect` error."""


async def probe(flow: ConfigFlow, host: str, port: int, token: str | None) -> tuple[dict[str, Any], bool]:
    """/info, then /auth/session when the install wants credentials and a token was given.

    Returns the info and whether the token (if any was needed) was accepted.
    Raises UnsupportedApiError or CannotConnect.
    """
    client = RaincheckClient(async_get_clientsession(flow.hass), host, port, token)
    info: dict[str, Any] = {}
    try:
        info = await client.info()
        if not info.get("auth_required"):
            return info, True
        if not token:
            return info, False
        await client.session_user()
    except RaincheckAuthError:
        return info, False
    except UnsupportedApiError:
        raise
    except RaincheckConnectionError as err:
        raise CannotConnect from err
    except RaincheckError as err:
        raise CannotConnect from err
    return info, True


class RaincheckConfigFlow(ConfigFlow, domain=DOMAIN):
    """Set up one Raincheck install; its unique id is the install uuid from /info."""

    VERSION = 1

    def __init__(self) -> None:
        self._host: str | None = None
        self._port: int = DEFAULT_PORT
        self._info: dict[str, Any] = {}
        self._addon_name: str | None = None

    @staticmethod
    @callback
    def async_get_options_flow(config_entry: ConfigEntry) -> OptionsFlow:
        return RaincheckOptionsFlow()

    # Manual ---------------------------------------------------------------

    async def async_step_user(self, user_input: dict[str, Any] | None = None) -> ConfigFlowResult:
        errors: dict[str, str] = {}
        placeholders: dict[str, str] = {}
        if user_input is not None:
            self._host, self._port = user_input[CONF_HOST].strip(), user_input[CONF_PORT]
            result = await self._connect(None, errors, placeholders)
            if result is not None:
                return result
        return self.async_show_form(
            step_id="user",
            data_schema=self.add_suggested_values_to_schema(USER_SCHEMA, user_input),
            errors=errors,
            description_placeholders=placeholders,
        )

    async def _connect(
        self, token: str | None, errors: dict[str, str], placeholders: dict[str, str]
    ) -> ConfigFlowResult | None:
        """Probe; on success go to the token step or create the entry. None: show the form again."""
        assert self._host is not None
        try:
            info, authorized = await probe(self, self._host, self._port, token)
        except UnsupportedApiError as err:
            errors["base"] = "unsupported_api"
            placeholders["api_version"] = err.api_version
            return None
        except CannotConnect:
            errors["base"] = "cannot_connect"
            return None
        uuid = info.get("uuid")
        if not uuid:
            return self.async_abort(reason="no_install_id")
        self._info = info
        await self.async_set_unique_id(str(uuid))
        # A discovery step already moved a known install to its new address.
        self._abort_if_unique_id_configured()
        if not authorized:
            if token is not None:
                errors["base"] = "invalid_auth"
                return None
            return await self.async_step_token()
        return self._create(token)

    def _create(self, token: str | None) -> ConfigFlowResult:
        data: dict[str, Any] = {CONF_HOST: self._host, CONF_PORT: self._port}
        if token:
            data[CONF_TOKEN] = token
        return self.async_create_entry(title=self._title(), data=data)

    def _title(self) -> str:
        return f"Raincheck ({self._host})" if self._addon_name is None else self._addon_name

    async def async_step_token(self, user_input: dict[str, Any] | None = None) -> ConfigFlowResult:
        """The install has auth on: ask for an API token, checked against /auth/session."""
        errors: dict[str, str] = {}
        placeholders: dict[str, str] = {"host": f"{self._host}:{self._port}"}
        if user_input is not None:
            result = await self._connect(user_input[CONF_TOKEN].strip(), errors, placeholders)
            if result is not None:
                return result
        return self.async_show_form(
            step_id="token", data_schema=TOKEN_SCHEMA, errors=errors, description_placeholders=placeholders
        )

    # Zeroconf -------------------------------------------------------------

    async def async_step_zeroconf(self, discovery_info: ZeroconfServiceInfo) -> ConfigFlowResult:
        uuid = discovery_info.properties.get("uuid")
        if not uuid:
            return self.async_abort(reason="no_install_id")
        host = str(discovery_info.ip_address)
        await self.async_set_unique_id(uuid)
        # A known install at a new address follows it.
        self._abort_if_unique_id_configured(updates={CONF_HOST: host, CONF_PORT: discovery_info.port})
        self._host, self._port = host, int(discovery_info.port or DEFAULT_PORT)
        self.context["title_placeholders"] = {"name": f"Raincheck ({host})"}
        return await self.async_step_discovery_confirm()

    async def async_step_discovery_confirm(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        errors: dict[str, str] = {}
        placeholders: dict[str, str] = {"host": f"{self._host}:{self._port}"}
        if user_input is not None:
            result = await self._connect(None, errors, placeholders)
            if result is not None:
                return result
        self._set_confirm_only()
        return self.async_show_form(
            step_id="discovery_confirm", errors=errors, description_placeholders=placeholders
        )

    # Add-on (Supervisor discovery) ----------------------------------------

    async def async_step_hassio(self, discovery_info: HassioServiceInfo) -> ConfigFlowResult:
        config = discovery_info.config
        uuid = config.get("uuid")
        if not uuid or not config.get("host") or not config.get("port"):
            return self.async_abort(reason="no_install_id")
        await self.async_set_unique_id(str(uuid))
        self._abort_if_unique_id_configured(
            updates={CONF_HOST: config["host"], CONF_PORT: int(config["port"])}
        )
        self._host, self._port = str(config["host"]), int(config["port"])
        self._addon_name = discovery_info.name or "Raincheck"
        self.context["title_placeholders"] = {"name": self._addon_name}
        return await self.async_step_hassio_confirm()

    async def async_step_hassio_confirm(self, user_input: dict[str, Any] | None = None) -> ConfigFlowResult:
        errors: dict[str, str] = {}
        placeholders = {"addon": self._addon_name or "Raincheck"}
        if user_input is not None:
            result = await self._connect(None, errors, placeholders)
            if result is not None:
                return result
        return self.async_show_form(
            step_id="hassio_confirm", errors=errors, description_placeholders=placeholders
        )

    # Reauth ---------------------------------------------------------------

    async def async_step_reauth(self, entry_data: Mapping[str, Any]) -> ConfigFlowResult:
        self._host, self._port = entry_data[CONF_HOST], entry_data[CONF_PORT]
        return await self.async_step_reauth_confirm()

    async def async_step_reauth_confirm(self, user_input: dict[str, Any] | None = None) -> ConfigFlowResult:
        errors: dict[str, str] = {}
        placeholders = {"host": f"{self._host}:{self._port}"}
        if user_input is not None:
            token = user_input[CONF_TOKEN].strip()
            try:
                info, authorized = await probe(self, str(self._host), self._port, token)
            except UnsupportedApiError as err:
                errors["base"] = "unsupported_api"
                placeholders["api_version"] = err.api_version
            except CannotConnect:
                errors["base"] = "cannot_connect"
            else:
                entry = self._get_reauth_entry()
                if str(info.get("uuid")) != entry.unique_id:
                    return self.async_abort(reason="wrong_install")
                if authorized:
                    return self.async_update_reload_and_abort(entry, data_updates={CONF_TOKEN: token})
                errors["base"] = "invalid_auth"
        return self.async_show_form(
            step_id="reauth_confirm",
            data_schema=TOKEN_SCHEMA,
            errors=errors,
            description_placeholders=placeholders,
        )

    # Reconfigure ----------------------------------------------------------

    async def async_step_reconfigure(self, user_input: dict[str, Any] | None = None) -> ConfigFlowResult:
        entry = self._get_reconfigure_entry()
        errors: dict[str, str] = {}
        placeholders: dict[str, str] = {}
        if user_input is not None:
            host, port = user_input[CONF_HOST].strip(), user_input[CONF_PORT]
            try:
                info, authorized = await probe(self, host, port, entry.data.get(CONF_TOKEN))
            except UnsupportedApiError as err:
                errors["base"] = "unsupported_api"
                placeholders["api_version"] = err.api_version
            except CannotConnect:
                errors["base"] = "cannot_connect"
            else:
                await self.async_set_unique_id(str(info.get("uuid")))
                self._abort_if_unique_id_mismatch(reason="wrong_install")
                if not authorized:
                    errors["base"] = "invalid_auth"
                else:
                    return self.async_update_reload_and_abort(
                        entry, data_updates={CONF_HOST: host, CONF_PORT: port}
                    )
        return self.async_show_form(
            step_id="reconfigure",
            data_schema=self.add_suggested_values_to_schema(USER_SCHEMA, user_input or entry.data),
            errors=errors,
            description_placeholders=placeholders,
        )


class RaincheckOptionsFlow(OptionsFlow):
    """What to expose beyond the manifest's entities."""

    async def async_step_init(self, user_input: dict[str, Any] | None = None) -> ConfigFlowResult:
        if user_input is not None:
            return self.async_create_entry(data=user_input)
        options = self.config_entry.options
        schema = vol.Schema(
            {
                vol.Required(OPT_WEATHER, default=options.get(OPT_WEATHER, True)): bool,
                vol.Required(OPT_CALENDAR, default=options.get(OPT_CALENDAR, True)): bool,
                vol.Required(
                    OPT_DIAGNOSTIC_ENTITIES, default=options.get(OPT_DIAGNOSTIC_ENTITIES, True)
                ): bool,
            }
        )
        return self.async_show_form(step_id="init", data_schema=schema)
