"""Twitch chat against a loopback IRC WebSocket: login, every message kind with its money, hostile lines,
RECONNECT, PING/PONG both ways, a silent server, and a user token that is validated and refreshed."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from dm_fakes import Collector, until
from fake_twitch import CHANNEL, TwitchFake, privmsg, usernotice

from danmaku.config import TwitchSource
from danmaku.event import EventKind, Money
from danmaku.money import MoneyConfig
from danmaku.sources import open_source
from danmaku.twitch.irc import parse_line, strip_cheermotes, unescape


@pytest.fixture
async def fake() -> AsyncIterator[TwitchFake]:
    f = TwitchFake()
    await f.start()
    yield f
    await f.stop()


def cfg_for(fake: TwitchFake, **kw: Any) -> TwitchSource:
    base: dict[str, Any] = {"type": "twitch", "channel": "#SomeStreamer", "url": fake.ws_url, "auth_base": fake.base,
                            "reconnect_delay_s": 0.05, "reconnect_max_delay_s": 0.2, "silent_after_s": None}
    base.update(kw)
    cfg = TwitchSource.model_validate(base)
    cfg.in_room(MoneyConfig(rates={"USD": "7.2"}))
    return cfg


def test_irc_lines_parse_with_escaped_tags() -> None:
    m = parse_line(r"@badge-info=subscriber/14;display-name=A\sB;system-msg=5\sgifts\:\sthanks\\;x= :a!a@a.tmi.twitch.tv "
                   "PRIVMSG #chan :hello : world")
    assert m.command == "PRIVMSG" and m.params == ["#chan", "hello : world"] and m.nick == "a"
    assert m.tags["display-name"] == "A B" and m.tags["system-msg"] == "5 gifts; thanks\\" and m.tags["x"] == ""
    assert parse_line("PING :tmi.twitch.tv").trailing == "tmi.twitch.tv"
    assert unescape("end\\") == "end" and unescape(r"a\qb") == "aqb"
    assert strip_cheermotes("Cheer100 great stream Kappa400", 500) == "great stream"
    assert strip_cheermotes("top10 moment cheer5", 5) == "top10 moment"


async def test_anonymous_login_and_every_kind(fake: TwitchFake) -> None:
    src = open_source(cfg_for(fake), "tw-a")
    col = Collector(src)
    conn = await fake.wait_conns(1)
    assert conn.lines[0] == "CAP REQ :twitch.tv/tags twitch.tv/commands"
    assert conn.lines[1] == "PASS SCHMOOPIIE" and conn.lines[2].startswith("NICK justinfan")
    assert conn.lines[3] == f"JOIN #{CHANNEL}"
    await until(lambda: src.health().connected)
    await fake.send(
        privmsg("hello there", mid="m1", badges="subscriber/12", badge_info="subscriber/14"),
        privmsg("\x01ACTION waves\x01", login="v2", name="主播粉丝", uid="1002", mid="m2"),
        privmsg("Cheer100 what's the price? Cheer400", login="rich", name="Rich", uid="2001", mid="c1", bits=500),
        usernotice("sub", login="s1", name="S1", uid="3001", mid="n1", sub_plan="1000", cumulative_months=1),
        usernotice("resub", login="s2", name="S2", uid="3002", mid="n2", text="6 months!", sub_plan="2000",
                   cumulative_months=6, streak_months=3),
        usernotice("subgift", login="g1", name="G1", uid="4001", mid="n3", sub_plan="1000", gift_months=3,
                   recipient_display_name="Lucky", recipient_id="5001"),
        usernotice("submysterygift", login="g2", name="G2", uid="4002", mid="n4", sub_plan="3000",
                   mass_gift_count=2, community_gift_id="777", sender_count=10),
        usernotice("subgift", login="g2", name="G2", uid="4002", mid="n5", sub_plan="3000",
                   community_gift_id="777", recipient_display_name="R1"),
        usernotice("subgift", login="g2", name="G2", uid="4002", mid="n6", sub_plan="3000",
                   community_gift_id="777", recipient_display_name="R2"),
        usernotice("raid", login="raider", name="Raider", uid="6001", mid="n7", viewerCount=42,
                   displayName="Raider"),
        usernotice("submysterygift", login="g3", name="G3", uid="4003", mid="n8", sub_plan="Prime",
                   mass_gift_count=1),
        f"@login=rich;target-msg-id=c1;tmi-sent-ts=1 :tmi.twitch.tv CLEARMSG #{CHANNEL} :Cheer100 what's the price?",
        f"@ban-duration=600;room-id=1;target-user-id=9 :tmi.twitch.tv CLEARCHAT #{CHANNEL} :troll",
        ":tmi.twitch.tv WALLOPS :brand new command",
    )
    evs = await col.wait_for(13)
    kinds = [e.kind for e in evs]
    assert kinds == [EventKind.COMMENT, EventKind.COMMENT, EventKind.SUPER_CHAT, EventKind.GUARD, EventKind.GUARD,
                     EventKind.GUARD, EventKind.GUARD, EventKind.SYSTEM, EventKind.SYSTEM, EventKind.SYSTEM,
                     EventKind.GUARD, EventKind.SYSTEM, EventKind.SYSTEM]
    hello, action, cheer, sub, resub, gift, mystery, r1, r2, raid, prime, clear, ban = evs
    assert (hello.text, hello.msg_id, hello.platform, hello.room) == ("hello there", "tw:m1", "twitch", "tw-a")
    assert hello.user is not None and (hello.user.name, hello.user.medal_name, hello.user.medal_level) == \
        ("Viewer1", "subscriber", 14)
    assert action.text == "waves" and action.extra["action"] and action.user.name == "主播粉丝"  # type: ignore[union-attr]
    assert cheer.text == "what's the price?" and cheer.money == Money("twitch_bit", 500)
    assert cheer.value_milli == 36_000 and cheer.currency == "CNY"  # $5.00 × 7.2
    assert sub.money == Money("twitch_sub_tier1", 1) and sub.value_milli == 35_928  # $4.99 × 7.2
    assert resub.text == "6 months!" and resub.extra["months"] == 6 and resub.value_milli == 71_928
    assert gift.money == Money("twitch_sub_tier1", 3) and gift.extra["recipient"] == "Lucky"
    assert mystery.money == Money("twitch_sub_tier3", 2) and mystery.value_milli == 2 * 179_928
    assert r1.extra["type"] == r2.extra["type"] == "subgift_recipient" and r1.money is None and r1.value_milli == 0
    assert raid.extra["type"] == "raid" and raid.extra["viewers"] == 42
    assert prime.money == Money("twitch_sub_prime", 1)
    assert clear.extra == {"type": "sc_delete", "ids": ["c1"], "login": "rich"}  # a deleted cheer is withdrawn
    assert ban.extra == {"type": "user_ban", "login": "troll", "user_id": "9", "duration_s": 600}
    assert src.health().unknown_commands == 1

    await fake.ping()
    await until(lambda: conn.pongs == [":tmi.twitch.tv"])
    await col.close()


async def test_malformed_and_hostile_lines_are_counted_and_survived(fake: TwitchFake) -> None:
    src = open_source(cfg_for(fake), "tw-b")
    col = Collector(src)
    await fake.wait_conns(1)
    await until(lambda: src.health().connected)
    await fake.send_frame("@only-tags-no-command\r\n:prefix.only\r\n\r\n")
    await fake.send_frame(b"\x00\xff binary garbage")
    await fake.send_frame(privmsg("x" * 20_000) + "\r\n")
    await fake.send(privmsg("bad bits", bits="lots"),  # type: ignore[arg-type]
                    f":a!a@a PRIVMSG #{CHANNEL}",
                    "@id=1 :tmi.twitch.tv CLEARMSG #chan :no target",
                    "B@D!COMMAND x", "\u2028 PRIVMSG")
    await fake.send(privmsg("still here", mid="ok1"))
    evs = await col.wait_for(1)
    assert [e.text for e in evs] == ["still here"]
    errors = src.health().decode_errors
    assert errors == {"irc": 3, "binary_frame": 1, "too_long": 1, "shape": 4}, errors
    assert src.health().connected and src.health().reconnects == 0
    await col.close()


async def test_reconnect_notice_reconnects_at_once(fake: TwitchFake) -> None:
    # A long reconnect delay: only the RECONNECT path can bring the next session within a second.
    src = open_source(cfg_for(fake, reconnect_delay_s=30, reconnect_max_delay_s=60), "tw-c")
    col = Collector(src)
    await fake.wait_conns(1)
    await fake.send(privmsg("before", mid="b1"), ":tmi.twitch.tv RECONNECT")
    second = await fake.wait_conns(2, timeout=3)
    await until(lambda: src.health().connected)
    await fake.send(privmsg("after", mid="a1"))
    evs = await col.wait_for(2)
    assert [e.text for e in evs] == ["before", "after"] and second.joined
    assert src.reconnect_notices == 1 and src.health().reconnects == 1  # type: ignore[attr-defined]
    await col.close()


async def test_silent_server_is_detected_and_recovered(fake: TwitchFake) -> None:
    src = open_source(cfg_for(fake, silent_after_s=0.4, reconnect_delay_s=0.05), "tw-d")
    col = Collector(src)
    seen: list[Any] = []
    src.add_health_listener(seen.append)
    await fake.wait_conns(1)
    await fake.wait_conns(2, timeout=5)  # joined, then nothing: reconnected
    assert any(h.silent for h in seen) and any("connected but silent" in h.last_warning for h in seen)
    await until(lambda: src.health().connected and not src.health().silent)
    await fake.send(privmsg("back", mid="k1"))
    assert (await col.wait_for(1))[0].text == "back"
    assert src.health().healthy
    await col.close()


async def test_a_dead_connection_is_found_by_ping(fake: TwitchFake) -> None:
    fake.answer_pings = False
    src = open_source(cfg_for(fake, ping_s=0.2, pong_timeout_s=0.2), "tw-e")
    col = Collector(src)
    seen: list[Any] = []
    src.add_health_listener(seen.append)
    await fake.wait_conns(2, timeout=5)
    assert fake.conns[0].pings == [":tmi.twitch.tv"]
    assert any("no PONG within 0.2 s" in h.last_warning for h in seen)
    await col.close()


async def test_user_token_is_validated_and_refreshed(fake: TwitchFake) -> None:
    fake.refresh_tokens.add("refresh-0")
    src = open_source(cfg_for(fake, token="oauth:expired", refresh_token="refresh-0", client_id=TwitchFake.CLIENT_ID,
                              client_secret=TwitchFake.CLIENT_SECRET), "tw-f")
    col = Collector(src)
    conn = await fake.wait_conns(1)
    assert fake.validations[:2] == ["expired", "fresh-1"]
    assert conn.lines[1] == "PASS oauth:fresh-1" and conn.lines[2] == "NICK botacct"
    # Twitch later refuses the token at login (revoked): it is refreshed again before the next connection.
    del fake.valid_tokens["fresh-1"]
    await conn.ws.close()
    second = await fake.wait_conns(3, timeout=5)
    assert fake.conns[1].lines[1] == "PASS oauth:fresh-1"  # refused at login …
    assert second.lines[1] == "PASS oauth:fresh-2" and fake.refreshes[-1]["refresh_token"] == "refresh-2"  # … renewed
    await col.close()


async def test_a_token_that_cannot_be_refreshed_falls_back_to_anonymous(fake: TwitchFake) -> None:
    src = open_source(cfg_for(fake, token="revoked", login="botacct"), "tw-g")
    col = Collector(src)
    conn = await fake.wait_conns(1)
    assert conn.lines[1] == "PASS SCHMOOPIIE" and conn.nick.startswith("justinfan")
    await until(lambda: src.health().connected)
    h = src.health()
    assert "anonymously" in h.last_warning and h.healthy
    await fake.send(privmsg("read anyway", mid="r1"))
    assert (await col.wait_for(1))[0].text == "read anyway"
    assert "anonymously" in src.health().last_warning  # lasting: the operator must renew the token
    await col.close()


def test_config_checks() -> None:
    with pytest.raises(ValueError, match="client_id"):
        TwitchSource.model_validate({"type": "twitch", "channel": "a_b", "token": "t", "refresh_token": "r"})
    with pytest.raises(ValueError, match="channel"):
        TwitchSource.model_validate({"type": "twitch", "channel": "no spaces"})
    assert TwitchSource.model_validate({"type": "twitch", "channel": "#MiXed"}).channel == "mixed"
