"""Words and identifiers, in any language: the tokenisation, candidate-keyword and identifier rules that
the keyword extractors (:mod:`dpsynrag.pipeline.keywords`, whose docstring describes them), the soft
clustering's text matching and the public vocabulary (:mod:`dpsynrag.data.vocabulary`) share. Functions
of one text and public constants (wordfreq's lists, scikit-learn's stop words) alone.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

import regex

from dpsynrag.errors import ConfigError

DEFAULT_LANGUAGE = "en"
STOP_WORDS_TOP_N = 300
"""Stop words of a language other than English: its this many most frequent words in wordfreq's list."""

_SHORT_WORD_LANGUAGES = frozenset({"ja", "ko", "zh"})
_LETTERS = regex.compile(r"[\p{L}\p{M}]+")
_DIGITS = regex.compile(r"\d+")

_SPACED = r"[^\W_\u2E80-\U0010FFFF]"  # a letter or digit of a script written with spaces (not CJK, kana, hangul)
IDENTIFIER_SHAPES = regex.compile(
    r"(?P<id>[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+"  # e-mail addresses, in any capitals
    r"|(?i:(?:[a-z][a-z0-9+.-]*://|www\.)\S+)"  # URLs with a scheme or www.
    r"|(?<![\w.])[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,6}(?:/\S*)?(?!\w))"  # bare domains: example.com/2020/01/x
    rf"|(?P<token>{_SPACED}+(?:[-_/#.:]{_SPACED}+)*)"  # letters and digits joined by - _ / # . : (an identifier
)                                                     # when they hold 3 or more digits)
"""Identifier-shaped tokens, never keywords: e-mail addresses, URLs (with a scheme, ``www.``, or a bare
lower-case domain), and tokens of letters and digits (joined by ``- _ / # . :``) that hold 3 or more digits
("ORD-782554", "AB-1234", "2020/01/22", "555-0142"; "covid19" and "H1N1" are kept). Letters of scripts
written without spaces (CJK, kana, hangul) never join such a token, so "订单ORD-123456的" loses only the id."""


@lru_cache(maxsize=1)
def languages() -> frozenset[str]:
    """The language codes with public word frequencies (``wordfreq.available_languages("best")``)."""
    import wordfreq

    return frozenset(wordfreq.available_languages(wordlist="best"))


def check_language(language: str) -> str:
    """``language`` when it is a code of :func:`languages` (e.g. "en", "de", "ru", "ar", "ja", "zh").

    Raises:
        ConfigError: another value (the message names ``--language`` and lists the codes).
    """
    if not isinstance(language, str) or language not in languages():
        raise ConfigError(
            f"`language` (--language) must be a language code with public word frequencies: "
            f"{', '.join(sorted(languages()))}. Found {language!r}."
        )
    return language


def min_word_length(language: str = DEFAULT_LANGUAGE) -> int:
    """Shortest candidate keyword in characters: 2 for Chinese, Japanese and Korean, else 3."""
    return 2 if language in _SHORT_WORD_LANGUAGES else 3


def text_words(text: str, language: str = DEFAULT_LANGUAGE) -> list[str]:
    """The word tokens of ``text``, case-folded, in order: ``wordfreq.tokenize(text, language)``, each
    token split at its digits (UAX #29 keeps "Zorblasteron5" or "covid19" in one word; the letters
    around the digits are words of their own).

    Raises:
        ConfigError: an unknown ``language`` (:func:`check_language`).
    """
    import wordfreq

    return [part for token in wordfreq.tokenize(text, check_language(language)) for part in _DIGITS.split(token) if part]


@lru_cache(maxsize=64)
def stop_words(language: str = DEFAULT_LANGUAGE) -> frozenset[str]:
    """Stop words of ``language`` (public lists).

    English: scikit-learn's ENGLISH_STOP_WORDS (318 words). Other languages (scikit-learn has no list
    for them): the :data:`STOP_WORDS_TOP_N` most frequent words of ``wordfreq.top_n_list(language,
    wordlist="best")`` — function words and the most common generic words of the language.
    """
    if language == "en":
        from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

        return frozenset(ENGLISH_STOP_WORDS)
    import wordfreq

    return frozenset(wordfreq.top_n_list(check_language(language), STOP_WORDS_TOP_N, wordlist="best"))


def is_candidate(word: str, language: str = DEFAULT_LANGUAGE) -> bool:
    """True for a token of letters only, at least :func:`min_word_length` long, not a stop word."""
    return (
        len(word) >= min_word_length(language)
        and _LETTERS.fullmatch(word) is not None
        and word not in stop_words(language)
    )


def candidate_words(text: str, language: str = DEFAULT_LANGUAGE) -> list[str]:
    """Candidate keywords of ``text`` in order of appearance: the :func:`text_words` that pass
    :func:`is_candidate` (letters only, long enough, not stop words)."""
    return [w for w in text_words(text, language) if is_candidate(w, language)]


def _mask(match: regex.Match) -> str:
    token = match.group("token")
    return token if token is not None and sum(ch.isdigit() for ch in token) < 3 else " "


def keyword_view(text: str, placeholder: str | None = None) -> str:
    """``text`` as keyword extractors read it: every :data:`IDENTIFIER_SHAPES` match and every occurrence of
    ``placeholder`` (the redaction's public replacement text) replaced by a space. A function of ``text``
    and public constants alone."""
    if placeholder:
        text = text.replace(placeholder, " ")
    return IDENTIFIER_SHAPES.sub(_mask, text)


def excluded_words(identifiers: Iterable[str], placeholder: str | None = None,
                   language: str = DEFAULT_LANGUAGE, public: Iterable[str] = ()) -> frozenset[str]:
    """The words that may never be one document's keywords: the :func:`text_words` (case-folded) of
    ``placeholder``, of each of the document's own identifier values (``identifiers``) and of each public
    string (``public``: the ``--pii-allow`` strings, e.g. the company's name, support number and web
    address, which most documents of a collection hold and which name no topic), and the runs of letters
    inside them ("ada.lee@example.com" gives "ada", "lee", "example", "com"; "Northgate Bank" gives
    "northgate", "bank"). A function of that document and public constants alone.

    Returns:
        The lower-case words, a frozenset (empty when every argument is empty).

    Raises:
        ConfigError: an unknown ``language``.
    """
    words: set[str] = set()
    for value in ([placeholder] if placeholder else []) + [str(v) for v in identifiers] + [str(v) for v in public]:
        for word in text_words(value, language):
            words.add(word)
            words.update(_LETTERS.findall(word))  # "example.com" -> also "example", "com"
    return frozenset(words)
