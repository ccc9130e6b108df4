"""The configuration base every corpus method's config extends (issue 13): the fields every build has.

A method's config is a frozen pydantic model that refuses unknown fields, NaN and infinities. Fields
here: the target (ε, δ) and its ρ → ε conversion, the models, the seed (None: cryptographically secure
randomness; an integer: reproducible output that is NOT for release), the public task and self-filter,
the cut applied to every private document, and the redaction of each document's own direct identifiers
and of the personal identifiers an automatic pass finds in its text.
"""

from __future__ import annotations

from typing import Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, model_validator

from dpsynrag.data.redaction import DEFAULT_PLACEHOLDER


class CorpusConfig(BaseModel):
    """Fields shared by every corpus method's config.

    Attributes:
        epsilon: target ε > 0 of the whole build. delta: target δ in (0, 1).
        conversion: the ρ → (ε, δ) conversion used to calibrate: ``"bun-steinke"`` (Bun & Steinke 2016,
            Prop. 1.3) or ``"cks"`` (Canonne, Kamath & Steinke 2020, Prop. 12; tighter).
        model, embedder: language model and embedder (hub id, folder, file; None: the offline defaults).
        seed: None (secure randomness) or an integer >= 0 (reproducible, NOT for release).
        task: the public task (its self-filter and answer prompts), e.g. ``"medical"``.
        self_filter: keep only texts the model judges relevant to the task (post-processing).
        filter_prompt: a self-filter template with ``{document}`` (instead of the task's).
        max_document_tokens: every private document is cut to this many tokens (>= 8).
        redact_identifiers: before any model reads a document, replace its own direct identifiers
            (:attr:`~dpsynrag.data.io.Document.identifiers`, from the input's identifier columns:
            ``--identifier-field``, ``identifier_fields=``) in its text by ``identifier_placeholder``
            (:func:`~dpsynrag.data.redaction.redact_identifiers`). A function of each document alone: the
            privacy analysis is unchanged; the synthetic texts cannot repeat a name they never saw.
        redact_pii: before any model reads a document (and before ``redact_identifiers``), replace the
            personal identifiers that Microsoft Presidio's rule-based recognizers find in its text
            (e-mails, phone numbers, card numbers, IBANs, IP addresses, URLs, US SSNs, ...:
            :data:`~dpsynrag.data.pii.PII_ENTITIES`) by ``identifier_placeholder``
            (``--redact-pii``; :mod:`dpsynrag.data.pii`, ``pip install 'dpsynrag[pii]'``). A function of
            each document alone: the privacy analysis is unchanged. Its options (public configuration, each
            needs ``redact_pii``): ``pii_entities``, the entity types to replace (None: the default
            :data:`~dpsynrag.data.pii.PII_ENTITIES`, names and addresses included; ``--pii-entities``);
            ``pii_allow``, public strings that must survive, found however they are written
            (``--pii-allow``, ``--pii-allow-file``); ``pii_model``, a spaCy pipeline (installed package or
            local folder, never downloaded) whose named entities add to the names (``--pii-model``);
            ``pii_names``, the owner's list of personal names (a staff directory, ``--pii-names-file``;
            :mod:`dpsynrag.data.pii_names`), replaced wherever they occur — owner-only: excluded from every dump
            of the config (manifest, checkpoint, log); the manifest says a list was given, the owner record
            holds its count and SHA-256.
        identifier_placeholder: the public text that replaces an identifier (default ``"[REDACTED]"``).

    All but ``pii_names`` are public parameters, recorded in the manifest with the rest of the config.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    epsilon: float = Field(gt=0)
    delta: float = Field(gt=0, lt=1)
    conversion: Literal["bun-steinke", "cks"] = "bun-steinke"
    model: Optional[str] = None
    embedder: Optional[str] = None
    seed: Optional[int] = Field(None, ge=0)
    task: Optional[str] = None
    self_filter: bool = True
    filter_prompt: Optional[str] = None
    max_document_tokens: int = Field(256, ge=8)
    redact_identifiers: bool = False
    redact_pii: bool = False
    pii_entities: Optional[tuple[str, ...]] = None
    pii_allow: tuple[str, ...] = ()
    pii_model: Optional[str] = None
    pii_names: tuple[str, ...] = Field((), exclude=True, repr=False)
    identifier_placeholder: str = Field(DEFAULT_PLACEHOLDER, min_length=1)

    @model_validator(mode="after")
    def _pii_options_need_the_pass(self):
        from dpsynrag.data.pii import check_entities
        from dpsynrag.errors import ConfigError

        for name in ("pii_entities", "pii_allow", "pii_model", "pii_names"):
            if getattr(self, name) and not self.redact_pii:
                raise ValueError(f"`{name}` needs `redact_pii`.")
        if self.pii_entities is not None:
            try:
                object.__setattr__(self, "pii_entities", check_entities(self.pii_entities, self.pii_model))
            except ConfigError as exc:
                raise ValueError(str(exc)) from exc
        return self

    @model_validator(mode="after")
    def _filter_prompt_has_document(self):
        if self.filter_prompt is not None and "{document}" not in self.filter_prompt:
            raise ValueError("`filter_prompt` must contain the placeholder {document}.")
        return self


class GenerationConfig(CorpusConfig):
    """The base of a corpus method whose texts are sampled token by token from the language model.

    Attributes:
        T: tokens per synthetic text (>= 1; the private prediction's steps, each charged in the plan).
        temperature: sampling temperature τ > 0 (in DP-SynRAG's and DP-Synth's private prediction, the
            exponential mechanism's scale: a token costs ½(c/τ)² zCDP).
    """

    T: int = Field(70, ge=1)
    temperature: float = Field(1.0, gt=0)
