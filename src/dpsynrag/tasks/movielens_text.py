"""Text helpers of the MovieLens task (:mod:`dpsynrag.tasks.movielens`): parsing MovieLens titles, their
display form and whether an answer names a film; invented pseudonyms; taste sentences.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = [
    "ParsedTitle",
    "display_title",
    "match_text",
    "names_any_title",
    "names_title",
    "parse_title",
    "pseudonym_for",
    "taste_sentence",
    "title_keys",
]

# ---------------------------------------------------------------------- titles

_YEAR = re.compile(r"\s*\((\d{4})(?:\s*[-–]\s*(?:\d{4})?\s*)?\)\s*$")
_AKA = re.compile(r"^\s*(?:a\.?k\.?a\.?)\s+", re.IGNORECASE)
# Articles MovieLens moves to the end ("Godfather, The"), by language; compared case-sensitively.
_TRAILING_ARTICLES = (
    "The", "A", "An", "Les", "Le", "La", "L'", "El", "Los", "Las", "Il", "Lo", "Gli", "Das", "Der", "Die",
    "Den", "Det", "De", "Het", "Un", "Une", "Ein", "Eine",
)
_TRAILING_ARTICLE = re.compile(r"^(?P<rest>.+?),\s+(?P<article>" + "|".join(map(re.escape, _TRAILING_ARTICLES))
                               + r")$")
_ENGLISH_ARTICLES = ("the", "a", "an")


@dataclass(frozen=True)
class ParsedTitle:
    """A MovieLens title split into parts, articles already moved to the front.

    Attributes:
        main: the title proper, e.g. ``"The Godfather"``.
        alternatives: parenthesised alternative titles in order, ``a.k.a.`` removed, e.g. ``("Se7en",)``.
        year: release year, or None when the title has none.
        aka: for each alternative, whether it was written ``a.k.a. …`` (kept for display).
    """

    main: str
    alternatives: tuple[str, ...] = ()
    year: int | None = None
    aka: tuple[bool, ...] = ()


def _front_article(text: str) -> str:
    match = _TRAILING_ARTICLE.match(text.strip())
    if not match:
        return text.strip()
    article, rest = match.group("article"), match.group("rest").strip()
    return f"{article}{rest}" if article.endswith("'") else f"{article} {rest}"


def parse_title(title: str) -> ParsedTitle:
    """Parse a MovieLens (or display-form) title.

    ``"City of Lost Children, The (Cité des enfants perdus, La) (1995)"`` →
    ``ParsedTitle("The City of Lost Children", ("La Cité des enfants perdus",), 1995)``. The year is a
    trailing ``(YYYY)`` (or ``(YYYY-YYYY)``); then trailing parenthesised groups are alternative titles.
    Idempotent on display titles: ``parse_title(display_title(t)) == parse_title(t)``.
    """
    text = " ".join(title.split())
    year = None
    match = _YEAR.search(text)
    if match:
        year = int(match.group(1))
        text = text[: match.start()].rstrip()
    alternatives: list[str] = []
    aka: list[bool] = []
    while text.endswith(")"):
        depth, start = 0, -1
        for i in range(len(text) - 1, -1, -1):
            if text[i] == ")":
                depth += 1
            elif text[i] == "(":
                depth -= 1
                if depth == 0:
                    start = i
                    break
        if start <= 0:
            break
        inner = text[start + 1:-1].strip()
        text = text[:start].rstrip()
        is_aka = bool(_AKA.match(inner))
        inner = _AKA.sub("", inner)
        if inner:
            alternatives.insert(0, _front_article(inner))
            aka.insert(0, is_aka)
    return ParsedTitle(main=_front_article(text), alternatives=tuple(alternatives), year=year, aka=tuple(aka))


def display_title(title: str) -> str:
    """Display form of a MovieLens title: articles moved to the front, alternatives and year kept.

    ``"Godfather, The (1972)"`` → ``"The Godfather (1972)"``; ``"Seven (a.k.a. Se7en) (1995)"`` unchanged.
    """
    parsed = parse_title(title)
    parts = [parsed.main]
    for alternative, is_aka in zip(parsed.alternatives, parsed.aka):
        parts.append(f"(a.k.a. {alternative})" if is_aka else f"({alternative})")
    if parsed.year is not None:
        parts.append(f"({parsed.year})")
    return " ".join(parts)


def match_text(text: str, *, case_sensitive: bool = False) -> str:
    """Accents removed, '&' → 'and', apostrophes dropped, other punctuation → space, spaces collapsed."""
    text = unicodedata.normalize("NFKD", text)
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    text = text.replace("&", " and ")
    text = re.sub(r"['’‘`´]", "", text)
    text = re.sub(r"[\W_]+", " ", text)
    if not case_sensitive:
        text = text.lower()
    return " ".join(text.split())


def _strip_article(key: str) -> str:
    words = key.split(" ")
    if len(words) > 1 and words[0].lower() in _ENGLISH_ARTICLES:
        rest = " ".join(words[1:])
        if len(words) > 2 or len(rest) >= 4:
            return rest
    return key


def title_keys(title: str, *, case_sensitive: bool = False) -> tuple[str, ...]:
    """The normalised strings whose presence (as whole words) in an answer names the film.

    One key per title form (the main title and each alternative), each normalised by accents removed,
    apostrophes dropped, other punctuation as spaces, lower case (unless ``case_sensitive``) and a
    leading English article dropped (kept when the rest would be a single word shorter than 4
    letters); plus a variant with hyphenated words joined ("Spider-Man" → "spiderman"). The year is not
    part of any key (optional in answers).
    """
    parsed = parse_title(title)
    keys: list[str] = []
    for form in (parsed.main, *parsed.alternatives):
        for variant in (form, re.sub(r"(?<=\w)-(?=\w)", "", form)):
            key = _strip_article(match_text(variant, case_sensitive=case_sensitive))
            if key and key not in keys:
                keys.append(key)
    return tuple(keys)


def names_title(answer: str, title: str, *, case_sensitive: bool = False) -> bool:
    """True when ``answer`` names the film ``title`` (MovieLens or display form): one of
    :func:`title_keys` occurs in the normalised answer as a whole-word sequence.

    Examples: "I recommend the godfather" names "Godfather, The (1972)"; "The Matrix (1999)" names
    "Matrix, The"; "Se7en" names "Seven (a.k.a. Se7en) (1995)". Known limits: a sequel's title contains
    the original's ("The Matrix Reloaded" names "The Matrix"); numerals are not converted ("Episode 4"
    does not name "Episode IV").
    """
    haystack = f" {match_text(answer, case_sensitive=case_sensitive)} "
    return any(f" {key} " in haystack for key in title_keys(title, case_sensitive=case_sensitive))


def names_any_title(answer: str, titles: Iterable[str], *, case_sensitive: bool = False) -> bool:
    """True when ``answer`` names any of ``titles`` (see :func:`names_title`)."""
    return any(names_title(answer, title, case_sensitive=case_sensitive) for title in titles)


# ---------------------------------------------------------------------- pseudonyms and templates

_ONSETS = ("b", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z", "br", "dr", "st", "th")
_VOWELS = ("a", "e", "i", "o", "u")
_CODAS = ("n", "r", "s", "l", "m", "nd", "rt", "x")


def pseudonym_for(user_id: int, attempt: int = 0) -> str:
    """An invented full name (first + last, 2–3 and 3 syllables) from SHA-256 of the user id.

    Deterministic, data-independent except for the id itself; ``attempt`` gives alternatives used when
    two users would get the same name. Example shape: "Torami Velkasin".
    """
    digest = hashlib.sha256(f"dpsynrag/movielens/pseudonym/{user_id}/{attempt}".encode()).digest()
    stream = iter(digest)

    def syllables(count: int) -> str:
        return "".join(_ONSETS[next(stream) % len(_ONSETS)] + _VOWELS[next(stream) % len(_VOWELS)]
                       for _ in range(count))

    first = syllables(2 + next(stream) % 2)
    if next(stream) % 2:
        first += _CODAS[next(stream) % len(_CODAS)]
    last = syllables(3) + _CODAS[next(stream) % len(_CODAS)]
    return f"{first.capitalize()} {last.capitalize()}"


def _join(items: Sequence[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


_GENRE_WORDS = {"Sci-Fi": "science fiction", "Film-Noir": "film noir", "Children": "children's"}


def taste_sentence(genres: Sequence[str], tags: Sequence[str] = ()) -> str:
    """The one-sentence taste description (no film titles), a verb phrase ending with a period.

    ``taste_sentence(["Drama", "Crime"], ["mafia"])`` →
    ``'enjoys drama and crime films, especially ones tagged "mafia".'``
    """
    words = [_GENRE_WORDS.get(g, g.lower()) for g in genres]
    sentence = f"enjoys {_join(words)} films" if words else "enjoys films of many kinds"
    if tags:
        sentence += ", especially ones tagged " + _join([f'"{t}"' for t in tags])
    return sentence + "."
