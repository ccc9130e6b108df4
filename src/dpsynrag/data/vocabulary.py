"""The public keyword vocabulary V of Stage 1 (METHOD.md §1a, "public vocabulary").

V is **public**: it is computed from word lists shipped inside installed packages and never looks at
the private documents, so releasing a noisy histogram over it costs only the histogram's own budget.

Source: ``wordfreq.top_n_list("en", n, wordlist="best")`` (package ``wordfreq`` >= 3.1, R. Speer,
word frequencies from several public corpora; the version actually installed is reported by
:func:`vocabulary_source`), minus scikit-learn's ``ENGLISH_STOP_WORDS`` (318 words, Glasgow Information
Retrieval Group list). The paper used NLTK's word corpus, which must be downloaded at run time; MODELS.md
lists this packaged alternative.

Other languages (``language``, e.g. "de", "ru", "ar", "ja"): ``wordfreq.top_n_list(language, n,
wordlist="best")``, keeping the words that are candidate keywords of that language
(:func:`dpsynrag.data.words.is_candidate`: letters only, at least 3 characters — 2 for Chinese,
Japanese and Korean — and not among the language's 300 most frequent words, its stop words).
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Sequence
from importlib import metadata

from dpsynrag.data.words import STOP_WORDS_TOP_N, check_language, is_candidate, min_word_length
from dpsynrag.errors import ConfigError

__all__ = ["public_vocabulary", "vocabulary_fingerprint", "vocabulary_source", "MIN_WORD_LENGTH"]

MIN_WORD_LENGTH = 3
"""Shortest word kept in the vocabulary, in characters."""

_WORD = re.compile(rf"[a-z]{{{MIN_WORD_LENGTH},}}")
_LANGUAGE = "en"
_WORDLIST = "best"


@functools.lru_cache(maxsize=8)
def _filtered_words(language: str = _LANGUAGE) -> tuple[str, ...]:
    import wordfreq
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    if language == _LANGUAGE:
        keep = lambda w: _WORD.fullmatch(w) is not None and w not in ENGLISH_STOP_WORDS  # noqa: E731
    else:
        keep = lambda w: is_candidate(w, language)  # noqa: E731
    ranked = wordfreq.top_n_list(check_language(language), 10**7, wordlist=_WORDLIST)
    seen: set[str] = set()
    words: list[str] = []
    for word in ranked:
        if keep(word) and word not in seen:
            seen.add(word)
            words.append(word)
    return tuple(words)


@functools.lru_cache(maxsize=16)
def public_vocabulary(size: int = 50_000, language: str = _LANGUAGE) -> tuple[str, ...]:
    """The ``size`` most frequent public words of ``language``, stop words removed.

    Public (data-independent). English (the default): built only from ``wordfreq``'s English list (``top_n_list("en", …,
    wordlist="best")``, frequency order) and scikit-learn's ``ENGLISH_STOP_WORDS``; see
    :func:`vocabulary_source` for the installed versions. Words are kept when they match
    ``[a-z]{3,}`` (at least :data:`MIN_WORD_LENGTH` letters, no digits, apostrophes or accents) and are
    not stop words; the order is wordfreq's frequency rank, so a smaller ``size`` is a prefix of a larger
    one. Deterministic for a given wordfreq version, cached per ``size``.

    Other languages: wordfreq's list of that language filtered as in the module docstring, in frequency
    order (also prefix-consistent and cached per ``(size, language)``).

    Args:
        size: number of words, ``1 <= size <=`` the number available (about 288,000 English words with
            wordfreq 3.1; about 30,000 for Korean, Hindi or Filipino).
        language: a code of :func:`dpsynrag.data.words.languages`.

    Returns:
        A tuple of ``size`` distinct words.

    Raises:
        ConfigError: ``size`` is not a positive integer or exceeds the words available, or an unknown
            ``language``.
    """
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise ConfigError(f"`size` must be a positive integer. Found {size!r}.")
    words = _filtered_words(language)
    if size > len(words):
        raise ConfigError(
            f"`size` (vocabulary_size) must be at most {len(words)} for language {language!r} (words available "
            f"from wordfreq {_version('wordfreq')} after filtering). Found {size}. Use a smaller vocabulary_size "
            "or the open vocabulary (--open-vocabulary)."
        )
    return words[:size]


def vocabulary_fingerprint(vocab: Sequence[str]) -> str:
    """SHA-256 (hex) of the words joined by ``"\\n"`` in their order, UTF-8 encoded. For run manifests.

    Two runs used the same vocabulary exactly when their fingerprints are equal (order matters).
    """
    digest = hashlib.sha256()
    digest.update("\n".join(vocab).encode("utf-8"))
    return digest.hexdigest()


def vocabulary_source(language: str = _LANGUAGE) -> dict[str, str]:
    """Where the public vocabulary of ``language`` comes from, for manifests: package names and installed
    versions."""
    if language == _LANGUAGE:
        return {
            "word_list": f"wordfreq.top_n_list({_LANGUAGE!r}, wordlist={_WORDLIST!r})",
            "wordfreq_version": _version("wordfreq"),
            "stop_words": "sklearn.feature_extraction.text.ENGLISH_STOP_WORDS",
            "scikit_learn_version": _version("scikit-learn"),
            "filter": f"[a-z]{{{MIN_WORD_LENGTH},}}, stop words removed, frequency order",
        }
    return {
        "word_list": f"wordfreq.top_n_list({language!r}, wordlist={_WORDLIST!r})",
        "wordfreq_version": _version("wordfreq"),
        "stop_words": f"wordfreq.top_n_list({language!r}, {STOP_WORDS_TOP_N}, wordlist={_WORDLIST!r})",
        "filter": f"letters only (Unicode L, M), at least {min_word_length(language)} characters, stop words "
                  "removed, frequency order",
    }


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:  # pragma: no cover - both are dependencies
        return "unknown"
