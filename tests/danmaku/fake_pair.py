"""The Twitch and YouTube fakes started together, for tests that read both chats at once."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from fake_twitch import TwitchFake
from fake_youtube import YouTubeFake


@contextlib.asynccontextmanager
async def twitch_and_youtube() -> AsyncIterator[tuple[TwitchFake, YouTubeFake]]:
    tw, yt = TwitchFake(), YouTubeFake()
    await tw.start()
    await yt.start()
    try:
        yield tw, yt
    finally:
        await tw.stop()
        await yt.stop()
