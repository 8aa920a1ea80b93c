"""A room's products: their config (`director.products`), the price read from each product's facts, and the
interface through which the show tells the brain what is sold and what is on screen.

This module stays light (pydantic, yaml): the config model and the brain import it. The presenting itself (which
product is on screen, its talk, offers, stock) is the ProductDesk in desk.py.

Who owns what: the director presents (this section: the list, the running order, each product's talk, offers
and stock); the brain answers from each product's facts (the folder or file `facts` names, handed to it as
`ProductFacts`); the avatar draws the card (`avatar.overlays.card` says where and how; the content comes from
here through the stage).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol, runtime_checkable

import yaml
from pydantic import Field, ValidationInfo, field_validator, model_validator

from common.config import Model

_ID = r"^[A-Za-z0-9_.-]{1,64}$"
FACT_SUFFIXES = (".md", ".markdown", ".txt", ".yaml", ".yml")
_MAX_FACT_BYTES = 1 << 20


class ProductsError(ValueError):
    """A product that cannot be presented as configured; the message names the file or key and what was expected."""


class OfferConfig(Model):
    """A timed offer of one product: started by the operator (or when its product comes on screen), it runs for
    `minutes`, is on the card with a countdown, and is never spoken once it has ended."""

    id: str = Field(pattern=_ID)
    text: str = Field(min_length=1, max_length=60)  # what the offer is: on the card, and the {offer} slot
    minutes: float = Field(gt=0, le=99)  # how long it runs once started (the card counts down mm:ss)
    # A fact of the product that is the price while the offer runs (e.g. 限时秒杀价): the card and {price} read it
    # then, and the brain must never say it once the offer has ended.
    price_key: str | None = Field(None, min_length=1)
    # Calls to action while it runs (after a gift or follow; variants, slots as in talk lines). Talk lines that
    # name {offer} or {offer_left} are said only while it runs, too.
    cta: list[str] = Field(default_factory=list)
    auto_start: bool = False  # starts each time its product comes on screen


class ProductConfig(Model):
    id: str = Field(pattern=_ID)
    name: str = Field(min_length=1, max_length=40)
    aliases: list[str] = Field(default_factory=list)  # other names viewers use for it (the brain matches on them)
    facts: Path  # its knowledge base (a folder of Markdown/YAML files, or one file): the brain answers from it
    # The fact that is "the price now" (e.g. 直播间到手价): the card shows its value and the talk's {price} says it,
    # read from `facts`, so card, speech and answers say one figure.
    price_key: str = Field(min_length=1)
    image: Path | None = None  # the card's picture (png, jpg, webp)
    # Its talk, said while it is on screen (before the room's own loop): a YAML file `segments: [...]` in the shape of
    # director.talk.file's segments. Slots: {product} {price} {price_label} {offer} {offer_left} {stock} and the
    # room's (director/variants.py).
    talk: Path | None = None
    # Said when it comes on screen (variants of one line): the first line of its turn.
    intro: list[str] = Field(default_factory=lambda: ["接下来给大家介绍{product}，{price_label}{price}。"], min_length=1)
    offers: list[OfferConfig] = Field(default_factory=list)
    stock: int | None = Field(None, ge=0)  # left in stock at start (the operator sets it live); 0 stops its pitch
    minutes: float | None = Field(None, gt=0)  # its turn in the running order (default: director.products.minutes)

    @field_validator("price_key")
    @classmethod
    def _price_stated(cls, v: str, info: ValidationInfo) -> str:
        facts = info.data.get("facts")
        if isinstance(facts, Path) and facts.expanduser().exists():  # a missing path is check_paths' to report
            read_fact(facts, v)
        return v

    @model_validator(mode="after")
    def _offers(self) -> ProductConfig:
        facts = self.facts.expanduser()
        if self.talk is not None and facts.is_dir() and self.talk.expanduser().is_relative_to(facts):
            raise ValueError(f"talk {str(self.talk)!r} is inside the facts folder {str(facts)!r}: its lines would be "
                             "read as facts (keep facts in a folder, or a file, of their own)")
        seen: set[str] = set()
        for i, offer in enumerate(self.offers):
            if offer.id in seen:
                raise ValueError(f"offers[{i}]: offer id {offer.id!r} is used twice")
            seen.add(offer.id)
            if offer.price_key is not None and self.facts.expanduser().exists():
                try:
                    read_fact(self.facts, offer.price_key)
                except ProductsError as exc:
                    raise ValueError(f"offers[{i}].price_key: {exc}") from None
        return self


class ProductsConfig(Model):
    """The products a room sells, one on screen at a time."""

    items: list[ProductConfig] = Field(default_factory=list)
    # loop: each product in turn for its minutes, round and round (the operator may switch at any time);
    # manual: a product stays on screen until the operator presents another
    order: Literal["loop", "manual"] = "loop"
    minutes: float = Field(8.0, gt=0)  # a product's turn in the running order
    # The talk track stops naming an offer this long (plus 10 s for the line itself) before it ends, so the last
    # line that names it ends before the offer does; whatever of it is still queued at the end is cut.
    offer_margin_s: float = Field(5.0, ge=0, le=600)

    @model_validator(mode="after")
    def _unique(self) -> ProductsConfig:
        seen: set[str] = set()
        for i, item in enumerate(self.items):
            if item.id in seen:
                raise ValueError(f"items[{i}]: product id {item.id!r} is used twice")
            seen.add(item.id)
        return self


# -- facts --------------------------------------------------------------------------------------------

def fact_files(path: Path) -> list[Path]:
    """The fact files of a product: the file itself, or every Markdown/text/YAML file under the folder (sorted,
    hidden ones skipped, as the knowledge base skips them)."""
    path = path.expanduser()
    if path.is_file():
        return [path]
    return [p for p in sorted(path.rglob("*")) if p.is_file() and p.suffix.lower() in FACT_SUFFIXES
            and not any(part.startswith(".") for part in p.relative_to(path).parts)]


def _read(path: Path) -> str:
    try:
        with path.open("rb") as f:
            raw = f.read(_MAX_FACT_BYTES + 1)
        if len(raw) > _MAX_FACT_BYTES:
            raise ProductsError(f"{path}: larger than {_MAX_FACT_BYTES // 1024} KiB: not a facts file")
        return raw.decode("utf-8")
    except OSError as exc:
        raise ProductsError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise ProductsError(f"{path}: not UTF-8 text (byte {exc.start})") from None


def fact_texts(path: Path) -> tuple[str, ...]:
    """The text of each fact file of a product."""
    return tuple(_read(p) for p in fact_files(path))


_SEP = r"\s*(?:\*\*)?\s*(?:[:：]|是|为)\s*"
_CLAUSE_END = re.compile(r"[。；;，,！!？?|]")


def _markdown_values(text: str, key: str) -> Iterator[str]:
    """`key：value` on a line of Markdown or text (a list item, bold, a table row `| key | value |` too); the
    value runs to the end of its clause."""
    k = re.escape(key)
    pattern = re.compile(rf"^\s*(?:[-*+]|\d+[.)])?\s*(?:\*\*)?{k}(?:{_SEP}|\s*\|\s*)(?P<v>.+)$")
    for line in text.splitlines():
        m = pattern.match(line.strip().strip("|").strip())
        if m:
            value = _CLAUSE_END.split(m.group("v").replace("**", ""), 1)[0].strip()
            if value:
                yield value


def _yaml_values(node: Any, key: str) -> Iterator[str]:
    if isinstance(node, dict):
        for k, v in node.items():
            if str(k) == key and isinstance(v, str | int | float) and not isinstance(v, bool):
                yield str(v).strip()
            else:
                yield from _yaml_values(v, key)
    elif isinstance(node, list):
        for v in node:
            yield from _yaml_values(v, key)


def read_fact(path: Path, key: str) -> tuple[str, Path]:
    """(the value the facts state for `key`, the file that states it). ProductsError when no file states it, or
    when two state it differently (the card and the speech would not know which to say)."""
    found: dict[str, Path] = {}
    files = fact_files(path)
    for file in files:
        text = _read(file)
        if file.suffix.lower() in (".yaml", ".yml"):
            try:
                values = list(_yaml_values(yaml.safe_load(text), key))
            except yaml.YAMLError as exc:
                raise ProductsError(f"{file}: invalid YAML: {exc}") from None
        else:
            values = list(_markdown_values(text, key))
        for value in values:
            found.setdefault(value, file)
    if not found:
        where = f"the {len(files)} fact file(s) under {path}" if path.is_dir() else str(path)
        raise ProductsError(f"{key!r} is not stated in {where} (expected a line '{key}：…' in Markdown, or a "
                            f"'{key}:' key in YAML)")
    if len(found) > 1:
        told = "; ".join(f"{v!r} in {f}" for v, f in found.items())
        raise ProductsError(f"{key!r} is stated with different values: {told}")
    value, file = next(iter(found.items()))
    return value, file


_FIGURE = re.compile(r"\d+(?:\.\d+)?")


def unstated_figures(text: str, facts: str) -> list[str]:
    """The figures of `text` that `facts` never writes (digits only; a figure in a slot is the facts' own)."""
    stated = set(_FIGURE.findall(facts))
    return [f for f in _FIGURE.findall(re.sub(r"\{[A-Za-z_]+\}", "", text)) if f not in stated]


# -- what the brain is told ---------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class OfferFacts:
    id: str
    text: str
    price_key: str | None  # a fact true only while the offer runs


@dataclass(frozen=True, slots=True)
class ProductFacts:
    """One product as the brain knows it: what to answer from, and how viewers name it."""

    id: str
    name: str
    aliases: tuple[str, ...]
    facts: Path  # folder or file: index these as this product's facts, apart from every other product's
    price_key: str  # the fact that is the price now (the card shows the same value)
    offers: tuple[OfferFacts, ...]


@dataclass(frozen=True, slots=True)
class LiveProduct:
    """What the show knows of a product right now; these values count as facts (issue 22, point 4)."""

    id: str
    on_screen: bool
    stock: int | None  # None: not set by the operator
    running: tuple[tuple[OfferFacts, float], ...]  # (offer, seconds left) of offers running now
    ended: tuple[OfferFacts, ...]  # offers that ran and ended: their text and price fact are never said again
    price: tuple[str, str]  # (price key, value) that is the price now: an offer's while it runs, else the product's


@runtime_checkable
class ProductAware(Protocol):
    """What a brain implements to answer in a room that sells several products (see docs/products.md)."""

    async def set_products(self, catalogue: Sequence[ProductFacts], live: Callable[[str], LiveProduct]) -> None:
        """The room's products (at start and after every reload that changes them); `live(id)` may be called at
        any time, from the event loop, and is cheap."""
        ...

    def present(self, product_id: str | None) -> None:
        """From now, `product_id` is the product on screen (None: none). Called at the line boundary where its
        first line is chosen, before that line is answered."""
        ...
