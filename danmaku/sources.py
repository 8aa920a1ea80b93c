"""open_source(): the one factory that turns a source config into a running connector."""

from __future__ import annotations

from danmaku.config import (
    BilibiliOpenSource,
    BilibiliWebSource,
    DouyinPushSource,
    DouyinWebSource,
    GroupSource,
    KuaishouWebSource,
    RedisStreamSource,
    ReplaySource,
    SourceConfig,
    TwitchSource,
    WebhookSource,
    YouTubeSource,
)
from danmaku.source import Source, SourceHealth

__all__ = ["Source", "SourceHealth", "open_source"]


def open_source(cfg: SourceConfig, room_id: str) -> Source:
    """A Source for this config; nothing connects until `events()` is iterated. Call inside a running loop."""
    if isinstance(cfg, GroupSource):
        from danmaku.group import SourceGroup

        group = cfg.name or cfg.type
        # Members show in metrics and logs as <group>/<member>, so two groups' members never share a label.
        members = [open_source(m.model_copy(update={"name": f"{group}/{m.name or m.type}"}), room_id)
                   for m in cfg.members]
        return SourceGroup(cfg, room_id, members)
    if isinstance(cfg, BilibiliWebSource):
        from danmaku.bilibili.web import BilibiliWebClient

        return BilibiliWebClient(cfg, room_id)
    if isinstance(cfg, BilibiliOpenSource):
        from danmaku.bilibili.open import BilibiliOpenClient

        return BilibiliOpenClient(cfg, room_id)
    if isinstance(cfg, DouyinWebSource):
        from danmaku.douyin.webcast import DouyinWebClient

        return DouyinWebClient(cfg, room_id)
    if isinstance(cfg, DouyinPushSource):
        from danmaku.douyin.push import DouyinPushReceiver

        return DouyinPushReceiver(cfg, room_id)
    if isinstance(cfg, TwitchSource):
        from danmaku.twitch.client import TwitchChatClient

        return TwitchChatClient(cfg, room_id)
    if isinstance(cfg, YouTubeSource):
        from danmaku.youtube.client import YouTubeLiveClient

        return YouTubeLiveClient(cfg, room_id)
    if isinstance(cfg, KuaishouWebSource):
        from danmaku.kuaishou.webcast import KuaishouWebClient

        return KuaishouWebClient(cfg, room_id)
    if isinstance(cfg, WebhookSource):
        from danmaku.generic import WebhookReceiver

        return WebhookReceiver(cfg, room_id)
    if isinstance(cfg, RedisStreamSource):
        from danmaku.generic import RedisStreamConsumer

        return RedisStreamConsumer(cfg, room_id)
    if isinstance(cfg, ReplaySource):
        from danmaku.generic import ReplayPlayer

        return ReplayPlayer(cfg, room_id)
    raise TypeError(f"no connector for {type(cfg).__name__}")
