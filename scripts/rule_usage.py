"""Which red-team comments each built-in moderation rule alone blocks: the table behind a smaller rulebook.

For every pattern of data/wordlists.toml (and political.py) and, with --words, every word of the phrase-like lists
(ADS_AND_FRAUD, GAMBLING_DRUGS_SEX), the room's moderator is built again without it and every comment (and user name)
of tests/brain/redteam/ it blocked is checked again: those it lets through are the ones that rule alone catches. A rule
that unblocks a clean comment is a rule's false positive. Moderator verdicts only (no brain, no posture, no probe):
what a rule's removal does end to end is what `tests/brain/test_redteam.py PART` then measures.

    .venv/bin/python scripts/rule_usage.py            # one line a rule: how many it alone catches, in which sets
    .venv/bin/python scripts/rule_usage.py --words    # the phrase-like list words too
    .venv/bin/python scripts/rule_usage.py --drop 辱骂,堵人 --words-drop 日赚   # what retiring these together lets through
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from unittest import mock

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from broadcaster.brain import moderation, wordlists  # noqa: E402
from broadcaster.brain.config import ModerationConfig  # noqa: E402
from broadcaster.brain.moderation import Moderator, moderator_from_config  # noqa: E402
from broadcaster.brain.redteam import load_items  # noqa: E402

REDTEAM = ROOT / "tests" / "brain" / "redteam"
# The sets with a product and a KB of their own run with no room words (tests/brain/test_redteam.py PRODUCT_PARTS);
# the older sets' room lists 淘宝, 拼多多 and 加群.
OWN_ROOM_PARTS = frozenset({"heldout14", "heldout15"})
LEGACY_WORDS = ["淘宝", "拼多多", "加群"]
CLEAN = frozenset({"near_miss", "chitchat", "question", "good_name", "intent"})
# Sets no rule was written from: heldout13–15 and the products (issue 22's development products included).
INDEPENDENT = frozenset({"heldout13", "heldout14", "heldout15", *(p.stem for p in (REDTEAM / "products").glob("*.jsonl"))})
PHRASE_LISTS = ("ADS_AND_FRAUD", "GAMBLING_DRUGS_SEX")


@dataclass(frozen=True)
class Row:
    part: str
    id: str
    cls: str
    text: str
    is_name: bool
    product: bool  # a set with a room of its own (no room words)

    def blocked_by(self, m: Moderator) -> bool:
        return not (m.check(self.text) if self.is_name else m.check_comment(self.text)).ok


def red_team_rows() -> list[Row]:
    """Every comment and user name of the red-team files (the files that are no red-team set are skipped)."""
    rows: list[Row] = []
    for path in [*sorted(REDTEAM.glob("*.jsonl")), *sorted((REDTEAM / "products").glob("*.jsonl"))]:
        try:
            items = load_items(path)
        except ValueError:
            continue  # offtopic.jsonl: a corpus, not a labelled set
        product = path.parent.name == "products" or path.stem in OWN_ROOM_PARTS
        for it in items:
            if it["class"] in ("bad_name", "good_name") and it.get("user"):
                rows.append(Row(path.stem, it["id"], it["class"], it["user"], True, product))
            if it.get("text"):
                rows.append(Row(path.stem, it["id"], it["class"], it["text"], False, product))
    return rows


@contextmanager
def without(patterns: Iterable[str] = (), words: Iterable[str] = ()) -> Iterator[None]:
    """The built-in rules less these patterns and words, for the moderators built inside."""
    drop_p, drop_w = frozenset(patterns), frozenset(words)
    room_patterns = moderation.room_patterns

    def fewer(own: set[str], own_dense: set[str]) -> dict[str, str]:
        return {k: v for k, v in room_patterns(own, own_dense).items() if k not in drop_p}

    with mock.patch.object(moderation, "room_patterns", fewer), \
         mock.patch.object(moderation, "GLOBAL_WORDS", tuple(w for w in moderation.GLOBAL_WORDS if w not in drop_w)):
        yield


def moderators() -> dict[bool, Moderator]:
    """The older sets' room (False) and the product rooms (True)."""
    return {product: moderator_from_config(ModerationConfig(words=[] if product else LEGACY_WORDS, action="replace"))
            for product in (False, True)}


def unblocked(blocked: list[Row], patterns: Iterable[str] = (), words: Iterable[str] = ()) -> list[Row]:
    """The blocked rows that these rules' removal lets through."""
    with without(patterns, words):
        rooms = moderators()
    return [r for r in blocked if not r.blocked_by(rooms[r.product])]


def usage(blocked: list[Row], rules: list[tuple[str, str]]) -> dict[str, dict[str, list[str]]]:
    table: dict[str, dict[str, list[str]]] = {}
    for kind, rule in rules:
        freed = unblocked(blocked, (rule,) if kind == "pattern" else (), (rule,) if kind == "word" else ())
        table[f"{kind}:{rule}"] = {"alone": [f"{r.part}:{r.id}:{r.text}" for r in freed if r.cls not in CLEAN],
                                   "clean": [f"{r.part}:{r.id}:{r.text}" for r in freed if r.cls in CLEAN]}
    return table


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--words", action="store_true", help="the phrase-like list words too")
    ap.add_argument("--drop", default="", help="patterns to retire together (comma-separated): print what they free")
    ap.add_argument("--words-drop", default="", help="list words to retire together with --drop")
    ap.add_argument("--json", action="store_true", help="the whole table as JSON")
    args = ap.parse_args(argv)
    rows = red_team_rows()
    rooms = moderators()
    blocked = [r for r in rows if r.blocked_by(rooms[r.product])]  # a removal can only let a blocked row through
    if args.drop or args.words_drop:
        for r in unblocked(blocked, [p for p in args.drop.split(",") if p], [w for w in args.words_drop.split(",") if w]):
            print(f"{r.part}\t{r.id}\t{r.cls}\t{r.text}")
        return 0
    rules = [("pattern", k) for k in wordlists.PATTERNS]
    if args.words:
        rules += [("word", w) for name in PHRASE_LISTS for w in getattr(wordlists, name)]
    table = usage(blocked, rules)
    if args.json:
        print(json.dumps(table, ensure_ascii=False, indent=1))
        return 0
    print(f"{len(rows)} red-team texts, {len(blocked)} blocked by the rules; per rule: what it alone blocks")
    for rule, found in table.items():
        parts = sorted({s.split(":")[0] for s in found["alone"]})
        independent = [p for p in parts if p in INDEPENDENT]
        print(f"{rule}\talone {len(found['alone'])}\tindependent {','.join(independent) or '-'}\t"
              f"sets {','.join(parts) or '-'}\tclean {len(found['clean'])}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
