"""Membership scores and guesses of the audit (steps 4 and 5 of :mod:`dpsynrag.audit.run`): functions
of the released corpus folder only, then the k_in highest-scored canaries guessed IN, the k_out lowest OUT.
"""

from __future__ import annotations

import math
import os
import re
from collections import Counter
from collections.abc import Sequence

import numpy as np
from scipy.special import expit

from dpsynrag.audit.canaries import audit_stream
from dpsynrag.errors import ConfigError



_NGRAM_ORDER = 4
_ALPHABET = 27  # a-z and the word boundary


def _letters(text: str) -> str:
    """Lower-case letters with every other run of characters as one space (the n-gram models' alphabet)."""
    return " " + re.sub(r"[^a-z]+", " ", text.lower()).strip() + " "


class _CharNgram:
    """Character n-gram model with hierarchical Dirichlet smoothing (MacKay & Peto 1995, "A hierarchical
    Dirichlet language model"): P(c | h) = (N(h c) + β · P(c | h')) / (N(h) + β), with h' the context h
    without its first character, down to the uniform 1/27 over a-z and the boundary. No character has
    probability 0, whatever the training text."""

    def __init__(self, text: str, order: int = _NGRAM_ORDER, beta: float = 1.0):
        self.order, self.beta = order, beta
        self.grams: Counter[str] = Counter()
        self.contexts: Counter[str] = Counter()
        for n in range(1, order + 1):
            for i in range(len(text) - n + 1):
                self.grams[text[i:i + n]] += 1
                self.contexts[text[i:i + n - 1]] += 1

    def log_likelihood(self, word: str) -> float:
        """Natural-log probability of ``word`` (lower-case letters) after a boundary, with its closing boundary."""
        s = " " + word + " "
        total = 0.0
        for i in range(1, len(s)):
            h, c = s[max(0, i - self.order + 1):i], s[i]
            p = 1.0 / _ALPHABET
            for k in range(len(h) + 1):  # the empty context first, then longer ones
                ctx = h[len(h) - k:]
                p = (self.grams[ctx + c] + self.beta * p) / (self.contexts[ctx] + self.beta)
            total += math.log(p)
        return total


def score_parts(corpus_dir: str | os.PathLike, secrets: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """The two membership signals of each secret, functions of the released corpus folder only.

    * **exact**: released keywords equal to the secret plus whole-word occurrences in every released
      synthetic text (kept or not), case-insensitively.
    * **echo**: the per-character log-likelihood ratio log P_synth(secret) − log P_ref(secret), divided
      by the secret's length + 1, where P_synth is a character 4-gram model (:class:`_CharNgram`) of the
      released texts and keywords and P_ref the same model of the m secrets themselves (the public design,
      each once, whatever the coins). The n-gram model of the synthetic data is the membership signal of
      "The Canary's Echo" (Meeus et al., ICML 2025, arXiv 2502.14921): a canary whose secret shaped the
      synthetic texts raises its own likelihood even when it is never copied whole; the reference
      removes how typical the invented word is.

    Args:
        corpus_dir: a corpus folder (``texts.jsonl`` records with ``text`` and, for DP-SynRAG, ``keyword``).
        secrets: one secret (letters only) per canary.

    Returns:
        (exact: int64 [m], echo: float64 [m]).

    Raises:
        CorpusError: the folder is not a corpus folder.
    """
    from dpsynrag.corpus import SyntheticCorpus

    records = SyntheticCorpus.load(corpus_dir).records
    keywords = Counter(str(r.get("keyword", "")).lower() for r in records)
    texts = [str(r.get("text", "")) for r in records]
    words = Counter(re.findall(r"[a-z]+", "\n".join(texts).lower()))  # whole words: maximal runs of letters
    released = _CharNgram(_letters("\n".join(texts + list(keywords.elements()))))
    lowered = [s.lower() for s in secrets]
    reference = _CharNgram(_letters(" ".join(lowered)))
    exact = np.array([keywords[s] + words[s] for s in lowered], dtype=np.int64)
    echo = np.array([(released.log_likelihood(s) - reference.log_likelihood(s)) / (len(s) + 1) for s in lowered],
                    dtype=np.float64)
    return exact, echo


def membership_scores(corpus_dir: str | os.PathLike, secrets: Sequence[str]) -> np.ndarray:
    """Membership score of each secret from the released corpus folder only (:func:`score_parts`):
    2 · exact + expit(echo), so any exact occurrence outranks every echo (expit lies in (0, 1)) and the
    echo orders the rest.

    Returns:
        float64 array [len(secrets)].

    Raises:
        CorpusError: the folder is not a corpus folder.
    """
    exact, echo = score_parts(corpus_dir, secrets)
    return 2.0 * exact + expit(echo)


def guess_membership(scores: Sequence[float], *, k_in: int, k_out: int, seed: int) -> np.ndarray:
    """Guesses: +1 (IN) for the ``k_in`` highest scores, −1 (OUT) for the ``k_out`` lowest, 0 (abstain)
    for the rest; ties are ordered by a random permutation from ``seed`` (independent of the coins).

    Returns:
        int8 array [m] in {−1, 0, +1}.

    Raises:
        ConfigError: negative counts, or k_in + k_out > m or = 0.
    """
    s = np.asarray(scores, dtype=np.float64).reshape(-1)
    m = len(s)
    for name, value in (("k_in", k_in), ("k_out", k_out)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ConfigError(f"`{name}` (guesses, --guesses-in/--guesses-out) must be an integer >= 0. Found {value!r}.")
    if not (1 <= k_in + k_out <= m):
        raise ConfigError(f"need 1 <= guesses IN + OUT <= canaries. Found {k_in} + {k_out} for {m} canaries.")
    tiebreak = audit_stream(seed, 3).permutation(m)
    order = np.lexsort((tiebreak, -s))  # highest score first, ties in random order
    out = np.zeros(m, dtype=np.int8)
    out[order[:k_in]] = 1
    if k_out:
        out[order[m - k_out:]] = -1
    return out
