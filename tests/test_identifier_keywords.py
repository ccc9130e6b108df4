"""Identifiers never become topics: identifier-shaped tokens and the redaction placeholder are out of the text
keyword extractors read, a document's own identifier words out of its candidates, and a histogram release
that looks wrong (one dominant keyword, few keywords, k above every count) warns with the likely cause."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from dpsynrag.pipeline.clustering import release_warnings
from dpsynrag.data.words import excluded_words, keyword_view
from dpsynrag.pipeline.keywords import KeywordExtractor, RarityKeywordExtractor, extract_keyword_sets

sys.path.insert(0, str(Path(__file__).parent))
from tickets import make_tickets  # noqa: E402


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Order ORD-782554 arrived", "Order   arrived"),
        ("mail Ada.Lee@Example.COM now", "mail   now"),
        ("订单ORD-123456的退款", "订单 的退款"),  # CJK letters never join the id
        ("see chocoladam.com/2020/01/22/x, https://x.org/a?b=1 and www.foo.bar", "see   and  "),
        ("call 555-0142 or 12345; dated 2020/01/22", "call   or  ; dated  "),
        ("covid19 H1N1 B12 COVID-19 e.g. i.e. Mr.Smith", "covid19 H1N1 B12 COVID-19 e.g. i.e. Mr.Smith"),  # < 3 digits
        ("Hello, this is [REDACTED].", "Hello, this is  ."),
    ],
)
def test_keyword_view_closed_cases(text, expected):
    assert keyword_view(text, "[REDACTED]").split() == expected.split()


def test_keyword_view_without_placeholder_keeps_it_and_is_a_function_of_the_text():
    assert keyword_view("[REDACTED] ORD-111111") == "[REDACTED]  "
    assert keyword_view("someone wrote", "someone") == "  wrote"


def test_excluded_words_are_the_words_of_the_placeholder_and_the_identifiers():
    assert excluded_words(["Ingrid Van der Berg", "ingrid.vdb19@example.com"], "[REDACTED]") == frozenset(
        {"redacted", "ingrid", "van", "der", "berg", "ingrid.vdb", "vdb", "example.com", "example", "com"})
    assert excluded_words([], None) == frozenset()
    assert excluded_words(["张敏"], "某人", language="zh") >= {"张敏"}


class _Parrot(KeywordExtractor):
    """Returns fixed candidates whatever the text, as an LLM that names the placeholder would."""

    name = "parrot"

    def extract(self, documents, *, progress=False):
        return [["Redacted", "Ingrid", "refund", "warranty"] for _ in documents]


def test_extract_keyword_sets_drops_each_documents_excluded_words_before_the_cap():
    sets = extract_keyword_sets(_Parrot(), ["a", "b"], max_keywords=1,
                                excluded=[frozenset({"redacted", "ingrid"}), frozenset({"refund"})])
    assert list(sets) == [("refund",), ("redacted",)]  # each document's own exclusions only
    assert list(extract_keyword_sets(_Parrot(), ["a"], max_keywords=2)) == [("redacted", "ingrid")]


def test_ticket_keywords_are_topics_never_placeholder_or_identifiers():
    """300 generated tickets, names, e-mails and order numbers redacted: before this change the rarity
    extractor's first keyword was 'redacted' for 266 of them; now no document's keywords hold a placeholder
    word, an identifier word or an identifier-shaped token, and the frequent ones are the topics."""
    from collections import Counter

    from dpsynrag.data.io import Document
    from dpsynrag.data.redaction import RedactedDocuments

    tickets = make_tickets(300, seed=0)
    docs = [Document(t["id"], t["body"], (t["customer_name"], t["email"], t["order_number"])) for t in tickets]
    identifier_words = set().union(*(excluded_words(d.identifiers) for d in docs))
    for placeholder in ("[REDACTED]", "someone"):
        redacted = list(RedactedDocuments(docs, placeholder))
        sets = extract_keyword_sets(
            RarityKeywordExtractor(), [keyword_view(d.text, placeholder) for d in redacted], max_keywords=1,
            excluded=[excluded_words(d.identifiers, placeholder) for d in redacted])
        words = Counter(w for s in sets for w in s)
        assert not set(words) & (identifier_words | excluded_words([], placeholder))
        assert not any(w.startswith("ord") or any(ch.isdigit() for ch in w) for w in words)
        assert {w for w, _ in words.most_common(4)} == {"login", "refund", "warranty", "invoice"}
    old = extract_keyword_sets(RarityKeywordExtractor(), [d.text for d in RedactedDocuments(docs)], max_keywords=1)
    assert Counter(w for s in old for w in s).most_common(1)[0][0] == "redacted"  # what this change fixed


@pytest.mark.parametrize(
    "keywords, R, k, expected",
    [
        ([("refund", 40), ("login", 30), ("warranty", 30)], 48, 20, []),
        ([("redacted", 302)], 48, 20, ["'redacted' holds 100%", "only 1 keyword"]),
        ([("hello", 70), ("refund", 30), ("login", 20), ("warranty", 10)], 48, 20, ["'hello' holds 54%"]),
        ([("hello", 60), ("refund", 30), ("login", 20), ("warranty", 10)], 48, 20, []),  # 50%: not more than half
        ([("a", 5), ("b", 5)], 2, 5, []),  # R = 2 asked for two: not "few"; k equal to the largest count
        ([("a", 5), ("b", 5), ("c", 4)], 48, 1000, ["k = 1000 (--k) is larger than every released keyword count (largest 5.0)"]),
        ([], 48, 20, ["only 0 keyword"]),
    ],
)
def test_release_warnings_closed_cases(keywords, R, k, expected):
    messages = release_warnings(keywords, R=R, k=k)
    assert len(messages) == len(expected)
    for message, part in zip(messages, expected):
        assert part in message


def test_a_ticket_build_releases_topics_and_no_identifier(tmp_path, tiny_lm):
    """End to end through build_corpus (rarity keywords, open vocabulary, seeded): the released keywords of
    300 redacted tickets are at least 10 topics, none a placeholder or identifier word."""
    from fakes import HashEmbedder

    from dpsynrag.pipeline.build import build_corpus
    from dpsynrag.pipeline.config import BuildConfig

    path = tmp_path / "t.jsonl"
    tickets = make_tickets(300, seed=1)
    path.write_text("".join(json.dumps(t, ensure_ascii=False) + "\n" for t in tickets), encoding="utf-8")
    config = BuildConfig(epsilon=10.0, delta=1e-3, K=1, R=24, L=1, k=20, T=2, extractor="rarity",
                         open_vocabulary=True, self_filter=False, redact_identifiers=True, seed=0)
    corpus = build_corpus(path, tmp_path / "c", config, lm=tiny_lm, embedder=HashEmbedder(), text_field="body",
                          identifier_fields=["customer_name", "email", "order_number"])
    released = [r["keyword"] for r in corpus.records]
    identifier_words = set().union(*(excluded_words([t["customer_name"], t["email"], t["order_number"]], "[REDACTED]")
                                     for t in tickets))
    assert len(released) >= 10
    assert not set(released) & identifier_words


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Document: [REDACTED] enjoys drama films.", "[REDACTED] enjoys drama films."),
        ("  Document:\nThe patient has a rash.", "The patient has a rash."),
        ("The Document: stays inside.", "The Document: stays inside."),
        ("document: lower case is not the label", "document: lower case is not the label"),
    ],
)
def test_the_echoed_rephrase_label_is_cut_from_released_texts(text, expected):
    from dpsynrag.pipeline.prompts import strip_echoed_label

    assert strip_echoed_label(text) == expected


def test_cpu_preset_builds_without_the_self_filter_and_lists_no_duplicate_ablation():
    """The offline model's YES/NO judgements are worse than chance (MovieLens seeds 0-2 kept 1 of 7 texts,
    rejecting the fluent ones): the cpu preset's corpus methods do not self-filter."""
    from dpsynrag.eval.presets import get_preset

    cpu = get_preset("cpu")
    assert cpu.synrag["self_filter"] is False and cpu.dp_synth["self_filter"] is False
    assert cpu.aug_pe["self_filter"] is False and "dp-synrag-no-self-filter" not in cpu.methods
    assert get_preset("paper").synrag.get("self_filter", True) is True
