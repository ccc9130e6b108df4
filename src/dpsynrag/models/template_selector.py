"""Slot-template decoding (:class:`TemplateSelector`): a public skeleton of the text is written, not
sampled, and only its slots are drawn privately; every drawn token counts against the text's T.

A response template is public text with slots, e.g. for Medical Synth's records::

    Given the symptoms ({16}) of [REDACTED]. The diagnosis is {8}, the treatment should be {8}.

``{}`` is a slot, ``{N}`` a slot of at most N drawn tokens, ``{{`` and ``}}`` literal braces (the syntax
of :meth:`string.Formatter.parse`). Decoding walks the template:

* a literal's tokens are appended one per step (post-processing of the public template: free, nothing
  drawn, nothing charged);
* a slot's tokens are drawn by a private selector (:mod:`dpsynrag.models.private_selectors`), each
  charged PrivatePredictionTokenEvent(c, τ) — (c/τ)²/2 zCDP — as in plain private prediction. A slot
  followed by a literal ends when a drawn token's text ends with that literal's first character (its
  *terminator*, e.g. ``)``); the rest of the literal is then written. A slot also ends after its N drawn
  tokens; the whole literal is then written. A slot that ends the template ends with the text (EOS or
  the cap of drawn tokens).
* the text ends when the template is complete, at EOS (only possible in a last slot), or on reaching a
  slot after T drawn tokens.

Sensitivity and cost: a drawn token is the base selector's exponential mechanism over z, restricted to
the tokens the slot allows — those whose text does not hold the terminator anywhere but at its end, and
no EOS in a slot that a literal follows. That restriction is a function of the public template and the
tokenizer, and which slot a text is in, like every step's choice between writing and drawing, is a
function of the released tokens alone: the same for neighbouring clusters. So each drawn token keeps
the sensitivity (one clipped vector in [−c, c]^V) and the cost (c/τ)²/2 of the paper's token, at most T
are drawn per text (adaptive composition: at most T (c/τ)²/2, the calibrated budget), and the literal
tokens are post-processing. A text that ends early is charged only the tokens it drew.

Why: a record's wording ("Given the symptoms (", ") of", ". The diagnosis is") is predictable from the
task alone; charging it as private tokens splits the budget over T tokens where a few carry the
private content. With the skeleton written for free, T can be the slots' tokens only, and the clip
c = τ·sqrt(2ρ_tokens/T) of each drawn token grows (METHOD.md §2d; issue 27).
"""

from __future__ import annotations

import string
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np
import torch

from dpsynrag.checks import check_int
from dpsynrag.errors import ConfigError
from dpsynrag.models.decoding import RowLayout, Selector
from dpsynrag.models.private_selectors import PrivateSelector
from dpsynrag.privacy.prediction import sample_private_tokens
from dpsynrag.rng import RandomSource


@dataclass(frozen=True)
class TemplateParts:
    """A parsed response template (public): ``literals[i]`` precedes slot i, ``literals[-1]`` ends the
    template (one more literal than slots; any may be empty); ``caps[i]`` is slot i's most drawn
    tokens (None: only the text's T)."""

    text: str
    literals: tuple[str, ...]
    caps: tuple[int | None, ...]

    @classmethod
    def parse(cls, text: str) -> "TemplateParts":
        """Parse ``text`` (``{}`` or ``{N}`` slots, ``{{``/``}}`` literal braces).

        Raises:
            ConfigError: not a string; no slot; a slot that is not ``{}`` or ``{N}`` with N >= 1; two
                slots with no text between them; a literal after a slot that starts with whitespace
                (its first character ends the slot); unbalanced braces.
        """
        if not isinstance(text, str) or not text:
            raise ConfigError(f"`response_template` must be non-empty text with {{}} slots. Found {text!r}.")
        try:
            parts = list(string.Formatter().parse(text))
        except ValueError as e:
            raise ConfigError(f"`response_template` {text!r}: {e} (write a literal brace as {{{{ or }}}}).") from None
        literals: list[str] = []
        caps: list[int | None] = []
        pending = ""
        for literal, name, spec, conversion in parts:
            pending += literal
            if name is None:
                continue
            if spec or conversion or (name and not (name.isdecimal() and name.isascii() and int(name) >= 1)):
                shown = "{" + name + ("!" + conversion if conversion else "") + (":" + spec if spec else "") + "}"
                raise ConfigError(f"`response_template`: the slot {shown} is neither {{}} nor {{N}} with N >= 1 "
                                  "(the most tokens drawn for it).")
            if caps and not pending:
                raise ConfigError("`response_template`: two slots need public text between them (the text's first "
                                  "character ends the slot before it).")
            literals.append(pending)
            caps.append(int(name) if name else None)
            pending = ""
        literals.append(pending)
        if not caps:
            raise ConfigError(f"`response_template` {text!r} has no slot: write {{}} (or {{N}}) where the members' "
                              "private content goes.")
        for lit in literals[1:]:
            if lit and lit[0].isspace():
                raise ConfigError(f"`response_template`: the text after a slot must start with a visible character "
                                  f"(it ends the slot), not whitespace: {lit!r}.")
        return cls(text, tuple(literals), tuple(caps))

    @property
    def terminators(self) -> tuple[str | None, ...]:
        """Each slot's terminator: the first character of the literal after it (None: the template's end)."""
        return tuple(lit[0] if lit else None for lit in self.literals[1:])


@dataclass
class ResponseTemplate:
    """A response template tokenized for a model (public).

    Attributes:
        parts: the parsed :class:`TemplateParts`.
        opening: token ids written before slot 0.
        after_cap: ``after_cap[i]`` = the literal after slot i, whole (written when the slot reached its cap).
        after_end: ``after_end[i]`` = the same literal without its first character (written when a drawn
            token ended with it).
        vocab_size: the tokenizer's vocabulary size.
        free_tokens: the most literal tokens a text can hold (opening + the longer of each pair): a text
            is at most T + ``free_tokens`` tokens long.

    Whitespace that ends a literal before a slot is left out: the slot's first token carries it (in
    byte-level BPE vocabularies a word's token starts with its space).
    """

    parts: TemplateParts
    opening: list[int]
    after_cap: list[list[int]]
    after_end: list[list[int]]
    vocab_size: int
    _tokenizer: object = field(repr=False)
    _eos: tuple[int, ...] = field(repr=False)
    _masks: dict | None = field(default=None, repr=False)

    @classmethod
    def build(cls, text: str, tokenizer, *, vocab_size: int, eos: Sequence[int]) -> "ResponseTemplate":
        """Parse ``text`` and tokenize its literals with ``tokenizer`` (no special tokens).

        Raises:
            ConfigError: as :meth:`TemplateParts.parse`.
        """
        parts = TemplateParts.parse(text)
        n = len(parts.caps)

        def ids(lit: str, before_slot: bool) -> list[int]:
            lit = lit.rstrip() if before_slot else lit
            return list(tokenizer(lit, add_special_tokens=False)["input_ids"]) if lit else []

        after_cap = [ids(parts.literals[i + 1], i + 1 < n) for i in range(n)]
        after_end = [ids(parts.literals[i + 1][1:], i + 1 < n) for i in range(n)]
        return cls(parts, ids(parts.literals[0], True), after_cap, after_end, int(vocab_size), tokenizer,
                   tuple(int(t) for t in eos))

    @property
    def free_tokens(self) -> int:
        return len(self.opening) + sum(max(len(a), len(b)) for a, b in zip(self.after_cap, self.after_end))

    def slot_masks(self) -> tuple[list[torch.Tensor | None], list[np.ndarray | None]]:
        """Per slot: the tokens it may not draw (BoolTensor ``[vocab_size]`` or None) and the tokens that end
        it (bool ``[vocab_size]`` or None for a last slot). From the tokenizer alone (public); computed once."""
        if self._masks is None:
            texts = self._tokenizer.batch_decode([[i] for i in range(self.vocab_size)])
            by_char: dict[str, tuple[torch.Tensor, np.ndarray]] = {}
            banned: list[torch.Tensor | None] = []
            ends: list[np.ndarray | None] = []
            for term in self.parts.terminators:
                if term is None:
                    banned.append(None)
                    ends.append(None)
                    continue
                if term not in by_char:
                    end = np.array([t.endswith(term) for t in texts], dtype=bool)
                    inner = np.array([term in t[:-1] for t in texts], dtype=bool)  # the terminator before the end
                    if not (end & ~inner).any():
                        raise ConfigError(
                            f"`response_template` {self.parts.text!r}: no token of this tokenizer ends with {term!r} "
                            "(the first character after a slot, which ends it); start the text after the slot "
                            "with a character the tokenizer writes as a token of its own, such as ')', '.' or ','.")
                    ban = torch.tensor(inner)
                    ban[[e for e in self._eos if 0 <= e < self.vocab_size]] = True  # a literal follows: no EOS
                    by_char[term] = (ban, end & ~inner)
                banned.append(by_char[term][0])
                ends.append(by_char[term][1])
            self._masks = {"banned": banned, "ends": ends}
        return self._masks["banned"], self._masks["ends"]

    def describe(self) -> dict:
        return {"response_template": self.parts.text}


@dataclass
class _Progress:
    """Where one text is in its template: writing ``forced`` (literal tokens), then slot ``next_slot``;
    or drawing slot ``slot`` (``drawn`` tokens so far); ``done`` once the text ends."""

    forced: list[int]
    next_slot: int = 0
    slot: int | None = None
    drawn: int = 0
    done: bool = False


class TemplateSelector(Selector):
    """Slot-template decoding over a private selector (module docstring): literal tokens are written for
    free, slot tokens drawn and charged by ``base``, at most ``max_paid`` (T) per text.

    Args:
        base: the private selector of the slots' tokens (any variant); its accountants (one per group)
            are charged one PrivatePredictionTokenEvent(c, τ) per drawn token.
        template: the tokenized :class:`ResponseTemplate`.
        max_paid: T >= 1, the most drawn tokens per text.

    Raises:
        ConfigError: a base that is not a PrivateSelector, a bad T.
    """

    private: ClassVar[bool] = True
    charges_every_step: ClassVar[bool] = False

    def __init__(self, base: PrivateSelector, template: ResponseTemplate, *, max_paid: int):
        if not isinstance(base, PrivateSelector):
            raise ConfigError(f"`base` must be a PrivateSelector. Found {type(base).__name__}.")
        if not isinstance(template, ResponseTemplate):
            raise ConfigError(f"`template` must be a ResponseTemplate. Found {type(template).__name__}.")
        self.base = base
        self.template = template
        self.max_paid = check_int("max_paid", max_paid)
        self.name = base.name
        self.uses_public = base.uses_public
        self.vocab_size = base.vocab_size
        self.banned_in, self.ends_slot = template.slot_masks()
        self.paid: np.ndarray | None = None  # drawn tokens per group
        self._texts: list[_Progress] = []

    def scores(self, logits: torch.Tensor, layout: RowLayout, banned: torch.Tensor | None = None) -> torch.Tensor:
        """The base selector's z; **not private**."""
        return self.base.scores(logits, layout, banned)

    def ends(self, group: int) -> bool:
        return bool(self._texts) and self._texts[group].done

    def _next(self, g: int) -> None:
        """Group ``g`` has written its forced tokens: enter its next slot, or end (no slot left, or T drawn)."""
        p = self._texts[g]
        if p.next_slot >= len(self.template.parts.caps) or int(self.paid[g]) >= self.max_paid:
            p.done = True
        else:
            p.slot, p.drawn = p.next_slot, 0

    def _leave(self, g: int, forced: list[int]) -> None:
        """Group ``g``'s slot ended: write ``forced``, then go on to the next slot."""
        p = self._texts[g]
        p.forced, p.next_slot, p.slot = list(forced), p.slot + 1, None
        if not p.forced:
            self._next(g)

    def select(self, logits, layout, finished, texts=None):
        n = layout.n_groups
        tpl = self.template
        if self.paid is None or len(self.paid) != n:
            self.paid = np.zeros(n, dtype=np.int64)
            self._texts = [_Progress(forced=list(tpl.opening)) for _ in range(n)]
            for g in range(n):
                if not self._texts[g].forced:
                    self._next(g)
        base = self.base
        if len(base.accountants) != n:
            raise ConfigError(f"need one accountant per group: {n} groups, {len(base.accountants)} accountants.")
        out = np.full(n, -1, dtype=np.int64)
        draw: list[int] = []
        for g in np.flatnonzero(~np.asarray(finished, dtype=bool)).tolist():
            p = self._texts[g]
            if p.done:
                continue
            if p.forced:  # a literal token: written, free
                out[g] = p.forced.pop(0)
                if not p.forced:
                    self._next(g)
            else:
                draw.append(g)
        if draw:
            slot_ban = None
            if any(self.banned_in[self._texts[g].slot] is not None for g in draw):
                slot_ban = torch.zeros((n, base.vocab_size), dtype=torch.bool)
                for g in draw:
                    if (ban := self.banned_in[self._texts[g].slot]) is not None:
                        slot_ban[g] = ban
            z = base.masked_scores(logits, layout, texts, extra_banned=slot_ban)[torch.as_tensor(draw)]
            # which tokens a slot allows is public (template, tokenizer, released tokens, public top-k⁺ set):
            # an empty range is refused before anything is drawn or charged
            empty = ~torch.isfinite(z).any(dim=1)
            if bool(empty.any()):
                raise ConfigError(
                    f"`response_template`: slot {self._texts[draw[int(empty.nonzero()[0])]].slot + 1} of "
                    f"{self.template.parts.text!r} allows no token here (its bans, --no-repeat-ngram and the "
                    "public top-k set exclude every token); widen --public-top-k or change the template.")
            random = base.random if isinstance(base.random, RandomSource) else [base.random[g] for g in draw]
            out[draw] = sample_private_tokens(z, clip=base.clip, temperature=base.temperature,
                                              accountants=[base.accountants[g] for g in draw], random=random)
            for g in draw:
                p, t = self._texts[g], int(out[g])
                self.paid[g] += 1
                p.drawn += 1
                end = self.ends_slot[p.slot]
                if end is not None and 0 <= t < len(end) and end[t]:
                    self._leave(g, tpl.after_end[p.slot])
                elif tpl.parts.caps[p.slot] is not None and p.drawn >= tpl.parts.caps[p.slot]:
                    self._leave(g, tpl.after_cap[p.slot])
                elif int(self.paid[g]) >= self.max_paid:
                    p.done = True
        return out

    def describe(self) -> dict:
        """The base variant's description plus the template."""
        return {**self.base.describe(), **self.template.describe()}
