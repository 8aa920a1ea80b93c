"""`virtual-anchor tail` (the real CLI, in its own process) against the Twitch, YouTube and Kuaishou fakes at once:
every kind prints as a typed event with its exact value in the room's money table, hostile input is survived,
and a rate-limited YouTube, a RECONNECTing Twitch and a silent Kuaishou feed are reported and recover."""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import sys
import time
from pathlib import Path
from typing import Any

from fake_kuaishou import PRINCIPAL, KuaishouFake, comment, feed_push, gift, ks_user, like
from fake_twitch import TwitchFake, privmsg, usernotice
from fake_youtube import API_KEY, VIDEO_ID, YouTubeFake, gifting, new_member, super_chat, super_sticker, text

CLI = Path(sys.executable).parent / "virtual-anchor"


def _config(tmp: Path, tw: TwitchFake, yt: YouTubeFake, ks: KuaishouFake) -> Path:
    cfg = {
        "rooms": [{
            "id": "en",
            "money": {"currency": "CNY", "rates": {"USD": "7.2", "EUR": "7.8"}, "unrated_value": "20"},
            "sources": [
                {"type": "twitch", "name": "tw", "channel": "somestreamer", "url": tw.ws_url,
                 "auth_base": tw.base, "reconnect_delay_s": 5, "silent_after_s": None},
                {"type": "youtube", "name": "yt", "video_id": VIDEO_ID, "api_key": API_KEY,
                 "api_base": yt.api_base, "quota_per_day": 10_000_000, "rate_limit_delay_s": 0.3,
                 "reconnect_delay_s": 0.1, "silent_after_s": None},
                {"type": "kuaishou_web", "name": "ks", "principal_id": PRINCIPAL, "live_base": ks.base,
                 "gifts": {9: {"name": "小心心", "coins": 1}}, "silent_after_s": 1.0, "reconnect_delay_s": 0.1},
            ],
        }],
    }
    path = tmp / "va.yaml"
    path.write_text(json.dumps(cfg), encoding="utf-8")  # JSON is YAML
    return path


class Tail:
    """The CLI's stdout as parsed lines, read as they come."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.lines: list[dict[str, Any]] = []
        self.task = asyncio.create_task(self._read())

    async def _read(self) -> None:
        assert self.proc.stdout is not None
        async for raw in self.proc.stdout:
            self.lines.append(json.loads(raw))

    def events(self, platform: str) -> list[dict[str, Any]]:
        return [x for x in self.lines if x.get("platform") == platform]

    def health(self, source: str) -> list[dict[str, Any]]:
        return [x["health"] for x in self.lines if "health" in x and x["health"]["source"] == source]

    async def until(self, pred: Any, what: str, timeout: float = 15.0) -> None:
        deadline = time.monotonic() + timeout
        while not pred():
            if time.monotonic() > deadline or self.proc.returncode is not None:
                raise AssertionError(f"tail: {what} did not happen; lines: {self.lines[-30:]}")
            await asyncio.sleep(0.05)


async def test_tail_prints_every_kind_from_three_platforms(tmp_path: Path) -> None:
    tw, yt, ks = TwitchFake(), YouTubeFake(), KuaishouFake()
    for f in (tw, yt, ks):
        await f.start()
    yt.add(text("t1", "Alice", "how long does shipping take?"),
           super_chat("sc1", "Bob", 10_000_000, "USD", "ten dollars of love"),
           super_sticker("ss1", "Chloé", 2_000_000, "EUR", "heart"),
           super_chat("sc2", "Ken", 1_000_000_000, "JPY", "no rate for yen"),
           new_member("nm1", "Dan"), gifting("gm1", "Finn", 3))
    yt.fail_next = [(403, "rateLimitExceeded")]
    proc = await asyncio.create_subprocess_exec(
        str(CLI), "tail", "-c", str(_config(tmp_path, tw, yt, ks)), "en",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    tail = Tail(proc)
    try:
        await tail.until(lambda: tw.conns and tw.conns[-1].joined and ks.conns, "twitch and kuaishou connected")
        await tail.until(lambda: any(h["connected"] for h in tail.health("tw")), "twitch health line")
        await tw.send_frame("@broken-tags\r\n:only.a.prefix\r\n")
        await tw.send(privmsg("hi from twitch", mid="m1"),
                      privmsg("Cheer500 is the kettle 220 V?", login="rich", name="Rich", mid="c1", bits=500),
                      usernotice("resub", login="s2", name="S2", mid="n2", text="a year!", sub_plan="1000",
                                 cumulative_months=12),
                      usernotice("raid", login="raider", name="Raider", mid="n7", viewerCount=80))
        await tail.until(lambda: any(h["connected"] for h in tail.health("ks")), "kuaishou health line")
        await ks.send_raw(b"\xff\xff garbage")
        u = ks_user("ku1", "快手用户")
        await ks.push(feed_push(comments=[comment("kc1", u, "主播好")], likes=[like("kl1", u)],
                                gifts=[gift("kg1", u, 9, "mk1", batch=10, combo=1), gift("kg2", u, 321, "mk2")]))
        await tail.until(lambda: len(tail.events("twitch")) >= 4 and len(tail.events("kuaishou")) >= 4
                         and len(tail.events("youtube")) >= 6, "every event printed")

        by_id = {e["msg_id"]: e for e in tail.lines if e.get("msg_id")}
        cheer, resub = by_id["tw:c1"], by_id["tw:n2"]
        assert (cheer["kind"], cheer["text"], cheer["value_milli"], cheer["money"]) == \
            ("super_chat", "is the kettle 220 V?", 36_000, {"unit": "twitch_bit", "amount": 500, "exp": 0})
        assert (resub["kind"], resub["text"], resub["value_milli"]) == ("guard", "a year!", 35_928)
        assert by_id["tw:m1"]["kind"] == "comment" and by_id["tw:n7"]["extra"]["viewers"] == 80
        sc, ss, yen = by_id["yt:sc1"], by_id["yt:ss1"], by_id["yt:sc2"]
        assert (sc["kind"], sc["value_milli"], sc["money"]) == \
            ("super_chat", 72_000, {"unit": "USD", "amount": 10_000_000, "exp": 6})
        assert (ss["value_milli"], ss["money"]["unit"], ss["extra"]["sticker"]) == (15_600, "EUR", "heart")
        assert yen["unrated"] is True and yen["value_milli"] == 20_000  # still paid: the room's stand-in
        assert by_id["yt:gm1"]["kind"] == "guard" and by_id["yt:gm1"]["value_milli"] == 3 * 35_928
        assert by_id["yt:t1"]["kind"] == "comment" and by_id["yt:nm1"]["kind"] == "guard"
        assert by_id["ks:kc1"]["kind"] == "comment" and by_id["ks:kl1"]["kind"] == "like"
        kg1, kg2 = by_id["ks:mk1:1"], by_id["ks:mk2:1"]
        assert (kg1["kind"], kg1["value_milli"], kg1["money"]) == \
            ("gift", 1000, {"unit": "kuaishou_coin", "amount": 10, "exp": 0})
        assert kg2["unrated"] is True and kg2["money"]["unit"] == "kuaishou_gift:321"
        assert all(e["currency"] == "CNY" and e["room"] == "en" for e in tail.lines if "kind" in e)
        # The rate limit was reported, then cleared by the next good poll.
        yt_health = tail.health("yt")
        assert any("rate-limits" in h["last_warning"] for h in yt_health)
        assert yt_health[-1]["connected"] and not yt_health[-1]["last_warning"]

        # Twitch asks to reconnect (reconnect_delay_s is 5 s: only the RECONNECT path is this quick).
        await tw.send(":tmi.twitch.tv RECONNECT")
        await tw.wait_conns(2, timeout=3)
        await tail.until(lambda: tail.health("tw")[-1]["connected"] and tail.health("tw")[-1]["reconnects"] == 1,
                         "twitch back after RECONNECT", timeout=5)
        await tw.send(privmsg("after the reconnect", mid="m9"))
        # Kuaishou goes silent (1 s), is reconnected and recovers when the feed speaks.
        await tail.until(lambda: any(h["silent"] for h in tail.health("ks")), "kuaishou silence reported")
        await ks.wait_conns(2)
        await tail.until(lambda: tail.health("ks")[-1]["connected"], "kuaishou reconnected")
        await ks.push(feed_push(comments=[comment("kc2", u, "又来了")]))
        await tail.until(lambda: {"tw:m9", "ks:kc2"} <= {e.get("msg_id") for e in tail.lines}, "events after recovery")
        await tail.until(lambda: not tail.health("ks")[-1]["silent"], "kuaishou healthy again")
    finally:
        if proc.returncode is None:
            proc.send_signal(signal.SIGINT)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(proc.wait(), 10)
        if proc.returncode is None:
            proc.kill()
        await tail.task
        for f in (tw, yt, ks):
            await f.stop()
    assert proc.returncode == 0, (await proc.stderr.read()).decode()[-2000:]  # type: ignore[union-attr]
