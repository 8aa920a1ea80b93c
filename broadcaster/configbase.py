"""Shared pieces for config models: strict base model, secrets and redaction of URLs."""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import BaseModel, ConfigDict, PlainSerializer, SecretStr

REDACTED = "***"


class Model(BaseModel):
    """Every config section forbids unknown keys, so a typo is an error, not a silent default."""

    model_config = ConfigDict(extra="forbid", frozen=True)


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
