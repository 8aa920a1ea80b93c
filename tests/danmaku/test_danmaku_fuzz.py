"""Property tests: every decoder takes arbitrary bytes / JSON shapes without raising, and inflating is bounded."""

from __future__ import annotations

import base64
import contextlib
import gzip
import json
import struct
import tracemalloc
import zlib
from typing import Any

import brotli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from danmaku import pb
from danmaku.bilibili.commands import WebNormalizer, loads
from danmaku.bilibili.open import OpenNormalizer
from danmaku.bilibili.packet import PacketDecoder
from danmaku.config import DouyinPushSource
from danmaku.douyin.messages import DouyinNormalizer, gunzip, parse_push_frame, parse_response
from danmaku.douyin.push import DouyinPushReceiver
from danmaku.event import Event
from danmaku.generic import event_from_obj
from danmaku.kuaishou.gifts import GiftCatalogue, KuaishouGift
from danmaku.kuaishou.messages import KuaishouNormalizer, parse_socket_message, payload_bytes
from danmaku.source import DecodeError
from danmaku.twitch.irc import TwitchNormalizer, parse_line, split_frame
from danmaku.youtube.messages import YouTubeNormalizer, error_reason

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
HDR = struct.Struct(">IHHII")
KINDS = {"truncated", "bad_length", "bad_compression", "too_large", "unknown_version", "nesting", "utf8", "json",
         "shape", "protobuf", "base64", "irc", "too_long", "encrypted"}

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=True) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=8), inner, max_size=6),
    max_leaves=30,
)


class Errors:
    def __init__(self) -> None:
        self.kinds: list[str] = []

    def __call__(self, kind: str, detail: str = "") -> None:
        assert kind in KINDS, kind
        self.kinds.append(kind)


# ------------------------------------------------------------------ Bilibili framing


@SETTINGS
@given(st.binary(max_size=2048))
def test_packet_decoder_never_raises(data: bytes) -> None:
    PacketDecoder(Errors(), max_inflated=64 * 1024).decode(data)


def _packet(op: int, ver: int, body: bytes) -> bytes:
    return HDR.pack(16 + len(body), 16, ver, op, 0) + body


packets = st.lists(
    st.tuples(st.sampled_from([2, 3, 5, 8, 99]), st.sampled_from([0, 1, 2, 3, 7]), st.binary(max_size=64)),
    max_size=6,
)


@SETTINGS
@given(packets, st.sampled_from(["brotli", "zlib", "none"]), st.integers(0, 400), st.binary(max_size=8))
def test_packet_decoder_structured_and_truncated(pk: list[tuple[int, int, bytes]], comp: str, cut: int,
                                                 junk: bytes) -> None:
    inner = b"".join(_packet(op, ver, body) for op, ver, body in pk)
    if comp == "brotli":
        frame = _packet(5, 3, brotli.compress(inner))
    elif comp == "zlib":
        frame = _packet(5, 2, zlib.compress(inner))
    else:
        frame = inner
    errs = Errors()
    dec = PacketDecoder(errs, max_inflated=64 * 1024)
    res = dec.decode(frame)
    if comp != "none":
        assert len(res.commands) == sum(1 for op, ver, _ in pk if op == 5 and ver in (0, 1)) or errs.kinds or any(
            op == 3 for op, _, _ in pk)
    dec.decode(frame[: min(cut, len(frame))] + junk)


def test_bombs_are_capped_with_bounded_memory() -> None:
    big = _packet(5, 0, b"{}") * 400_000  # 7.2 MB of packets
    bombs = [_packet(5, 3, brotli.compress(big, quality=1)), _packet(5, 2, zlib.compress(big, 9))]
    # Nested: a compressed packet inside a compressed packet, each small on the wire.
    bombs.append(_packet(5, 3, brotli.compress(bombs[0])))
    errs = Errors()
    dec = PacketDecoder(errs, max_inflated=256 * 1024)
    tracemalloc.start()
    try:
        for b in bombs:
            res = dec.decode(b)
            assert len(res.commands) == 0
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert errs.kinds.count("too_large") == 3
    assert peak < 8 * 1024 * 1024  # a few times the cap, never the 7 MB+ inflated size times packets
    with_gzip = gzip.compress(b"\x00" * (20 * 1024 * 1024))
    tracemalloc.start()
    try:
        try:
            gunzip(with_gzip, 256 * 1024)
            raise AssertionError("gzip bomb accepted")
        except DecodeError as exc:
            assert exc.kind == "too_large"
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 * 1024 * 1024


# ------------------------------------------------------------------ Bilibili commands

WEB_CMDS = ["DANMU_MSG", "DANMU_MSG:4:0:2:2:2:0", "DANMU_MSG_MIRROR", "SEND_GIFT", "SEND_GIFT_V2", "COMBO_SEND",
            "SUPER_CHAT_MESSAGE", "SUPER_CHAT_MESSAGE_JPN", "SUPER_CHAT_MESSAGE_DELETE", "GUARD_BUY",
            "USER_TOAST_MSG_V2", "INTERACT_WORD", "INTERACT_WORD_V2", "LIKE_INFO_V3_CLICK", "LIKE_INFO_V3_UPDATE",
            "WATCHED_CHANGE", "LIVE", "PREPARING", "WHATEVER"]
OPEN_CMDS = ["LIVE_OPEN_PLATFORM_" + c for c in ("DM", "DM_MIRROR", "SEND_GIFT", "GUARD", "SUPER_CHAT",
                                                 "SUPER_CHAT_DEL", "LIKE", "LIVE_ROOM_ENTER", "LIVE_START",
                                                 "LIVE_END", "INTERACTION_END", "X")]


def _pb_b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


pb_payloads = st.one_of(
    st.binary(max_size=64).map(_pb_b64),
    st.lists(st.tuples(st.integers(1, 40), st.one_of(st.integers(-(2**63), 2**64 - 1), st.binary(max_size=16),
                                                     st.text(max_size=8))), max_size=8).map(
        lambda f: _pb_b64(pb.encode(f))),
    st.text(max_size=12),
)


@st.composite
def web_command(draw: Any) -> bytes:
    cmd = draw(st.sampled_from(WEB_CMDS))
    obj: dict[str, Any] = {"cmd": cmd}
    if cmd.startswith("DANMU"):
        obj["info"] = draw(st.lists(json_values, max_size=18))
    elif cmd.endswith("_V2") and cmd != "USER_TOAST_MSG_V2":
        obj["data"] = draw(st.one_of(st.fixed_dictionaries({"pb": pb_payloads}), json_values))
    else:
        obj["data"] = draw(json_values)
    return json.dumps(obj).encode()


@SETTINGS
@given(st.lists(st.one_of(web_command(), st.binary(max_size=64)), max_size=8))
def test_web_normalizer_never_raises(bodies: list[bytes]) -> None:
    out: list[Event] = []
    WebNormalizer("r", Errors()).feed(bodies, out)
    assert all(isinstance(e, Event) for e in out)


@SETTINGS
@given(st.lists(st.tuples(st.sampled_from(OPEN_CMDS), json_values), max_size=8), st.binary(max_size=32))
def test_open_normalizer_never_raises(cmds: list[tuple[str, Any]], junk: bytes) -> None:
    bodies = [json.dumps({"cmd": c, "data": d}).encode() for c, d in cmds] + [junk]
    out: list[Event] = []
    OpenNormalizer("r", Errors(), lambda c: None, lambda live: None, lambda: None).feed(bodies, out)


@SETTINGS
@given(st.binary(max_size=256))
def test_loads_raises_only_value_errors(data: bytes) -> None:
    with contextlib.suppress(ValueError, UnicodeDecodeError):
        loads(data)


def test_deep_json_is_a_json_error() -> None:
    errs = Errors()
    WebNormalizer("r", errs).feed([b"[" * 100_000, b'{"cmd":"DANMU_MSG","info":' + b"[" * 50_000], [])
    assert errs.kinds == ["json", "json"]


# ------------------------------------------------------------------ protobuf and Douyin


@SETTINGS
@given(st.binary(max_size=512))
def test_pb_decode_raises_only_decode_error(data: bytes) -> None:
    for fn in (pb.decode, parse_push_frame, parse_response):
        try:
            fn(data)
        except DecodeError as exc:
            assert exc.kind in ("protobuf", "utf8")


@SETTINGS
@given(st.lists(st.tuples(st.integers(1, 2000), st.one_of(st.integers(0, 2**64 - 1), st.binary(max_size=24),
                                                          st.text(max_size=10))), max_size=12))
def test_pb_roundtrip_of_what_we_encode(fields: list[tuple[int, Any]]) -> None:
    decoded = pb.decode(pb.encode(fields))
    for num, val in fields:
        expect = val.encode() if isinstance(val, str) else val
        assert expect in decoded[num]


DY_METHODS = ["WebcastChatMessage", "WebcastEmojiChatMessage", "WebcastGiftMessage", "WebcastLikeMessage",
              "WebcastMemberMessage", "WebcastSocialMessage", "WebcastRoomUserSeqMessage", "WebcastControlMessage",
              "WebcastNew"]

nested_fields = st.recursive(
    st.lists(st.tuples(st.integers(1, 40), st.one_of(st.integers(0, 2**64 - 1), st.binary(max_size=12),
                                                     st.text(max_size=6))), max_size=6),
    lambda inner: st.lists(st.tuples(st.integers(1, 40), inner), max_size=4),
    max_leaves=20,
)


@SETTINGS
@given(st.lists(st.tuples(st.sampled_from(DY_METHODS), st.one_of(nested_fields.map(pb.encode),
                                                                  st.binary(max_size=64)),
                          st.integers(-(2**63), 2**63 - 1)), max_size=8))
def test_douyin_normalizer_never_raises(messages: list[tuple[str, bytes, int]]) -> None:
    out: list[Event] = []
    norm = DouyinNormalizer("r", Errors(), lambda m: None, lambda live: None, combo_timeout_s=0.0)
    norm.feed(messages, out)
    norm.flush(out, force=True)


@SETTINGS
@given(st.binary(max_size=256))
def test_gunzip_raises_only_decode_error(data: bytes) -> None:
    try:
        gunzip(data, 4096)
    except DecodeError as exc:
        assert exc.kind in ("bad_compression", "too_large")
    try:
        gunzip(gzip.compress(data), 4096)
    except DecodeError as exc:
        assert exc.kind == "too_large"


# ------------------------------------------------------------------ JSON Events (webhook, Redis, replay, push)


@SETTINGS
@given(json_values)
def test_event_from_obj_raises_only_value_or_type_errors(obj: Any) -> None:
    with contextlib.suppress(ValueError, TypeError, OverflowError):
        event_from_obj(obj, "r")


@SETTINGS
@given(st.one_of(st.binary(max_size=128), json_values.map(lambda v: json.dumps(v).encode())),
       st.sampled_from(["live_comment", "live_gift", "live_like", "live_fansclub", "", "x"]))
def test_douyin_push_items_and_events(body: bytes, msg_type: str) -> None:
    try:
        items, mt = DouyinPushReceiver._items(body, msg_type)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return
    assert isinstance(items, list)
    for item in items:
        if isinstance(item, dict):
            ev = _PUSH._event(mt, item, "m")
            assert ev is None or isinstance(ev, Event)


_PUSH = DouyinPushReceiver(
    DouyinPushSource.model_validate({"type": "douyin_push", "push_secret": "s", "start_tasks": False}), "r"
)


# ------------------------------------------------------------------ Twitch, YouTube, Kuaishou


irc_text = st.one_of(
    st.text(max_size=300),
    st.builds(lambda tags, cmd, params: f"@{tags} :n!n@n.tmi.twitch.tv {cmd} #c :{params}",
              st.text(alphabet="abcdefgh-=;\\ s:0123456789", max_size=80),
              st.sampled_from(["PRIVMSG", "USERNOTICE", "CLEARMSG", "CLEARCHAT", "NOTICE", "PING", "X1"]),
              st.text(max_size=40)),
    st.builds(lambda key, val, kind: f"@msg-id={kind};{key}={val} :tmi.twitch.tv USERNOTICE #c",
              st.sampled_from(["msg-param-gift-months", "msg-param-mass-gift-count", "bits", "ban-duration",
                               "badge-info"]),
              st.sampled_from(["-1", "²", "٣", "3", "", "99999999999999999999", "subscriber/²"]),
              st.sampled_from(["subgift", "submysterygift", "sub", "raid"])),
)


@SETTINGS
@given(st.lists(irc_text, max_size=8))
def test_twitch_lines_raise_only_decode_errors(lines: list[str]) -> None:
    norm = TwitchNormalizer("r", Errors(), lambda c: None)
    out: list[Event] = []
    for line in split_frame("\r\n".join(lines)):
        try:
            norm.handle(parse_line(line), out)
        except DecodeError as exc:
            assert exc.kind in KINDS
    assert all(isinstance(e, Event) for e in out)


odd_counts = st.one_of(st.integers(-(2**65), 2**65), st.sampled_from(["-1", "²", "٣", "3", "", " 4", "1e3"]))
yt_items = st.one_of(json_values, st.fixed_dictionaries({
    "id": st.one_of(st.text(max_size=6), st.integers()),
    "snippet": st.one_of(json_values, st.fixed_dictionaries({
        "type": st.sampled_from(["textMessageEvent", "superChatEvent", "superStickerEvent", "newSponsorEvent",
                                 "memberMilestoneChatEvent", "membershipGiftingEvent", "messageDeletedEvent",
                                 "userBannedEvent", "chatEndedEvent", "giftMembershipReceivedEvent", "tombstone", "x"]),
        "publishedAt": st.one_of(st.text(max_size=30), st.just("2025-01-01T00:00:00Z")),
        "superChatDetails": st.one_of(json_values, st.fixed_dictionaries({
            "amountMicros": odd_counts, "currency": st.sampled_from(["USD", "us", "€€€", "", "JPY"])})),
        "superStickerDetails": json_values, "textMessageDetails": json_values,
        "membershipGiftingDetails": st.one_of(json_values, st.fixed_dictionaries({"giftMembershipsCount": odd_counts})),
        "messageDeletedDetails": json_values, "userBannedDetails": json_values})),
    "authorDetails": json_values}))


@SETTINGS
@given(st.one_of(json_values, st.lists(yt_items, max_size=8)))
def test_youtube_items_never_raise(items: Any) -> None:
    out: list[Event] = []
    YouTubeNormalizer("r", Errors(), lambda t: None, lambda live: None).feed(items, out, since=0.0)
    assert all(isinstance(e, Event) for e in out)
    error_reason(items)  # any JSON as an error body


@SETTINGS
@given(st.one_of(st.binary(max_size=512), nested_fields.map(pb.encode)))
def test_kuaishou_frames_raise_only_decode_errors(data: bytes) -> None:
    norm = KuaishouNormalizer("r", Errors(), GiftCatalogue({9: KuaishouGift(coins=1)}, None, 1.0))
    out: list[Event] = []
    try:
        msg = parse_socket_message(data)
        norm.feed(payload_bytes(msg, 64 * 1024), out)
    except DecodeError as exc:
        assert exc.kind in KINDS
    with contextlib.suppress(DecodeError):
        norm.feed(data, out)  # the same bytes as a feed push
    assert all(isinstance(e, Event) for e in out)
