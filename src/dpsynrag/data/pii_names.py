"""Names the owner knows are personal (``--pii-names-file``): the organisation's staff directory, found in every
document however the employees sign or are addressed (issue 51).

An employee's name is not one document's private string: it recurs in every reply that employee wrote, so a
per-document guarantee does not cover it (a phrase that many documents state can be released), and a name
list of the public census misses the given names and initials staff sign with. The owner has the list. Each
line of the file is one person ("Priya Shah", "Dr Tom O'Brien", "Zara"); :class:`NameList` finds, in any text:

* the line as written, any case, any whitespace between its words (middle names included when given);
* the given name alone ("Priya"): any case, or only capitalised as written when it is an ordinary English word
  ("Joy", "May", "Will": wordfreq Zipf >= :data:`COMMON_ZIPF`, so "joy" and "may" stay);
* the surname alone when it is not an ordinary word ("Shah", not "Green"); an ordinary-word surname after a
  title ("Mr Green", "agent green") or an initial ("T. Green");
* the given name and the surname's initial ("Priya S.", "Priya S"), the given name's initial and the surname
  ("P. Shah", "P Shah", "P.Shah");
* the initials in capitals as a word of their own ("SM" of "Sara Moss"), unless they read as a frequent word or
  abbreviation in lower case (wordfreq Zipf >= 4: "KM" of "Kate Mills" stays, as "km" does).

Whole words only (no letter or digit on either side). The list is a public input's kind of thing to the privacy
analysis (it does not depend on the documents), so the pass stays a function of each document alone; the
names themselves are never written to the manifest, the log or the corpus (owner-only: the owner record holds
their count and a SHA-256 of the list).

Errors: :func:`read_names` raises :class:`~dpsynrag.errors.ConfigError` for an unreadable or empty file.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from functools import lru_cache
from pathlib import Path

import regex

from dpsynrag.errors import ConfigError

__all__ = ["COMMON_ZIPF", "NameList", "names_digest", "read_names"]

COMMON_ZIPF = 4.0  # wordfreq Zipf frequency at or above which a word is ordinary English ("joy" 4.6, "shah" 3.2)
_INITIALS_ZIPF = 4.0  # initials that read as a frequent word or abbreviation in lower case ("km" 4.4, "ok", "ps")
_TITLES = ("mr", "mrs", "ms", "miss", "mx", "dr", "prof", "sir", "dame", "rev", "agent", "officer", "nurse", "doctor")
_B, _E = r"(?<![\p{L}\p{N}])", r"(?![\p{L}\p{N}])"
_WORD = regex.compile(r"[\p{L}][\p{L}'’\-]*")


@lru_cache(maxsize=65536)
def _ordinary(word: str) -> bool:
    import wordfreq

    return wordfreq.zipf_frequency(word.lower(), "en") >= COMMON_ZIPF


def _initials_ordinary(initials: str) -> bool:
    import wordfreq

    return wordfreq.zipf_frequency(initials.lower(), "en") >= _INITIALS_ZIPF


def _words(line: str) -> list[str]:
    words = _WORD.findall(line)
    while len(words) > 1 and words[0].lower().rstrip(".") in _TITLES:
        words = words[1:]
    return words


def _forms(line: str) -> tuple[list[str], list[str]]:
    """``(any-case patterns, case-sensitive patterns)`` of one line of the list (module docstring)."""
    words = _words(line)
    if not words:
        return [], []
    esc = [regex.escape(w) for w in words]
    any_case = [r"[\s]+".join(esc)]
    exact: list[str] = []
    given, surname = words[0], words[-1]
    (exact if _ordinary(given) else any_case).append(regex.escape(given))
    if len(words) > 1:
        g, s = regex.escape(given), regex.escape(surname)
        if not _ordinary(surname):
            any_case.append(s)
        titles = "|".join(_TITLES)
        any_case.append(rf"(?:{titles})\.?[ \t]+{s}")
        exact.append(rf"{g}[ \t]+{regex.escape(surname[0].upper())}\.?")
        exact.append(rf"{regex.escape(given[0].upper())}(?:\.[ \t]?|[ \t]){s}")
        initials = "".join(w[0].upper() for w in words)
        if not _initials_ordinary(initials):
            exact.append(regex.escape(initials))
    return any_case, exact


class NameList:
    """The owner's names (``--pii-names-file``) as one matcher: :meth:`spans` of a text.

    Args:
        names: one person per item ("Priya Shah"); blank items are ignored, titles in front dropped.

    Raises:
        ConfigError: no name in ``names``.
    """

    def __init__(self, names: Iterable[str]):
        self.names = tuple(dict.fromkeys(n.strip() for n in names if n.strip()))
        if not self.names:
            raise ConfigError("--pii-names-file holds no name: give one person a line (\"Priya Shah\").")
        any_case: set[str] = set()
        exact: set[str] = set()
        for line in self.names:
            a, e = _forms(line)
            any_case.update(a)
            exact.update(e)
        # the longest first, so that "Priya Shah" wins over "Priya"
        def alternation(patterns: set[str]) -> str:
            return "|".join(sorted(patterns, key=lambda p: (-len(p), p)))

        self._any = regex.compile(rf"{_B}(?:{alternation(any_case)}){_E}", regex.IGNORECASE) if any_case else None
        self._exact = regex.compile(rf"{_B}(?:{alternation(exact)}){_E}") if exact else None

    def spans(self, text: str) -> list[tuple[int, int]]:
        """The ``(start, end)`` character spans of ``text`` holding one of the names, in order (overlapping
        spans are left for the caller to merge)."""
        found = []
        for pattern in (self._any, self._exact):
            if pattern is not None:
                found += [m.span() for m in pattern.finditer(text, overlapped=False)]
        return sorted(found)

    def __len__(self) -> int:
        return len(self.names)


def read_names(path: str | Path) -> tuple[str, ...]:
    """The names of a ``--pii-names-file``: UTF-8, one person a line, blank lines and ``#`` comments skipped.

    Raises:
        ConfigError: the file cannot be read as UTF-8 text, or holds no name.
    """
    try:
        lines = Path(path).expanduser().read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"--pii-names-file {path}: cannot read it as UTF-8 text ({exc}).") from exc
    names = tuple(line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#"))
    if not names:
        raise ConfigError(f"--pii-names-file {path} holds no name: give one person a line (\"Priya Shah\").")
    return names


def names_digest(names: Sequence[str]) -> str:
    """SHA-256 (hex) of the names in order, one a line: the owner record's and the checkpoint's check that a
    resumed build redacts with the same list."""
    return hashlib.sha256("".join(n + "\n" for n in names).encode("utf-8")).hexdigest()
