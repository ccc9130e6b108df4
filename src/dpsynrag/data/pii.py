"""Automatic redaction of personal identifiers that no column declares (``--redact-pii``; ``redact_pii``).

Each document's text is read by Microsoft Presidio's analyzer (``presidio-analyzer``, the optional extra
``pip install 'dpsynrag[pii]'``) with rule-based recognizers only — regular expressions with checksums,
and Google's libphonenumber for phone numbers — and every detected span is replaced by the public
placeholder of identifier redaction (``identifier_placeholder``, default ``"[REDACTED]"``). The entities
(:data:`PII_ENTITIES`): e-mail addresses, phone numbers (libphonenumber's valid numbers, international or
national in the US, UK, Germany, France, Israel, India, Canada and Brazil, of at least
:data:`MIN_PHONE_DIGITS` digits), credit-card numbers (Luhn check), IBANs (ISO 7064
check), IPv4 and IPv6 addresses, URLs, US social-security numbers, crypto-wallet addresses (Bitcoin,
Base58Check or Bech32 check) and MAC addresses.

No model is loaded or downloaded: Presidio's NLP engine here is a blank spaCy English pipeline
(``spacy.blank("en")``: a rule-based tokenizer and stop-word list, no trained component), whose tokens
give the recognizers' context words ("phone", "ssn", "card", ...) that raise a nearby match's score.
No trained named-entity model is used, so names of people, places and organisations are **not** found
(declare them with ``--identifier-field``): spaCy's trained pipelines are not published on PyPI by their
authors (the PyPI name ``en-core-web-trf`` is a placeholder of someone else's), and Presidio's other NER
back-ends (stanza, transformers, GLiNER) download their weights from a hub at run time, so no English NER
model installs offline from a trustworthy PyPI package. The e-mail check reads tldextract's bundled
public-suffix snapshot, never the network.

Privacy: the result is a function of that one document's text and public constants (the recognizers,
:data:`SCORE_THRESHOLD`, the placeholder) alone — the analyzer keeps no state between documents — so,
like :mod:`dpsynrag.data.redaction`, it leaves the differential-privacy analysis (add or remove one
document) unchanged and costs nothing. Nothing here counts or reports what was replaced.
"""

from __future__ import annotations

from functools import lru_cache

from dpsynrag.data.redaction import DEFAULT_PLACEHOLDER
from dpsynrag.errors import ConfigError

__all__ = ["MIN_PHONE_DIGITS", "PII_ENTITIES", "PII_EXTRA", "SCORE_THRESHOLD", "PIIRedactor", "pii_note",
           "pii_record", "pii_spans", "require_presidio"]

PII_ENTITIES: tuple[str, ...] = ("EMAIL_ADDRESS", "PHONE_NUMBER", "CREDIT_CARD", "IBAN_CODE", "IP_ADDRESS", "URL",
                                 "US_SSN", "CRYPTO", "MAC_ADDRESS")
"""Presidio's entity names of what ``--redact-pii`` replaces (one recognizer each)."""

SCORE_THRESHOLD = 0.4
"""Presidio score a span needs to be replaced. Passed by: every validated match (e-mail with a public
suffix, card number with a valid Luhn digit, IBAN and wallet with valid checksums: 1.0), URLs (0.5–0.6),
IP and MAC addresses (0.6), phone numbers valid for libphonenumber with at least :data:`MIN_PHONE_DIGITS`
digits (0.4), SSNs written ``ddd-dd-dddd`` or ``ddd dd dddd`` (0.5). Not passed: bare 9-digit numbers and other SSN shapes (0.05), unless a context word
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


def pii_spans(text: str) -> list[tuple[int, int]]:
    """The character spans ``[start, end)`` of ``text`` that hold a :data:`PII_ENTITIES` entity scoring at
    least :data:`SCORE_THRESHOLD`, overlapping or touching spans merged, in order. A function of ``text``
    alone (the recognizers' patterns are language-independent; their context words are English).

    Raises:
        ConfigError: the optional dependencies are missing (:func:`require_presidio`).
    """
    found = sorted((r.start, r.end) for r in _analyzer().analyze(text, language="en", entities=list(PII_ENTITIES)))
    merged: list[tuple[int, int]] = []
    for start, end in found:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


class PIIRedactor:
    """``redactor(text)``: ``text`` with every :func:`pii_spans` span replaced by ``placeholder``.

    Args:
        placeholder: the public replacement text (``identifier_placeholder``).

    Raises:
        ConfigError: at construction, the optional dependencies are missing (:func:`require_presidio`).
    """

    def __init__(self, placeholder: str = DEFAULT_PLACEHOLDER):
        require_presidio()
        self.placeholder = placeholder

    def __call__(self, text: str) -> str:
        parts, at = [], 0
        for start, end in pii_spans(text):
            parts += [text[at:start], self.placeholder]
            at = end
        return "".join(parts) + text[at:] if parts else text

    def __repr__(self) -> str:
        return f"PIIRedactor(placeholder={self.placeholder!r})"


def pii_record() -> dict:
    """The manifest's public description of the PII pass (``redaction.pii``): the analyzer and its
    version, the NLP engine, the entities and the score threshold."""
    from importlib.metadata import version

    return {"analyzer": f"presidio-analyzer {version('presidio-analyzer')}", "nlp_engine": 'spacy.blank("en")',
            "entities": list(PII_ENTITIES), "score_threshold": SCORE_THRESHOLD}


def pii_note(placeholder: str) -> str:
    """The privacy report's note on the PII pass (public)."""
    return (f"personal identifiers in each document's text ({', '.join(PII_ENTITIES)}; Presidio's rule-based "
            f"recognizers, no NER model) were replaced by {placeholder!r} before any model read it (a function "
            "of that document alone: no privacy cost)")
