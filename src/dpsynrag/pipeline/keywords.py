"""Keyword extractors for stage 1 (METHOD.md §1a).

An extractor maps each document to an ordered list of candidate keywords, **as a function of that
document alone** (no corpus statistics such as IDF: they would let one document change another's
keywords and break the histogram's sensitivity). The mechanism then caps each list to K distinct
in-vocabulary words (:func:`dpsynrag.privacy.mechanisms.cap_keywords`), whatever the extractor said.

* :class:`LLMKeywordExtractor` — the paper's: the language model is asked for K single words (greedy).
* :class:`RarityKeywordExtractor` — a fast per-document statistical extractor: words ranked by their
  count in the document, then by rarity in public usage of the document's language (wordfreq's Zipf
  frequency, public data). For CPU runs where LLM extraction is too slow.

Words, in any language (:func:`text_words`, :func:`candidate_words`): the text is split by
``wordfreq.tokenize(text, language)`` — Unicode word boundaries (UAX #29) for languages written with
spaces, MeCab (ipadic) segmentation for Japanese and Korean, jieba for Chinese — and case-folded, the
same tokenisation as the public frequency lists; tokens are then split at digits. A candidate keyword is
a token of letters only (Unicode categories L and M: "handflächen", "головную", "صداع", "頭痛"; no
digits, apostrophes or hyphens) with at least :func:`min_word_length` characters (3; 2 for Chinese,
Japanese and Korean, where one character is a morpheme) that is not a stop word (:func:`stop_words`).
The soft clustering's text matching (``match_text``) uses the same :func:`text_words`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from array import array
from collections import Counter
from collections.abc import Container, Iterable, Iterator, Sequence
from functools import lru_cache
from itertools import islice

import regex

from dpsynrag.errors import ConfigError

KEYWORD_PROMPT = (
    "Extract {K} single words from the following document that represent key information specific to the "
    "content.\nDocument: {document}"
)

DEFAULT_LANGUAGE = "en"
STOP_WORDS_TOP_N = 300
"""Stop words of a language other than English: its this many most frequent words in wordfreq's list."""

_SHORT_WORD_LANGUAGES = frozenset({"ja", "ko", "zh"})
_LETTERS = regex.compile(r"[\p{L}\p{M}]+")
_DIGITS = regex.compile(r"\d+")


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


class KeywordExtractor(ABC):
    """Maps documents to candidate keywords, each list a function of its own document only."""

    name: str

    @abstractmethod
    def extract(self, documents: Sequence[str], *, progress: bool = False) -> list[list[str]]:
        """Candidate keywords per document, most important first (uncapped; the mechanism caps them)."""


class LLMKeywordExtractor(KeywordExtractor):
    """The paper's extractor: greedy answer of the language model to :data:`KEYWORD_PROMPT`.

    Args:
        lm: a :class:`dpsynrag.models.LanguageModel`.
        K: the number of words asked for (the cap is enforced later in any case).
        batch_size: prompts per generation batch (None: the model's default).
        max_new_tokens: generation length (default 6·K tokens, room for K words and separators).
        language: the documents' language (:func:`check_language`); the answer is split into words with it.
    """

    name = "llm"

    def __init__(self, lm, *, K: int, batch_size: int | None = None, max_new_tokens: int | None = None,
                 language: str = DEFAULT_LANGUAGE):
        if isinstance(K, bool) or not isinstance(K, int) or K < 1:
            raise ConfigError(f"`K` must be an integer >= 1. Found {K!r}.")
        self.language = check_language(language)
        self.lm = lm
        self.K = K
        self.batch_size = batch_size
        self.max_new_tokens = max_new_tokens or 6 * K

    def extract(self, documents, *, progress=False):
        prompts = [self.lm.chat_prompt(KEYWORD_PROMPT.format(K=self.K, document=d)) for d in documents]
        # Only the public part of the prompt (template + instruction) is shared; the engine computes
        # each document's answer as a function of that document alone, whatever shares its batch.
        prefix = self.lm.public_prefix(KEYWORD_PROMPT.format(K=self.K, document="{document}"))
        answers = self.lm.generate_greedy(
            prompts, max_new_tokens=self.max_new_tokens, batch_size=self.batch_size, progress=progress,
            public_prefix=prefix,
        )
        return [candidate_words(answer, self.language) for answer in answers]


class RarityKeywordExtractor(KeywordExtractor):
    """Words of the document ranked by in-document count, then by public rarity (wordfreq Zipf
    frequency in ``language``).

    Ties are broken by first appearance. Uses only the document and public word frequencies.
    """

    name = "rarity"

    def __init__(self, language: str = DEFAULT_LANGUAGE):
        self.language = check_language(language)

    def extract(self, documents, *, progress=False):
        from wordfreq import zipf_frequency

        out = []
        for doc in documents:
            words = candidate_words(doc, self.language)
            counts = Counter(words)
            first = {}
            for i, w in enumerate(words):
                first.setdefault(w, i)
            out.append(sorted(counts, key=lambda w: (-counts[w], zipf_frequency(w, self.language), first[w])))
        return out


class KeywordSets(Sequence):
    """Each document's capped keyword set, held compactly: one int32 id per keyword (ids into
    :attr:`words`, the distinct words in order of first appearance) and one offset per document, instead
    of a list of strings per document (4 bytes per keyword instead of ~60).

    A read-only sequence: ``sets[i]`` is document i's keywords as a tuple of strings, in the order given.
    """

    def __init__(self) -> None:
        self.words: list[str] = []
        self._id: dict[str, int] = {}
        self._ids = array("i")
        self._ends = array("q")

    def append(self, keywords: Iterable[str]) -> None:
        """Add the next document's keyword set (already capped)."""
        for w in keywords:
            i = self._id.get(w)
            if i is None:
                i = self._id[w] = len(self.words)
                self.words.append(w)
            self._ids.append(i)
        self._ends.append(len(self._ids))

    def __len__(self) -> int:
        return len(self._ends)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(i)
        start = self._ends[i - 1] if i else 0
        return tuple(self.words[k] for k in self._ids[start:self._ends[i]])

    def __iter__(self) -> Iterator[tuple[str, ...]]:
        start = 0
        for end in self._ends:
            yield tuple(self.words[k] for k in self._ids[start:end])
            start = end


EXTRACT_CHUNK = 512
"""Documents per :meth:`KeywordExtractor.extract` call in :func:`extract_keyword_sets`."""


def extract_keyword_sets(
    extractor: KeywordExtractor,
    texts: Iterable[str],
    *,
    max_keywords: int,
    vocabulary: Container[str] | None = None,
    total: int | None = None,
    progress: bool = False,
) -> KeywordSets:
    """Each document's keyword set, capped (:func:`dpsynrag.privacy.mechanisms.cap_keywords`: lower-cased,
    distinct, in ``vocabulary``, at most ``max_keywords``), from a stream of texts.

    The texts are read :data:`EXTRACT_CHUNK` at a time; an extractor's output for a document is a
    function of that document alone, so the result does not depend on the chunking. Memory: one chunk
    of texts and the compact :class:`KeywordSets`.

    Args:
        texts: the documents' texts (as the extractor should read them), in order; any iterable.
        vocabulary: None: open vocabulary.
        total: the number of texts, for the progress bar only.
        progress: one progress bar over the documents.
    """
    from dpsynrag.privacy.mechanisms import cap_keywords

    sets = KeywordSets()
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=total, desc=f"keywords ({extractor.name})")
    texts = iter(texts)
    try:
        while chunk := list(islice(texts, EXTRACT_CHUNK)):
            for raw in extractor.extract(chunk):
                sets.append(cap_keywords(raw, max_keywords=max_keywords, vocabulary=vocabulary))
            if bar is not None:
                bar.update(len(chunk))
    finally:
        if bar is not None:
            bar.close()
    return sets


def make_extractor(
    kind: str, *, lm=None, K: int = 10, batch_size: int | None = None, language: str = DEFAULT_LANGUAGE
) -> KeywordExtractor:
    """An extractor by name: "llm" (needs ``lm``) or "rarity", for documents in ``language``.

    Raises:
        ConfigError: on an unknown name or language, or "llm" without a model.
    """
    if kind == "llm":
        if lm is None:
            raise ConfigError("the 'llm' keyword extractor needs a language model.")
        return LLMKeywordExtractor(lm, K=K, batch_size=batch_size, language=language)
    if kind == "rarity":
        return RarityKeywordExtractor(language)
    raise ConfigError(f"`extractor` must be 'llm' or 'rarity'. Found {kind!r}.")
