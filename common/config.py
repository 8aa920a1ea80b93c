"""Config building blocks every package may use: the strict base model, secrets, URL redaction."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, PlainSerializer, SecretStr, ValidationInfo, field_validator

REDACTED = "***"


def _resolve(value: Any, base: Path) -> Any:
    if isinstance(value, Path):
        return value if value.is_absolute() or str(value).startswith("~") else base / value
    if isinstance(value, list) and value and all(isinstance(v, Path) for v in value):
        return [_resolve(v, base) for v in value]
    return value


class Model(BaseModel):
    """Every config section forbids unknown keys, so a typo is an error, not a silent default.

    Relative paths are taken relative to the config file (validation context "base_dir"), so a room's
    files resolve the same whatever directory the daemon was started from.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    @field_validator("*", mode="after")
    @classmethod
    def _relative_to_config_file(cls, value: Any, info: ValidationInfo) -> Any:
        base = (info.context or {}).get("base_dir")
        return _resolve(value, Path(base)) if base is not None else value


_URL_SECRET = re.compile(r"^(?P<head>[a-z][a-z0-9+.-]*://(?:[^/@]*@)?[^/?#]+/[^/?#]+/?)(?P<tail>.*)$", re.I)


def redact_url(url: str) -> str:
    """Keeps scheme, host and the first path segment (the RTMP app); hides the stream key and query."""
    url = re.sub(r"://[^/@]*@", "://" + REDACTED + "@", url)
    m = _URL_SECRET.match(url)
    if not m:
        return url
    return m.group("head") + (REDACTED if m.group("tail") else "")


# A secret that prints as *** everywhere (repr, logs, `check`); use .get_secret_value() to read it.
Secret = Annotated[SecretStr, PlainSerializer(lambda s: REDACTED if s.get_secret_value() else "", when_used="always")]

# A URL whose path/query may hold a stream key: printed with everything after the app hidden.
SecretURL = Annotated[SecretStr, PlainSerializer(lambda s: redact_url(s.get_secret_value()), when_used="always")]
