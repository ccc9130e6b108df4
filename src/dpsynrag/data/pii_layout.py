"""Personal strings that a support record's layout gives away, beyond the name lists (issue 51; written after the
second held-out set's misses, so that set is no longer held out: ``benchmarks/blind/split.json``).

Each finder is a function of one text alone, as the rest of :mod:`dpsynrag.data.pii_rules`:

* :func:`initials_signature_spans`: an agent's initials ending a call note's line ("Caller satisfied. - KM",
  "...advice. AN"), not an ordinary word or abbreviation ("OK", "UK", "NHS");
* :func:`relation_name_spans`: a name after a relation noun and a comma or "and" ("my PA, Saoirse,", "our friends
  ayesha and anand"), after a date-of-birth possessive ("Kieran's date of birth"), after "next door" cues
  ("noise from Zainab next door") and "spoken to" ("I've spoken to Ciarán twice");
* :func:`capital_surname_spans`: a surname in capitals next to a name already found ("SWAN [Yuki]", "O'BRIEN
  [Elif]"): the caller passes the name spans;
* :func:`address_layout_spans`: a house number and one uncommon word ending like a place name in any case
  ("118 hollybank", "30 fairview", "84 northgate"); the value of an address field ("Address: ...", a
  "Property:" value holding a digit); a street-first address with a town and a postcode ("Vesterbrogade 90,
  København, 33107"); a US state and ZIP code ("WA, 98107");
* :func:`cued_plate_spans`: a vehicle registration after a cue ("reg hh-np 3255", "car is M-OA 4050",
  "registration b-gu 4853"): letters and digits, any country's format.
"""

from __future__ import annotations

from collections.abc import Sequence

import regex

from dpsynrag.data.pii_ids import _common
from dpsynrag.data.pii_rules import _CALENDAR, _GREETINGS, _any_case_name, _key

__all__ = ["address_layout_spans", "capital_surname_spans", "cued_plate_spans", "initials_signature_spans",
           "relation_name_spans"]

_ABBREVIATIONS = frozenset("""ok uk us eu usa nhs gp atm pin vat asap faq dm pm am sms url pdf hmrc dvla iban bacs
chaps tbc na id tv it hr qr ev bt mot cctv pcn dob ni nb ps fyi tia eta rsvp ooh wc""".split())
_INITIALS_LINE_END = regex.compile(r"(?m)(?:(?<=[.!?)])[ \t]+|[ \t]+[-–—][ \t]*|^[-–—][ \t]*)(?P<i>\p{Lu}{2,3})[ \t]*$")
_RELATION_COMMA = regex.compile(  # "my PA, Saoirse,", "our friends ayesha and anand", "my carer, Joan"
    r"(?i)\b(?:my|our|his|her|their|the)[ \t]+(?:pa|p\.a\.|assistant|secretary|carer|caregiver|architect|solicitor|"
    r"accountant|builder|plumber|electrician|nurse|teacher|dentist|doctor|friends?|kids?|children|sons|daughters|"
    r"parents|neighbours|neighbors|colleagues|leader|module[ \t]+leader|recruiter|supervisor|tutor|lecturer|mentor|mate|"
    r"course[ \t]+mate|agent|contact)[ \t]*,?[ \t]+(?P<a>\p{L}[\p{L}'’\-]*(?:[ \t]+\p{L}[\p{L}'’\-]*(?=[ \t]*[,.;)]))?)"
    r"(?:[ \t]+and[ \t]+(?P<b>\p{L}[\p{L}'’\-]*))?")
_BIRTH_POSSESSIVE = regex.compile(
    r"(?<![\p{L}\p{N}])(?P<n>\p{Lu}\p{Ll}+)['’]s[ \t]+(?i:date[ \t]+of[ \t]+birth|d\.?o\.?b\b|birthday)")
_NEXT_DOOR = regex.compile(r"(?i)\b(?:from|at|of|with|by)[ \t]+(?-i:(?P<n>\p{Lu}\p{Ll}+))[ \t]+next[ \t]+door\b")
_SPOKEN_TO = regex.compile(r"(?i)\b(?:spoken|spoke|talked|talking|speaking)[ \t]+(?:to|with)[ \t]+(?-i:(?P<n>\p{Lu}\p{Ll}+))\b")
_HEADER_NAME = regex.compile(  # "Agent reply - Imogen:", "CALL NOTE - inbound - Gareth", "- Jordan, Swiftline Parcels"
    r"(?m)(?:^|[ \t])[-–—][ \t]*(?P<n>\p{Lu}\p{Ll}+(?:[ \t]+\p{Lu}(?:\p{Ll}+|\.)?)?)(?=[ \t]*(?::|,[ \t]*\p{Lu}|$))")
_BY_LABEL = regex.compile(  # "Reply sent by Will:", "signed for by 'Blessing'", "Signed for by THOMAS."
    r"(?i)\b(?:(?:sent|written|replied|answered|handled|signed(?:[ \t]+for)?|collected|received|accepted)[ \t]+by)"
    r"[ \t]+['‘\"“]?(?-i:(?P<n>\p{Lu}\p{L}+(?:['’\-]\p{L}+)*(?:[ \t]+\p{Lu}\p{L}*(?:['’\-]\p{L}+)*)?))")
_HERE = regex.compile(r"(?m)(?:^|(?<=[:.!?,][ \t]*))(?P<n>\p{Lu}\p{Ll}+)[ \t]+here\b")  # "Hello! Will here"
_LEAVE_WITH = regex.compile(r"(?i)\bleave[ \t]+(?:it|them|the[ \t]+parcel)[ \t]+with[ \t]+(?-i:(?P<n>\p{Lu}\p{Ll}+))\b")
_CARET = regex.compile(r"(?m)\^(?P<n>\p{Lu}\p{Ll}+(?:[ \t]+\p{Lu}\p{Ll}*\.?)?)[ \t]*$")  # "drop us a DM. ^Marek", "^Agent King"
_SIGNED_LINE = regex.compile(  # a one- or two-word line before "Sent from my iPhone" or after a closing line
    r"(?im)(?:^[> \t]*(?:thank(?:s|[ \t]+you)\b[^\n]{0,30}|many[ \t]+thanks|awaiting[ \t]+your[ \t]+reply|hope[ \t]+you[ \t]+can[ \t]+help|"
    r"cheers|regards|best[ \t]+wishes|kind[ \t]+regards|speak[ \t]+soon|ta|tia|best)[ \t,!.]*\n)"
    r"[> \t]*(?P<n>\p{L}[\p{L}'’\-]{1,20}(?:[ \t]\p{L}[\p{L}'’\-]{1,20})?)[ \t]*$"
    r"|^[> \t]*(?P<m>\p{L}[\p{L}'’\-]{1,20}(?:[ \t]\p{L}[\p{L}'’\-]{1,20})?)[ \t]*\n(?:[> \t]*\n)*[> \t]*sent[ \t]+from[ \t]+(?:my|outlook|yahoo|mail)")
_NAME_FIX = regex.compile(  # "my first name spelt Samh instead of", "autocorrected my surname to Leee", "maiden name, ananya laurent"
    r"(?i)\b(?:first[ \t]+name|surname|last[ \t]+name|maiden[ \t]+name|family[ \t]+name)[ \t]*(?:is|was)?[ \t]*"
    r"(?:spelt|spelled|written|printed|as|to|:|,)[ \t]*(?:as[ \t]+)?['‘\"“]?(?P<n>\p{L}[\p{L}'’\-]+(?:[ \t]+\p{L}[\p{L}'’\-]+)?)")
_AT_DESK = regex.compile(r"(?<![\p{L}\p{N}])(?P<n>\p{Lu}\p{Ll}+)[ \t]+(?:at|on|from)[ \t]+(?:the[ \t]+)?(?:front[ \t]+)?"
                         r"(?:desk|counter|reception|gate|check-in|till|branch)\b")
_INTRO = regex.compile(  # "My name's Priya, what", "i'm ruby, final year", "This is Dawn from"
    r"(?i)\b(?:my[ \t]+name['’]?s|my[ \t]+name[ \t]+is|i['’]?m|i[ \t]+am|this[ \t]+is)[ \t]+(?P<n>\p{L}[\p{L}'’\-]+)"
    r"(?=[ \t]*(?:[,.!]|from\b|and\b|here\b|$))", regex.M)
_FIELD_NAME = regex.compile(  # "Advisor: Joy", "agent: Grace", "Guest name: O'BRIEN Elif", "Name: ROBERTSON, Siobhan"
    r"(?im)(?:^[ \t>]*(?:full[ \t]+|guest[ \t]+|customer[ \t]+|caller[ \t]+|client[ \t]+|patient[ \t]+|owner[ \t]+|"
    r"account[ \t]+holder[ \t]+|student[ \t]+)?name[ \t]*:[ \t]*(?P<v>[^\n]+?)[ \t]*$)"
    r"|\b(?:agent|advisor|adviser|handler|operator|rep|representative|colleague|staff[ \t]+member|dealt[ \t]+with[ \t]+by|"
    r"taken[ \t]+by)[ \t]*:[ \t]*(?-i:(?P<n>\p{Lu}\p{Ll}+(?:[ \t]+\p{Lu}(?:\p{Ll}+|\.))?))")
_PAREN_LABEL = regex.compile(r"\((?P<n>\p{Lu}\p{Ll}+)\)[ \t]*:")  # "[09:37] Agent (Ifeoma):"
_NAME_EMAIL = regex.compile(  # "go to alejandro (alejandro@example.com)", "MOSS Rukhsana <r.moss@example.org> wrote"
    r"(?<![\p{L}\p{N}])(?P<n>\p{L}[\p{L}'’\-]+(?:[ \t]\p{L}[\p{L}'’\-]+)?)[ \t]*[(<][ \t]*[\w.+\-]+@[\w\-]+(?:\.[\w\-]+)+[ \t]*[)>]")
_CAPS = r"\p{Lu}(?:\p{Lu}|['’](?=\p{Lu}))+(?:-\p{Lu}+)?"
_CAPS_BEFORE = regex.compile(rf"(?<![\p{{L}}\p{{N}}'’])(?P<w>{_CAPS})[ \t]$")
_CAPS_AFTER = regex.compile(rf"[ \t](?P<w>{_CAPS})(?![\p{{L}}\p{{N}}'’])")
_ADDRESS_BRACKET = regex.compile(r"(?i)\baddress\b[^()\n]{0,25}\((?P<v>[^()\n]{3,60})\)")  # "first line of address (37 oakdene)"
_HOUSE_NAME = regex.compile(  # "at brook house, eastcote", "rose cottage, nelson walk"
    r"(?i)(?<![\p{L}\p{N}])(?P<w>\p{L}[\p{L}'’\-]+)[ ](?:cottage|house|lodge|farm|barn|mill|manor|villa|hall|"
    r"bungalow|farmhouse)s?,[ ]*\p{L}[\p{L}'’\-]+(?:[ ]\p{L}[\p{L}'’\-]+)?")
_NOT_HOUSE = frozenset("""the a an my our your his her their this that same new old big small guest main full open
public white our whole other next whole wendy opera bath boat""".split())
_PLACE_END = regex.compile(r"(?i)(?:way|gate|side|field|fields|wood|croft|dale|mead|hurst|moor|brook|grove|bank|lea|leigh|"
                           r"cross|bridge|well|wells|holme|garth|combe|stead|view|bury|borough|ford|ton|ham|worth|"
                           r"thorpe|by|wick|mouth|port|haven|hill|hills|lands|park|vale|crest|rise|green|dene|acre|acres|cote|mere|"
                           r"shaw|ridge|den|royd|ings|nook)$")
_BARE_ANY_CASE = regex.compile(r"(?<![\p{L}\p{N}.,£$€/:])(?P<no>\d{1,4}[a-z]?),?[ ]+(?P<w>\p{L}[\p{L}'’\-]{4,})(?![\p{L}\p{N}])")
_ADDRESS_FIELD = regex.compile(
    r"(?im)^[ \t>]*(?:home[ \t]+|postal[ \t]+|billing[ \t]+|delivery[ \t]+|correspondence[ \t]+|supply[ \t]+)?"
    r"(?:address(?:[ \t]+on[ \t]+file)?|property)[ \t]*:[ \t]*(?P<v>[^\n]+?)[ \t]*$")
_STREET_FIRST = regex.compile(  # "Vesterbrogade 90, København, 33107", "Hauptstraße 5, Bad Honnef, 53604"
    r"(?<![\p{L}\p{N}])\p{L}[\p{L}'’\-]{4,}[ ]\d{1,4}[a-zA-Z]?,[ ]*\p{L}[\p{L}'’\-]+"
    r"(?:[ ]\p{L}[\p{L}'’\-]+)?,[ ]*\d{2}(?:-?\d{3}|\d{2,3})(?!\p{N})")
_STREET_ZIP = regex.compile(  # "Hauptstrasse 12B, 60661": a street, a house number and a postcode
    r"(?<![\p{L}\p{N}])\p{L}[\p{L}'’\-]{4,}[ ]\d{1,3}[a-zA-Z]?,[ ]*(?!(?:19|20)\d\d(?!\d))\d{4,5}(?![\p{N}\p{L}])")
_POSTCODE_LINE = regex.compile(  # "Lyon\n54648", "Chicago, IL\n> 60607": after a town's line
    r"(?m)(?<=(?:\p{Lu}\p{Ll}+|[,][ \t]*\p{Lu}{2})[ \t]*\n[> \t]*)(?:\d{4,6}|\d{2}-\d{3})[ \t]*$")
_ROOM = regex.compile(r"(?i)\broom[ ]\d{1,4}[a-z]?,?[ ]+\p{L}[\p{L}'’\-]+[ ](?:hall|house|court|building|block|tower)\b")
_STATE_ZIP = regex.compile(r"(?<![\p{L}\p{N}])(?-i:[A-Z]{2}),?[ ]+\d{5}(?:-\d{4})?(?!\p{N})")
_PLATE_CUE = regex.compile(
    r"(?i)\b(?:reg(?:istration)?(?:[ ]*(?:no\.?|number|plate))?|number[ ]plate|plate|car[ ]is|car|van|vehicle|"
    r"motorbike|campervan|camper[ ]van)(?![\p{L}\p{N}])[ ]*(?:is|was|:|-|\()?[ ]*"
    r"\K(?=[\p{L}\p{N} \-]{4,10}(?![\p{L}\p{N}]))(?=[\p{L} \-]*\p{N})(?=[\p{N} \-]*\p{L})"
    r"[\p{L}\p{N}]{1,4}(?:[ \-][\p{L}\p{N}]{1,4}){0,2}(?![\p{L}\p{N}])")


def initials_signature_spans(text: str) -> list[tuple[int, int]]:
    """Capital initials (2-3 letters) ending a line after a sentence or a dash, not a common abbreviation
    (module docstring): written in capitals there, "AN" and "IS" are initials, not words."""
    return [m.span("i") for m in _INITIALS_LINE_END.finditer(text) if m.group("i").lower() not in _ABBREVIATIONS]


def _first_names() -> frozenset[str]:
    from dpsynrag.data.pii_rules import _lists

    return _lists()[0]


def _signature_word(word: str, first: frozenset[str]) -> bool:
    """A word alone on a signature line that is a name: not a frequent English word, or a census first name
    that is not very frequent (Zipf < 5: "pat", "dean", "precious"; not "ok", "see", "will")."""
    import wordfreq

    key = _key(word)
    if key in _CALENDAR | _GREETINGS:
        return False
    return word.lower() not in _common() or (key in first and wordfreq.zipf_frequency(word, "en") < 5.0)


def _name_word(word: str) -> bool:
    return _any_case_name(word) and _key(word) not in _CALENDAR | _GREETINGS


def relation_name_spans(text: str) -> list[tuple[int, int]]:
    """Names after a relation noun and a comma or "and", a date-of-birth possessive, "next door" and "spoken
    to" cues (module docstring): any case after a relation; capitalised and not an ordinary word after the
    other cues."""
    found = []
    for m in _RELATION_COMMA.finditer(text):
        for group in ("a", "b"):
            if m.group(group) and _name_word(m.group(group).split()[0]):
                found.append(m.span(group))
    first = _first_names()
    for pattern in (_HEADER_NAME, _HERE):  # a label's name: any census first name ("Will"), else no ordinary word
        for m in pattern.finditer(text):
            word = m.group("n").split()[0]
            if _key(word) in first or _name_word(word):
                found.append(m.span("n"))
    for m in _INTRO.finditer(text):
        word = m.group("n")
        if (word[0].isupper() and (_key(word) in first or word.lower() not in _common())) or _signature_word(word, first):
            found.append(m.span("n"))
    for m in _FIELD_NAME.finditer(text):
        if m.group("v") is not None:
            if any(ch.isalpha() for ch in m.group("v")) and not any(ch.isdigit() for ch in m.group("v")):
                found.append(m.span("v"))
        elif _key(m.group("n").split()[0]) in first or _name_word(m.group("n").split()[0]):
            found.append(m.span("n"))
    for m in _PAREN_LABEL.finditer(text):
        if _name_word(m.group("n")) or _key(m.group("n")) in first:
            found.append(m.span("n"))
    for m in _NAME_EMAIL.finditer(text):
        words = m.group("n").split()  # the name words that end before the address: "to alejandro" -> "alejandro"
        named = 0
        while named < len(words) and (_signature_word(words[-1 - named], first) or words[-1 - named].isupper()):
            named += 1
        if named:
            found.append((m.end("n") - len(" ".join(words[len(words) - named:])), m.end("n")))
    for m in _CARET.finditer(text):
        found.append(m.span("n"))
    for m in _SIGNED_LINE.finditer(text):
        group = "n" if m.group("n") else "m"
        words = m.group(group).split()
        if all(_signature_word(w, first) for w in words):
            found.append(m.span(group))
    common = _common()
    for m in _NAME_FIX.finditer(text):
        words = m.group("n").split()
        keep = [w for w in words if w.lower() not in common or _key(w) in first]
        if keep and keep[0] == words[0]:
            found.append((m.start("n"), m.start("n") + len(" ".join(words[:len(keep)])) if len(keep) == len(words)
                          else m.start("n") + len(words[0])))
    for m in _AT_DESK.finditer(text):
        if _key(m.group("n")) in first or m.group("n").lower() not in common:
            found.append(m.span("n"))
    for m in _BY_LABEL.finditer(text):
        words = m.group("n").split()
        if _key(words[0]) in first or words[0].lower() not in common or words[0].isupper():
            found.append(m.span("n"))
    for pattern in (_BIRTH_POSSESSIVE, _NEXT_DOOR, _SPOKEN_TO, _LEAVE_WITH):
        found += [m.span("n") for m in pattern.finditer(text)
                  if m.group("n").lower() not in common and _key(m.group("n")) not in _CALENDAR | _GREETINGS]
    return found


def capital_surname_spans(text: str, names: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """A word in capitals right before or after one of the ``names`` spans (one space or tab between), not an
    ordinary word or abbreviation: the surname a booking or chat label writes in capitals ("SWAN [Yuki]")."""
    excluded = _common() | _ABBREVIATIONS
    found = []
    for start, end in names:
        for m in (_CAPS_BEFORE.search(text, max(0, start - 40), start), _CAPS_AFTER.match(text, end)):
            if m and len(m.group("w")) >= 3 and m.group("w").lower() not in excluded:
                found.append(m.span("w"))
    return found


def address_layout_spans(text: str) -> list[tuple[int, int]]:
    """Addresses by layout (module docstring)."""
    common = _common()
    found = []
    for m in _BARE_ANY_CASE.finditer(text):
        word = m.group("w")
        if word.lower() not in common and _PLACE_END.search(word) and not _PLACE_END.fullmatch(word):
            found.append(m.span())
    found += [m.span("v") for m in _ADDRESS_BRACKET.finditer(text)]
    found += [m.span() for m in _HOUSE_NAME.finditer(text) if m.group("w").lower() not in _NOT_HOUSE]
    for m in _ADDRESS_FIELD.finditer(text):
        value = m.group("v")
        label = m.group().lower()
        if "address" in label.split(":")[0] or any(ch.isdigit() for ch in value):
            found.append(m.span("v"))
    found += [m.span() for p in (_STREET_FIRST, _STREET_ZIP, _STATE_ZIP, _POSTCODE_LINE, _ROOM) for m in p.finditer(text)]
    return found


def cued_plate_spans(text: str) -> list[tuple[int, int]]:
    """A registration of letters and digits (both) after a vehicle cue, none of its groups an ordinary word
    (module docstring)."""
    common = _common()
    return [m.span() for m in _PLATE_CUE.finditer(text)  # not "car for 2 days", "car is 2 years old"
            if regex.search(r"\p{L}", m.group()) and regex.search(r"\p{N}", m.group())
            and not any(len(g) >= 3 and g.lower() in common for g in regex.split(r"[ \-]", m.group()))]
