"""Keyword extractors for stage 1 (METHOD.md §1a).

An extractor maps each document to an ordered list of candidate keywords, **as a function of that
document alone** (no corpus statistics such as IDF: they would let one document change another's
keywords and break the histogram's sensitivity). The mechanism then caps each list to K distinct
in-vocabulary words (:func:`dpsynrag.privacy.mechanisms.cap_keywords`), whatever the extractor said.

* :class:`LLMKeywordExtractor` — the paper's: the language model is asked for K single words (greedy).
* :class:`RarityKeywordExtractor` — a fast per-document statistical extractor: words ranked by their
  count in the document, then by rarity in public English usage (wordfreq's Zipf frequency, public
  data). For CPU runs where LLM extraction is too slow.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache

from dpsynrag.errors import ConfigError

KEYWORD_PROMPT = (
    "Extract {K} single words from the following document that represent key information specific to the "
    "content.\nDocument: {document}"
)

# A word: letters, with inner apostrophes or hyphens ("don't", "covid-19" gives "covid").
WORD_PATTERN = re.compile(r"[A-Za-z][A-Za-z'\-]*[A-Za-z]|[A-Za-z]")


@lru_cache(maxsize=1)
def stop_words() -> frozenset[str]:
    """English stop words (scikit-learn's ENGLISH_STOP_WORDS; public)."""
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return frozenset(ENGLISH_STOP_WORDS)


def candidate_words(text: str) -> list[str]:
    """Lower-cased alphabetic words of ``text`` (length >= 3, not stop words), in order of appearance."""
    stops = stop_words()
    out = []
    for match in WORD_PATTERN.finditer(text):
        word = match.group(0).lower().strip("'-")
        if len(word) >= 3 and word not in stops and word.isalpha():
            out.append(word)
    return out


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
    """

    name = "llm"

    def __init__(self, lm, *, K: int, batch_size: int | None = None, max_new_tokens: int | None = None):
        if isinstance(K, bool) or not isinstance(K, int) or K < 1:
            raise ConfigError(f"`K` must be an integer >= 1. Found {K!r}.")
        self.lm = lm
        self.K = K
        self.batch_size = batch_size
        self.max_new_tokens = max_new_tokens or 6 * K

    def extract(self, documents, *, progress=False):
        prompts = [self.lm.chat_prompt(KEYWORD_PROMPT.format(K=self.K, document=d)) for d in documents]
        answers = self.lm.generate_greedy(
            prompts, max_new_tokens=self.max_new_tokens, batch_size=self.batch_size, progress=progress
        )
        return [candidate_words(answer) for answer in answers]


class RarityKeywordExtractor(KeywordExtractor):
    """Words of the document ranked by in-document count, then by public rarity (wordfreq Zipf).

    Ties are broken by first appearance. Uses only the document and public word frequencies.
    """

    name = "rarity"

    def extract(self, documents, *, progress=False):
        from wordfreq import zipf_frequency

        out = []
        for doc in documents:
            words = candidate_words(doc)
            counts = Counter(words)
            first = {}
            for i, w in enumerate(words):
                first.setdefault(w, i)
            out.append(sorted(counts, key=lambda w: (-counts[w], zipf_frequency(w, "en"), first[w])))
        return out


def make_extractor(kind: str, *, lm=None, K: int = 10, batch_size: int | None = None) -> KeywordExtractor:
    """An extractor by name: "llm" (needs ``lm``) or "rarity".

    Raises:
        ConfigError: on an unknown name, or "llm" without a model.
    """
    if kind == "llm":
        if lm is None:
            raise ConfigError("the 'llm' keyword extractor needs a language model.")
        return LLMKeywordExtractor(lm, K=K, batch_size=batch_size)
    if kind == "rarity":
        return RarityKeywordExtractor()
    raise ConfigError(f"`extractor` must be 'llm' or 'rarity'. Found {kind!r}.")
