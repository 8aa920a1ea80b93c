"""A Twitch user access token kept usable: validated (GET /oauth2/validate) and refreshed (POST /oauth2/token)."""

from __future__ import annotations

import json
import logging
import time
from typing import Any

from danmaku.config import TwitchSource
from danmaku.net import client_session, fetch
from danmaku.source import SessionError

log = logging.getLogger("danmaku.twitch")


class AuthFailed(SessionError):
    """The token is rejected and cannot be refreshed: an operator must act (a lasting warning)."""


class TwitchAuth:
    """The token to log in with. Refresh tokens rotate: the newest one is kept in memory (not written back)."""

    def __init__(self, cfg: TwitchSource, ssl_arg: Any):
        self.cfg = cfg
        self._ssl = ssl_arg
        raw = cfg.token.get_secret_value() if cfg.token is not None else ""
        self.token = raw[6:] if raw.lower().startswith("oauth:") else raw
        self.refresh_token = cfg.refresh_token.get_secret_value() if cfg.refresh_token is not None else ""
        self.login = cfg.login.lower()
        self._validated_at: float | None = None
        self.validations = self.refreshes = 0

    @property
    def anonymous(self) -> bool:
        return not self.token

    @property
    def refreshable(self) -> bool:
        return bool(self.refresh_token)

    def due(self) -> bool:
        """True when the token was never validated or its last validation is validate_every_s old."""
        return not self.anonymous and (self._validated_at is None
                                       or time.monotonic() - self._validated_at >= self.cfg.validate_every_s)

    def rejected(self) -> None:
        """The chat server refused the token at login: validate (and so refresh) before the next one."""
        self._validated_at = None

    async def _call(self, method: str, path: str, what: str, **kw: Any) -> tuple[int, Any]:
        async with client_session(self.cfg.http_timeout_s) as http:
            status, body = await fetch(http, method, self.cfg.auth_base + path, ssl_arg=self._ssl, what=what,
                                       limit=64 * 1024, **kw)
        try:
            return status, json.loads(body) if body else {}
        except ValueError:
            return status, {}

    async def ensure(self) -> None:
        """Validates the token when due; refreshes it when Twitch says it is invalid. AuthFailed when it cannot."""
        if not self.due():
            return
        status, data = await self._call("GET", "/oauth2/validate", "token validation",
                                        headers={"Authorization": f"OAuth {self.token}"})
        self.validations += 1
        if status == 401:
            await self.refresh()
            status, data = await self._call("GET", "/oauth2/validate", "token validation",
                                            headers={"Authorization": f"OAuth {self.token}"})
            self.validations += 1
        if status >= 400 or not isinstance(data, dict):
            raise SessionError(f"token validation: HTTP {status}")
        login = data.get("login")
        if not self.login and isinstance(login, str):
            self.login = login.lower()
        if not self.login:
            raise AuthFailed("the token's validation names no login: set `login:` to the token's account")
        scopes = data.get("scopes") or []
        if isinstance(scopes, list) and scopes and "chat:read" not in scopes:
            log.warning("twitch: the token has no chat:read scope (scopes: %s); Twitch may refuse to show chat",
                        ", ".join(map(str, scopes)))
        self._validated_at = time.monotonic()

    async def refresh(self) -> None:
        if not self.refreshable:
            raise AuthFailed("Twitch rejects the token and no refresh_token is configured: make a new token")
        secret = self.cfg.client_secret.get_secret_value() if self.cfg.client_secret is not None else ""
        status, data = await self._call("POST", "/oauth2/token", "token refresh", data={
            "grant_type": "refresh_token", "refresh_token": self.refresh_token, "client_id": self.cfg.client_id,
            "client_secret": secret})
        if status in (400, 401, 403):
            raise AuthFailed(f"token refresh refused (HTTP {status}: {str(data.get('message', ''))[:120]}): the "
                             "refresh token is revoked or belongs to another app; authorize again")
        if status >= 400 or not isinstance(data, dict) or not isinstance(data.get("access_token"), str):
            raise SessionError(f"token refresh: HTTP {status} or no access_token in the answer")
        self.token = data["access_token"]
        if isinstance(data.get("refresh_token"), str) and data["refresh_token"]:
            self.refresh_token = data["refresh_token"]
        self.refreshes += 1
        self._validated_at = None
        log.info("twitch: access token refreshed")
