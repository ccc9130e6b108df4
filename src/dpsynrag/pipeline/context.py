"""Do a build's prompts fit the model's context window? Checked up front, from public values only.

A prompt that does not fit the model's positions stops generation
(:meth:`~dpsynrag.models.LanguageModel.encode_prompts`). Whether a private document's prompt fits
depends on its length, so finding out during private prediction would abort a build *after* its
histogram and outlier removal were drawn, depending on the data. Each document is cut to
``max_document_tokens`` tokens first (:meth:`~dpsynrag.models.LanguageModel.truncate`), so the longest
prompt of every stage is bounded by public numbers: the template's own tokens, the document's
``max_document_tokens``, :data:`BOUNDARY_TOKENS` where the document meets the template, and the tokens
the stage generates. :func:`check_context` compares each bound with the model's positions
before any document goes through a model, and the error names only these public numbers (never a prompt's length).

Stages checked (a DP-SynRAG build; DP-Synth's has the rephrase and self-filter prompts only): the LLM
keyword extractor's prompt (with ``extractor="llm"``); private
prediction's rephrase prompt (``rephrase_prompt`` or the paper's; each ``{keyword}`` in it bounded as
below) plus T tokens (and a ``response_template``'s literal tokens); the public prompt of the decoding, when it runs one (with the
cluster's released keyword in ``{keyword}``: bounded by the longest word of the public vocabulary, or by
what can hold a keyword under an open vocabulary); the self-filter prompt around a released text (its
``response_prefix`` and at most T tokens).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from dpsynrag.errors import ConfigError
from dpsynrag.pipeline.keywords import KEYWORD_PROMPT, make_extractor
from dpsynrag.pipeline.prompts import KEYWORD_SLOT, REPHRASE_PROMPT, render_rephrase

BOUNDARY_TOKENS = 2
"""Tokens allowed beyond the parts' own counts where an inserted text meets the template, on each of its
two sides: a tokenizer may split the joined text differently from the parts (e.g. a word-start marker)."""


@dataclass(frozen=True)
class PromptBound:
    """The longest prompt of one stage, in tokens, from public numbers.

    Attributes:
        stage: what the prompt is for (e.g. "private prediction (rephrase prompt)").
        template_tokens: the rendered template with the inserted text left empty.
        inserted_tokens: the most tokens of the text put into it (a document's ``max_document_tokens``,
            a released text's T, a keyword's bound); 0 when none.
        inserted_by: the option that sets ``inserted_tokens`` (for the message), e.g. "--max-document-tokens".
        new_tokens: the tokens the stage generates after the prompt.
        keyword_tokens: the released keywords written into the template's ``{keyword}`` slots (rephrase prompt):
            each slot's keyword bound plus :data:`BOUNDARY_TOKENS` per side; 0 when none.
        template_by: the option whose text the template is (e.g. "--rephrase-prompt"), or "" for a built-in one.
    """

    stage: str
    template_tokens: int
    inserted_tokens: int
    inserted_by: str
    new_tokens: int
    keyword_tokens: int = 0
    template_by: str = ""

    @property
    def total(self) -> int:
        """Template + keywords + inserted text + :data:`BOUNDARY_TOKENS` per side of it + new tokens."""
        boundary = 2 * BOUNDARY_TOKENS if self.inserted_tokens else 0
        return self.template_tokens + self.keyword_tokens + self.inserted_tokens + boundary + self.new_tokens


def _template_tokens(lm, user: str, suffix: str = "") -> int:
    return len(lm.encode(lm.chat_prompt(user) + suffix))


def keyword_token_bound(lm, config, vocabulary: Sequence[str] | None) -> int:
    """The most tokens a released keyword can have: the longest word of the public ``vocabulary``; under
    an open vocabulary a keyword is a word of a document (``max_document_tokens``) or, with the LLM
    extractor, of its answer (at most its ``max_new_tokens``)."""
    if vocabulary is not None:
        if not vocabulary:
            return 0
        encoded = lm.tokenizer(list(vocabulary), add_special_tokens=False)["input_ids"]
        return max(len(ids) for ids in encoded)
    if config.extractor == "llm":
        return max(config.max_document_tokens, _extractor_new_tokens(lm, config))
    return config.max_document_tokens


def _extractor_new_tokens(lm, config) -> int:
    extractor = make_extractor("llm", lm=lm, K=config.K, batch_size=config.batch_size, language=config.language)
    return int(extractor.max_new_tokens)


def prompt_bounds(lm, config, *, public_prompt: str | None, filter_prompt: str | None,
                  vocabulary: Sequence[str] | None) -> list[PromptBound]:
    """The longest prompt of each stage of a DP-SynRAG (or DP-Synth) build (module docstring).

    Args:
        lm: the loaded :class:`~dpsynrag.models.LanguageModel`.
        config: the :class:`~dpsynrag.pipeline.config.BuildConfig` (or a config with ``max_document_tokens``
            and ``T`` only, e.g. DP-Synth's: no keyword extraction, no response prefix).
        public_prompt: the decoding's public prompt (plain text, possibly with ``{keyword}``), or None.
        filter_prompt: the self-filter prompt (with ``{document}``), or None.
        vocabulary: the public vocabulary, or None (open vocabulary).

    Returns:
        One :class:`PromptBound` per stage that runs a prompt.
    """
    opening = getattr(config, "response_prefix", None) or ""
    T = getattr(config, "T_effective", config.T) + _template_tokens_written(lm, getattr(config, "response_template", None))
    bounds = []
    if getattr(config, "extractor", None) == "llm":
        bounds.append(PromptBound("keyword extraction (LLM extractor prompt)",
                                  _template_tokens(lm, KEYWORD_PROMPT.format(K=config.K, document="")),
                                  config.max_document_tokens, "--max-document-tokens",
                                  _extractor_new_tokens(lm, config)))
    given = getattr(config, "rephrase_prompt", None)
    template = given or REPHRASE_PROMPT
    # each "{keyword}" in the rephrase prompt is public and bounded like the public prompt's, one boundary per side
    slots = template.count(KEYWORD_SLOT)
    keyword_tokens = slots * (keyword_token_bound(lm, config, vocabulary) + 2 * BOUNDARY_TOKENS) if slots else 0
    bounds.append(PromptBound("private prediction (rephrase prompt)",
                              _template_tokens(lm, render_rephrase(template, "", keyword=""), opening),
                              config.max_document_tokens, "--max-document-tokens", T, keyword_tokens=keyword_tokens,
                              template_by="--rephrase-prompt" if given else ""))
    if public_prompt is not None:
        keyword = KEYWORD_SLOT in public_prompt
        bounds.append(PromptBound("private prediction (public prompt)",
                                  _template_tokens(lm, public_prompt.replace(KEYWORD_SLOT, ""), opening),
                                  keyword_token_bound(lm, config, vocabulary) if keyword else 0,
                                  "the longest keyword" if keyword else "", T,
                                  template_by="--public-prompt" if getattr(config, "public_prompt", None) else ""))
    if filter_prompt is not None:
        bounds.append(PromptBound("self-filter (filter prompt)",
                                  _template_tokens(lm, filter_prompt.replace("{document}", opening)),
                                  T, "--T", 0,  # scored in one forward pass: nothing generated
                                  template_by="--filter-prompt" if getattr(config, "filter_prompt", None) else ""))
    return bounds


def _template_tokens_written(lm, template: str | None) -> int:
    """The most literal tokens a response template writes into a text (0: no template): a text then holds
    up to T drawn tokens plus these."""
    if not template:
        return 0
    from dpsynrag.models.template_selector import ResponseTemplate

    return ResponseTemplate.build(template, lm.tokenizer, vocab_size=lm.vocab_size, eos=lm.eos_token_ids).free_tokens


def check_context(lm, config, *, public_prompt: str | None, filter_prompt: str | None,
                  vocabulary: Sequence[str] | None) -> None:
    """Refuse a build whose longest prompts would not fit the model's positions (:func:`prompt_bounds`).

    Call it once the models are loaded and before any document goes through a model or any mechanism
    draws: it reads no document. A model that does not state its positions (``lm.max_positions`` None)
    is not checked.

    Raises:
        ConfigError: a stage's bound exceeds ``lm.max_positions``; the message names the stage, each public
            term of its bound and the largest ``--max-document-tokens`` (or T) that would fit.
    """
    limit = lm.max_positions
    if limit is None:
        return
    for b in prompt_bounds(lm, config, public_prompt=public_prompt, filter_prompt=filter_prompt,
                           vocabulary=vocabulary):
        if b.total <= limit:
            continue
        keywords = f" + {b.keyword_tokens} ({{keyword}}: the longest keyword)" if b.keyword_tokens else ""
        inserted = (f" + {b.inserted_tokens} ({b.inserted_by}) + {2 * BOUNDARY_TOKENS} (where it meets the template)"
                    if b.inserted_tokens else "")
        room = _room(lm, config, b, limit, public_prompt=public_prompt, filter_prompt=filter_prompt,
                     vocabulary=vocabulary)
        fixes = [f"lower {b.inserted_by} to at most {room}" if room else "",
                 f"shorten {b.template_by}" if b.template_by else "", "use a model with a longer context"]
        fixes = [f for f in fixes if f]
        raise ConfigError(
            f"the prompts of this build do not fit the context window of {lm.name} ({limit} positions): "
            f"{b.stage} needs up to {b.template_tokens} (template){keywords}{inserted} + {b.new_tokens} (generated) = "
            f"{b.total} tokens. No document went through the model and nothing was drawn; "
            f"{''.join(f + ', ' for f in fixes[:-1])}{'or ' if len(fixes) > 1 else ''}{fixes[-1]}."
        )


def _room(lm, config, bound: PromptBound, limit: int, **parts) -> int | None:
    """The largest value of ``bound.inserted_by`` (an option) at which the stage ``bound.stage`` fits, or None
    (not an option, or no value >= 1 fits). The stage's bound is recomputed for each tried value, so a term that
    grows with it (an open vocabulary's keyword bound grows with ``--max-document-tokens``) is counted."""
    if not bound.inserted_by.startswith("--"):
        return None
    field = bound.inserted_by[2:].replace("-", "_")
    if not hasattr(config, field):
        return None

    def fits(value: int) -> bool:
        trial = config.model_copy(update={field: value})
        return all(b.total <= limit for b in prompt_bounds(lm, trial, **parts) if b.stage == bound.stage)

    low, high = 0, getattr(config, field)  # fits(high) is False: the stage did not fit
    while high - low > 1:  # largest value that fits, by bisection (the bound grows with the value)
        middle = (low + high) // 2
        low, high = (middle, high) if fits(middle) else (low, middle)
    return low or None
