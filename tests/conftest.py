"""Offline by default: every test runs with socket connections refused."""

from __future__ import annotations

import os
import socket

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("default", max_examples=60, deadline=None)
settings.register_profile(
    "ci", max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

_PROVIDER_KEYS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--run-online", action="store_true", help="run tests marked online")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--run-online"):
        return
    skip = pytest.mark.skip(reason="needs --run-online")
    for item in items:
        if "online" in item.keywords:
            item.add_marker(skip)


class NetworkBlockedError(RuntimeError):
    """A test tried to open a network connection."""


def _refuse(*_args: object, **_kwargs: object) -> None:
    raise NetworkBlockedError("network access is blocked in tests (offline by contract)")


@pytest.fixture(autouse=True)
def _offline(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    if "online" not in request.keywords:
        # Patch connect, not the socket class: asyncio's self-pipe needs socket.socket.
        monkeypatch.setattr(socket.socket, "connect", _refuse)
        monkeypatch.setattr(socket.socket, "connect_ex", _refuse)
        monkeypatch.setenv("HF_HUB_OFFLINE", "1")
        monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
        for key in _PROVIDER_KEYS:
            monkeypatch.delenv(key, raising=False)
