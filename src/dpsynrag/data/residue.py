"""What a redaction may have left in a text: long digit runs and name-like pairs of capitalised words.

A check of a redacted text, independent of the redaction's own rules (:mod:`dpsynrag.data.pii`), so that
it shows what they missed: an IMEI or a meter number, an address without a street type, a name whose words
no list holds as a name. :func:`residue_spans` flags, in one text:

- :data:`DIGIT_RUN`: 6 or more digits in a row, written together or in groups joined by one space, dash or
  dot ("352099001761481", "35 209900 176148 1", "0113-496-0431", "12.345.678"); the whole run is one
  span. Letters or symbols around it do not matter ("CASE-529749" and the digits of
  "DE49374955002531099067" are flagged), a comma or two separators in a row end it ("£250,000" and
  "1, 2, 3, 4, 5, 6" are not flagged). Also flagged: dates written with dashes or dots ("2024-01-15") and
  large amounts grouped with spaces or dots ("1.250.000").
- :data:`NAME_PAIR`: two or more adjacent capitalised words — an upper-case letter, then letters with at
  least one lower-case one, apostrophes and hyphens inside ("Okafor", "O'Brien", "Smith-Jones",
  "McDonald"; not "ATM" nor "I") — joined by spaces or tabs on one line, none of them at a sentence start
  (the text's start, or after ``.``, ``!``, ``?`` or ``…`` and white space, quotes or brackets; a line
  break alone is no sentence end, so a name on a signature line counts) and none among wordfreq's
  :data:`COMMON_TOP` most frequent English words (compared in lower case); the run of such words is one
  span ("Niamh Szymański", "Roam Day Pass" is not one: "day" and "pass" are frequent words). Not flagged:
  a name one of whose words is a frequent English word ("Sarah Baker", "Will Hunter"), a name alone on its
  word, a name at a sentence start.

Before either search, the allow-listed public strings (found however they are written, as ``--pii-allow``
finds them: :func:`~dpsynrag.data.redaction.value_spans`) and every occurrence of the placeholder are
blanked out: nothing inside them is flagged, and they separate what stands on either side ("[REDACTED]
Pass" holds no pair). A function of the one text, the allow-list and the placeholder: no state between
texts. The flagged strings are the owner's private text: for the owner's eyes (``dpsynrag redact``), never
logged or published.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import regex

from dpsynrag.data.redaction import DEFAULT_PLACEHOLDER, value_spans

__all__ = ["COMMON_TOP", "DIGIT_RUN", "MIN_RUN_DIGITS", "NAME_PAIR", "RESIDUE_KINDS", "residue_spans"]

DIGIT_RUN = "digit_run"
"""The kind of a run of at least :data:`MIN_RUN_DIGITS` digits."""

NAME_PAIR = "name_pair"
"""The kind of two or more adjacent capitalised words that are not frequent English words."""

RESIDUE_KINDS: tuple[str, ...] = (DIGIT_RUN, NAME_PAIR)

MIN_RUN_DIGITS = 6
"""Fewest digits of a flagged digit run."""

COMMON_TOP = 5000
"""A capitalised word among wordfreq's this many most frequent English words is an ordinary word, not part of
a name-like pair (the threshold the name rules use for an ordinary word)."""

_BLANK = "\x00"  # stands in for an allow-listed string or the placeholder: not a digit, letter or separator
_DIGIT_RUN = regex.compile(r"\d(?:[ .\-]?\d){%d,}" % (MIN_RUN_DIGITS - 1))
_WORD = regex.compile(r"(?<![\p{L}\p{M}\p{N}'’\-])\p{Lu}(?=[\p{L}\p{M}'’\-]*\p{Ll})[\p{L}\p{M}]*"
                      r"(?:['’\-][\p{L}\p{M}]+)*(?![\p{L}\p{M}\p{N}'’\-])")
_GAP = regex.compile(r"[ \t]+")
_SENTENCE_START = regex.compile(r"(?:\A|[.!?…][\"'”’)\]]*\s)[\s\"'“‘(\[]*\Z")


@lru_cache(maxsize=1)
def _common() -> frozenset[str]:
    import wordfreq

    return frozenset(wordfreq.top_n_list("en", COMMON_TOP))


def _blanked(text: str, allow: Sequence[str], placeholder: str) -> str:
    spans = value_spans(text, allow) if allow else []
    if placeholder:
        at = text.find(placeholder)
        while at >= 0:
            spans.append((at, at + len(placeholder)))
            at = text.find(placeholder, at + len(placeholder))
    if not spans:
        return text
    chars = list(text)
    for start, end in spans:
        chars[start:end] = _BLANK * (end - start)
    return "".join(chars)


def _name_like(text: str, word: regex.Match) -> bool:
    """A capitalised word that is not a frequent English word and not at a sentence start."""
    return (word.group().lower() not in _common()
            and _SENTENCE_START.search(text, max(0, word.start() - 8), word.start()) is None)


def _name_pairs(text: str) -> list[tuple[int, int]]:
    found, run = [], []
    for word in _WORD.finditer(text):
        if not _name_like(text, word):
            if len(run) >= 2:
                found.append((run[0].start(), run[-1].end()))
            run = []
            continue
        if run and not _GAP.fullmatch(text, run[-1].end(), word.start()):
            if len(run) >= 2:
                found.append((run[0].start(), run[-1].end()))
            run = []
        run.append(word)
    if len(run) >= 2:
        found.append((run[0].start(), run[-1].end()))
    return found


def residue_spans(text: str, allow: Sequence[str] = (),
                  placeholder: str = DEFAULT_PLACEHOLDER) -> list[tuple[int, int, str]]:
    """The ``(start, end, kind)`` spans of ``text`` that a redaction may have missed (the module docstring
    says exactly which), :data:`DIGIT_RUN` and :data:`NAME_PAIR`, in order of ``start``.

    Args:
        text: a redacted text.
        allow: the public strings that the redaction kept (``--pii-allow``): nothing inside them is flagged.
        placeholder: the text that replaced each redacted span: never flagged, and it separates words.
    """
    searched = _blanked(text, [a for a in allow if a.strip()], placeholder)
    found = [(m.start(), m.end(), DIGIT_RUN) for m in _DIGIT_RUN.finditer(searched)]
    found += [(start, end, NAME_PAIR) for start, end in _name_pairs(searched)]
    return sorted(found)
