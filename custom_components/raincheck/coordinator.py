"""Push coordinator: the three SSE feeds keep the data current; nothing polls.

Each feed sends a `snapshot` event on connect and on every change (spec 6.1).
The irrigation and forecast snapshots are kept as they arrive; any snapshot
also marks the sensors manifest stale, and one task reads it again (bursts
fold into one read), because the manifest carries every entity's state and
the entity inventory (zones added or removed). A feed that fails marks the
entities unavailable and reconnects with back-off; a 401 starts reauth.
Every task is created by the config entry, so unloading it cancels them.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field, replace
import json
import logging
from typing import Any

from homeassistant.config_entries import ConfigEntry
from homeassistant.core import HomeAssistant
from homeassistant.exceptions import ConfigEntryAuthFailed, ConfigEntryError
from homeassistant.helpers import issue_registry as ir
from homeassistant.helpers.update_coordinator import DataUpdateCoordinator, UpdateFailed

from .api import RaincheckAuthError, RaincheckClient, RaincheckError, UnsupportedApiError
from .const import (
    BACKOFF_FIRST_S,
    BACKOFF_MAX_S,
    DOMAIN,
    FEED_FORECAST,
    FEED_IRRIGATION,
    FEED_WEATHER,
    MANIFEST_DEBOUNCE_S,
)

_LOGGER = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class RaincheckData:
    """What the entities read: the latest of each resource."""

    info: dict[str, Any]
    entities: dict[str, dict[str, Any]]
    irrigation: dict[str, Any] | None = None
    forecast: dict[str, Any] | None = None
    manifest_epoch: int | None = field(default=None)


def index_entities(manifest: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {entity["key"]: entity for entity in manifest.get("entities", [])}


class RaincheckCoordinator(DataUpdateCoordinator[RaincheckData]):
    """Holds one install's data; fed by SSE after the first full read."""

    config_entry: ConfigEntry

    def __init__(self, hass: HomeAssistant, entry: ConfigEntry, client: RaincheckClient) -> None:
        super().__init__(
            hass, _LOGGER, config_entry=entry, name=f"{DOMAIN} {client.host}", update_interval=None
        )
        self.client = client
        self._manifest_stale = asyncio.Event()
        self._feeds_down: set[str] = set()
        self._reauth_started = False

    async def _async_update_data(self) -> RaincheckData:
        """The first full read (and any explicit refresh)."""
        try:
            info = await self.client.info()
            manifest = await self.client.manifest()
            irrigation = await self.client.irrigation_snapshot()
            forecast = await self.client.forecast_snapshot()
        except RaincheckAuthError as err:
            raise ConfigEntryAuthFailed("the token was refused") from err
        except UnsupportedApiError as err:
            # Raincheck was upgraded past what this integration speaks: retrying will not help.
            ir.async_create_issue(
                self.hass,
                DOMAIN,
                self._issue_id,
                is_fixable=False,
                severity=ir.IssueSeverity.ERROR,
                translation_key="unsupported_api",
                translation_placeholders={"api_version": err.api_version, "host": self.client.host},
            )
            raise ConfigEntryError(f"Raincheck speaks API {err.api_version}") from err
        except RaincheckError as err:
            raise UpdateFailed(str(err)) from err
        ir.async_delete_issue(self.hass, DOMAIN, self._issue_id)
        return RaincheckData(
            info=info,
            entities=index_entities(manifest),
            irrigation=irrigation,
            forecast=forecast,
            manifest_epoch=manifest.get("generated_epoch"),
        )

    @property
    def _issue_id(self) -> str:
        return f"unsupported_api_{self.config_entry.entry_id}"

    def start_push(self) -> None:
        """Start the feed and manifest tasks, owned by the config entry."""
        entry = self.config_entry
        for feed in (FEED_WEATHER, FEED_IRRIGATION, FEED_FORECAST):
            entry.async_create_background_task(
                self.hass, self._follow(feed), f"{DOMAIN} feed {feed} {entry.entry_id}"
            )
        entry.async_create_background_task(
            self.hass, self._refresh_manifest_when_stale(), f"{DOMAIN} manifest {entry.entry_id}"
        )

    async def _follow(self, feed: str) -> None:
        """Follow one feed forever: reconnect with back-off, stop on 401 (reauth)."""
        delay = BACKOFF_FIRST_S
        while True:
            try:
                async for event in self.client.events(feed):
                    if event.event != "snapshot":
                        continue
                    delay = BACKOFF_FIRST_S
                    self._on_snapshot(feed, json.loads(event.data))
                error: Exception = RaincheckError(f"{feed} ended")
            except RaincheckAuthError:
                self._start_reauth()
                return
            except (RaincheckError, ValueError) as err:
                error = err
            self._feed_down(feed, error)
            await asyncio.sleep(delay)
            delay = min(delay * 2, BACKOFF_MAX_S)

    def _on_snapshot(self, feed: str, snapshot: Any) -> None:
        was_down = bool(self._feeds_down)
        self._feeds_down.discard(feed)
        if was_down and not self._feeds_down:
            _LOGGER.info("Raincheck at %s is reachable again", self.client.host)
        if self.data is None:
            return
        if feed == FEED_IRRIGATION and isinstance(snapshot, dict):
            self.async_set_updated_data(replace(self.data, irrigation=snapshot))
        elif feed == FEED_FORECAST and isinstance(snapshot, dict):
            self.async_set_updated_data(replace(self.data, forecast=snapshot))
        elif was_down and not self._feeds_down:
            self.async_set_updated_data(self.data)
        self._manifest_stale.set()

    def _feed_down(self, feed: str, error: Exception) -> None:
        # The coordinator logs the error once as the entities turn unavailable.
        _LOGGER.debug("Raincheck feed %s lost: %s", feed, error)
        self._feeds_down.add(feed)
        self.async_set_update_error(error)

    def _start_reauth(self) -> None:
        if not self._reauth_started:
            self._reauth_started = True
            self.async_set_update_error(RaincheckAuthError("unauthorized"))
            self.config_entry.async_start_reauth(self.hass)

    async def _refresh_manifest_when_stale(self) -> None:
        while True:
            await self._manifest_stale.wait()
            await asyncio.sleep(MANIFEST_DEBOUNCE_S)
            self._manifest_stale.clear()
            try:
                manifest = await self.client.manifest()
            except RaincheckAuthError:
                self._start_reauth()
                return
            except RaincheckError as err:
                _LOGGER.debug("Raincheck manifest read failed: %s", err)
                continue
            if self.data is not None and not self._feeds_down:
                self.async_set_updated_data(
                    replace(
                        self.data,
                        entities=index_entities(manifest),
                        manifest_epoch=manifest.get("generated_epoch"),
                    )
                )
