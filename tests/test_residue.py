"""What a redaction left (:func:`dpsynrag.data.residue.residue_spans`: long digit runs and name-like pairs) and
the owner's review of a redaction pass (:class:`dpsynrag.data.review.RedactionReview`: the strings replaced
most often, with their counts, and the residue with example snippets)."""

from __future__ import annotations

import pytest

from dpsynrag.data.residue import DIGIT_RUN, NAME_PAIR, residue_spans
from dpsynrag.data.review import OWNER_ONLY, RedactionReview, snippet

R = "[REDACTED]"


def _found(text, allow=(), placeholder=R):
    return [(text[s:e], kind) for s, e, kind in residue_spans(text, allow, placeholder)]


@pytest.mark.parametrize("text, runs", [
    ("My IMEI is 35 209900 176148 1, thanks.", ["35 209900 176148 1"]),
    ("IMEI 352099001761481 and case CASE-529749.", ["352099001761481", "529749"]),
    ("Call 0113-496-0431 or 12.345.678 or DE49374955002531099067", ["0113-496-0431", "12.345.678", "49374955002531099067"]),
    ("On 2024-01-15 at 10:30.", ["2024-01-15"]),  # a date with dashes: flagged (documented)
    ("£250,000 in 12345 or 1, 2, 3, 4, 5, 6 or 12  3456 or 123456.", ["123456"]),  # commas, 5 digits, two spaces
])
def test_digit_runs(text, runs):
    assert [s for s, kind in _found(text) if kind == DIGIT_RUN] == runs


def test_digit_runs_inside_allowed_strings_and_the_placeholder_are_not_flagged():
    text = "Call 020 7946 0000 or +44 20 7946 0000, not 0113 496 0431. <ID-123456> kept."
    assert _found(text, ["+44 20 7946 0000"], "<ID-123456>") == [("0113 496 0431", DIGIT_RUN)]
    # an allowed string blanks out only itself: the digits after it are searched on their own
    assert _found("Ref +44 20 7946 0000 123456.", ["+44 20 7946 0000"]) == [("123456", DIGIT_RUN)]


@pytest.mark.parametrize("text, pairs", [
    ("I wrote to Oyelowo Nwosu last week.", ["Oyelowo Nwosu"]),
    ("Oyelowo Nwosu wrote. Oyelowo Nwosu again! (Oyelowo Nwosu came.) \"Oyelowo Nwosu\" too? Oyelowo Nwosu", []),
    ("Also (Oyelowo Nwosu) and \"Oyelowo Nwosu\"", ["Oyelowo Nwosu", "Oyelowo Nwosu"]),  # not sentence starts
    ("He said: Oyelowo Nwosu", ["Oyelowo Nwosu"]),  # a colon ends no sentence
    ("Many thanks,\nNiamh Szymański", ["Niamh Szymański"]),  # a line break alone is no sentence end
    ("Met O'Brien McDonald and Smith-Jones Okafor today.", ["O'Brien McDonald", "Smith-Jones Okafor"]),
    ("My friend Kwame Oyelowo Nwosu called.", ["Kwame Oyelowo Nwosu"]),  # a run of three: one span
    ("Ask Sarah Baker, Will Hunter or the ATM IBAN team.", []),  # frequent English words, capitals only
    ("The Oyelowo\nNwosu and Oyelowo, Nwosu and Oyelowo  \tNwosu.", ["Oyelowo  \tNwosu"]),  # one line, spaces only
    ("My friend [REDACTED] Nwosu and Zorblax [REDACTED] called.", []),  # the placeholder separates
])
def test_name_pairs(text, pairs):
    assert [s for s, kind in _found(text) if kind == NAME_PAIR] == pairs


def test_name_pairs_inside_allowed_strings_are_not_flagged():
    text = "I bought the Veltrix Nuvola plan from Oyelowo Nwosu."
    assert _found(text) == [("Veltrix Nuvola", NAME_PAIR), ("Oyelowo Nwosu", NAME_PAIR)]
    assert _found(text, ["veltrix  nuvola"]) == [("Oyelowo Nwosu", NAME_PAIR)]  # found however written


def test_snippet():
    text = "x" * 50 + " call\n0113 496 0431 now " + "y" * 50
    start = text.index("0113")
    assert snippet(text, start, start + 13, context=10) == "…call «0113 496 0431» now…"
    assert snippet("IMEI 123456", 5, 11) == "IMEI «123456»"


def _add(review, doc_id, text, strings, placeholder=R):
    spans = []
    for string, entity in strings:
        at = text.index(string)
        spans.append((at, at + len(string), entity))
    redacted = text
    for string, _ in strings:
        redacted = redacted.replace(string, placeholder)
    review.add(doc_id, text, spans, redacted)


def test_review_counts_strings_places_and_residue():
    review = RedactionReview(["Northwind Bank"], R, examples=1)
    _add(review, "a", "Veltrix Nuvola by Sarah Lee. IMEI 352099001761481.",
         [("Veltrix Nuvola", "PERSON"), ("Sarah Lee", "PERSON"), ("Sarah Lee", "IDENTIFIER")])
    _add(review, "b", "My Veltrix  Nuvola broke; Northwind Bank and Kwabena Osei said IMEI 35 209900 176148 1.",
         [("Veltrix  Nuvola", "PERSON")])
    _add(review, "c", "Nothing here.", [])
    text = "Mail x@example.net or Oyelowo"
    review.add("d", text, [(5, 18, "EMAIL_ADDRESS"), (7, 18, "URL"), (22, 29, "PERSON")], f"Mail {R} or {R}")
    record = review.record(top=4)
    assert record["owner_only"] == OWNER_ONLY
    assert (record["documents"], record["documents_with_spans"]) == (4, 3)
    assert record["spans"] == {"EMAIL_ADDRESS": 1, "IDENTIFIER": 1, "PERSON": 4, "URL": 1}
    # white space written as one space; one place per placeholder: a place found by two finders counts once,
    # once per type in entities, and the domain inside the e-mail address is no string of its own; ties in
    # string order
    assert record["top_strings"] == [
        {"string": "Veltrix Nuvola", "spans": 2, "documents": 2, "entities": {"PERSON": 2}},
        {"string": "Oyelowo", "spans": 1, "documents": 1, "entities": {"PERSON": 1}},
        {"string": "Sarah Lee", "spans": 1, "documents": 1, "entities": {"IDENTIFIER": 1, "PERSON": 1}},
        {"string": "x@example.net", "spans": 1, "documents": 1, "entities": {"EMAIL_ADDRESS": 1, "URL": 1}},
    ]
    assert review.record(top=1)["top_strings"] == record["top_strings"][:1]
    assert record["distinct_strings"] == 4 and record["count_error"] == 0
    assert record["residue"] == {
        "digit_run": {"documents": 2, "matches": 2, "examples": [
            {"document": "a", "match": "352099001761481", "snippet": f"{R} by {R}. IMEI «352099001761481»."}]},
        "name_pair": {"documents": 1, "matches": 1, "examples": [
            {"document": "b", "match": "Kwabena Osei",
             "snippet": f"My {R} broke; Northwind Bank and «Kwabena Osei» said IMEI 35 209900 176148 1."}]},
    }


def test_review_memory_is_bounded_and_says_how_low_a_count_may_be():
    review = RedactionReview(max_strings=4)
    for i in range(5):
        _add(review, str(i), f"Zed{i} and Common", [(f"Zed{i}", "PERSON"), ("Common", "PERSON")])
    record = review.record(top=1)
    assert record["top_strings"][0]["string"] == "Common" and record["top_strings"][0]["spans"] == 5
    assert record["distinct_strings"] <= 4 and record["count_error"] == 1  # singletons dropped: low by 1 at most
    assert record["spans"] == {"PERSON": 10}  # the span counts are exact
