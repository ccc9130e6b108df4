"""Identifiers that no list holds: long digit runs, letter-digit identifiers, national-insurance-style numbers,
licence plates, dates of birth and street addresses without a street type (the ``ID_NUMBER``,
``LICENCE_PLATE``, ``DATE_OF_BIRTH`` and, for addresses, ``ADDRESS`` entities of ``--redact-pii``;
:mod:`dpsynrag.data.pii`). Shapes, not lists: they do not depend on which names, products or formats a
collection happens to hold.

- **Digit runs** (:func:`digit_run_spans`): at least :data:`MIN_RUN_DIGITS` digits, compact or in groups
  joined by one space, dash or dot ("352099001761481", "35 209900 176148 1", "12-34-56 78901234"), not glued
  to a currency sign or a letter, not a decimal amount ("1234.56"), a date ("14.07.2020") or years ("2019
  2020"), nor thousands written with commas ("50,000": a figure). An IMEI, a card, an account or a meter number.
- **Letter-digit identifiers** (:func:`letter_digit_spans`): one token of letters and digits (inner ``-``
  ``_`` ``/`` ``#`` ``:`` ``.`` allowed) holding at least :data:`MIN_ID_DIGITS` digits and a letter
  ("AB1234567", "CASE-482130", "INC0012345", "7ABC123"), unless it is a number and a unit ("100GB",
  "5000mAh", "1080p"); ``#`` and 4 or more digits ("#48213").
- **Numbers after an identifier cue** (:func:`cued_number_spans`): 4 or more digits after "ending",
  "last 4 digits", "account", "policy", "booking", "order", "ref", "meter", "passport", ... (and an optional
  "number", "no.", "#" or ":"): a card's last digits, a short account or booking number.
- **Masked card numbers** ("**** 8536", :func:`masked_card_spans`) and **capital-letter codes** with a digit
  ("TT9UVGC6N", "BNF4MX", :func:`code_spans`).
- **National-insurance-style numbers**: two letters, three pairs of digits and a letter ("QQ 12 34 56 C");
  US social-security numbers are Presidio's (``US_SSN``).
- **Licence plates** (:func:`plate_spans`): the UK's current and prefix formats ("AB12 CDE", "A123 BCD",
  "ab12cde"), France's ("AB-123-CD"); other countries' plates of letters and 4+ digits are letter-digit identifiers.
- **Dates of birth** (:func:`birth_date_spans`): a date in any common format after a cue ("DOB", "date of
  birth", "born on", "birthday"), and any full date whose year lies in 1900-:data:`BIRTH_YEAR_LAST`
  without a cue (a customer's birth date more often than a service date).
- **Street addresses in any case** (:func:`street_spans`: "38 beech road", "153 rue victor hugo").
- **Addresses without a street type** (:func:`bare_address_spans`): a house number and one to three
  capitalised words that are not common English words ("113 Kingsway", "9 Marlowe"), when an address cue
  comes before ("live at", "address", "moved to", "deliver to", ...) or a comma and a town or postcode
  comes after, or when the last word ends like a street name ("-way", "-gate", "-side", "-field", ...).

All are functions of one text and of the public constants here: no state between documents.
"""

from __future__ import annotations

from functools import lru_cache

import regex

__all__ = ["BIRTH_YEAR_LAST", "MIN_CUED_DIGITS", "MIN_ID_DIGITS", "MIN_RUN_DIGITS", "bare_address_spans",
           "birth_date_spans", "code_spans", "cued_code_spans", "cued_number_spans", "handle_spans", "last_four_spans", "named_street_spans", "digit_run_spans", "masked_card_spans", "street_spans", "letter_digit_spans", "national_id_spans", "plate_spans"]

MIN_RUN_DIGITS = 6
"""Fewest digits of a digit run (a 5-digit figure, a year pair or a 4-digit PIN is not flagged)."""

MIN_ID_DIGITS = 4
"""Fewest digits of a letter-digit identifier ("5G", "COVID-19", "A320" are not)."""

BIRTH_YEAR_LAST = 2009
"""The latest year of a full date taken for a date of birth without a cue (a public constant: people who
write to an organisation about their own account were born by then; service dates are later)."""

_RUN = regex.compile(r"(?<![\p{L}\p{N}\p{Sc},.]|[\p{Sc}][ ]?)\d(?:[ .\-]?\d){%d,}(?![\p{L}\p{N}%%]|[.,]\d)"
                     % (MIN_RUN_DIGITS - 1))
_DECIMAL = regex.compile(r"\d+\.\d{1,2}")
_UNITS = frozenset("""
k m b kb mb gb tb pb kbps mbps gbps mah ah wh kwh mwh w kw mw v hz khz mhz ghz g kg mg mcg t lb lbs oz mm cm m km
ml l mph kph p px dpi fps rpm bps x s ms h hr hrs min mins st nd rd th am pm yr yrs
""".split())
_ID_TOKEN = regex.compile(r"(?<![\p{L}\p{N}])(?:#\d{4,}|[\p{L}\p{N}](?:[\p{L}\p{N}]|[-_/#:.](?=[\p{L}\p{N}]))*)"
                          r"(?![\p{L}\p{N}])")
_NUMBER_UNIT = regex.compile(r"\d+(?:[.,]\d+)*([\p{L}]+)")
_NATIONAL = regex.compile(r"(?i)(?<![\p{L}\p{N}])[A-Z]{2}[ ]?\d{2}[ ]?\d{2}[ ]?\d{2}[ ]?[A-D](?![\p{L}\p{N}])")
_PLATE = regex.compile(
    r"(?i)(?<![\p{L}\p{N}])(?:[A-Z]{2}\d{2}[ ]?[A-Z]{3}"  # UK current: AB12 CDE (any case: "pm13xmx")
    r"|[A-Z]\d{1,3}[ ]?[A-Z]{3}"  # UK prefix: A123 BCD
    r"|[A-Z]{2}-\d{3}-[A-Z]{2})(?![\p{L}\p{N}])"  # France: AB-123-CD
)
_MONTHS = ("January|February|March|April|May|June|July|August|September|October|November|December|"
           "Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec")
_DAY = r"(?:[12]\d|3[01]|0?[1-9])"
_MONTH_NUMBER = r"(?:1[0-2]|0?[1-9])"
_DATE = (
    rf"(?:{_DAY}[/.\-]{_MONTH_NUMBER}[/.\-](?:\d{{4}}|\d{{2}})"  # 14/07/1985, 14.7.85
    rf"|{_MONTH_NUMBER}[/.\-]{_DAY}[/.\-](?:\d{{4}}|\d{{2}})"  # 07/14/1985
    rf"|\d{{4}}-{_MONTH_NUMBER}-{_DAY}"  # 1985-07-14
    rf"|{_DAY}(?:st|nd|rd|th)?[ ]+(?:of[ ]+)?(?i:{_MONTHS})\.?,?[ ]+(?:\d{{4}}|'?\d{{2}})"  # 14th July 1985
    rf"|(?i:{_MONTHS})\.?[ ]+{_DAY}(?:st|nd|rd|th)?,?[ ]+(?:\d{{4}}|'?\d{{2}}))"  # July 14, 1985
)
_DATE_RE = regex.compile(rf"(?<![\p{{L}}\p{{N}}]){_DATE}(?![\p{{L}}\p{{N}}])")
_BIRTH_CUE = regex.compile(rf"(?i)\b(?:d\.?o\.?b\.?|date[ ]of[ ]birth|birth[ ]?date|born(?:[ ]on)?|birthday)"
                           rf"(?:[ ]?(?:is|was|:|-|,))*[ ]*\K{_DATE}(?![\p{{L}}\p{{N}}])")
_YEAR = regex.compile(r"(?<!\d)(19\d\d|20\d\d)(?!\d)")
_SHORT_YEAR = regex.compile(r"[/.\-' ](\d{2})$")
_CAP_WORD = r"\p{Lu}\p{Ll}+(?:['’\-]\p{Lu}?\p{Ll}+)?"
_BARE_ADDRESS = regex.compile(rf"(?<![\p{{L}}\p{{N}}.,£$€])(\d{{1,4}}[A-Za-z]?),?[ ]+({_CAP_WORD}(?:[ ]+{_CAP_WORD}){{0,2}})"
                              r"(?![\p{L}\p{N}])")
_ADDRESS_CUE = regex.compile(
    r"(?i)\b(?:live[sd]?|living|reside[sd]?|residing|moved|moving|move|delivered|deliver|delivery|send(?:[ ]it)?|"
    r"sent|post(?:ed)?|ship(?:ped)?|address(?:[ ]is)?|property|house|flat|home|located|registered)"
    r"(?:[ ]+(?:at|to|is|was|:|in))?[ ]*(?:no\.?|number)?[ ]*:?[ ]*$")
MIN_CUED_DIGITS = 4
"""Fewest digits of a number after an identifier cue ("card ending 4821")."""

_ID_CUE = regex.compile(
    r"(?i)\b(?:ending(?:[ ]in|[ ]with)?|ends(?:[ ]in|[ ]with)?|last[ ](?:4|four)(?:[ ]digits)?(?:[ ]are|[ ]of)?|account|acct|acc|"
    r"policy|booking|reservation|order|reference|ref|case|ticket|claim|membership|member|customer|client|"
    r"contract|meter|serial|passport|licence|license|prescription|invoice|patient|employee|staff|payroll|card|crime)"
    r"(?:[ ]*(?:number|no\.?|nr\.?|num|id|#|code|ref)\.?)?[ ]*(?:is|was)?[ ]*[:#(]?[ ]*"
    r"\K\d(?:[ \-/]?\d){%d,}(?![\p{L}\p{N}])" % (MIN_CUED_DIGITS - 1))
_CODE_CUE = regex.compile(  # "booking reference is XLX SPC", "(ref DMS WEZ)", "PNR: QWERTY", "confirmation code K7PQ2X"
    r"(?i)\b(?:ref(?:erence)?|pnr|(?:booking|reservation|confirmation|order|ticket|case|claim|policy|membership|"
    r"member|customer|tracking|(?:id|identity)[ ]card)(?:[ ]*(?:ref(?:erence)?|code|number|no|id))?)\b\.?[ ]*"
    r"(?:is|was|:|#|-)?[ ]*\K(?-i:[A-Z]{3}[ ][A-Z]{3}|[A-Z0-9]{5,12})(?![\p{L}\p{N}])")
_LAST_FOUR = regex.compile(  # "...the last 4 digits of the card you pay with?\n[12:19] Sam: 6842 i think"
    r"(?is)\blast[ ](?:4|four)[ ]digits\b.{0,120}?(?<![\p{N}£$€.,:/])\K\d{4}(?![\p{N}:/])")
_HANDLE = regex.compile(r"(?<![\p{L}\p{N}_.@])@[\p{L}\p{N}_](?:[\p{L}\p{N}_.]{0,28}[\p{L}\p{N}_])?(?![\p{L}\p{N}_@])")
_NAMED_STREET = regex.compile(  # "The Old Forge, Clover Lane", "Brookside, Hartley Way", "YEW TREE COTTAGE, BRYNLAND LANE"
    r"(?<![\p{L}\p{N}])(?:(?:The|THE)[ ]+)?\p{Lu}[\p{L}'’\-]*(?:[ ]+\p{Lu}[\p{L}'’\-]*){0,2},[ ]*"
    r"\p{Lu}[\p{L}'’\-]*(?:[ ]+\p{Lu}[\p{L}'’\-]*){0,2}[ ]+"
    r"(?i:lane|road|way|street|avenue|close|drive|gardens|crescent|place|court|terrace|grove|row|mews|walk|rise)"
    r"(?![\p{L}\p{N}])")
_TOWN_AFTER = regex.compile(r",[ ]*(?:\p{Lu}\p{Ll}+|[A-Z]{1,2}\d)")
_STREETLIKE = regex.compile(r"(?i)(?:way|gate|side|field|fields|wood|croft|dale|mead|hurst|moor|brook|grove|bank|"
                            r"lea|leigh|cross|bridge|well|wells|holme|garth|combe|stead)$")


@lru_cache(maxsize=1)
def _common() -> frozenset[str]:
    import wordfreq

    return frozenset(wordfreq.top_n_list("en", 5000))


def cued_code_spans(text: str) -> list[tuple[int, int]]:
    """The spans of a reference code after a reference cue ("booking reference is XLX SPC", "(ref DMS WEZ)",
    "PNR: QWERTY"): three capitals, a space and three capitals, or 5 to 8 capitals and digits, not an English
    word ("ref PLEASE" is none)."""
    common = _common()
    return [m.span() for m in _CODE_CUE.finditer(text)
            if not all(part.lower() in common or part.isdigit() for part in m.group().split())]


def last_four_spans(text: str) -> list[tuple[int, int]]:
    """The span of a card's last four digits given after the question ("the last 4 digits of the card?" ...
    "6842"): the first four-digit number within 120 characters after "last 4 digits" (not a time or a date
    part)."""
    return [m.span() for m in _LAST_FOUR.finditer(text)]


def handle_spans(text: str) -> list[tuple[int, int]]:
    """The spans of social-media handles ("@noble11", "@clive_wang95"): an ``@`` not inside a word or an
    e-mail address, then 1 to 30 letters, digits, ``_`` or inner dots. An organisation's own handle stays
    when it is allow-listed (``--pii-allow "@AcmeHelp"``)."""
    return [m.span() for m in _HANDLE.finditer(text)]


def named_street_spans(text: str) -> list[tuple[int, int]]:
    """The spans of a house name and a street without a number ("The Old Forge, Clover Lane", "Brookside,
    Hartley Way", also in capitals): capitalised words, a comma, capitalised words and a street type."""
    common = _common()
    found = []
    for m in _NAMED_STREET.finditer(text):
        house = m.group().split(",")[0].split()
        if house[0].lower() == "the" or not all(w.lower() in common for w in house):  # "Hi, Station Road": no house
            found.append(m.span())
    return found


def digit_run_spans(text: str) -> list[tuple[int, int]]:
    """The spans of runs of at least :data:`MIN_RUN_DIGITS` digits, compact or grouped (module docstring)."""
    found = []
    for m in _RUN.finditer(text):
        body = m.group()
        groups = regex.split(r"[ .\-]", body)
        if (_DECIMAL.fullmatch(body) or _DATE_RE.fullmatch(body)
                or all(len(g) == 4 and 1900 <= int(g) <= 2099 for g in groups)):
            continue  # an amount, a date (birth dates: birth_date_spans) or years ("2019 2020")
        found.append(m.span())
    return found


def letter_digit_spans(text: str) -> list[tuple[int, int]]:
    """The spans of one-token identifiers of letters and at least :data:`MIN_ID_DIGITS` digits (module
    docstring), a number with a unit aside."""
    found = []
    for m in _ID_TOKEN.finditer(text):
        token = m.group()
        digits = sum(ch.isdigit() for ch in token)
        if digits < MIN_ID_DIGITS or not (token.startswith("#") or any(ch.isalpha() for ch in token)):
            continue
        unit = _NUMBER_UNIT.fullmatch(token)
        if unit is not None and unit.group(1).lower() in _UNITS:
            continue
        found.append(m.span())
    return found


_MASKED = regex.compile(r"(?<![\p{L}\p{N}*•])(?:[*xX•]+[ \-]?){1,4}\d{4}(?![\p{L}\p{N}])")
_CODE = regex.compile(r"(?<![\p{L}\p{N}\-])(?=[A-Z0-9]*\d)(?=(?:[0-9]*[A-Z]){2})[A-Z0-9]{6,12}(?![\p{L}\p{N}\-])")


def masked_card_spans(text: str) -> list[tuple[int, int]]:
    """The spans of masked card numbers: groups of ``*``, ``x`` or ``•`` and the last 4 digits ("**** 8536",
    "*8493", "xxxx-xxxx-xxxx-2123")."""
    return [m.span() for m in _MASKED.finditer(text)]


def code_spans(text: str) -> list[tuple[int, int]]:
    """The spans of capital-letter codes with a digit (6-12 characters, at least 2 letters: "TT9UVGC6N",
    "BNF4MX", a share code, a booking reference), unless a word of letters and at most 2 final digits
    ("COVID19")."""
    return [m.span() for m in _CODE.finditer(text) if not regex.fullmatch(r"[A-Z]+\d{1,2}", m.group())]


def national_id_spans(text: str) -> list[tuple[int, int]]:
    """The spans of national-insurance-style numbers ("QQ 12 34 56 C")."""
    return [m.span() for m in _NATIONAL.finditer(text)]


def plate_spans(text: str) -> list[tuple[int, int]]:
    """The spans of UK (current and prefix) and French licence plates, in any case."""
    return [m.span() for m in _PLATE.finditer(text)]


def birth_date_spans(text: str) -> list[tuple[int, int]]:
    """The spans of dates after a birth cue, and of full dates with a year from 1900 to
    :data:`BIRTH_YEAR_LAST` (module docstring)."""
    found = [m.span() for m in _BIRTH_CUE.finditer(text)]
    for m in _DATE_RE.finditer(text):
        year = _YEAR.search(m.group())
        short = _SHORT_YEAR.search(m.group()) if year is None else None
        if (year is not None and 1900 <= int(year.group()) <= BIRTH_YEAR_LAST) or (
                short is not None and not 10 <= int(short.group(1)) < 30):
            found.append(m.span())
    return sorted(set(found))


def cued_number_spans(text: str) -> list[tuple[int, int]]:
    """The spans of a number of :data:`MIN_CUED_DIGITS` or more digits after an identifier cue ("card
    ending 4821", "account no. 55120", "policy number: 7781-22"): the number only."""
    return [m.span() for m in _ID_CUE.finditer(text)]


_STREET_ANY_CASE = regex.compile(
    r"(?i)(?<![\p{L}\p{N}.,£$€])\d{1,4}[a-z]?,?[ ]+(?:"
    r"(?:(?!(?:hours?|hrs?|minutes?|mins?|days?|weeks?|months?|years?|miles?|km|metres?|meters?|working|business)\b)"
    r"[\p{L}'’]+[ ]+){1,3}(?:street|road|avenue|lane|crescent|gardens|grove|terrace|mews|boulevard|approach|parade|"
    r"rd|st|ave|close|drive|court|place|square|walk|row|rise|way|view|hill|green|park|house|lodge|cottages?|mansions|"
    r"dr|pl|ln|cres|ct|gdns|sq|tce|cl|gr)"
    r"|(?:rue|avenue|boulevard|chemin|allée|impasse|quai)(?:[ ]+[\p{L}'’\-]+){1,3})(?![\p{L}\p{N}])")


_FLAT = regex.compile(r"(?<![\p{L}\p{N}])(?<!\b[Aa]n? )(?i:flat|apartment|apt\.?|unit|suite)[ ]*(?i:no\.?[ ]*)?\d{1,4}[a-z]?"
                      r"(?![\p{L}\p{N}])(?=[ ]*(?:,|\d|$|\p{Lu}))", regex.M)  # not "a flat 7 pounds"
_LOWER_BARE = regex.compile(  # after an address cue, any case: "address is 230 ferndale", "I'm at 194 queensway"
    r"(?i)\b(?:address(?:[ ]is)?|i['’]?m at|im at|live at|living at|delivered to|deliver to|send (?:it )?to|moved to)"
    r"[ ]*:?[ ]*(?:flat[ ]*\d+[a-z]?,?[ ]*)?\K\d{1,4}[a-z]?,?[ ]+[\p{L}'’\-]+")
_THE_ADDRESS = regex.compile(r"(?<![\p{L}\p{N}.,£$€])\d{1,4}[A-Za-z]?,?[ ]+The[ ]+\p{Lu}\p{Ll}+")  # "55 The Willows"


def street_spans(text: str) -> list[tuple[int, int]]:
    """The spans of street addresses written in any case ("38 beech road", "96 st mary's road", "153 rue victor
    hugo"): a house number, one to three words and a street type (not a duration or distance: "a 2 hour
    drive"), or a French street-first form; a flat or unit number ("flat 6", "Apartment 31"); a house number
    and a word right after an address cue ("address is 230 ferndale", "I'm at 194 queensway"); a house number,
    "The" and an uncommon capitalised word ("55 The Willows")."""
    found = [m.span() for p in (_STREET_ANY_CASE, _FLAT, _LOWER_BARE) for m in p.finditer(text)]
    common = _common()
    found += [m.span() for m in _THE_ADDRESS.finditer(text) if m.group().split()[-1].lower() not in common]
    return found


def bare_address_spans(text: str) -> list[tuple[int, int]]:
    """The spans of a house number and capitalised street words without a street type (module docstring)."""
    common = _common()
    found = []
    for m in _BARE_ADDRESS.finditer(text):
        words = list(regex.finditer(_CAP_WORD, m.group(2)))
        while words and words[-1].group().lower() in common:  # "113 Kingsway Please": the street ends before
            words.pop()
        if not words or any(w.group().lower() in common for w in words):
            continue
        end = m.start(2) + words[-1].end()
        words = [w.group() for w in words]
        cued = _ADDRESS_CUE.search(text[max(0, m.start() - 40):m.start()]) is not None
        town = _TOWN_AFTER.match(text, end) is not None
        if cued or town or _STREETLIKE.search(words[-1]):
            found.append((m.start(), end))
    return found
