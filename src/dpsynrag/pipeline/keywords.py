"""Keyword extractors for stage 1 (METHOD.md §1a).

An extractor maps each document to an ordered list of candidate keywords, **as a function of that
document alone** (no corpus statistics such as IDF: they would let one document change another's
keywords and break the histogram's sensitivity). The mechanism then caps each list to K distinct
in-vocabulary words (:func:`dpsynrag.privacy.mechanisms.cap_keywords`), whatever the extractor said.

* :class:`LLMKeywordExtractor` — the paper's: the language model is asked for K single words (greedy).
* :class:`RarityKeywordExtractor` — a fast per-document statistical extractor: words ranked by their
  count in the document, then by rarity in public usage of the document's language (wordfreq's Zipf
  frequency, public data). For CPU runs where LLM extraction is too slow.

Words, in any language (:func:`~dpsynrag.data.words.text_words`, :func:`~dpsynrag.data.words.candidate_words`): the text is split by
``wordfreq.tokenize(text, language)`` — Unicode word boundaries (UAX #29) for languages written with
spaces, MeCab (ipadic) segmentation for Japanese and Korean, jieba for Chinese — and case-folded, the
same tokenisation as the public frequency lists; tokens are then split at digits. A candidate keyword is
a token of letters only (Unicode categories L and M: "handflächen", "головную", "صداع", "頭痛"; no
digits, apostrophes or hyphens) with at least :func:`min_word_length` characters (3; 2 for Chinese,
Japanese and Korean, where one character is a morpheme) that is not a stop word (:func:`stop_words`).
The soft clustering's text matching (``match_text``) uses the same :func:`text_words`.

Identifiers never become keywords (:func:`keyword_view`, :func:`excluded_words`): extractors read each
document with its identifier-shaped tokens (e-mails, URLs, ids such as ``ORD-782554``, runs of 3 or more
digits) and the redaction placeholder removed, and the words of the placeholder, of the document's own
identifier values and of the public strings (``--pii-allow``: the company's name, support address...) are
dropped from its candidates, whatever the extractor returns. All are functions of that one document and
public constants, so the histogram's sensitivity is unchanged.

Per person (``--privacy-unit-field``; :mod:`dpsynrag.pipeline.units`): each document's set is extracted and
capped as above, then :func:`unit_keyword_sets` gives each person at most K words of the union of their
documents' sets, by a rule that reads that person's documents alone; the histogram counts persons.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from array import array
from collections import Counter
from collections.abc import Callable, Container, Iterable, Iterator, Sequence
from itertools import islice

from dpsynrag.data.words import DEFAULT_LANGUAGE, candidate_words, check_language
from dpsynrag.errors import ConfigError

KEYWORD_PROMPT = (
    "Extract {K} single words from the following document that represent key information specific to the "
    "content.\nDocument: {document}"
)


class KeywordExtractor(ABC):
    """Maps documents to candidate keywords, each list a function of its own document only."""

    name: str

    @abstractmethod
    def extract(self, documents: Sequence[str], *, progress: bool = False,
                on_progress: Callable[[int], None] | None = None) -> list[list[str]]:
        """Candidate keywords per document, most important first (uncapped; the mechanism caps them).
        ``on_progress``: an extractor that works in batches may call it with the number of documents
        each batch finished (a caller's progress display)."""


class LLMKeywordExtractor(KeywordExtractor):
    """The paper's extractor: greedy answer of the language model to :data:`KEYWORD_PROMPT`.

    Args:
        lm: a :class:`dpsynrag.models.LanguageModel`.
        K: the number of words asked for (the cap is enforced later in any case).
        batch_size: prompts per generation batch (None: the model's default).
        max_new_tokens: generation length (default 6·K tokens, room for K words and separators).
        language: the documents' language (:func:`check_language`); the answer is split into words with it.
        memory_budget_gb: the budget of a generation batch without ``batch_size`` (``--memory-budget-gb``;
            None: the device's default, :func:`~dpsynrag.models.loading.memory_budget`).
    """

    name = "llm"

    def __init__(self, lm, *, K: int, batch_size: int | None = None, max_new_tokens: int | None = None,
                 language: str = DEFAULT_LANGUAGE, memory_budget_gb: float | None = None):
        if isinstance(K, bool) or not isinstance(K, int) or K < 1:
            raise ConfigError(f"`K` must be an integer >= 1. Found {K!r}.")
        self.language = check_language(language)
        self.lm = lm
        self.K = K
        self.batch_size = batch_size
        self.max_new_tokens = max_new_tokens or 6 * K
        self.memory_budget_gb = memory_budget_gb

    def extract(self, documents, *, progress=False, on_progress=None):
        prompts = [self.lm.chat_prompt(KEYWORD_PROMPT.format(K=self.K, document=d)) for d in documents]
        # Only the public part of the prompt (template + instruction) is shared; the engine computes
        # each document's answer as a function of that document alone, whatever shares its batch.
        prefix = self.lm.public_prefix(KEYWORD_PROMPT.format(K=self.K, document="{document}"))
        answers = self.lm.generate_greedy(
            prompts, max_new_tokens=self.max_new_tokens, batch_size=self.batch_size, progress=progress,
            public_prefix=prefix, on_batch=on_progress, memory_budget_gb=self.memory_budget_gb,
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

    def extract(self, documents, *, progress=False, on_progress=None):
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


def unit_keyword_sets(doc_keywords: Sequence[Sequence[str]], units, *, max_keywords: int) -> KeywordSets:
    """Each privacy unit's keyword set: at most ``max_keywords`` (K) words of the union of its documents'
    capped sets (:mod:`dpsynrag.pipeline.units`).

    The rule reads the unit's own documents only: words held by more of the unit's documents first (a
    person's recurring topic before a passing one), then by their best position in a document's set (the
    extractor's order of importance), then by first appearance (the unit's documents in file order, each
    set in order). So a unit contributes at most K distinct words to the histogram whatever its number of
    documents: L2 sensitivity √K per unit, as per document without units.

    Args:
        doc_keywords: each document's capped keyword set (:func:`extract_keyword_sets`), in file order.
        units: a :class:`~dpsynrag.pipeline.units.PrivacyUnits` over the same documents.
        max_keywords: K >= 1.

    Returns:
        A :class:`KeywordSets` with one set per unit, in unit order, each in the rule's order.

    Raises:
        ConfigError: ``max_keywords`` < 1, or ``units`` over another number of documents.
    """
    if isinstance(max_keywords, bool) or not isinstance(max_keywords, int) or max_keywords < 1:
        raise ConfigError(f"`max_keywords` must be an integer >= 1. Found {max_keywords!r}.")
    if units.num_documents != len(doc_keywords):
        raise ConfigError(f"`units` ({units.num_documents} documents) and `doc_keywords` ({len(doc_keywords)}) "
                          "differ in length.")
    out = KeywordSets()
    for u in range(len(units)):
        held: Counter[str] = Counter()
        best: dict[str, int] = {}
        first: dict[str, int] = {}
        for i in units.documents(u):
            for position, w in enumerate(doc_keywords[int(i)]):
                held[w] += 1
                best[w] = min(best.get(w, position), position)
                first.setdefault(w, len(first))
        out.append(sorted(held, key=lambda w: (-held[w], best[w], first[w]))[:max_keywords])
    return out


EXTRACT_CHUNK = 512
"""Documents per :meth:`KeywordExtractor.extract` call in :func:`extract_keyword_sets`."""


def extract_keyword_sets(
    extractor: KeywordExtractor,
    texts: Iterable[str],
    *,
    max_keywords: int,
    vocabulary: Container[str] | None = None,
    excluded: Iterable[Container[str]] | None = None,
    total: int | None = None,
    progress: bool = False,
    on_progress: Callable[[int], None] | None = None,
) -> KeywordSets:
    """Each document's keyword set, capped (:func:`dpsynrag.privacy.mechanisms.cap_keywords`: lower-cased,
    distinct, in ``vocabulary``, at most ``max_keywords``), from a stream of texts.

    The texts are read :data:`EXTRACT_CHUNK` at a time; an extractor's output for a document is a
    function of that document alone, so the result does not depend on the chunking. Memory: one chunk
    of texts and the compact :class:`KeywordSets`.

    Args:
        texts: the documents' texts (as the extractor should read them), in order; any iterable.
        vocabulary: None: open vocabulary.
        excluded: per document, in the order of ``texts``, lower-case words dropped from its candidates
            before the cap (:func:`excluded_words`); None: nothing dropped.
        total: the number of texts, for the progress bar only.
        progress: one progress bar over the documents.
        on_progress: instead of that bar, called with the number of documents done: after each generation
            batch of an extractor that reports them (the LLM extractor), else after each chunk.
    """
    from dpsynrag.privacy.mechanisms import cap_keywords

    sets = KeywordSets()
    bar = None
    if progress and on_progress is None:
        from tqdm.auto import tqdm

        bar = tqdm(total=total, desc=f"keywords ({extractor.name})")
        on_progress = bar.update
    reported = 0

    def report(n: int) -> None:
        nonlocal reported
        reported += n
        on_progress(n)

    texts = iter(texts)
    excluded = iter(excluded) if excluded is not None else None
    try:
        while chunk := list(islice(texts, EXTRACT_CHUNK)):
            reported = 0
            for raw in extractor.extract(chunk, **({} if on_progress is None else {"on_progress": report})):
                if excluded is not None:
                    drop = next(excluded)
                    raw = [w for w in raw if str(w).strip().lower() not in drop]
                sets.append(cap_keywords(raw, max_keywords=max_keywords, vocabulary=vocabulary))
            if on_progress is not None and reported < len(chunk):
                on_progress(len(chunk) - reported)  # the rest of the chunk (an extractor that reports nothing)
    finally:
        if bar is not None:
            bar.close()
    return sets


def make_extractor(
    kind: str, *, lm=None, K: int = 10, batch_size: int | None = None, language: str = DEFAULT_LANGUAGE,
    memory_budget_gb: float | None = None,
) -> KeywordExtractor:
    """An extractor by name: "llm" (needs ``lm``; ``memory_budget_gb`` its batches' budget) or "rarity", for
    documents in ``language``.

    Raises:
        ConfigError: on an unknown name or language, or "llm" without a model.
    """
    if kind == "llm":
        if lm is None:
            raise ConfigError("the 'llm' keyword extractor needs a language model.")
        return LLMKeywordExtractor(lm, K=K, batch_size=batch_size, language=language, memory_budget_gb=memory_budget_gb)
    if kind == "rarity":
        return RarityKeywordExtractor(language)
    raise ConfigError(f"`extractor` must be 'llm' or 'rarity'. Found {kind!r}.")
