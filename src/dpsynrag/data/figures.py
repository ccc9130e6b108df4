"""One fact, one form (issue 51): a public rule that writes the figures of an English text in one canonical
form, so that the paraphrases of a figure ("£45", "GBP 45", "45 pounds", "forty-five pounds") are one
phrase for the DP phrase release and pool their counts.

:func:`canonical_figures` rewrites, in this order:

1. **Number words before a unit** to digits: "forty-five pounds" → "45 pounds", "two hours" → "2 hours",
   "six-month" → "6-month", "one hundred and fifty pounds" → "150 pounds" (only before a word of
   :data:`UNIT_WORDS`, so "one of our agents" stays); **ordinal words** before "of" or a month to digits:
   "the tenth of each month" → "the 10th of each month".
2. **Money** to the sign before the number, no ".00", amounts under one pound or euro in pence or cents: "GBP
   45", "45 GBP", "45 pounds", "45 quid", "£45.00" → "£45"; "7 pounds 50" → "£7.50"; "£0.45", "45 pence",
   "45 p" → "45p"; "EUR 15", "15 euros" → "€15"; "USD 10", "10 dollars" → "$10".
3. **Percentages**: "6 per cent", "6 percent", "6 pct" → "6%".
4. **Units attached or spelled out**: "10 GB" → "10GB" (data sizes), "2 hrs", "2hrs", "2 h" → "2 hours",
   "30 mins" → "30 minutes", "3 wks" → "3 weeks".

Tokens such as "5G", "4K" or "A320" are left alone. The rule reads one text and public word lists only: a
function of one document, so it costs no privacy. Languages other than English are returned unchanged.
"""

from __future__ import annotations

import regex

__all__ = ["UNIT_WORDS", "canonical_figures", "number_value"]

_ONES = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
         "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
         "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19}
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
         "ninety": 90}
_SCALES = {"hundred": 100, "thousand": 1000}
_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8,
             "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13, "fourteenth": 14,
             "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18, "nineteenth": 19,
             "twentieth": 20, "thirtieth": 30}

UNIT_WORDS = frozenset("""
day days week weeks month months year years hour hours minute minutes min mins second seconds night nights
working business calendar weekday weekdays fortnight fortnights
pound pounds pence penny quid euro euros cent cents dollar dollars
per percent pct gb mb tb kb gigabytes megabytes mile miles km kilometres kilometers metre metres meter meters
kg kilograms kilos litre litres item items seat seats user users bag bags piece pieces time times
""".split())
"""Words after which a number word is a figure ("two hours", "forty-five pounds"); "per" for "per cent"."""

_NUMBER_WORD = "|".join(sorted([*_ONES, *_TENS, *_SCALES], key=len, reverse=True))
_SPELLED = regex.compile(
    rf"(?i)(?<![\p{{L}}\p{{N}}\-])(?P<words>(?:{_NUMBER_WORD})(?:(?:[ \-]|[ ]and[ ])(?:{_NUMBER_WORD}))*)"
    rf"(?P<joint>[ \-])(?P<unit>[\p{{L}}]+)")
_ORDINAL = regex.compile(
    rf"(?i)(?<![\p{{L}}\p{{N}}])(?P<word>{'|'.join(sorted(_ORDINALS, key=len, reverse=True))})"
    r"(?=[ ]+(?:of\b|(?:january|february|march|april|may|june|july|august|september|october|november|december)\b))")
_SUFFIX = {1: "st", 2: "nd", 3: "rd"}

_AMOUNT = r"\d+(?:,\d{3})*(?:\.\d+)?"
_POUNDS = regex.compile(
    rf"(?i)(?:£[ ]?(?P<a>{_AMOUNT})|\bGBP[ ]?(?P<b>{_AMOUNT})|(?P<c>{_AMOUNT})[ ]?(?:GBP\b|pounds?\b|quid\b))"
    r"(?:[ ]+(?P<pence>\d{2})\b(?![ ]?(?:p\b|pence\b|%)))?")
_EUROS = regex.compile(rf"(?i)(?:€[ ]?(?P<a>{_AMOUNT})|\bEUR[ ]?(?P<b>{_AMOUNT})|(?P<c>{_AMOUNT})[ ]?(?:EUR\b|euros?\b))")
_DOLLARS = regex.compile(rf"(?i)(?:\$[ ]?(?P<a>{_AMOUNT})|\bUSD[ ]?(?P<b>{_AMOUNT})|(?P<c>{_AMOUNT})[ ]?(?:USD\b|dollars?\b))")
_PENCE = regex.compile(r"(?i)(?<![\p{L}\p{N}.,£€$])(?P<n>\d{1,2})[ ]?(?:p|pence)\b(?![\p{L}\p{N}])")
_PERCENT = regex.compile(r"(?i)(?<![\p{L}\p{N}])(?P<n>\d+(?:\.\d+)?)[ ]?(?:per[ ]?cent|percent|pct)\b")
_DATA = regex.compile(r"(?i)(?<![\p{L}\p{N}])(?P<n>\d+(?:\.\d+)?)[ ](?P<u>gb|mb|tb|kb)\b")
_TIME = regex.compile(r"(?i)(?<![\p{L}\p{N}])(?P<n>\d+(?:\.\d+)?)[ ]?(?P<u>hrs?|h|mins?|wks?)(?![\p{L}\p{N}])")
_TIME_WORDS = {"hr": "hours", "hrs": "hours", "h": "hours", "min": "minutes", "mins": "minutes", "wk": "weeks",
               "wks": "weeks"}


def number_value(words: str) -> int | None:
    """The value of an English number written in words ("forty-five" 45, "one hundred and fifty" 150,
    "two thousand" 2000), or None when ``words`` is not one."""
    total, current = 0, 0
    parts = [w for w in regex.split(r"[ \-]+", words.lower()) if w and w != "and"]
    if not parts:
        return None
    for part in parts:
        if part in _ONES:
            current += _ONES[part]
        elif part in _TENS:
            current += _TENS[part]
        elif part == "hundred":
            current = max(current, 1) * 100
        elif part == "thousand":
            total, current = total + max(current, 1) * 1000, 0
        else:
            return None
    return total + current


def _spelled(m: regex.Match) -> str:
    if m.group("unit").lower() not in UNIT_WORDS:
        return m.group()
    value = number_value(m.group("words"))
    return m.group() if value is None else f"{value}{m.group('joint')}{m.group('unit')}"


def _ordinal(m: regex.Match) -> str:
    n = _ORDINALS[m.group("word").lower()]
    return f"{n}{'th' if 10 <= n % 100 <= 20 else _SUFFIX.get(n % 10, 'th')}"


def _money(sign: str, minor: str):
    def rewrite(m: regex.Match) -> str:
        amount = (m.group("a") or m.group("b") or m.group("c")).replace(",", "")
        pence = m.groupdict().get("pence")
        if pence:
            amount = f"{amount}.{pence}"
        whole, _, fraction = amount.partition(".")
        fraction = fraction.ljust(2, "0")[:2] if fraction else ""
        if whole in ("", "0") and fraction:
            return f"{int(fraction)}{minor}"
        return f"{sign}{int(whole):,}" + (f".{fraction}" if fraction and fraction != "00" else "")
    return rewrite


def canonical_figures(text: str, language: str = "en") -> str:
    """``text`` with its figures in one canonical form (module docstring); unchanged unless ``language`` is
    "en"."""
    if language != "en":
        return text
    text = _SPELLED.sub(_spelled, text)
    text = _ORDINAL.sub(_ordinal, text)
    text = _POUNDS.sub(_money("£", "p"), text)
    text = _EUROS.sub(_money("€", "c"), text)
    text = _DOLLARS.sub(_money("$", "c"), text)
    text = _PENCE.sub(lambda m: f"{m.group('n')}p", text)
    text = _PERCENT.sub(lambda m: f"{m.group('n')}%", text)
    text = _DATA.sub(lambda m: f"{m.group('n')}{m.group('u').upper()}", text)
    return _TIME.sub(lambda m: f"{m.group('n')} {_TIME_WORDS[m.group('u').lower()]}", text)
