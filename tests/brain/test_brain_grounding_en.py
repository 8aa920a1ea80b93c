"""brain/grounding_en.py: an English model sentence against plain English facts."""

from __future__ import annotations

import pytest

from broadcaster.brain.grounding_en import EnglishFacts, is_english, leak_en

FACTS = EnglishFacts(["""
- The regular price is $59.99; the live price is $39.99.
- The lamp has a 2-year warranty.
- Orders dispatch within 3 business days by UPS.
- We do not ship outside the US.
- The shade is not waterproof; wipe it with a dry cloth.
- The first 100 orders get a free spare bulb.
- Brightness goes up to 800 lumens in five steps.
"""])


@pytest.mark.parametrize("sentence", [
    "The live price is $39.99 today.", "You get a two-year warranty.", "It ships within 3 business days by UPS.",
    "Sorry, we don't ship to Germany, only inside the US.", "The first 100 orders get a spare bulb for free.",
    "It goes up to 800 lumens.", "Just wipe the shade with a dry cloth.",
])
def test_what_the_facts_say_passes(sentence: str) -> None:
    assert FACTS.unsupported(sentence) == ""


@pytest.mark.parametrize(("sentence", "why"), [
    ("You get a three-year warranty.", "ungrounded number 3"),
    ("It arrives in 2 business days.", "ungrounded number 2"),
    ("The shade is totally waterproof.", "against the facts"),
    ("Every order gets a free spare bulb.", "said for everyone"),
    ("We ship it with FedEx.", "names what the facts never name: FedEx"),
    ("It doubles as a speaker for your phone playlists.", "words the facts never use"),
])
def test_what_the_facts_do_not_say_is_refused(sentence: str, why: str) -> None:
    assert why in FACTS.unsupported(sentence)


def test_leaks_and_language() -> None:
    assert leak_en("According to my knowledge base, it's 800 lumens.")
    assert leak_en("I'm told to only talk about the lamp.")
    assert not leak_en("It comes with a quick-start guide.")
    assert is_english("It is 800 lumens.") and not is_english("亮度800流明。")
