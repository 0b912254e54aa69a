"""A small client of the Raincheck REST API (spec section 4)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
import json
from typing import Any

import aiohttp

from .const import API_PREFIX, FEED_READ_TIMEOUT_S, SUPPORTED_API_MAJOR

REQUEST_TIMEOUT = aiohttp.ClientTimeout(total=15)


class RaincheckError(Exception):
    """Anything that went wrong talking to Raincheck."""


class RaincheckConnectionError(RaincheckError):
    """The service could not be reached or answered garbage."""


class RaincheckAuthError(RaincheckError):
    """401: the token is missing, wrong or revoked."""


class RaincheckApiError(RaincheckError):
    """The service refused a request; `code` is its stable machine code (spec 7)."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


class UnsupportedApiError(RaincheckError):
    """The service speaks an API major this integration does not."""

    def __init__(self, api_version: str) -> None:
        super().__init__(f"API {api_version} is not supported")
        self.api_version = api_version


@dataclass(frozen=True, slots=True)
class SseEvent:
    """One Server-Sent Event."""

    event: str
    data: str


def api_major(api_version: str) -> int | None:
    """The major number of a SemVer string, None when unreadable."""
    head = api_version.split(".", 1)[0]
    return int(head) if head.isdigit() else None


class RaincheckClient:
    """Talks to one Raincheck install at host:port."""

    def __init__(
        self, session: aiohttp.ClientSession, host: str, port: int, token: str | None = None
    ) -> None:
        self._session = session
        self.host = host
        self.port = port
        self.token = token or None

    @property
    def base_url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    def _headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}

    async def _request(self, method: str, path: str, body: Any = None) -> dict[str, Any]:
        url = f"{self.base_url}{API_PREFIX}{path}"
        try:
            async with self._session.request(
                method, url, json=body, headers=self._headers(), timeout=REQUEST_TIMEOUT
            ) as response:
                if response.status == 401:
                    raise RaincheckAuthError("unauthorized")
                try:
                    payload = await response.json(content_type=None)
                except (json.JSONDecodeError, aiohttp.ContentTypeError) as err:
                    raise RaincheckConnectionError(f"{url} answered no JSON") from err
                if response.status >= 400:
                    payload = payload if isinstance(payload, dict) else {}
                    raise RaincheckApiError(
                        response.status,
                        str(payload.get("code") or payload.get("error") or "error"),
                        str(payload.get("error") or payload.get("message") or response.reason),
                    )
                if not isinstance(payload, dict):
                    # Every resource the integration reads or writes answers an object.
                    raise RaincheckConnectionError(f"{url} answered no JSON object")
                return payload
        except (aiohttp.ClientError, TimeoutError) as err:
            raise RaincheckConnectionError(f"{url}: {err}") from err

    async def info(self) -> dict[str, Any]:
        """GET /info (public); refuses an unsupported API major."""
        info = await self._request("GET", "/info")
        if api_major(str(info.get("api_version", ""))) != SUPPORTED_API_MAJOR:
            raise UnsupportedApiError(str(info.get("api_version")))
        return info

    async def session_user(self) -> dict[str, Any]:
        """GET /auth/session: proves the token (401 when it is not valid)."""
        return await self._request("GET", "/auth/session")

    async def manifest(self) -> dict[str, Any]:
        return await self._request("GET", "/sensors/manifest")

    async def irrigation_snapshot(self) -> dict[str, Any]:
        return await self._request("GET", "/irrigation/snapshot")

    async def forecast_snapshot(self) -> dict[str, Any]:
        return await self._request("GET", "/forecast/snapshot")

    async def action(self, body: dict[str, Any]) -> dict[str, Any]:
        """POST /irrigation/action (spec 4.4)."""
        return await self._request("POST", "/irrigation/action", body)

    async def command(self, key: str, payload: str) -> dict[str, Any]:
        """POST /sensors/manifest/command: an entity's command, as its MQTT payload."""
        return await self._request("POST", "/sensors/manifest/command", {"key": key, "payload": payload})

    async def claim(self, claimed: bool) -> dict[str, Any]:
        """PUT /ha/claim: this install's entities come from the integration, not MQTT discovery."""
        return await self._request("PUT", "/ha/claim", {"claimed": claimed})

    async def events(self, feed: str) -> AsyncIterator[SseEvent]:
        """The events of one SSE feed until it ends; raises like the other calls."""
        url = f"{self.base_url}{API_PREFIX}{feed}"
        timeout = aiohttp.ClientTimeout(total=None, connect=15, sock_read=FEED_READ_TIMEOUT_S)
        headers = {**self._headers(), "Accept": "text/event-stream"}
        try:
            async with self._session.get(url, headers=headers, timeout=timeout) as response:
                if response.status == 401:
                    raise RaincheckAuthError("unauthorized")
                if response.status != 200:
                    raise RaincheckConnectionError(f"{url} answered {response.status}")
                event, data = "message", list[str]()
                async for raw in response.content:
                    line = raw.decode("utf-8").rstrip("\r\n")
                    if not line:
                        if data:
                            yield SseEvent(event, "\n".join(data))
                        event, data = "message", list[str]()
                    elif line.startswith(":"):
                        continue
                    else:
                        field, _, value = line.partition(":")
                        value = value.removeprefix(" ")
                        if field == "event":
                            event = value
                        elif field == "data":
                            data.append(value)
        except (aiohttp.ClientError, TimeoutError) as err:
            raise RaincheckConnectionError(f"{url}: {err}") from err
