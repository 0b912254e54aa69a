"""A real Raincheck process for the integration tests: the built service
(dist/, `npm run build`) started through bin/raincheck on 127.0.0.1, on a
free port, in its own data folder."""

from __future__ import annotations

from dataclasses import dataclass, field
import json
import os
from pathlib import Path
import shutil
import socket
import subprocess
import tempfile
import time
from typing import Any
import urllib.error
import urllib.request

import pytest_socket

ROOT = Path(__file__).resolve().parents[2]
LAUNCHER = ROOT / "bin" / "raincheck"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class Raincheck:
    """One running install; `request` is for fixture code outside the event loop."""

    port: int
    data_dir: Path
    env: dict[str, str]
    process: subprocess.Popen[bytes] | None = None
    cookies: dict[str, str] = field(default_factory=dict)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}/api/v1"

    def start(self) -> Raincheck:
        env = {
            **os.environ,
            "RAINCHECK_DATA_DIR": str(self.data_dir),
            "PORT": str(self.port),
            "HOST": "127.0.0.1",
            "LOG_LEVEL": "warn",
            "RAINCHECK_MDNS": "0",
            "LAT": "40.7",
            "LON": "-74.0",
            **self.env,
        }
        env.pop("RAINCHECK_CONFIG", None)
        self.process = subprocess.Popen(
            [str(LAUNCHER)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                err = self.process.stderr.read().decode() if self.process.stderr else ""
                raise RuntimeError(f"raincheck exited with {self.process.returncode}: {err[-2000:]}")
            try:
                if self.request("GET", "/health")[0] == 200:
                    return self
            except (urllib.error.URLError, ConnectionError):
                pass
            time.sleep(0.1)
        raise RuntimeError("raincheck did not become healthy")

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.process and self.process.stderr:
            self.process.stderr.close()
        self.process = None

    def request(
        self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
    ) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        all_headers = {"content-type": "application/json"} if data is not None else {}
        if self.cookies:
            all_headers["cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        all_headers.update(headers or {})
        req = urllib.request.Request(f"{self.base}{path}", data=data, method=method, headers=all_headers)
        try:
            with urllib.request.urlopen(req, timeout=15) as response:
                status, raw, head = response.status, response.read(), response.headers
        except urllib.error.HTTPError as err:
            status, raw, head = err.code, err.read(), err.headers
        for cookie in head.get_all("set-cookie") or []:
            name, _, rest = cookie.partition("=")
            self.cookies[name] = rest.split(";", 1)[0]
        try:
            return status, json.loads(raw) if raw else None
        except json.JSONDecodeError:
            return status, raw.decode()


def start_raincheck(env: dict[str, str] | None = None, config_toml: str | None = None) -> Raincheck:
    # Module-scoped processes start before a test's socket_enabled fixture runs.
    pytest_socket.enable_socket()
    data_dir = Path(tempfile.mkdtemp(prefix="raincheck-ha-"))
    if config_toml is not None:
        (data_dir / "config.toml").write_text(config_toml)
    return Raincheck(port=free_port(), data_dir=data_dir, env=env or {}).start()


def remove(instance: Raincheck) -> None:
    instance.stop()
    shutil.rmtree(instance.data_dir, ignore_errors=True)


AUTH_REQUIRED_CONFIG = """schema_version = 2
[deployment.location]
lat = 40.7
lon = -74.0
[auth]
mode = "required"
"""


def owner_token(instance: Raincheck, name: str = "home-assistant") -> tuple[str, str]:
    """Create the owner (first time), sign in, and mint an API token: (token, token id)."""
    instance.request("POST", "/auth/setup", {"username": "owner", "password": "correct horse battery"})
    status, _ = instance.request(
        "POST", "/auth/login", {"username": "owner", "password": "correct horse battery"}
    )
    assert status == 200, status
    status, body = instance.request("POST", "/auth/tokens", {"name": name})
    assert status in (200, 201), (status, body)
    _, listing = instance.request("GET", "/auth/tokens")
    tokens = listing["tokens"] if isinstance(listing, dict) else listing
    token_id = next(t["id"] for t in tokens if t["name"] == name)
    return body["token"], token_id
