"""English readings for speech: money, percentages, units, ranges, dates, times, ordinals, phones and big numbers.

A voice reads what it is given; "$5.99", "220V", "5-10 kg" or "05/01/2024" come out wrong or as noise. This
module rewrites a sentence into what an English-speaking host would say (US usage): $5.99 → five dollars and
ninety-nine cents, 30 USD → thirty dollars, 220 V → two hundred twenty volts, 30% → thirty percent, 5-10 kg →
five to ten kilograms, 2024-05-01 → May first, twenty twenty-four, 8:30 pm → eight thirty P M, 21st → twenty-first,
(555) 123-4567 → five five five, one two three, four five six seven, 1.5M → one point five million, RTX4090 →
R T X forty ninety. ¥ is read as yuan (the rooms sell on Chinese platforms); yen is JPY. Acronyms are left
to the voice, which spells them.
"""

from __future__ import annotations

import re

_ONES = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"]
_TENS = ("", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_SCALES = ((10**12, "trillion"), (10**9, "billion"), (10**6, "million"), (1000, "thousand"))
_ORDINAL_WORDS = {"one": "first", "two": "second", "three": "third", "five": "fifth", "eight": "eighth",
                  "nine": "ninth", "twelve": "twelfth"}


def int_en(n: int) -> str:
    """Cardinal, US style: 105 → one hundred five, 1_250_000 → one million two hundred fifty thousand."""
    if n < 0:
        return "minus " + int_en(-n)
    if n < 20:
        return _ONES[n]
    if n < 100:
        return _TENS[n // 10] + (f"-{_ONES[n % 10]}" if n % 10 else "")
    if n < 1000:
        return f"{_ONES[n // 100]} hundred" + (f" {int_en(n % 100)}" if n % 100 else "")
    if n >= 1000 * 10**12:
        return digits_en(str(n))
    for value, name in _SCALES:
        if n >= value:
            head, rest = divmod(n, value)
            return f"{int_en(head)} {name}" + (f" {int_en(rest)}" if rest else "")
    raise AssertionError(n)


def digits_en(s: str) -> str:
    """One digit at a time: 4090 → four zero nine zero."""
    return " ".join(_ONES[int(c)] for c in s if c.isdigit())


def number_en(s: str) -> str:
    """A decimal number as written: "1,299" → one thousand two hundred ninety-nine, "3.14" → three point one four."""
    s = s.replace(",", "")
    neg = s.startswith("-")
    s = s.lstrip("+-")
    whole, _, frac = s.partition(".")
    text = digits_en(whole) if len(whole) > 15 else int_en(int(whole or "0"))
    if frac:
        text += " point " + digits_en(frac)
    return ("minus " if neg else "") + text


def ordinal_en(n: int) -> str:
    """1 → first, 22 → twenty-second, 100 → one hundredth."""
    words = int_en(n)
    head, sep, last = max(words.rpartition(" "), words.rpartition("-"), key=lambda p: len(p[0]))
    if last in _ORDINAL_WORDS:
        last = _ORDINAL_WORDS[last]
    elif last.endswith("y"):
        last = last[:-1] + "ieth"
    else:
        last += "th"
    return head + sep + last


def year_en(n: int) -> str:
    """1999 → nineteen ninety-nine, 1905 → nineteen oh five, 2000 → two thousand, 2024 → twenty twenty-four."""
    if 2000 <= n <= 2009 or not 1100 <= n <= 2099:
        return int_en(n)
    hi, lo = divmod(n, 100)
    if lo == 0:
        return f"{int_en(hi)} hundred"
    return f"{int_en(hi)} {'oh ' + _ONES[lo] if lo < 10 else int_en(lo)}"


# --- what is matched -------------------------------------------------------------------------------

_NUM = r"\d+(?:,\d{3})*(?:\.\d+)?"
_MULT = {"k": "thousand", "K": "thousand", "M": "million", "m": "million", "B": "billion", "bn": "billion"}
_MULT_ALT = r"(?:bn|k|K|M|B)"  # after a currency symbol "m" is million too ($2m); elsewhere m is metres

# Currency: (singular, plural, minor singular, minor plural) — minor None: decimals are read as decimals.
_CURRENCIES: dict[str, tuple[str, str, str | None, str | None]] = {
    "USD": ("dollar", "dollars", "cent", "cents"),
    "EUR": ("euro", "euros", "cent", "cents"),
    "GBP": ("pound", "pounds", "penny", "pence"),
    "CNY": ("yuan", "yuan", None, None),
    "JPY": ("yen", "yen", None, None),
    "CAD": ("Canadian dollar", "Canadian dollars", "cent", "cents"),
    "AUD": ("Australian dollar", "Australian dollars", "cent", "cents"),
    "HKD": ("Hong Kong dollar", "Hong Kong dollars", "cent", "cents"),
    "TWD": ("New Taiwan dollar", "New Taiwan dollars", None, None),
    "SGD": ("Singapore dollar", "Singapore dollars", "cent", "cents"),
    "KRW": ("won", "won", None, None),
    "INR": ("rupee", "rupees", None, None),
    "MXN": ("peso", "pesos", "centavo", "centavos"),
    "BRL": ("real", "reais", "centavo", "centavos"),
    "CHF": ("Swiss franc", "Swiss francs", None, None),
    "RUB": ("ruble", "rubles", None, None),
}
_SYMBOLS = {"US$": "USD", "$": "USD", "€": "EUR", "£": "GBP", "¥": "CNY", "￥": "CNY", "HK$": "HKD", "CA$": "CAD",
            "C$": "CAD", "A$": "AUD", "AU$": "AUD", "NT$": "TWD", "S$": "SGD", "₩": "KRW", "₹": "INR", "R$": "BRL"}
_CODE_WORDS = {"RMB": "CNY", **{c: c for c in _CURRENCIES}}
_SYM_ALT = "|".join(re.escape(s) for s in sorted(_SYMBOLS, key=len, reverse=True))
_CODE_ALT = "|".join(sorted(_CODE_WORDS, key=len, reverse=True))

# Units: symbol → (singular, plural). Case matters (M is million, m metres; bare "s" is too often a model's
# letter — iPhone 5s — to be seconds).
_UNITS: dict[str, tuple[str, str]] = {
    "km/h": ("kilometer per hour", "kilometers per hour"), "kph": ("kilometer per hour", "kilometers per hour"),
    "mph": ("mile per hour", "miles per hour"), "m/s": ("meter per second", "meters per second"),
    "kWh": ("kilowatt hour", "kilowatt hours"), "Wh": ("watt hour", "watt hours"),
    "mAh": ("milliamp hour", "milliamp hours"), "kW": ("kilowatt", "kilowatts"), "W": ("watt", "watts"),
    "V": ("volt", "volts"), "mA": ("milliamp", "milliamps"),
    "GHz": ("gigahertz", "gigahertz"), "MHz": ("megahertz", "megahertz"), "kHz": ("kilohertz", "kilohertz"),
    "Hz": ("hertz", "hertz"),
    "kg": ("kilogram", "kilograms"), "mg": ("milligram", "milligrams"), "g": ("gram", "grams"),
    "lbs": ("pound", "pounds"), "lb": ("pound", "pounds"), "fl oz": ("fluid ounce", "fluid ounces"),
    "oz": ("ounce", "ounces"),
    "km": ("kilometer", "kilometers"), "cm": ("centimeter", "centimeters"), "mm": ("millimeter", "millimeters"),
    "m": ("meter", "meters"), "ft": ("foot", "feet"), "yd": ("yard", "yards"), "mi": ("mile", "miles"),
    "ml": ("milliliter", "milliliters"), "mL": ("milliliter", "milliliters"), "L": ("liter", "liters"),
    "l": ("liter", "liters"), "gal": ("gallon", "gallons"),
    "°C": ("degree Celsius", "degrees Celsius"), "℃": ("degree Celsius", "degrees Celsius"),
    "°F": ("degree Fahrenheit", "degrees Fahrenheit"), "℉": ("degree Fahrenheit", "degrees Fahrenheit"),
    "°": ("degree", "degrees"),
    "TB": ("terabyte", "terabytes"), "GB": ("gigabyte", "gigabytes"), "MB": ("megabyte", "megabytes"),
    "KB": ("kilobyte", "kilobytes"), "Gbps": ("gigabit per second", "gigabits per second"),
    "Mbps": ("megabit per second", "megabits per second"),
    "hrs": ("hour", "hours"), "hr": ("hour", "hours"), "h": ("hour", "hours"),
    "mins": ("minute", "minutes"), "min": ("minute", "minutes"), "secs": ("second", "seconds"),
    "sec": ("second", "seconds"), "ms": ("millisecond", "milliseconds"),
}
_UNIT_ALT = "|".join(re.escape(u) for u in sorted(_UNITS, key=len, reverse=True))
_MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]
_MONTH_ABBR = {m[:3].lower(): m for m in _MONTHS} | {"sept": "September"}
_MONTH_ALT = r"(?:" + "|".join(_MONTHS) + r"|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)\.?"

_EMOTICON = re.compile(r"(?<!\S)(?:[:;=]-?[()DPpO3/\\|]+|<3+|[xX]D+|\^\^|\^_\^|T_T|o7)(?!\S)")
_ABBREVIATIONS = ((re.compile(r"\be\.g\.,?", re.I), "for example,"), (re.compile(r"\bi\.e\.,?", re.I), "that is,"),
                  (re.compile(r"\bw/o\b", re.I), "without"), (re.compile(r"(?<![\w/])w/(?=\s)", re.I), "with"),
                  (re.compile(r"\bvs\.?(?=\s)", re.I), "versus"), (re.compile(r"\betc\.", re.I), "et cetera."),
                  (re.compile(r"\bapprox\.?(?=\s)", re.I), "about"))
_PHONE_US = re.compile(r"(?<![\d.])(?:\+?1[-. ]?)?\(?(\d{3})\)?[-. ](\d{3})[-. ](\d{4})(?![\d.])")
_PHONE_CN = re.compile(r"(?<![\d.])(?:\+?86[- ]?)?(1[3-9]\d)[- ]?(\d{4})[- ]?(\d{4})(?![\d.])")
_DATE_ISO = re.compile(r"(?<![\d.])(\d{4})-(\d{1,2})-(\d{1,2})(?![\d.])")
_DATE_US = re.compile(r"(?<![\d./])(\d{1,2})/(\d{1,2})/(\d{4})(?![\d./])")
_DATE_MD = re.compile(r"\b(" + _MONTH_ALT + r")\s(\d{1,2})(?:st|nd|rd|th)?(?:,?\s(\d{4}))?(?![\d:])")
_DATE_DM = re.compile(r"(?<![\d.])(\d{1,2})(?:st|nd|rd|th)?\s(?:of\s)?(" + _MONTH_ALT + r")(?:,?\s(\d{4}))?\b")
_YEAR = re.compile(r"\b(in|since|from|until|till|by|of|year|early|late|mid|summer|winter|spring|fall|autumn)"
                   r"(\s+)((?:1[1-9]|20)\d\d)\b(?![.,]\d)", re.I)
_TIME = re.compile(r"(?<![\d:.])([01]?\d|2[0-3]):([0-5]\d)(?::([0-5]\d))?(?:\s?([AaPp])\.?[Mm]\b\.?)?(?![\w:])")
_HOUR_AMPM = re.compile(r"(?<![\d:.])(1[0-2]|0?[1-9])\s?([AaPp])\.?[Mm]\b\.?")
_ORDINAL = re.compile(r"(?<![\d.])(\d+)(st|nd|rd|th)\b", re.I)
_NUMBER_SIGN = re.compile(r"(?:(?<=\s)|^)(?:#|[Nn]o\.\s?)(\d+)\b")
_PRICE = re.compile(r"(?:(?<![\w.])(-))?(" + _SYM_ALT + r")\s?(" + _NUM + r")(?:\s?(" + _MULT_ALT + r"|m)\b)?"
                    r"(?:\s?[-–~]\s?(?:" + _SYM_ALT + r")?\s?(" + _NUM + r")(?:\s?(" + _MULT_ALT + r"|m)\b)?)?")
_CODE_AFTER = re.compile(r"(?<![\w.,])(" + _NUM + r")(?:\s?(" + _MULT_ALT + r"))?(?:\s?[-–~]\s?(" + _NUM +
                         r"))?\s?(" + _CODE_ALT + r")\b")
_CODE_BEFORE = re.compile(r"\b(" + _CODE_ALT + r")\s?(" + _NUM + r")(?![\d.,])")
_CENTS = re.compile(r"(?<![\w.])(\d+)\s?¢")
_PERCENT = re.compile(r"(?<![\w.])([-+]?" + _NUM + r")(?:\s?[-–~]\s?(" + _NUM + r"))?\s?(?:%|percent\b)")
_RESOLUTION = re.compile(r"(?<![\w.])([48])K\b")
_UNIT_AFTER = re.compile(r"(?<![\w.])(-?" + _NUM + r")(?:\s?[-–~]\s?(" + _NUM + r"))?\s?(" + _UNIT_ALT +
                         r")(?![A-Za-z\d])")
_MULTIPLIER = re.compile(r"(?<![\w.])(" + _NUM + r")\s?(" + _MULT_ALT + r")(\+?)(?![A-Za-z\d])")
_TIMES_AFTER = re.compile(r"(?<![\w.])(" + _NUM + r")[x×](?![A-Za-z\d])")
_TIMES_BEFORE = re.compile(r"(?<![A-Za-z\d])[x×]\s?(\d+)(?![\d.])")
_RANGE = re.compile(r"(?<![\w.,-])(" + _NUM + r")\s?[–~]\s?(" + _NUM + r")(?![\d.])|"
                    r"(?<![\w.,-])(" + _NUM + r")-(" + _NUM + r")(?![\d.-])")
_FRACTION = re.compile(r"(?<![\d/.])(\d{1,3})/(\d{1,3})(?![\d/])")
_MODEL = re.compile(r"(?<![A-Za-z\d])([A-Za-z]{1,6}-?)(\d{2,5})([A-Za-z]{0,3})(?![\d])")
_LONG_DIGITS = re.compile(r"(?<![\d.,])(?!\d+000(?![\d.]))\d{7,}(?![\d.,])")
_NUMBER = re.compile(r"(?:(?<![\dA-Za-z])[-+])?" + _NUM)
_FRACTION_WORDS = {2: ("half", "halves"), 4: ("quarter", "quarters")}


def _plural(number: str, one: str, many: str) -> str:
    return one if number.replace(",", "") in ("1", "1.0", "1.00") else many


def _with_mult(num: str, mult: str | None) -> str:
    return number_en(num) + (f" {_MULT[mult]}" if mult else "")


def _money(num: str, code: str, mult: str | None = None, upper: str | None = None,
           upper_mult: str | None = None) -> str:
    one, many, minor_one, minor_many = _CURRENCIES[code]
    if upper is not None:  # $5-$10 → five to ten dollars
        return f"{_with_mult(num, mult)} to {_with_mult(upper, upper_mult or mult)} {many}"
    if mult:
        return f"{_with_mult(num, mult)} {many}"
    whole, _, frac = num.replace(",", "").partition(".")
    if minor_one is not None and len(frac) == 2:
        cents = int(frac)
        major = int(whole or "0")
        if major == 0 and cents:
            return f"{int_en(cents)} {minor_one if cents == 1 else minor_many}"
        out = f"{int_en(major)} {one if major == 1 else many}"
        return out + (f" and {int_en(cents)} {minor_one if cents == 1 else minor_many}" if cents else "")
    if frac.strip("0") == "":
        major = int(whole or "0")
        return f"{int_en(major)} {one if major == 1 else many}"
    return f"{number_en(num)} {many}"


def _price(m: re.Match[str]) -> str:
    neg, sym, num, mult, upper, upper_mult = m.groups()
    said = _money(num, _SYMBOLS[sym], mult, upper, upper_mult)
    return ("minus " if neg else "") + said


def _code_after(m: re.Match[str]) -> str:
    num, mult, upper, code = m.groups()
    return _money(num, _CODE_WORDS[code], mult, upper)


def _time(m: re.Match[str]) -> str:
    h, mi, s, half = int(m.group(1)), int(m.group(2)), m.group(3), m.group(4)
    if mi == 0 and not s:
        out = f"{int_en(h)} o'clock" if not half else int_en(h)
    else:
        out = f"{int_en(h)} {'oh ' + _ONES[mi] if mi < 10 else int_en(mi)}"
        if s and int(s):
            out += f" and {int_en(int(s))} seconds"
    return out + (f" {half.upper()} M" if half else "")


def _month(word: str) -> str:
    w = word.rstrip(".").lower()
    return _MONTH_ABBR.get(w[:4] if w.startswith("sept") else w[:3], word)


def _date(month: int, day: int, year: str | None) -> str:
    if not (1 <= month <= 12 and 1 <= day <= 31):
        raise ValueError
    out = f"{_MONTHS[month - 1]} {ordinal_en(day)}"
    return out + (f", {year_en(int(year))}" if year else "")


def _iso(m: re.Match[str]) -> str:
    try:
        return _date(int(m.group(2)), int(m.group(3)), m.group(1))
    except ValueError:
        return m.group(0)


def _us_date(m: re.Match[str]) -> str:
    try:
        return _date(int(m.group(1)), int(m.group(2)), m.group(3))
    except ValueError:
        return m.group(0)


def _month_day(m: re.Match[str]) -> str:
    day = int(m.group(2))
    if not 1 <= day <= 31:
        return m.group(0)
    return f"{_month(m.group(1))} {ordinal_en(day)}" + (f", {year_en(int(m.group(3)))}" if m.group(3) else "")


def _day_month(m: re.Match[str]) -> str:
    day = int(m.group(1))
    if not 1 <= day <= 31:
        return m.group(0)
    return f"the {ordinal_en(day)} of {_month(m.group(2))}" + (f", {year_en(int(m.group(3)))}" if m.group(3) else "")


def _unit(m: re.Match[str]) -> str:
    num, upper, unit = m.groups()
    one, many = _UNITS[unit]
    if upper is not None:
        return f"{number_en(num)} to {number_en(upper)} {many}"
    return f"{number_en(num)} {_plural(num.lstrip('-'), one, many)}"


def _percent(m: re.Match[str]) -> str:
    low, high = m.group(1), m.group(2)
    return f"{number_en(low)} to {number_en(high)} percent" if high else f"{number_en(low)} percent"


def _range(m: re.Match[str]) -> str:
    a, b = (m.group(1), m.group(2)) if m.group(1) is not None else (m.group(3), m.group(4))
    return f"{number_en(a)} to {number_en(b)}"


def _fraction(m: re.Match[str]) -> str:
    top, bottom = int(m.group(1)), int(m.group(2))
    if (top, bottom) == (24, 7):
        return "twenty-four seven"
    if bottom == 0 or top >= bottom:  # a rating: 10/10 → ten out of ten
        return f"{int_en(top)} out of {int_en(bottom)}"
    one, many = _FRACTION_WORDS.get(bottom, (ordinal_en(bottom), ordinal_en(bottom) + "s"))
    return f"{int_en(top)} {one if top == 1 else many}"


def _model(m: re.Match[str]) -> str:
    letters, digits, tail = m.group(1).rstrip("-"), m.group(2), m.group(3)
    if len(digits) == 4 and digits[2:] != "00" and digits[0] != "0":  # RTX4090 → forty ninety
        spoken = f"{int_en(int(digits[:2]))} {'oh ' + _ONES[int(digits[3])] if digits[2] == '0' else int_en(int(digits[2:]))}"
    elif len(digits) >= 4 or digits[0] == "0":
        spoken = digits_en(digits)
    else:
        spoken = int_en(int(digits))
    spell = " ".join(letters) if letters.isupper() and len(letters) > 1 else letters
    return f"{spell} {spoken}" + (f" {' '.join(tail) if tail.isupper() else tail}" if tail else "")


def _phone(*groups: str) -> str:
    return ", ".join(digits_en(g) for g in groups)


def normalize_en(text: str) -> str:
    """The English host reading of a sentence already cleaned of URLs, emoji and emotes (see the module doc)."""
    t = _EMOTICON.sub(" ", text)
    for pattern, said in _ABBREVIATIONS:
        t = pattern.sub(said, t)
    t = _PHONE_US.sub(lambda m: _phone(*m.groups()), t)
    t = _PHONE_CN.sub(lambda m: _phone(*m.groups()), t)
    t = _DATE_ISO.sub(_iso, t)
    t = _DATE_US.sub(_us_date, t)
    t = _DATE_MD.sub(_month_day, t)
    t = _DATE_DM.sub(_day_month, t)
    t = _YEAR.sub(lambda m: f"{m.group(1)}{m.group(2)}{year_en(int(m.group(3)))}", t)
    t = _TIME.sub(_time, t)
    t = _HOUR_AMPM.sub(lambda m: f"{int_en(int(m.group(1)))} {m.group(2).upper()} M", t)
    t = _PRICE.sub(_price, t)
    t = _CODE_AFTER.sub(_code_after, t)
    t = _CODE_BEFORE.sub(lambda m: _money(m.group(2), _CODE_WORDS[m.group(1)]), t)
    t = _CENTS.sub(lambda m: f"{int_en(int(m.group(1)))} {'cent' if m.group(1) == '1' else 'cents'}", t)
    t = _PERCENT.sub(_percent, t)
    t = _ORDINAL.sub(lambda m: ordinal_en(int(m.group(1))), t)
    t = _NUMBER_SIGN.sub(lambda m: f"number {int_en(int(m.group(1)))}", t)
    t = _RESOLUTION.sub(lambda m: f"{_ONES[int(m.group(1))]} K", t)
    t = _UNIT_AFTER.sub(_unit, t)
    t = _MULTIPLIER.sub(lambda m: _with_mult(m.group(1), m.group(2)) + (" plus" if m.group(3) else ""), t)
    t = _TIMES_AFTER.sub(lambda m: f"{number_en(m.group(1))} times", t)
    t = _TIMES_BEFORE.sub(lambda m: f"times {int_en(int(m.group(1)))}", t)
    t = _FRACTION.sub(_fraction, t)
    t = _RANGE.sub(_range, t)
    t = _MODEL.sub(_model, t)
    t = _LONG_DIGITS.sub(lambda m: digits_en(m.group(0)), t)
    t = _NUMBER.sub(lambda m: f" {number_en(m.group(0))} ", t)  # mp3 → mp three
    t = re.sub(r"(?<=\s)~(?=\s*\w)|^~", "about ", t)
    t = t.replace("&", " and ").replace("+", " plus ").replace("=", " equals ")
    t = re.sub(r"\s+([,.!?;:])", r"\1", t)
    return re.sub(r"\s+", " ", t).strip(" ,")
