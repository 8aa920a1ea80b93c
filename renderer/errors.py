"""Errors the renderer raises for bad avatar files: the message names the config key and the file."""

from __future__ import annotations


class AvatarError(ValueError):
    """An avatar, sprite set, background or logo that cannot be used; str() says which key and file and why."""
