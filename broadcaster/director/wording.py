"""The director's own words in each room language: thanks and welcome templates, names joined, amounts as said.

A thanks line names what the viewer paid in the platform's own unit ("$10.00", "500 bits", "¥30"), read from
`Event.money` (exact), else the platform's display string (`extra.amount_display`), else the converted value in
the room's accounting currency: priorities use the converted value, people hear what they gave.
"""

from __future__ import annotations

from decimal import Decimal

from danmaku.event import MILLI_PER_CNY, Event

# Templates per language and kind; `{a|b}` alternatives and slots as in director/variants.py. The Chinese ones are
# TriageConfig's defaults (a room's config or talk file may replace any of them).
TEMPLATES: dict[str, dict[str, tuple[str, ...]]] = {
    "zh": {
        "gifts": ("谢谢{names}送的{gifts}！",),
        "guard": ("感谢{name}开通{guard}，欢迎上船！",),
        "follow": ("欢迎{names}的关注！",),
        "raid": ("欢迎{name}带着{count}位朋友来到直播间！", "感谢{name}带大家过来，欢迎欢迎！"),
    },
    "en": {
        "gifts": ("Thank you {names} for the {gifts}!", "Thanks so much {names} for the {gifts}!",
                  "{names}, thank you for the {gifts}!"),
        "guard": ("Thank you {name} for the {guard}, welcome aboard!", "Huge thanks {name} for the {guard}!",
                  "{name}, thank you so much for the {guard}!"),
        "follow": ("Welcome {names}, thanks for the follow!", "Thanks for following, {names}!",
                   "{names}, welcome and thanks for the follow!"),
        "raid": ("Welcome, raiders! Thank you {name} for bringing {count} friends!",
                 "Thank you {name} for the raid, and welcome everyone!",
                 "Huge thanks {name} for the raid with {count} viewers, welcome in!"),
    },
}
GIFT_JOIN = {"zh": "和", "en": " and "}
GIFT_DEFAULT = {"zh": "礼物", "en": "gifts"}
ANONYMOUS = {"zh": "这位朋友", "en": "friend"}
GUARD_NAMES = {"zh": {1: "总督", 2: "提督", 3: "舰长"}, "en": {1: "Governor", 2: "Admiral", 3: "Captain"}}

# Platform units as said in English (singular, plural); currencies use their sign or code.
_UNIT_WORDS = {
    "twitch_bit": ("bit", "bits"),
    "kuaishou_coin": ("Kuaishou coin", "Kuaishou coins"),
    "douyin_diamond": ("diamond", "diamonds"),
    "bilibili_gold": ("gold coin", "gold coins"),
    "youtube_membership": ("membership", "memberships"),
    "twitch_sub_prime": ("Prime sub", "Prime subs"),
    "twitch_sub_tier1": ("sub", "subs"),
    "twitch_sub_tier2": ("tier 2 sub", "tier 2 subs"),
    "twitch_sub_tier3": ("tier 3 sub", "tier 3 subs"),
}
_SIGNS = {"USD": "$", "EUR": "€", "GBP": "£"}
_NO_CENTS = frozenset({"JPY", "KRW", "CNY", "TWD", "VND", "IDR", "CLP", "HUF"})


def join_names(names: list[str], limit: int, language: str = "zh") -> str:
    """zh: 甲 / 甲和乙 / 甲、乙和丙 / 甲、乙、丙等4位朋友; en: A / A and B / A, B and C / A, B, C and 2 others."""
    shown = names[:limit]
    if language == "en":
        if len(names) > limit:
            more = len(names) - limit
            return ", ".join(shown) + f" and {more} other{'s' if more > 1 else ''}"
        if len(shown) <= 1:
            return "".join(shown)
        return ", ".join(shown[:-1]) + " and " + shown[-1]
    if len(names) > limit:
        return "、".join(shown) + f"等{len(names)}位朋友"
    if len(shown) <= 1:
        return "".join(shown)
    return "、".join(shown[:-1]) + "和" + shown[-1]


def _count(n: Decimal, one: str, many: str) -> str:
    return f"{n:,} {one if n == 1 else many}"


def amount_text(event: Event) -> str:
    """What the viewer paid, as written for the screen and read by the voice: "$10.00", "500 bits", "1,000 JPY"."""
    money = event.money
    if money is not None:
        value = money.decimal
        if money.unit in _UNIT_WORDS or money.unit.startswith(("twitch_sub", "kuaishou_gift")):
            one, many = _UNIT_WORDS.get(money.unit, ("gift", "gifts"))
            return _count(value.quantize(Decimal(1)) if value == value.to_integral() else value.normalize(), one, many)
        if money.unit.isupper():
            shown = (f"{value.quantize(Decimal(1)):,}" if money.unit in _NO_CENTS and value == value.to_integral()
                     else f"{value.quantize(Decimal('0.01')):,}")
            sign = _SIGNS.get(money.unit)
            return f"{sign}{shown}" if sign else f"{shown} {money.unit}"
    display = str(event.extra.get("amount_display") or "").strip()
    if display:
        return display
    value = Decimal(max(0, event.value_milli)) / MILLI_PER_CNY
    return f"{value.quantize(Decimal('0.01')):,} {event.currency}"


def guard_text(event: Event, language: str) -> str:
    """What a guard event bought, as the {guard} slot says it: 舰长, "sub", "5 gifted subs", "membership"."""
    level = int(event.extra.get("guard_level") or (event.user.guard_level if event.user else 0) or 3)
    if language != "en":
        return GUARD_NAMES["zh"].get(level, "舰长")
    unit = event.money.unit if event.money is not None else ""
    count = int(event.extra.get("count") or (event.money.amount if event.money is not None else 1) or 1)
    gifted = event.extra.get("type") in ("subgift", "anonsubgift", "submysterygift", "anonsubmysterygift",
                                         "gift_memberships")
    if unit.startswith("twitch_sub"):
        one, many = ("gifted sub", "gifted subs") if gifted else _UNIT_WORDS.get(unit, ("sub", "subs"))
    elif unit == "youtube_membership":
        one, many = ("gifted membership", "gifted memberships") if gifted else ("membership", "memberships")
    else:
        return GUARD_NAMES["en"].get(level, "Captain")
    return one if count == 1 else f"{count} {many}"


def super_chat_thanks(name: str, event: Event, language: str) -> str:
    """The thanks for a paid message (a super chat, Super Chat or Sticker, cheer): with its amount in English."""
    if language != "en":
        return f"感谢{name}的醒目留言！"
    amount = amount_text(event)
    if event.money is not None and event.money.unit == "twitch_bit":
        return f"Thank you {name} for the {amount}!"
    what = "Super Sticker" if event.extra.get("sticker") is not None else "Super Chat"
    return f"Thank you {name} for the {what} of {amount}!"
