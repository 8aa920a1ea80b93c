"""A moderation verdict: ok, or the listed words hit, by which rule, in what of the text (moderation.py, english.py)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Verdict:
    ok: bool
    matched: tuple[str, ...] = ()  # the listed words that were hit
    how: tuple[str, ...] = ()  # per match, the rule: text | alias | pinyin | initial | abbreviation | latin | contact | split
    action: str = ""  # the configured action when not ok
    spans: tuple[str, ...] = ()  # per match, what in the text it was

    def describe(self) -> str:
        if self.ok:
            return "ok"
        hits = ", ".join(
            f"{w} ({h}{': ' + s if s and s != w else ''})"
            for w, h, s in zip(self.matched, self.how, self.spans or ("",) * len(self.matched), strict=True)
        )
        return f"blocked: {hits}; action={self.action}"


OK = Verdict(ok=True)
