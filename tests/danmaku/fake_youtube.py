"""A loopback YouTube Data API v3: videos.list, liveBroadcasts.list, liveChatMessages.list with page tokens,
pollingIntervalMillis, a daily quota that answers quotaExceeded, rate limits and Google's OAuth token endpoint,
with the real JSON shapes (uint64 amounts as strings, RFC 3339 times, Google's error bodies)."""

from __future__ import annotations

import datetime as dt
import time
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web
from dm_fakes import FakeServer

VIDEO_ID = "dQw4w9WgXcQ"
CHAT_ID = "Cg0KC2RRdzR3OVdnWGNRKicKGFVDdTJm"
API_KEY = "AIzaFAKEKEY"


def rfc3339(t: float | None = None) -> str:
    return dt.datetime.fromtimestamp(time.time() if t is None else t, dt.UTC).isoformat(timespec="milliseconds")


def author(cid: str, name: str, **roles: bool) -> dict[str, Any]:
    return {"channelId": cid, "channelUrl": f"http://www.youtube.com/channel/{cid}", "displayName": name,
            "profileImageUrl": f"https://yt3.ggpht.com/{cid}", "isVerified": roles.get("verified", False),
            "isChatOwner": roles.get("owner", False), "isChatSponsor": roles.get("member", False),
            "isChatModerator": roles.get("moderator", False)}


def item(mid: str, kind: str, details_key: str | None, details: dict[str, Any], who: dict[str, Any] | None,
         display: str = "", at: float | None = None) -> dict[str, Any]:
    snippet: dict[str, Any] = {"type": kind, "liveChatId": CHAT_ID, "publishedAt": rfc3339(at),
                               "hasDisplayContent": bool(display), "displayMessage": display}
    if who is not None:
        snippet["authorChannelId"] = who["channelId"]
    if details_key is not None:
        snippet[details_key] = details
    out: dict[str, Any] = {"kind": "youtube#liveChatMessage", "etag": f"etag-{mid}", "id": mid, "snippet": snippet}
    if who is not None:
        out["authorDetails"] = who
    return out


def text(mid: str, name: str, words: str, at: float | None = None, **roles: bool) -> dict[str, Any]:
    return item(mid, "textMessageEvent", "textMessageDetails", {"messageText": words},
                author(f"UC{mid}", name, **roles), words, at)


def super_chat(mid: str, name: str, micros: int, currency: str, comment: str, tier: int = 2) -> dict[str, Any]:
    shown = f"{currency} {micros / 1e6:.2f}"
    return item(mid, "superChatEvent", "superChatDetails", {
        "amountMicros": str(micros), "currency": currency, "amountDisplayString": shown, "userComment": comment,
        "tier": tier}, author(f"UC{mid}", name), f"{shown} from {name}: \"{comment}\"")


def super_sticker(mid: str, name: str, micros: int, currency: str, alt: str) -> dict[str, Any]:
    return item(mid, "superStickerEvent", "superStickerDetails", {
        "superStickerMetadata": {"stickerId": "sticker-1", "altText": alt, "language": "en"},
        "amountMicros": str(micros), "currency": currency, "amountDisplayString": f"{micros / 1e6:.2f}", "tier": 1},
        author(f"UC{mid}", name), f"{name} sent a Super Sticker")


def new_member(mid: str, name: str, level: str = "Member") -> dict[str, Any]:
    return item(mid, "newSponsorEvent", "newSponsorDetails", {"memberLevelName": level, "isUpgrade": False},
                author(f"UC{mid}", name, member=True), f"Welcome {name}!")


def milestone(mid: str, name: str, months: int, comment: str) -> dict[str, Any]:
    return item(mid, "memberMilestoneChatEvent", "memberMilestoneChatDetails", {
        "userComment": comment, "memberMonth": months, "memberLevelName": "Member"},
        author(f"UC{mid}", name, member=True), comment)


def gifting(mid: str, name: str, count: int) -> dict[str, Any]:
    return item(mid, "membershipGiftingEvent", "membershipGiftingDetails", {
        "giftMembershipsCount": count, "giftMembershipsLevelName": "Member"}, author(f"UC{mid}", name),
        f"{name} gifted {count} memberships")


def gift_received(mid: str, name: str, gifter: str, gift_mid: str) -> dict[str, Any]:
    return item(mid, "giftMembershipReceivedEvent", "giftMembershipReceivedDetails", {
        "memberLevelName": "Member", "gifterChannelId": gifter, "associatedMembershipGiftingMessageId": gift_mid},
        author(f"UC{mid}", name, member=True), f"{name} received a gift membership")


def deleted(mid: str, target: str) -> dict[str, Any]:
    return item(mid, "messageDeletedEvent", "messageDeletedDetails", {"deletedMessageId": target},
                author("UCmod", "Mod", moderator=True))


def banned(mid: str, who: str, seconds: int) -> dict[str, Any]:
    return item(mid, "userBannedEvent", "userBannedDetails", {
        "bannedUserDetails": {"channelId": f"UC{who}", "channelUrl": "", "displayName": who, "profileImageUrl": ""},
        "banType": "temporary", "banDurationSeconds": str(seconds)}, author("UCmod", "Mod", moderator=True))


def chat_ended(mid: str) -> dict[str, Any]:
    return item(mid, "chatEndedEvent", None, {}, None, "This live chat has ended")


def google_error(status: int, reason: str, message: str, domain: str = "youtube.liveChat") -> web.Response:
    return web.json_response({"error": {"code": status, "message": message,
                                        "errors": [{"message": message, "domain": domain, "reason": reason}]}},
                             status=status)


@dataclass
class Call:
    path: str
    query: dict[str, str]
    auth: str
    at: float = field(default_factory=time.monotonic)


class YouTubeFake(FakeServer):
    CLIENT_ID, CLIENT_SECRET, REFRESH = "cid.apps.googleusercontent.com", "gsecret", "1//refresh"

    def __init__(self) -> None:
        super().__init__()
        self.log: list[dict[str, Any]] = []  # every chat item so far; a page token is an index into it
        self.calls: list[Call] = []
        self.polling_ms = 100
        self.quota = 10_000  # units the fake project has left today
        self.fail_next: list[tuple[int, str]] = []  # (status, reason) answers to the next chat polls
        self.garbage_next = 0  # answers that are not JSON
        self.offline = False  # offlineAt set: the broadcast is over
        self.active_chat: str | None = CHAT_ID
        self.tokens: set[str] = set()
        self.token_calls: list[dict[str, str]] = []
        r = self.app.router
        r.add_get("/youtube/v3/videos", self._videos)
        r.add_get("/youtube/v3/liveBroadcasts", self._broadcasts)
        r.add_get("/youtube/v3/liveChat/messages", self._messages)
        r.add_post("/token", self._token)

    @property
    def api_base(self) -> str:
        return f"{self.base}/youtube/v3"

    def _auth(self, req: web.Request, cost: int) -> web.Response | None:
        self.calls.append(Call(req.path, dict(req.query), req.headers.get("Authorization", "")))
        bearer = req.headers.get("Authorization", "")
        if req.query.get("key") != API_KEY and bearer.removeprefix("Bearer ") not in self.tokens:
            if bearer:
                return google_error(401, "authError", "Invalid Credentials", "global")
            return google_error(400, "keyInvalid", "API key not valid. Please pass a valid API key.", "global")
        if self.fail_next and req.path.endswith("/liveChat/messages"):
            status, reason = self.fail_next.pop(0)
            domain = "youtube.quota" if reason == "quotaExceeded" else "youtube.liveChat"
            return google_error(status, reason, f"injected {reason}", domain)
        if self.quota < cost:
            return google_error(403, "quotaExceeded", "The request cannot be completed because you have exceeded "
                                "your <a href=\"/youtube/v3/getting-started#quota\">quota</a>.", "youtube.quota")
        self.quota -= cost
        return None

    async def _videos(self, req: web.Request) -> web.Response:
        refused = self._auth(req, 1)
        if refused is not None:
            return refused
        if req.query.get("id") != VIDEO_ID or req.query.get("part") != "liveStreamingDetails":
            return web.json_response({"kind": "youtube#videoListResponse", "items": [],
                                      "pageInfo": {"totalResults": 0, "resultsPerPage": 0}})
        details: dict[str, Any] = {"actualStartTime": rfc3339(time.time() - 600), "concurrentViewers": "123"}
        if self.active_chat is not None:
            details["activeLiveChatId"] = self.active_chat
        return web.json_response({"kind": "youtube#videoListResponse", "items": [
            {"kind": "youtube#video", "id": VIDEO_ID, "liveStreamingDetails": details}]})

    async def _broadcasts(self, req: web.Request) -> web.Response:
        refused = self._auth(req, 1)
        if refused is not None:
            return refused
        if not req.headers.get("Authorization"):
            return google_error(401, "authError", "Login Required", "global")
        items = [] if self.active_chat is None else [{"kind": "youtube#liveBroadcast", "id": VIDEO_ID,
                                                      "snippet": {"liveChatId": self.active_chat}}]
        return web.json_response({"kind": "youtube#liveBroadcastListResponse", "items": items})

    async def _messages(self, req: web.Request) -> web.Response:
        refused = self._auth(req, 5)
        if refused is not None:
            return refused
        if req.query.get("liveChatId") != self.active_chat or self.active_chat is None:
            return google_error(403, "liveChatEnded", "The live chat is no longer live.")
        if "snippet" not in req.query.get("part", ""):
            return google_error(400, "invalidValue", "part")
        if self.garbage_next:
            self.garbage_next -= 1
            return web.Response(text="<html>502 Bad Gateway</html>", content_type="text/html")
        token = req.query.get("pageToken")
        start = int(token) if token and token.isdigit() else 0
        body: dict[str, Any] = {"kind": "youtube#liveChatMessageListResponse", "etag": "e",
                                "pollingIntervalMillis": self.polling_ms, "nextPageToken": str(len(self.log)),
                                "pageInfo": {"totalResults": len(self.log) - start, "resultsPerPage": 2000},
                                "items": self.log[start:]}
        if self.offline:
            body["offlineAt"] = rfc3339()
        return web.json_response(body)

    async def _token(self, req: web.Request) -> web.Response:
        form = {k: str(v) for k, v in (await req.post()).items()}
        self.token_calls.append(form)
        if (form.get("grant_type"), form.get("refresh_token"), form.get("client_id"), form.get("client_secret")) != \
                ("refresh_token", self.REFRESH, self.CLIENT_ID, self.CLIENT_SECRET):
            return web.json_response({"error": "invalid_grant", "error_description": "Token has been expired or "
                                      "revoked."}, status=400)
        token = f"ya29.access-{len(self.token_calls)}"
        self.tokens.add(token)
        return web.json_response({"access_token": token, "expires_in": 3599, "scope":
                                  "https://www.googleapis.com/auth/youtube.readonly", "token_type": "Bearer"})

    def add(self, *items: dict[str, Any]) -> None:
        self.log.extend(items)

    def list_calls(self) -> list[Call]:
        return [c for c in self.calls if c.path.endswith("/liveChat/messages")]
