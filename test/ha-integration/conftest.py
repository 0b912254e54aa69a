"""Fixtures: Home Assistant (pytest-homeassistant-custom-component) and real Raincheck processes."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
import sys
from typing import Any

import aiohttp
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # custom_components/raincheck
sys.path.insert(0, str(Path(__file__).parent))

from raincheck_process import Raincheck, remove, start_raincheck  # noqa: E402


@pytest.fixture(autouse=True)
def auto_enable_custom_integrations(enable_custom_integrations: Any) -> Iterator[None]:
    yield


@pytest.fixture(autouse=True)
def loopback_sockets(socket_enabled: Any) -> Iterator[None]:
    """Sockets on: the tests talk to real Raincheck processes (HA's plugin still allows
    connections to 127.0.0.1 only)."""
    yield


@pytest.fixture(scope="module")
def demo() -> Iterator[Raincheck]:
    """The demo install (six zones on a dry-run controller, auth off), one per test module."""
    instance = start_raincheck({"DEMO": "1"})
    yield instance
    remove(instance)


async def api(
    instance: Raincheck, method: str, path: str, body: Any = None, token: str | None = None
) -> tuple[int, Any]:
    """A request from inside the event loop (HA's tests forbid blocking I/O there)."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with aiohttp.ClientSession() as session:
        async with session.request(method, f"{instance.base}{path}", json=body, headers=headers) as resp:
            return resp.status, await resp.json(content_type=None)
