"""Bilibili decode + normalize throughput (frames → typed Events) beside the floor measured in the same run.

A recorded-like burst of 100k mixed commands (comments, gifts, interactions, likes, super chats, guards,
room counters) is brotli-packed as the server sends it, 5–40 packets per frame. The floor is what any client
must do at least: brotli decompression + 16-byte header walk + json.loads, with no models. Budget: ≥ 50 %.

Then the bomb check: one room's connector receives a burst of decompression bombs while another room on the
same event loop receives an ordinary comment every 10 ms; reported is the delay the burst adds to those
comments (goal < 50 ms), with the bombs decoded as the connector does now (off the loop past 256 KiB) and,
for comparison, on the loop.

Then each newer connector's decoder (wire → typed Events, as its session does it) on a burst of the same size,
as a ratio of messages per CPU second to the Bilibili decoder's above (same run, interleaved, best of each):
Twitch (IRC text frames of 1–10 tagged lines: chat, cheers, sub notices, PINGs), YouTube (liveChatMessages.list
JSON pages of 20–500 items: chat, Super Chats/Stickers, memberships) and Kuaishou (SocketMessage frames with a
gzip SCWebFeedPush of 5–40 feeds: comments, likes, gift combos).

    .venv/bin/python bench/bench_danmaku.py [--messages 100000] [--repeat 3] [--bombs 30] [--platforms 50000]
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import gzip
import json
import random
import struct
import sys
import time
from pathlib import Path

import brotli

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from danmaku import pb
from danmaku.bilibili.commands import WebNormalizer
from danmaku.bilibili.packet import PacketDecoder
from danmaku.config import ReplaySource
from danmaku.event import Event
from danmaku.generic import ReplayPlayer
from danmaku.kuaishou.gifts import GiftCatalogue, KuaishouGift
from danmaku.kuaishou.messages import SC_FEED_PUSH, KuaishouNormalizer, parse_socket_message, payload_bytes
from danmaku.twitch.irc import TwitchNormalizer, parse_line, split_frame
from danmaku.youtube.messages import YouTubeNormalizer

HDR = struct.Struct(">IHHII")


def pkt(op: int, body: bytes, ver: int = 0) -> bytes:
    return HDR.pack(16 + len(body), 16, ver, op, 0) + body


def make_commands(n: int, rng: random.Random) -> list[dict]:
    words = ["主播好", "这个多少钱", "哈哈哈哈", "666", "来了来了", "晚上好", "有链接吗", "支持一下", "好听", "？？？"]
    names = [f"用户{i}" for i in range(500)]
    out: list[dict] = []
    for i in range(n):
        r = rng.random()
        uid = rng.randrange(1, 10**9)
        name = rng.choice(names)
        ts = 1700000000000 + i * 37
        if r < 0.55:
            text = rng.choice(words) * rng.randint(1, 3)
            extra = json.dumps({"send_from_me": False, "mode": 0, "color": 16777215, "dm_type": 0, "font_size": 25,
                                "player_mode": 1, "show_player_type": 0, "content": text, "user_hash": "123",
                                "emoticon_unique": "", "bulge_display": 0, "recommend_score": 3,
                                "main_state_dm_color": "", "objective_state_dm_color": "", "direction": 0,
                                "pk_direction": 0, "quartet_direction": 0, "anniversary_crowd": 0, "yeah_space_type": "",
                                "yeah_space_url": "", "jump_to_url": "", "space_type": "", "space_url": "",
                                "animation": {}, "emots": None, "is_audited": False, "id_str": f"{uid:x}{i}",
                                "icon": None, "show_reply": True, "reply_mid": 0, "reply_uname": "",
                                "reply_uname_color": "", "reply_is_mystery": False, "hit_combo": 0}, ensure_ascii=False)
            medal = [rng.randint(1, 30), "粉丝团", "主播", 21000, 6067854, 0, 0, 6067854, 6067854, 6067854, 0, 1, 77] \
                if rng.random() < 0.5 else []
            out.append({"cmd": "DANMU_MSG", "dm_v2": "", "info": [
                [0, 1, 25, 16777215, ts, rng.randrange(-2**31, 2**31), 0, "c8a1f2e0", 0, 0, 0, "", 0, "{}", "{}",
                 {"mode": 0, "show_player_type": 0, "extra": extra, "user": {
                     "uid": uid, "base": {"name": name, "face": f"https://i0.hdslb.com/bfs/face/{uid:x}.jpg",
                                          "name_color": 0, "is_mystery": False, "risk_ctrl_info": None,
                                          "origin_info": {"name": name, "face": ""},
                                          "official_info": {"role": 0, "title": "", "desc": "", "type": -1}},
                     "medal": None, "wealth": None, "title": {"old_title_css_id": "", "title_css_id": ""},
                     "guard": None, "uhead_frame": None, "guard_leader": {"is_guard_leader": False}}},
                 {"activity_identity": "", "activity_source": 0, "not_show": 0}, 0],
                text, [uid, name, 0, 0, 0, 10000, 1, ""], medal, [rng.randint(0, 60), 0, 9868950, ">50000", 0],
                ["", ""], 0, rng.choice([0, 0, 0, 3]), None, {"ts": ts // 1000, "ct": "A1B2C3D4"}, 0, 0, None, None,
                0, 105, [rng.randint(0, 30)], None]})
        elif r < 0.70:
            msg = pb.encode([(1, uid), (2, name), (5, 1), (7, ts // 1000), (22, [(2, [(2, "https://face/x.jpg")])])])
            out.append({"cmd": "INTERACT_WORD_V2", "data": {"dmscore": 12, "pb": base64.b64encode(msg).decode()}})
        elif r < 0.80:
            paid = rng.random() < 0.4
            num = rng.randint(1, 10)
            out.append({"cmd": "SEND_GIFT", "data": {
                "action": "投喂", "batch_combo_id": "", "batch_combo_send": None, "beatId": "", "biz_source": "Live",
                "blind_gift": None, "broadcast_id": 0, "coin_type": "gold" if paid else "silver", "combo_resources_id": 1,
                "combo_send": None, "combo_stay_time": 5, "combo_total_coin": 0, "crit_prob": 0, "demarcation": 1,
                "discount_price": 100, "dmscore": 112, "draw": 0, "effect": 0, "effect_block": 1,
                "face": f"https://i0.hdslb.com/bfs/face/{uid:x}.jpg", "giftId": 31036, "giftName": "小花花",
                "giftType": 0, "gold": 0, "guard_level": 0, "is_first": True, "is_special_batch": 0, "magnification": 1,
                "medal_info": {"anchor_roomid": 0, "anchor_uname": "", "guard_level": 0, "icon_id": 0,
                               "is_lighted": 1, "medal_color": 1725515, "medal_level": 9, "medal_name": "粉丝团",
                               "special": "", "target_id": 77},
                "name_color": "", "num": num, "original_gift_name": "", "price": 100 if paid else 0,
                "rcost": 200000, "remain": 0, "rnd": str(rng.randrange(10**18)), "send_master": None, "silver": 0,
                "super": 0, "super_batch_gift_num": 1, "super_gift_num": 1, "svga_block": 0, "switch": True,
                "tag_image": "", "tid": str(rng.randrange(10**18)), "timestamp": ts // 1000,
                "top_list": None, "total_coin": (100 if paid else 0) * num, "uid": uid, "uname": name}})
        elif r < 0.88:
            out.append({"cmd": "LIKE_INFO_V3_CLICK", "data": {
                "show_area": 0, "msg_type": 6, "like_icon": "https://i0.hdslb.com/bfs/live/like.png", "uid": uid,
                "like_text": "为主播点赞了", "uname": name, "uname_color": "", "identities": [1],
                "fans_medal": {"target_id": 0, "medal_level": 0, "medal_name": "", "medal_color": 0,
                               "medal_color_start": 12632256, "medal_color_end": 12632256,
                               "medal_color_border": 12632256, "is_lighted": 0, "guard_level": 0, "special": "",
                               "icon_id": 0, "anchor_roomid": 0, "score": 0},
                "contribution_info": {"grade": 0}, "dmscore": 20}})
        elif r < 0.97:
            if rng.random() < 0.5:
                out.append({"cmd": "WATCHED_CHANGE", "data": {"num": i, "text_small": "1.7万", "text_large": "1.7万人看过"}})
            else:
                out.append({"cmd": "ONLINE_RANK_COUNT", "data": {"count": 1234, "count_text": "1234",
                                                                 "online_count": 2345, "online_count_text": "2345"}})
        elif r < 0.99:
            out.append({"cmd": "SUPER_CHAT_MESSAGE", "roomid": 21000, "data": {
                "background_bottom_color": "#2A60B2", "background_color": "#EDF5FF", "id": 100000 + i,
                "uid": uid, "price": rng.choice([30, 50, 100]), "message": "请问主播这个怎么用？", "message_trans": "",
                "time": 60, "start_time": ts // 1000, "end_time": ts // 1000 + 60, "token": "ABCDEF", "ts": ts // 1000,
                "gift": {"gift_id": 12000, "gift_name": "醒目留言", "num": 1},
                "medal_info": {"medal_name": "粉丝团", "medal_level": 12, "anchor_roomid": 21000, "target_id": 77},
                "user_info": {"uname": name, "face": "https://face/x.jpg", "guard_level": 0, "user_level": 20,
                              "is_vip": 0, "is_svip": 0, "is_main_vip": 1, "manager": 0, "title": "0",
                              "level_color": "#61c05a", "name_color": "#666666"}}})
        else:
            out.append({"cmd": "GUARD_BUY", "data": {"uid": uid, "username": name, "guard_level": 3, "num": 1,
                                                     "price": 198000, "gift_id": 10003, "gift_name": "舰长",
                                                     "start_time": ts // 1000 + i, "end_time": ts // 1000 + i}})
    return out


def make_frames(cmds: list[dict], rng: random.Random) -> list[bytes]:
    frames = []
    i = 0
    while i < len(cmds):
        k = rng.randint(5, 40)
        inner = b"".join(pkt(5, json.dumps(c, ensure_ascii=False, separators=(",", ":")).encode()) for c in cmds[i:i + k])
        frames.append(pkt(5, brotli.compress(inner, quality=5), ver=3))
        i += k
    return frames


def floor(frames: list[bytes]) -> int:
    """brotli + header walk + json.loads: what the fastest possible client still has to do."""
    unpack = HDR.unpack_from
    loads = json.loads
    decompress = brotli.decompress
    n = 0
    for frame in frames:
        ln, hl, _ver, _op, _ = unpack(frame, 0)
        inner = decompress(frame[hl:ln])
        off, end = 0, len(inner)
        while off < end:
            ln2, hl2, _v, _op, _s = unpack(inner, off)
            loads(inner[off + hl2 : off + ln2])
            off += ln2
            n += 1
    return n


def ours(frames: list[bytes]) -> int:
    errors: list[str] = []
    dec = PacketDecoder(lambda kind, detail: errors.append(kind))
    norm = WebNormalizer("bench", lambda kind, detail: errors.append(kind))
    n = events = 0
    out: list[Event] = []
    for frame in frames:
        res = dec.decode(frame)
        n += len(res.commands)
        norm.feed(res.commands, out)
        # Events are handed on and dropped as they come in a live session; holding 100k would only time the GC.
        events += len(out)
        out.clear()
    if errors:
        raise SystemExit(f"decode errors in the bench input: {errors[:5]}")
    ours.events = events  # type: ignore[attr-defined]
    return n


def ours_emit(frames: list[bytes]) -> int:
    """As `ours`, plus the connector's hand-off: per-event metrics and the bounded queue (drained as we go)."""
    src = ReplayPlayer(ReplaySource(type="replay", path=Path("/dev/null")), "bench")
    dec = PacketDecoder(src.errors.add)
    norm = WebNormalizer("bench", src.errors.add, src._unknown, src._set_live)
    q = src._queue
    n = 0
    out: list[Event] = []
    for frame in frames:
        res = dec.decode(frame)
        n += len(res.commands)
        if res.commands:
            src._touch()
        norm.feed(res.commands, out)
        for ev in out:
            src._emit(ev)
        out.clear()
        while not q.empty():
            q.get_nowait()
    return n


async def _comment_delays(bombs: int, inline_limit: int) -> list[float]:
    """Delays (s) of ordinary comments on room B while room A's connector decodes `bombs` bombs."""
    import aiohttp

    from danmaku.bilibili import ws as bili_ws
    from danmaku.config import BilibiliWebSource
    from danmaku.sources import open_source

    bili_ws.INLINE_INFLATE_BYTES = inline_limit  # type: ignore[attr-defined]
    mk = BilibiliWebSource.model_validate
    a = open_source(mk({"type": "bilibili_web", "room_id": 1, "queue_max": 100_000}), "bomb-room")
    b = open_source(mk({"type": "bilibili_web", "room_id": 2, "queue_max": 100_000}), "quiet-room")
    bomb = pkt(5, brotli.compress(b"\x00" * (10 * 1024 * 1024)), ver=3)  # inflates past the 8 MiB cap
    comment = pkt(5, brotli.compress(pkt(5, json.dumps(make_commands(1, random.Random(1))[0]).encode())), ver=3)
    while json.loads(brotli.decompress(comment[16:])[16:]).get("cmd") != "DANMU_MSG":
        comment = pkt(5, brotli.compress(pkt(5, json.dumps(make_commands(1, random.Random(2))[0]).encode())), ver=3)

    def msg(data: bytes) -> aiohttp.WSMessage:
        return aiohttp.WSMessage(aiohttp.WSMsgType.BINARY, data, None)

    done = asyncio.Event()

    async def bomber() -> None:
        await asyncio.sleep(0.05)
        for _ in range(bombs):
            await a._handle_ws_message(msg(bomb))  # type: ignore[attr-defined]
        done.set()

    delays: list[float] = []

    async def reader() -> None:
        start = time.perf_counter()
        k = 0
        while not done.is_set() or k < 10:
            target = start + k * 0.01
            wait = target - time.perf_counter()
            if wait > 0:
                await asyncio.sleep(wait)
            await b._handle_ws_message(msg(comment))  # type: ignore[attr-defined]
            delays.append(time.perf_counter() - target)
            k += 1

    await asyncio.gather(bomber(), reader())
    errors = a.health().decode_errors
    assert errors.get("too_large") == bombs, errors
    bili_ws.INLINE_INFLATE_BYTES = 256 * 1024  # type: ignore[attr-defined]
    return delays


def bomb_report(bombs: int) -> None:
    import logging

    from danmaku.source import INLINE_INFLATE_BYTES

    logging.getLogger("danmaku").setLevel(logging.ERROR)  # one too_large line per run is noise here
    for label, limit in (("off the loop (now)", INLINE_INFLATE_BYTES), ("all on the loop", 1 << 40)):
        d = sorted(asyncio.run(_comment_delays(bombs, limit)))
        p50, p99 = (d[min(len(d) - 1, int(q * len(d)))] * 1000 for q in (0.5, 0.99))
        print(f"comment delay during {bombs} bombs, {label:18s}: p50 {p50:6.1f} ms  p99 {p99:6.1f} ms  "
              f"max {d[-1] * 1000:6.1f} ms  ({len(d)} comments)"
              + (f" -> {'OK' if d[-1] * 1000 < 50 else 'OVER'} (goal max < 50 ms)" if "now" in label else ""))


# ------------------------------------------------------------------ the newer connectors, on the same footing


def _esc(v: str) -> str:
    return v.replace("\\", "\\\\").replace(";", "\\:").replace(" ", "\\s")


def make_twitch_frames(n: int, rng: random.Random) -> list[str]:
    words = ["hello chat", "what's the price of the kettle?", "LUL", "PogChamp this is great", "how long is shipping",
             "first time here!", "KEKW", "love the stream", "is it 220 V?", "gg"]
    lines = []
    for i in range(n):
        uid = rng.randrange(1, 10**8)
        login = f"viewer{uid % 5000}"
        tags = {"badge-info": "subscriber/14" if i % 3 else "", "badges": "subscriber/12,premium/1" if i % 3 else "",
                "color": "#1E90FF", "display-name": login.title(), "emotes": "", "first-msg": "0",
                "id": f"{uid:08x}-{i:08x}-4c2f-9d1e-5f3a2b1c0d9e", "mod": "0", "room-id": "12345",
                "subscriber": "1" if i % 3 else "0", "tmi-sent-ts": str(1700000000000 + i), "turbo": "0",
                "user-id": str(uid), "user-type": ""}
        r = rng.random()
        if r < 0.88:
            lines.append("@" + ";".join(f"{k}={_esc(v)}" for k, v in tags.items())
                         + f" :{login}!{login}@{login}.tmi.twitch.tv PRIVMSG #somestreamer :{rng.choice(words)}")
        elif r < 0.93:
            tags["bits"] = str(rng.choice([100, 500, 1000]))
            lines.append("@" + ";".join(f"{k}={_esc(v)}" for k, v in tags.items())
                         + f" :{login}!{login}@{login}.tmi.twitch.tv PRIVMSG #somestreamer :Cheer{tags['bits']} "
                         + rng.choice(words))
        elif r < 0.98:
            tags.update({"login": login, "msg-id": "resub", "msg-param-cumulative-months": "7",
                         "msg-param-sub-plan": "1000", "msg-param-sub-plan-name": "Channel Subscription",
                         "system-msg": f"{login} subscribed at Tier 1. They've subscribed for 7 months!"})
            lines.append("@" + ";".join(f"{k}={_esc(v)}" for k, v in tags.items())
                         + " :tmi.twitch.tv USERNOTICE #somestreamer :seven months!")
        else:
            lines.append("PING :tmi.twitch.tv")
    frames, i = [], 0
    while i < len(lines):
        k = rng.randint(1, 10)
        frames.append("".join(line + "\r\n" for line in lines[i:i + k]))
        i += k
    return frames


def twitch_decode(frames: list[str]) -> int:
    errors: list[str] = []
    norm = TwitchNormalizer("bench", lambda kind, detail: errors.append(kind), lambda cmd: None)
    out: list[Event] = []
    n = 0
    for frame in frames:
        for line in split_frame(frame):
            norm.handle(parse_line(line), out)
            n += 1
        out.clear()
    if errors:
        raise SystemExit(f"twitch decode errors in the bench input: {errors[:5]}")
    return n


def _yt_item(i: int, rng: random.Random) -> dict:
    cid = f"UC{rng.randrange(10**12):012d}abcdefghij"
    author = {"channelId": cid, "channelUrl": f"http://www.youtube.com/channel/{cid}", "displayName": f"Viewer {i % 900}",
              "profileImageUrl": f"https://yt3.ggpht.com/ytc/{cid}=s88-c-k-c0x00ffffff-no-rj", "isVerified": False,
              "isChatOwner": False, "isChatSponsor": i % 4 == 0, "isChatModerator": False}
    snippet = {"liveChatId": "Cg0KC2RRdzR3OVdnWGNRKicKGFVDdTJm", "authorChannelId": cid,
               "publishedAt": f"2025-01-15T10:{i // 60 % 60:02d}:{i % 60:02d}.{i % 1000:03d}+00:00",
               "hasDisplayContent": True}
    r = rng.random()
    if r < 0.9:
        words = rng.choice(["hello!", "what is the price?", "love this", "how long is shipping to Canada?", "lol"])
        snippet.update(type="textMessageEvent", displayMessage=words, textMessageDetails={"messageText": words})
    elif r < 0.96:
        micros = rng.choice([2_000_000, 5_000_000, 20_000_000])
        snippet.update(type="superChatEvent", displayMessage="$5.00 from Bob: great", superChatDetails={
            "amountMicros": str(micros), "currency": "USD", "amountDisplayString": f"${micros / 1e6:.2f}",
            "userComment": "great stream, question: does it ship worldwide?", "tier": 2})
    elif r < 0.98:
        snippet.update(type="superStickerEvent", displayMessage="sticker", superStickerDetails={
            "superStickerMetadata": {"stickerId": "UCkszU2WH9gy1mb0dV-11UJg/abc", "altText": "cat", "language": "en"},
            "amountMicros": "1990000", "currency": "EUR", "amountDisplayString": "€1.99", "tier": 1})
    else:
        snippet.update(type="newSponsorEvent", displayMessage="Welcome!",
                       newSponsorDetails={"memberLevelName": "Member", "isUpgrade": False})
    return {"kind": "youtube#liveChatMessage", "etag": f"etag{i}", "id": f"LCC.{i:012d}", "snippet": snippet,
            "authorDetails": author}


def make_youtube_pages(n: int, rng: random.Random) -> list[bytes]:
    pages, i = [], 0
    while i < n:
        k = min(n - i, rng.randint(20, 500))
        pages.append(json.dumps({"kind": "youtube#liveChatMessageListResponse", "etag": "e", "pollingIntervalMillis":
                                 5000, "nextPageToken": f"GOD{i}", "pageInfo": {"totalResults": k, "resultsPerPage": k},
                                 "items": [_yt_item(i + j, rng) for j in range(k)]}).encode())
        i += k
    return pages


def youtube_decode(pages: list[bytes]) -> int:
    errors: list[str] = []
    norm = YouTubeNormalizer("bench", lambda kind, detail: errors.append(kind), lambda t: None, lambda live: None)
    out: list[Event] = []
    n = 0
    for page in pages:
        n += norm.feed(json.loads(page)["items"], out)
        out.clear()
    if errors:
        raise SystemExit(f"youtube decode errors in the bench input: {errors[:5]}")
    return n


def make_kuaishou_frames(n: int, rng: random.Random) -> list[bytes]:
    feeds = []
    for i in range(n):
        uid = f"3x{rng.randrange(10**10):010d}"
        user = [(1, uid), (2, f"快手用户{i % 700}"), (3, f"https://p1.a.yximgs.com/uhead/AB/2025/{uid}.jpg")]
        r = rng.random()
        if r < 0.7:
            feeds.append((5, [(1, f"c{i}"), (2, user), (3, rng.choice(["主播好", "这个多少钱", "666", "有链接吗"])),
                              (4, "XkLpfw=="), (7, 1), (8, [(4, 3), (7, 12)])]))
        elif r < 0.9:
            feeds.append((8, [(1, f"l{i}"), (2, user), (4, "XkLpfw==")]))
        else:
            feeds.append((9, [(1, f"g{i}"), (2, user), (3, 1700000000000 + i), (4, rng.choice([9, 12])),
                              (6, f"{uid}-{i // 3}"), (7, 1), (8, i % 3 + 1), (10, 300000)]))
    frames, i = [], 0
    while i < len(feeds):
        k = rng.randint(5, 40)
        push = pb.encode([(1, "1.2万"), (2, "2.4万"), *feeds[i:i + k]])
        frames.append(pb.encode([(1, SC_FEED_PUSH), (2, 2), (3, gzip.compress(push))]))
        i += k
    return frames


def kuaishou_decode(frames: list[bytes]) -> int:
    errors: list[str] = []
    catalogue = GiftCatalogue({9: KuaishouGift(name="小心心", coins=1), 12: KuaishouGift(name="棒棒糖", coins=10)}, None, 10)
    norm = KuaishouNormalizer("bench", lambda kind, detail: errors.append(kind), catalogue)
    out: list[Event] = []
    n = 0
    for frame in frames:
        msg = parse_socket_message(frame)
        payload = payload_bytes(msg, 8 * 1024 * 1024)
        n += sum(len(v) for k, v in pb.decode(payload).items() if k in (5, 7, 8, 9, 11, 12))
        norm.feed(payload, out)
        out.clear()
    if errors:
        raise SystemExit(f"kuaishou decode errors in the bench input: {errors[:5]}")
    return n


def platform_report(n: int, repeat: int, rng: random.Random, bili_frames: list[bytes], bili_n: int) -> None:
    """Each connector's decode rate beside the Bilibili decoder's, interleaved so load hits all alike."""
    inputs = {"twitch": (twitch_decode, make_twitch_frames(n, rng)),
              "youtube": (youtube_decode, make_youtube_pages(n, rng)),
              "kuaishou": (kuaishou_decode, make_kuaishou_frames(n, rng))}
    best = {name: float("inf") for name in ("bilibili", *inputs)}
    counts = {"bilibili": bili_n}
    for _ in range(repeat):
        t, _ = timed(ours, bili_frames)
        best["bilibili"] = min(best["bilibili"], t)
        for name, (fn, data) in inputs.items():
            t, counts[name] = timed(fn, data)  # type: ignore[arg-type]
            best[name] = min(best[name], t)
    bili_rate = counts["bilibili"] / best["bilibili"]
    print(f"decode + normalize, msg per CPU second (best of {repeat}); ratio to the Bilibili decoder in this run:")
    for name in ("bilibili", *inputs):
        rate = counts[name] / best[name]
        print(f"  {name:9s} {rate:10.0f} msg/s  ({counts[name]} messages, {best[name]:.3f} s)  "
              f"ratio {rate / bili_rate:5.2f}")


def timed(fn, frames: list[bytes]) -> tuple[float, int]:
    # CPU time of this process: other work on a shared machine does not count against either side.
    t0 = time.process_time()
    n = fn(frames)
    return time.process_time() - t0, n


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--messages", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--bombs", type=int, default=30, help="decompression bombs in the loop-delay check (0: skip)")
    ap.add_argument("--platforms", type=int, default=50_000,
                    help="messages per platform in the Twitch/YouTube/Kuaishou decode comparison (0: skip)")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    cmds = make_commands(args.messages, rng)
    frames = make_frames(cmds, rng)
    wire = sum(len(f) for f in frames)
    print(f"input: {len(cmds)} commands in {len(frames)} brotli frames ({wire / 1e6:.1f} MB on the wire, "
          f"{sum(len(json.dumps(c)) for c in cmds[:1000]) / 1000:.0f} B/command JSON avg)")
    # Interleaved runs, best of each: load from other processes hits both sides alike.
    t_floor = t_ours = float("inf")
    pair_ratios = []
    for _ in range(args.repeat):
        tf, n_floor = timed(floor, frames)
        to, n_ours = timed(ours, frames)
        assert n_floor == n_ours == len(cmds), (n_floor, n_ours)
        t_floor, t_ours = min(t_floor, tf), min(t_ours, to)
        pair_ratios.append(tf / to)
    r_floor, r_ours = n_floor / t_floor, n_ours / t_ours
    print(f"floor (brotli + header walk + json.loads): {r_floor:10.0f} msg/s  ({t_floor:.3f} s)")
    print(f"ours  (decode + normalize to Events):      {r_ours:10.0f} msg/s  ({t_ours:.3f} s, "
          f"{ours.events} events)")  # type: ignore[attr-defined]
    t_emit, _ = timed(ours_emit, frames)
    print(f"ours + hand-off (metrics, queue):          {n_ours / t_emit:10.0f} msg/s  ({t_emit:.3f} s, one run)")
    ratio = r_ours / r_floor
    pair_ratios.sort()
    print(f"ratio: {ratio:.2f} of floor, best vs best (budget >= 0.50) -> {'OK' if ratio >= 0.5 else 'UNDER BUDGET'}; "
          f"per-pair ratios min/median/max {pair_ratios[0]:.2f}/{pair_ratios[len(pair_ratios) // 2]:.2f}/"
          f"{pair_ratios[-1]:.2f}")
    if args.platforms:
        platform_report(args.platforms, args.repeat, rng, frames, len(cmds))
    if args.bombs:
        bomb_report(args.bombs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
