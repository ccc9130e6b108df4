"""One token-decoding loop for every generation of the library, with a per-step *selector*.

Rows of a :class:`~dpsynrag.models.engine.RowBatch` are grouped into *groups*: a group shares one
generated suffix and receives one token per step. In greedy decoding and plain sampling each row is
its own group; in private prediction (METHOD.md §2d) a group is a cluster: one row per member prompt
plus, when the selector uses one, one row continuing a public prompt (no private document).

Each step, the selector turns the groups' next-token logits into one token per group; the loop
appends it to the group's text, ends a group at an EOS token (or a stop rule), drops the rows of
ended groups and feeds every remaining row its group's token (:func:`decode`).

Selectors:

* :class:`GreedySelector` — argmax (keyword extraction, self-filtering prompts, answering);
* :class:`SamplingSelector` — softmax(l/τ), no privacy (Aug-PE's public RANDOM/VARIATION APIs);
* the private-prediction selectors ``"paper"``, ``"public-prior"`` and ``"invisibleink"``
  (:mod:`dpsynrag.models.private_selectors`), and sparse-vector decoding on top of any of them
  (:class:`~dpsynrag.models.svt_selector.SparseVectorSelector`).

The loop gives each selector the tokens released so far (``texts``), from which the private selectors
build the no-repeat n-gram mask (:func:`no_repeat_ngram_mask`), and asks it after each appended
token whether the group ends (:meth:`Selector.ends`: the sparse-vector cap of paid tokens).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import torch

from dpsynrag.checks import check_int, check_real
from dpsynrag.errors import ConfigError
from dpsynrag.models.engine import RowBatch
from dpsynrag.rng import RandomSource


# ----------------------------------------------------------------------------------------------
# Row layout
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RowLayout:
    """Which group each row of a batch belongs to, and whether it is a public row.

    Attributes:
        group: LongTensor ``[rows]`` (CPU), the group of each row, in ``0 .. n_groups - 1``.
        public: BoolTensor ``[rows]`` (CPU), True for a row continuing a public prompt.
        n_groups: the number of groups (a group may have no row: an empty cluster, or an ended one).
        weight: FloatTensor ``[rows]`` (CPU, float32) or None (every row 1): how many members of its group
            a private row stands for — members whose prompts are identical compute identical logits (the
            engine computes a prompt's logits from the prompt alone), so they are one row of weight m.

    Raises:
        ConfigError: on mismatched shapes or a group index out of range.
    """

    group: torch.Tensor
    public: torch.Tensor
    n_groups: int
    weight: torch.Tensor | None = None

    def __post_init__(self) -> None:
        if self.group.ndim != 1 or self.public.shape != self.group.shape or self.public.dtype != torch.bool:
            raise ConfigError("internal: RowLayout needs a [rows] group tensor and a [rows] bool public tensor.")
        if self.weight is not None and (self.weight.shape != self.group.shape or self.weight.dtype != torch.float32):
            raise ConfigError("internal: RowLayout weights must be a float32 [rows] tensor.")
        if self.group.numel() and (int(self.group.min()) < 0 or int(self.group.max()) >= self.n_groups):
            raise ConfigError(f"internal: RowLayout group indices must lie in [0, {self.n_groups}).")

    @classmethod
    def build(cls, group: Sequence[int], public: Sequence[bool] | None, n_groups: int,
              weight: Sequence[int] | None = None) -> "RowLayout":
        """From plain sequences (``public`` None: no public rows; ``weight`` None or all 1: no weights)."""
        g = torch.as_tensor(list(group), dtype=torch.long)
        p = torch.zeros(len(g), dtype=torch.bool) if public is None else torch.as_tensor(list(public), dtype=torch.bool)
        w = None if weight is None or all(x == 1 for x in weight) else torch.as_tensor(list(weight), dtype=torch.float32)
        return cls(g, p, int(n_groups), w)

    @classmethod
    def one_row_per_group(cls, n: int) -> "RowLayout":
        """Greedy decoding and plain sampling: row i is group i."""
        return cls(torch.arange(n, dtype=torch.long), torch.zeros(n, dtype=torch.bool), int(n))

    @property
    def rows(self) -> int:
        return int(self.group.numel())

    def keep(self, rows: torch.Tensor) -> "RowLayout":
        """The layout of the rows ``rows`` (indices, in the new order), as :meth:`RowBatch.keep`."""
        return RowLayout(self.group[rows], self.public[rows], self.n_groups,
                         None if self.weight is None else self.weight[rows])

    def public_rows(self) -> tuple[torch.Tensor, torch.Tensor]:
        """``(groups, rows)``: each group with a public row, and its first public row (LongTensors).

        A group's public term is read from one row whatever the number of public rows it has: rows
        continuing the same public prompt and suffix compute the same logits, so duplicating a public
        row changes nothing.
        """
        idx = torch.nonzero(self.public).flatten()
        seen: dict[int, int] = {}
        for r, g in zip(idx.tolist(), self.group[idx].tolist()):
            seen.setdefault(g, r)
        groups = torch.as_tensor(list(seen), dtype=torch.long)
        return groups, torch.as_tensor(list(seen.values()), dtype=torch.long)


# ----------------------------------------------------------------------------------------------
# No-repeat n-gram constraint
# ----------------------------------------------------------------------------------------------


def no_repeat_ngram_mask(texts: Sequence[Sequence[int]], n: int, vocab_size: int) -> torch.Tensor | None:
    """The tokens each group may not emit next: those that would complete an n-gram of length ``n``
    already present in its text (the same rule as ``no_repeat_ngram_size`` in Hugging Face
    transformers' ``NoRepeatNGramLogitsProcessor``).

    A function of the released tokens alone (public): restricting a mechanism's output space with it
    changes neither its sensitivity nor its cost. A group whose every token would be banned (only
    possible with a vocabulary smaller than its text) gets no mask, so that a draw always exists.

    Args:
        texts: ``texts[g]`` = the token ids group g released so far (EOS excluded).
        n: the n-gram length N >= 1; 0 turns the constraint off.
        vocab_size: the real vocabulary size (columns of the mask).

    Returns:
        BoolTensor ``[len(texts), vocab_size]`` (CPU), True for a banned token; None when ``n`` is 0 or
        nothing is banned.

    Raises:
        ConfigError: ``n`` not an integer >= 0.
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ConfigError(f"`no_repeat_ngram` (N) must be an integer >= 0 (0: off). Found {n!r}.")
    if n == 0:
        return None
    mask = None
    for g, text in enumerate(texts):
        if len(text) < n:  # no complete n-gram yet
            continue
        head = tuple(text[len(text) - n + 1:]) if n > 1 else ()
        banned = {int(text[i + n - 1]) for i in range(len(text) - n + 1) if tuple(text[i:i + n - 1]) == head}
        banned = [t for t in banned if 0 <= t < vocab_size]
        if not banned or len(banned) >= vocab_size:
            continue
        if mask is None:
            mask = torch.zeros((len(texts), vocab_size), dtype=torch.bool)
        mask[g, banned] = True
    return mask


# ----------------------------------------------------------------------------------------------
# Selectors
# ----------------------------------------------------------------------------------------------


class Selector:
    """Turns one step's row logits into one token per group.

    Attributes:
        private: True for the private-prediction selectors (their draws are mechanisms).
        charges_every_step: every group is selected (and charged) at every step, ended and empty
            groups included, and the loop runs all its steps (the paper's T tokens per text).
        uses_public: whether the groups need a public row.
    """

    private: ClassVar[bool] = False
    charges_every_step: ClassVar[bool] = False
    uses_public: bool = False

    def select(self, logits: torch.Tensor | None, layout: RowLayout, finished: np.ndarray,
               texts: Sequence[Sequence[int]] | None = None) -> np.ndarray:
        """One token per group.

        Args:
            logits: FloatTensor ``[rows, model_vocab]`` of the batch's rows (None: no row left).
            layout: the rows' groups.
            finished: bool ``[n_groups]``, True for an ended group (its token is not used).
            texts: ``texts[g]`` = the tokens group g released so far (None: not given; only the
                no-repeat n-gram mask reads them).

        Returns:
            int64 ``[n_groups]``; entries of ended groups are arbitrary (−1 where nothing was drawn).
        """
        raise NotImplementedError

    def ends(self, group: int) -> bool:
        """Whether ``group``'s text ends after the token just appended (asked by :func:`decode`);
        False unless a selector caps its texts (sparse-vector decoding: C paid tokens)."""
        return False


class _OneRowSelector(Selector):
    """Base of the non-private selectors: each live group has exactly one (non-public) row."""

    def __init__(self, vocab_size: int):
        self.vocab_size = check_int("vocab_size", vocab_size)

    def _scatter(self, row_tokens: np.ndarray, layout: RowLayout) -> np.ndarray:
        if bool(layout.public.any()) or len(set(layout.group.tolist())) != layout.rows:
            raise ConfigError("internal: greedy decoding and sampling need exactly one row per group, no public row.")
        out = np.full(layout.n_groups, -1, dtype=np.int64)
        out[layout.group.numpy()] = row_tokens
        return out


class GreedySelector(_OneRowSelector):
    """Argmax over the real vocabulary (columns ``>= vocab_size`` of the output layer are ignored).

    Not private: for public prompts, or for private outputs that only reach a mechanism (keywords).
    """

    def select(self, logits, layout, finished, texts=None):
        if logits is None:
            return np.full(layout.n_groups, -1, dtype=np.int64)
        return self._scatter(logits[:, : self.vocab_size].argmax(dim=-1).cpu().numpy().astype(np.int64), layout)


class SamplingSelector(_OneRowSelector):
    """One draw per row from softmax(l / τ) over the real vocabulary, in float64 — no clipping, no
    privacy: only for public prompts (Aug-PE's RANDOM_API and VARIATION_API).

    Args:
        vocab_size: the tokenizer's vocabulary size.
        temperature: τ > 0.
        random: sampling randomness (one uniform per live row and step).
    """

    def __init__(self, vocab_size: int, *, temperature: float, random: RandomSource):
        super().__init__(vocab_size)
        self.temperature = check_real("temperature", temperature, above=0.0)
        if not isinstance(random, RandomSource):
            raise ConfigError(f"`random` must be a dpsynrag.rng.RandomSource. Found {type(random).__name__}.")
        self.random = random

    def select(self, logits, layout, finished, texts=None):
        if logits is None:
            return np.full(layout.n_groups, -1, dtype=np.int64)
        logp = torch.log_softmax(logits[:, : self.vocab_size].double() / self.temperature, dim=-1).cpu().numpy()
        tokens = np.atleast_1d(np.asarray(self.random.categorical(logp), dtype=np.int64))
        return self._scatter(tokens, layout)


# ----------------------------------------------------------------------------------------------
# The loop
# ----------------------------------------------------------------------------------------------


def decode(
    rows: RowBatch | None,
    layout: RowLayout,
    selector: Selector,
    *,
    steps: int,
    eos: Collection[int],
    stop: Callable[[int, list[int]], bool] | None = None,
    on_step: Callable[[], object] | None = None,
) -> list[list[int]]:
    """Decode up to ``steps`` tokens per group.

    Each step: ``selector.select`` gives one token per group (it sees the tokens released so far); a
    live group's token ends it if it is an EOS token (not kept), else is appended (and ``stop`` or
    :meth:`Selector.ends` may then end the group). Rows of ended groups are dropped from ``rows``; the
    others are fed their group's token. A selector that ``charges_every_step`` is called at every step
    for every group (each is charged ``steps`` tokens); otherwise the loop ends once every group has
    ended.

    Args:
        rows: the batch, its rows in the order of ``layout`` and able to take ``steps − 1`` more
            tokens; None when there is no row at all (every group empty).
        layout: each row's group; ``layout.n_groups`` outputs.
        selector: the per-step rule.
        steps: T >= 1, the most tokens per group.
        eos: token ids that end a group.
        stop: ``stop(group, tokens)`` after a token is appended; True ends the group (tokens kept).
        on_step: called after every step (progress bars).

    Returns:
        ``n_groups`` lists of token ids (EOS excluded).
    """
    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)) or steps < 1:
        raise ConfigError(f"`steps` must be an integer >= 1. Found {steps!r}.")
    if rows is not None and rows.rows != layout.rows:
        raise ConfigError(f"internal: {rows.rows} batch rows but a layout of {layout.rows}.")
    eos = set(int(t) for t in eos)
    n = layout.n_groups
    out: list[list[int]] = [[] for _ in range(n)]
    finished = np.zeros(n, dtype=bool)
    logits = rows.first_logits if rows is not None else None
    for step in range(steps):
        tokens = selector.select(logits, layout, finished, out)
        newly = False
        for g in np.flatnonzero(~finished).tolist():
            t = int(tokens[g])
            if t in eos:
                finished[g] = newly = True
                continue
            out[g].append(t)
            if (stop is not None and stop(g, out[g])) or selector.ends(g):
                finished[g] = newly = True
        if on_step is not None:
            on_step()
        if step == steps - 1 or (finished.all() and not selector.charges_every_step):
            break
        if rows is None:
            continue
        if newly:  # drop the rows of groups that ended
            keep = torch.as_tensor(np.flatnonzero(~finished[layout.group.numpy()]), dtype=torch.long)
            if keep.numel() == 0:
                rows, logits = None, None
                layout = layout.keep(keep)
                continue
            if keep.numel() < layout.rows:
                rows.keep(keep)
                layout = layout.keep(keep)
        logits = rows.step(torch.as_tensor(tokens, dtype=torch.long)[layout.group])
    return out
