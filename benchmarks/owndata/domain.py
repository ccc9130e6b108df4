"""What a domain of the own-data generator is: its request types (one fixed fact each) and the sentence
templates its records are assembled from.

Templates are ``str.format`` strings. Their fields:

* personal (written as a :class:`~benchmarks.owndata.people.PII` item): ``{name}`` (the customer's full name),
  ``{first}`` (their given name), ``{phone}``, ``{email}``, ``{iban}`` (compact or in groups of four),
  ``{address}``, ``{ref}`` (the record's case or ticket number), ``{order}`` (an order number), ``{tp}`` /
  ``{tp_first}`` (a third person's full or given name), ``{tp_phone}``, ``{tp_email}``, ``{tp_iban}``;
* public: ``{company}``, ``{support_phone}``, ``{website}``, ``{support_email}`` (the domain's
  :attr:`Domain.public` strings);
* ``{fact}``: the request type's fact value; ``{relation}``: who the third person is;
* any key of :attr:`Domain.slots` (a random harmless word or phrase: a weekday, a device, ...).
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Domain", "RequestType", "PUBLIC_FIELDS"]

PUBLIC_FIELDS = ("company", "support_phone", "website", "support_email")
"""The template fields that hold a domain's public strings."""


@dataclass(frozen=True)
class RequestType:
    """One kind of request and the single fact that answers it.

    Attributes:
        id: the type's id (the records' ``type`` field; evaluation only).
        profile: its number of records in a 400-record collection (drawn per seed around it).
        fact: the fact value, written verbatim in every record of the type ("15 EUR").
        fact_sentences: 2-4 phrasings of the fact, each with a ``{fact}`` field.
        stories: the customer's side, 2-4 templates.
        questions: 2-3 questions whose answer is the fact.
        answers: accepted answer strings, the first being ``fact``.
    """

    id: str
    profile: int
    fact: str
    fact_sentences: tuple[str, ...]
    stories: tuple[str, ...]
    questions: tuple[str, ...]
    answers: tuple[str, ...]

    def __post_init__(self):
        if self.answers[0] != self.fact or not all("{fact}" in s for s in self.fact_sentences):
            raise ValueError(f"request type {self.id!r}: answers[0] must be the fact and every fact sentence "
                             "must hold {fact}")


@dataclass(frozen=True)
class Domain:
    """A made-up organisation, its customers' requests and how its records are worded.

    Attributes:
        name: the domain's id (``bank``, ``saas``, ``helpdesk``).
        public: the public strings by :data:`PUBLIC_FIELDS` name (company, support phone, web address, support
            e-mail): they appear in many records and must survive redaction.
        reference_field: the record field of its case or ticket number (``case_id``, ``ticket_id``).
        reference_prefix: that number's prefix (``"CASE-"``); ``reference_digits`` digits follow.
        reference_digits: how many digits.
        identifier_fields: the record fields holding the customer's direct identifiers.
        types: the request types, most frequent first.
        openings / signoffs / contacts / third_party / fillers: customer-side templates (greeting; name at the
            end; the customer's own contact or account data; a sentence about a third person; harmless
            sentences).
        relations: who a third person is to the customer.
        message_labels / reply_labels: the headers of the two halves of a record.
        reply_openings / reply_extras / reply_closings: the organisation's reply around the fact sentence
            (closings name public strings).
        slots: harmless fillers of the other template fields.
        order_prefix: prefix of the ``order_id`` field (six digits follow); None: the domain has no order numbers.
        has_iban: whether records carry the customer's ``iban`` field.
    """

    name: str
    public: dict[str, str]
    reference_field: str
    reference_prefix: str
    reference_digits: int
    identifier_fields: tuple[str, ...]
    types: tuple[RequestType, ...]
    openings: tuple[str, ...]
    signoffs: tuple[str, ...]
    contacts: tuple[str, ...]
    third_party: tuple[str, ...]
    relations: tuple[str, ...]
    fillers: tuple[str, ...]
    message_labels: tuple[str, ...]
    reply_labels: tuple[str, ...]
    reply_openings: tuple[str, ...]
    reply_extras: tuple[str, ...]
    reply_closings: tuple[str, ...]
    slots: dict[str, tuple[str, ...]] = field(default_factory=dict)
    order_prefix: str | None = None
    has_iban: bool = False
