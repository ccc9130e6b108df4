"""Names that a document's layout gives away (issue 51, written after the first held-out domains' misses): a booking's name field
("WINTER/HUGO MR") and an employee's name written next to the organisation's own public strings ("Nimbo Mobile
(Dayo A)", "Liam, Wrenfold Medical Practice"). Functions of one text (and the spans of its allow-listed
strings), as the rest of :mod:`dpsynrag.data.pii_rules`; the PII pass (:class:`~dpsynrag.data.pii.PIIRedactor`)
replaces what they find as ``PERSON``.
"""

from __future__ import annotations

from collections.abc import Sequence

import regex

from dpsynrag.data.pii_rules import _CALENDAR, _GREETINGS, _any_case_name, _key

__all__ = ["booking_name_spans", "org_name_spans", "social_signoff_spans"]

_GDS_NAME = regex.compile(  # a booking's name field: "WINTER/HUGO MR", "Gill/Kavya Mrs"
    r"(?<![\p{L}\p{N}/])(?P<last>\p{Lu}[\p{L}'’\-]+)/(?P<first>\p{Lu}[\p{L}'’\-]*)"
    r"(?P<title>[ \t]+(?i:mr|mrs|ms|miss|mstr|mx|dr)\b)?")
_SOCIAL_SIGNOFF = regex.compile(  # "...mobile number? ^SM", "...find you? Oliwia 🙂", "Aoife, Nimbo Support"
    r"(?m)(?<=[.!?][ \t]+)(?:\^(?P<initials>\p{Lu}{2,3})\b|(?P<name>\p{Lu}\p{Ll}+)(?:[ \t]+\p{So}"
    r"|,[ \t]+\p{Lu}\p{Ll}+[ \t]+(?:Support|Team|Care|Help|Helpdesk|Services|Customer[ \t]+Care)\b))")
_ORG_AFTER = regex.compile(r"[ \t]*\((?P<name>\p{Lu}\p{Ll}+(?:[ \t]+\p{Lu}\.?)?)\)")  # "Nimbo Mobile (Dayo A)"
_ORG_BEFORE = regex.compile(  # "Liam, Wrenfold Medical Practice", "From Ade at Wrenfold Medical Practice"
    r"(?:^|[.!?:\n][ \t]*|\b(?i:from)[ \t]+)(?P<name>\p{Lu}\p{Ll}+(?:[ \t]+\p{Lu}\.?)?)"
    r"(?:[ \t]*,[ \t]*|[ \t]+(?:at|from)[ \t]+)(?:the[ \t]+)?$")


def booking_name_spans(text: str) -> list[tuple[int, int]]:
    """Names in a booking's name field, surname/given name and a title ("WINTER/HUGO MR", "Gill/Kavya Mrs"):
    kept when the given name is not an ordinary English word or a title follows ("AND/OR" is none)."""
    found = []
    for m in _GDS_NAME.finditer(text):
        if m.group("title") or (_any_case_name(m.group("first")) and _key(m.group("first")) not in _CALENDAR):
            found.append(m.span())
    return found


def social_signoff_spans(text: str) -> list[tuple[int, int]]:
    """An agent's signature as social-media and chat replies write it, after a sentence: initials after a caret
    ("^SM"), a given name before an emoji ("Oliwia 🙂"), a given name before a team ("Aoife, Nimbo Support")."""
    found = []
    for m in _SOCIAL_SIGNOFF.finditer(text):
        if m.group("initials"):
            found.append(m.span("initials"))
        elif _any_case_name(m.group("name")) and _key(m.group("name")) not in _CALENDAR | _GREETINGS:
            found.append(m.span("name"))
    return found


def org_name_spans(text: str, organisation: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """Names written next to the organisation's own public strings (``organisation``: the spans of the
    allow-listed strings): in brackets after one ("Nimbo Mobile (Dayo A)"), or before one after a comma or
    "at" at a sentence's start ("Liam, Wrenfold Medical Practice", "From Ade at Wrenfold Medical Practice"),
    an employee's signature. Any case of name; not a greeting, an org word, a filler or a month or day."""
    found = []
    for start, end in organisation:
        after = _ORG_AFTER.match(text, end)
        before = _ORG_BEFORE.search(text[max(0, start - 60):start])
        for m, offset in ((after, 0), (before, max(0, start - 60))):
            if m is None:
                continue
            head = m.group("name").split()[0]
            if _any_case_name(head) and _key(head) not in _CALENDAR | _GREETINGS:
                found.append((offset + m.start("name"), offset + m.end("name")))
    return found
