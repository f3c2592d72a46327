import asyncio
import socket

import pytest


def test_offline_fixture_refuses_connections() -> None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        with pytest.raises(RuntimeError, match="offline"):
            sock.connect(("127.0.0.1", 9))
    finally:
        sock.close()


def test_offline_fixture_keeps_asyncio_working() -> None:
    async def answer() -> int:
        await asyncio.sleep(0)
        return 42

    assert asyncio.run(answer()) == 42
