"""Config of a room's chat sources: one strict model per source type, joined in the `SourceConfig` union."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, PrivateAttr, field_validator, model_validator

from common.config import Model, Secret, SecretURL
from danmaku.kuaishou.gifts import KuaishouGift, load_catalogue
from danmaku.money import MoneyConfig

_DEFAULT_MONEY = MoneyConfig()

_BROWSER_UA = (
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/126.0.0.0 Safari/537.36"
)


def _http_url(v: str) -> str:
    if not v.startswith(("http://", "https://")):
        raise ValueError("expected an http:// or https:// URL")
    return v.rstrip("/")


def _blank_is_none(v: object) -> object:
    # `${VAR:-}` in YAML gives "" for an unset optional secret: treat it as not configured.
    return None if isinstance(v, str) and not v.strip() else v


class _SourceBase(Model):
    """What every source shares: its name in metrics/logs, reconnect policy and silence detection."""

    name: str = ""  # defaults to the type; must be unique within a room
    # A live room that delivers no message for this long is reported silent and reconnected.
    # None disables the check (replay, webhook, … have no notion of a live room).
    silent_after_s: float | None = Field(None, gt=0)
    reconnect_delay_s: float = Field(1.0, gt=0)
    reconnect_max_delay_s: float = Field(60.0, gt=0)
    # Events buffered between the connector and its consumer; the oldest is dropped past this.
    queue_max: int = Field(10000, ge=1)
    max_inflated_bytes: int = Field(8 * 1024 * 1024, ge=1024)  # decompression-bomb cap per frame
    # The room's money table: the room config hands its `money:` section to each of its sources (in_room);
    # a source config on its own (tests, tools) values money with the defaults.
    _money: MoneyConfig | None = PrivateAttr(None)

    def in_room(self, money: MoneyConfig) -> None:
        """Values this source's paid events with the room's money table."""
        self._money = money

    @property
    def money(self) -> MoneyConfig:
        return self._money if self._money is not None else _DEFAULT_MONEY

    @model_validator(mode="after")
    def _delays(self) -> _SourceBase:
        if self.reconnect_max_delay_s < self.reconnect_delay_s:
            raise ValueError("reconnect_max_delay_s must be >= reconnect_delay_s")
        return self


class _TlsMixin(Model):
    tls_verify: bool = True
    ca_file: Path | None = None  # extra CA bundle (a private CA in tests or behind a proxy)

    @field_validator("ca_file")
    @classmethod
    def _ca_exists(cls, v: Path | None) -> Path | None:
        if v is not None and not v.expanduser().is_file():
            raise ValueError(f"file {str(v)!r} does not exist")
        return v


class BilibiliWebSource(_SourceBase, _TlsMixin):
    """Bilibili live danmaku through the web client's WebSocket protocol."""

    type: Literal["bilibili_web"]
    room_id: int = Field(gt=0)  # short or long (real) room id
    sessdata: Secret | None = None  # SESSDATA cookie; without it names are masked and rate limits apply
    uid: int | None = Field(None, ge=0)  # defaults to the cookie's uid (from /nav), or 0
    buvid: str | None = None  # defaults to the buvid3 cookie from the home page
    user_agent: str = _BROWSER_UA
    api_base: str = "https://api.live.bilibili.com"
    nav_base: str = "https://api.bilibili.com"
    home_url: str = "https://www.bilibili.com/"
    fallback_host: str = "broadcastlv.chat.bilibili.com"
    fallback_ws_port: int = Field(2244, ge=1, le=65535)
    fallback_wss_port: int = Field(443, ge=1, le=65535)
    scheme: Literal["wss", "ws"] = "wss"
    protover: Literal[2, 3] = 3
    heartbeat_s: float = Field(30.0, gt=0)
    auth_timeout_s: float = Field(5.0, gt=0)
    http_timeout_s: float = Field(10.0, gt=0)
    wbi_key_ttl_s: float = Field(11 * 3600 + 59 * 60 + 30, gt=0)
    silent_after_s: float | None = Field(180.0, gt=0)

    _blank = field_validator("sessdata", "uid", "buvid", mode="before")(_blank_is_none)

    @field_validator("api_base", "nav_base", "home_url")
    @classmethod
    def _urls(cls, v: str) -> str:
        return _http_url(v)


class BilibiliOpenSource(_SourceBase, _TlsMixin):
    """Bilibili open platform (开放平台 互动玩法) long connection."""

    type: Literal["bilibili_open"]
    code: Secret  # the anchor's identity code (主播身份码)
    app_id: int = Field(gt=0)
    access_key_id: Secret
    access_key_secret: Secret
    api_base: str = "https://live-open.biliapi.com"
    heartbeat_s: float = Field(30.0, gt=0)  # WebSocket op-2 heartbeat
    project_heartbeat_s: float = Field(20.0, gt=0)  # HTTP /v2/app/heartbeat
    auth_timeout_s: float = Field(5.0, gt=0)
    http_timeout_s: float = Field(10.0, gt=0)
    silent_after_s: float | None = Field(None, gt=0)

    @field_validator("api_base")
    @classmethod
    def _urls(cls, v: str) -> str:
        return _http_url(v)


class CommandSigner(Model):
    """Runs an operator-provided program: argv with `{stub}` (the X-MS-STUB md5) and `{url}` expanded;
    its stdout (stripped) is the signature."""

    type: Literal["command"]
    argv: list[str] = Field(min_length=1)
    timeout_s: float = Field(10.0, gt=0)


class HttpSigner(Model):
    """POSTs {"x_ms_stub": md5, "url": ws_url} to an operator's signing service; the answer is JSON
    {"signature": "..."} or the bare signature as text."""

    type: Literal["http"]
    url: SecretURL
    timeout_s: float = Field(10.0, gt=0)


class NoSigner(Model):
    """Sends no signature (relays and test servers that do not check it)."""

    type: Literal["none"]


SignerConfig = Annotated[CommandSigner | HttpSigner | NoSigner, Field(discriminator="type")]


class DouyinWebSource(_SourceBase, _TlsMixin):
    """Douyin live comments through the (unofficial) webcast WebSocket."""

    type: Literal["douyin_web"]
    web_rid: str = Field(pattern=r"^[0-9]{1,32}$")  # the number in https://live.douyin.com/<web_rid>
    signer: SignerConfig
    live_base: str = "https://live.douyin.com"
    ws_urls: list[str] = Field(
        default_factory=lambda: [
            "wss://webcast100-ws-web-lq.douyin.com/webcast/im/push/v2/",
            "wss://webcast5-ws-web-lf.douyin.com/webcast/im/push/v2/",
        ],
        min_length=1,
    )
    ttwid: Secret | None = None  # defaults to the cookie the live home page sets
    user_agent: str = _BROWSER_UA
    heartbeat_s: float = Field(10.0, gt=0)
    read_timeout_s: float = Field(60.0, gt=0)
    http_timeout_s: float = Field(10.0, gt=0)
    # A combo whose end frame never came is counted this long after its last step (on a timer, no traffic needed).
    combo_timeout_s: float = Field(10.0, gt=0)
    silent_after_s: float | None = Field(180.0, gt=0)

    _blank = field_validator("ttwid", mode="before")(_blank_is_none)

    @field_validator("live_base")
    @classmethod
    def _urls(cls, v: str) -> str:
        return _http_url(v)

    @field_validator("ws_urls")
    @classmethod
    def _ws(cls, v: list[str]) -> list[str]:
        for url in v:
            if not url.startswith(("ws://", "wss://")):
                raise ValueError(f"expected ws:// or wss:// URLs (got {url!r})")
        return v


DouyinMsgType = Literal["live_comment", "live_gift", "live_like", "live_fansclub"]


class DouyinPushSource(_SourceBase):
    """Douyin official open platform data push (直播小玩法 数据开放): an HTTP endpoint we serve."""

    type: Literal["douyin_push"]
    host: str = "127.0.0.1"
    port: int = Field(8718, ge=0, le=65535)
    path: str = Field("/douyin/push", pattern=r"^/")
    push_secret: Secret  # the secret used in x-signature
    app_id: str = ""
    app_secret: Secret | None = None  # needed to start/stop push tasks
    room_id: str | None = Field(None, pattern=r"^[0-9]{1,32}$")
    launch_token: Secret | None = None  # 直播伴侣 launch token, resolves the room id when room_id is unset
    start_tasks: bool = True
    msg_types: list[DouyinMsgType] = Field(
        default_factory=lambda: ["live_comment", "live_gift", "live_like", "live_fansclub"], min_length=1
    )
    token_url: str = "https://minigame.zijieapi.com/mgplatform/api/apps/v2/token"
    webcast_base: str = "https://webcast.bytedance.com"
    http_timeout_s: float = Field(10.0, gt=0)
    dedup_size: int = Field(20000, ge=10)
    max_body_bytes: int = Field(1024 * 1024, ge=1024)
    accept_test_gifts: bool = False  # console self-test gifts carry value 0 unless enabled

    _blank = field_validator("app_secret", "launch_token", "room_id", mode="before")(_blank_is_none)

    @field_validator("token_url", "webcast_base")
    @classmethod
    def _urls(cls, v: str) -> str:
        return _http_url(v)

    @model_validator(mode="after")
    def _task_creds(self) -> DouyinPushSource:
        if self.start_tasks:
            if not self.app_id or self.app_secret is None:
                raise ValueError("start_tasks needs app_id and app_secret (or set start_tasks: false)")
            if self.room_id is None and self.launch_token is None:
                raise ValueError("start_tasks needs room_id or launch_token")
        return self


class WebhookSource(_SourceBase):
    """HTTP endpoint taking JSON Events (one object or a list) with a bearer token."""

    type: Literal["webhook"]
    host: str = "127.0.0.1"
    port: int = Field(8719, ge=0, le=65535)
    path: str = Field("/events", pattern=r"^/")
    token: Secret
    max_body_bytes: int = Field(1024 * 1024, ge=1024)


class RedisStreamSource(_SourceBase):
    """Redis Stream consumer group (for upstream crawler fleets): each entry's `field` holds one JSON Event."""

    type: Literal["redis_stream"]
    url: SecretURL = Field(default="redis://127.0.0.1:6379/0", validate_default=True)  # type: ignore[assignment]
    stream: str = Field(min_length=1)
    group: str = "virtual-anchor"
    consumer: str = ""  # defaults to host-pid
    field: str = "event"
    block_ms: int = Field(5000, ge=1)
    batch: int = Field(100, ge=1, le=10000)


class ReplaySource(_SourceBase):
    """JSONL replay: one Event.to_json()-shaped object per line, with an optional "t" (seconds offset)."""

    type: Literal["replay"]
    path: Path
    speed: float = Field(1.0, ge=0)  # 1 = original timing, 10 = ten times faster, 0 = as fast as possible
    loop: bool = False


def _ws_url(v: str) -> str:
    if not v.startswith(("ws://", "wss://")):
        raise ValueError(f"expected a ws:// or wss:// URL (got {v!r})")
    return v


class TwitchSource(_SourceBase, _TlsMixin):
    """Twitch chat through its IRC WebSocket (tags + commands capabilities).

    Read-only and anonymous (as justinfan<digits>) unless `token` is set: then the account's user access token
    (scope chat:read), validated at connect and hourly, and refreshed with `refresh_token` when Twitch rejects it.

        - {type: twitch, channel: somestreamer}
        - {type: twitch, channel: somestreamer, token: "${TWITCH_TOKEN}", refresh_token: "${TWITCH_REFRESH}",
           client_id: "abc123", client_secret: "${TWITCH_SECRET}"}
    """

    type: Literal["twitch"]
    channel: str = Field(pattern=r"^#?[A-Za-z0-9_]{2,25}$")
    url: str = "wss://irc-ws.chat.twitch.tv:443"
    token: Secret | None = None  # user access token ("oauth:" prefix optional)
    login: str = ""  # the token's account name; taken from the token's validation when empty
    refresh_token: Secret | None = None
    client_id: str = ""
    client_secret: Secret | None = None
    auth_base: str = "https://id.twitch.tv"
    validate_every_s: float = Field(3600.0, gt=0)  # Twitch asks apps to validate user tokens hourly
    ping_s: float = Field(60.0, gt=0)  # quiet this long: PING the server
    pong_timeout_s: float = Field(10.0, gt=0)  # no PONG this long after our PING: the connection is dead
    login_timeout_s: float = Field(10.0, gt=0)  # welcome (001) and JOIN confirmation, each
    http_timeout_s: float = Field(10.0, gt=0)
    silent_after_s: float | None = Field(600.0, gt=0)

    _blank = field_validator("token", "refresh_token", "client_secret", mode="before")(_blank_is_none)

    @field_validator("channel")
    @classmethod
    def _channel(cls, v: str) -> str:
        return v.lstrip("#").lower()

    @field_validator("url")
    @classmethod
    def _url(cls, v: str) -> str:
        return _ws_url(v)

    @field_validator("auth_base")
    @classmethod
    def _auth_url(cls, v: str) -> str:
        return _http_url(v)

    @model_validator(mode="after")
    def _refresh_creds(self) -> TwitchSource:
        if self.refresh_token is not None and (not self.client_id or self.client_secret is None):
            raise ValueError("refresh_token needs client_id and client_secret (the app the token was made for)")
        if self.refresh_token is not None and self.token is None:
            raise ValueError("refresh_token needs token (the access token it refreshes)")
        return self


class YouTubeSource(_SourceBase, _TlsMixin):
    """YouTube live chat through the Data API v3 (liveChatMessages.list), paced to the daily quota.

    Which chat: `live_chat_id`, or a `video_id` (its liveStreamingDetails.activeLiveChatId), or `mine: true`
    (the authorized channel's active broadcast, OAuth only). Auth: an `api_key`, or OAuth (`client_id`,
    `client_secret`, `refresh_token`; the access token is refreshed as it expires).

        - {type: youtube, video_id: dQw4w9WgXcQ, api_key: "${YT_KEY}", stream_hours: 8,
           quota_state_file: /var/lib/virtual-anchor/yt-quota.json}
    """

    type: Literal["youtube"]
    video_id: str | None = Field(None, pattern=r"^[A-Za-z0-9_-]{11}$")
    live_chat_id: str | None = Field(None, min_length=8, max_length=200)
    mine: bool = False
    api_key: Secret | None = None
    client_id: str = ""
    client_secret: Secret | None = None
    refresh_token: Secret | None = None
    api_base: str = "https://www.googleapis.com/youtube/v3"
    token_url: str = "https://oauth2.googleapis.com/token"
    max_results: int = Field(2000, ge=200, le=2000)
    # The units this source may spend per Pacific day (the project's quota, less what other tools use) and how
    # many hours a day the room streams: polls are spaced so the units last that long.
    quota_per_day: int = Field(10000, ge=20)
    stream_hours: float = Field(24.0, gt=0, le=24)
    quota_state_file: Path | None = None  # units spent today, kept across restarts
    history_s: float = Field(60.0, ge=0)  # on a chat's first page, older messages are history and not delivered
    offline_recheck_s: float = Field(300.0, gt=0)  # no live chat (ended, not started): look again this often
    rate_limit_delay_s: float = Field(30.0, gt=0)  # first wait after rateLimitExceeded; doubles, capped at 15 min
    http_timeout_s: float = Field(10.0, gt=0)
    silent_after_s: float | None = Field(900.0, gt=0)

    _blank = field_validator("api_key", "client_secret", "refresh_token", "video_id", "live_chat_id",
                             mode="before")(_blank_is_none)

    @field_validator("api_base", "token_url")
    @classmethod
    def _urls(cls, v: str) -> str:
        return _http_url(v)

    @model_validator(mode="after")
    def _which_and_how(self) -> YouTubeSource:
        if sum((self.video_id is not None, self.live_chat_id is not None, self.mine)) != 1:
            raise ValueError("name the chat with exactly one of video_id, live_chat_id or mine: true")
        oauth = self.refresh_token is not None
        if oauth and (not self.client_id or self.client_secret is None):
            raise ValueError("refresh_token needs client_id and client_secret (the OAuth client it was issued to)")
        if not oauth and self.api_key is None:
            raise ValueError("set api_key, or OAuth credentials (client_id, client_secret, refresh_token)")
        if self.mine and not oauth:
            raise ValueError("mine: true needs OAuth credentials (an API key has no channel)")
        return self


class KuaishouWebSource(_SourceBase, _TlsMixin):
    """Kuaishou live comments, likes and gifts through the web page's WebSocket feed (unofficial).

    Gifts are valued from a catalogue the operator keeps (gift id → name, 快币): `gifts_file` (YAML/JSON, re-read
    when it changes) over the inline `gifts`. The page's websocketinfo call can be signed by an operator's
    program or service (`signer`, as Douyin's), when Kuaishou asks for it.

        - {type: kuaishou_web, principal_id: 3xabc123, cookie: "${KS_COOKIE:-}", gifts_file: ks_gifts.yaml}
    """

    type: Literal["kuaishou_web"]
    principal_id: str = Field(pattern=r"^[A-Za-z0-9_-]{1,64}$")  # the id in https://live.kuaishou.com/u/<id>
    # A logged-in web session's Cookie header (did, kuaishou.live.web_st, userId …); without it the cookies the
    # live home page sets are used, and Kuaishou may refuse the feed or show a captcha.
    cookie: Secret | None = None
    signer: SignerConfig = Field(default_factory=lambda: NoSigner(type="none"))
    sign_param: str = Field("__NS_sig3", pattern=r"^[A-Za-z0-9_]{1,40}$")  # query key the signature goes in
    live_base: str = "https://live.kuaishou.com"
    gifts_file: Path | None = None
    gifts: dict[int, KuaishouGift] = Field(default_factory=dict)
    gifts_check_s: float = Field(10.0, gt=0)  # how often gifts_file is looked at for changes
    user_agent: str = _BROWSER_UA
    heartbeat_s: float = Field(20.0, gt=0)  # until the enter-room ack names its own interval
    enter_timeout_s: float = Field(10.0, gt=0)
    read_timeout_s: float = Field(60.0, gt=0)
    http_timeout_s: float = Field(10.0, gt=0)
    silent_after_s: float | None = Field(180.0, gt=0)

    _blank = field_validator("cookie", mode="before")(_blank_is_none)

    @field_validator("live_base")
    @classmethod
    def _urls(cls, v: str) -> str:
        return _http_url(v)

    @field_validator("gifts_file")
    @classmethod
    def _catalogue(cls, v: Path | None) -> Path | None:
        if v is not None:
            if not v.expanduser().is_file():
                raise ValueError(f"file {str(v)!r} does not exist")
            load_catalogue(v.expanduser())  # a broken catalogue is a config error naming file and key
        return v


MemberConfig = Annotated[
    BilibiliWebSource
    | BilibiliOpenSource
    | DouyinWebSource
    | DouyinPushSource
    | WebhookSource
    | RedisStreamSource
    | ReplaySource
    | TwitchSource
    | YouTubeSource
    | KuaishouWebSource,
    Field(discriminator="type"),
]


class GroupSource(_SourceBase):
    """Several feeds of one room in priority order (e.g. the Bilibili open platform, then the web feed).

    Every member runs (a hot standby loses nothing while the active one fails); the group delivers the first
    healthy member's events. It switches when the active member has been down (disconnected or silent by its
    own check) for `switch_after_s`, or delivered nothing for `stale_after_s` while another member did (a
    quiet room is quiet on every feed, so that alone never switches); it switches back once a higher member
    has been healthy for `recover_after_s`. Across a switch, the new member's recent events are replayed and
    any already delivered by the old one (same kind, text or gift, user name, within `dedup_window_s`) dropped.

        sources:
          - type: group
            name: bili                 # members show as bili/open, bili/web in metrics and logs
            members:                   # priority order
              - {type: bilibili_open, name: open, code: "${BILI_CODE}", app_id: 1650000000001,
                 access_key_id: "${BILI_AK}", access_key_secret: "${BILI_SK}"}
              - {type: bilibili_web, name: web, room_id: 21000, sessdata: "${BILI_SESSDATA:-}"}
            switch_after_s: 5
            stale_after_s: 60
            recover_after_s: 15
            dedup_window_s: 10
    """

    type: Literal["group"]
    members: list[MemberConfig] = Field(min_length=2)
    switch_after_s: float = Field(5.0, gt=0)
    stale_after_s: float | None = Field(60.0, gt=0)
    recover_after_s: float = Field(15.0, gt=0)
    dedup_window_s: float = Field(10.0, gt=0)

    def in_room(self, money: MoneyConfig) -> None:
        super().in_room(money)
        for m in self.members:
            m.in_room(money)

    @model_validator(mode="after")
    def _members(self) -> GroupSource:
        names = [m.name or m.type for m in self.members]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise ValueError(f"member names must be unique within a group (give each a name:); repeated: {dup}")
        if self.silent_after_s is not None:
            raise ValueError("silent_after_s is set per member; a group judges silence with stale_after_s")
        return self


SourceConfig = Annotated[MemberConfig | GroupSource, Field(discriminator="type")]
