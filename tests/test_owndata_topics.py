"""Which topics an own-data build releases and which records join them (issue 41;
benchmarks/results/owndata_topics.md): the words of public strings (``--pii-allow``) are never keywords, and
the ``own-cpu`` preset's K = 5 gives the large request types of a generated bank collection their own
clusters where the cpu preset's K = 1 releases the words every message shares. Fast: no model."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: benchmarks.owndata

from benchmarks.owndata.generate import generate  # noqa: E402
from dpsynrag.data.io import Document  # noqa: E402
from dpsynrag.data.redaction import RedactedDocuments  # noqa: E402
from dpsynrag.data.words import excluded_words, keyword_view  # noqa: E402
from dpsynrag.eval.presets import PRESETS, default_preset  # noqa: E402
from dpsynrag.pipeline.clustering import soft_cluster, top_keywords  # noqa: E402
from dpsynrag.pipeline.config import BuildConfig  # noqa: E402
from dpsynrag.pipeline.keywords import RarityKeywordExtractor, extract_keyword_sets  # noqa: E402
from dpsynrag.privacy.accountant import ZCDPAccountant  # noqa: E402
from dpsynrag.privacy.mechanisms import gaussian_sparse_histogram  # noqa: E402
from dpsynrag.rng import SeededRandom  # noqa: E402

PLACEHOLDER = "[REDACTED]"
BANK_PUBLIC = ["Northgate Bank", "+44 20 7946 0000", "www.northgate-bank.example.com", "help@northgate-bank.example.com"]


def test_public_strings_words_are_excluded_with_the_placeholders():
    assert excluded_words([], PLACEHOLDER, public=BANK_PUBLIC) == frozenset(
        {"redacted", "northgate", "bank", "help", "example", "com", "www", "www.northgate", "bank.example.com"})
    # a phone number has no word; the document's own identifiers still count
    assert excluded_words(["Ada Lee"], None, public=["+44 20 7946 0000"]) == frozenset({"ada", "lee"})
    assert excluded_words([], None, public=[]) == frozenset()


@pytest.fixture(scope="module")
def bank():
    """Bank collection seed 0 (400 records; a validation seed), redacted by its identifier fields, as the
    keyword extractor reads it (whole texts: the own-cpu preset's 256 tokens hold nearly every record)."""
    collection = generate("bank", 0)
    fields = collection["public"]["identifier_fields"]
    docs = [Document(r["id"], r["text"], tuple(r[f] for f in fields)) for r in collection["records"]]
    texts = [keyword_view(d.text, PLACEHOLDER) for d in RedactedDocuments(docs, PLACEHOLDER)]
    types = [r["type"] for r in collection["records"]]
    return docs, texts, types, collection["public"]["strings"]


def _keyword_sets(bank, K, public):
    docs, texts, _, strings = bank
    shared = excluded_words((), PLACEHOLDER, public=strings if public else ())
    return extract_keyword_sets(RarityKeywordExtractor(), texts, max_keywords=K,
                                excluded=[shared | excluded_words(d.identifiers) for d in docs])


def _release(sets, preset, seed=0):
    """The preset's open-vocabulary histogram over ``sets`` (seeded), its top R keywords and clusters."""
    fields = {k: v for k, v in PRESETS[preset].synrag.items()}
    cal = BuildConfig(epsilon=10.0, delta=1e-3, **fields).calibrate()
    released = gaussian_sparse_histogram(sets, max_keywords=fields["K"], sigma=cal.sigma_hist,
                                         threshold=cal.hist_threshold, accountant=ZCDPAccountant(),
                                         random=SeededRandom(seed))
    W = [w for w, _ in top_keywords(released, fields["R"])]
    return W, soft_cluster(sets, W, L=fields["L"])


def _own_clusters(clusters, types, *, purity=0.6, size=15):
    """The request types with >= 30 records that hold >= ``purity`` of a cluster of >= ``size`` of their records."""
    large = {t for t, n in Counter(types).items() if n >= 30}
    owned = set()
    for members in clusters:
        if members:
            t, n = Counter(types[i] for i in members).most_common(1)[0]
            if n >= size and n >= purity * len(members):
                owned.add(t)
    return owned & large


def test_no_record_votes_for_a_public_strings_word(bank):
    public = excluded_words((), None, public=bank[3])
    before = Counter(w for s in _keyword_sets(bank, 1, public=False) for w in s)
    assert before["northgate"] >= 30  # the bank's name was a record's most repeated word in dozens of records
    for K in (1, 5):
        assert not {w for s in _keyword_sets(bank, K, public=True) for w in s} & public


def test_own_cpu_gives_the_large_request_types_their_clusters(bank):
    """Seeded (mechanism seed 0): with K = 5 the walk puts a record in its least frequent released keyword's
    cluster, a request-type word; with the cpu preset's K = 1 a record votes for the word it repeats most."""
    types = bank[2]
    assert sorted(t for t, n in Counter(types).items() if n >= 30) == [
        "address_proof", "atm_limit", "dispute_window", "foreign_card_fee", "fraud_refund", "intl_transfer_fee",
        "replacement_card"]
    W1, clusters1 = _release(_keyword_sets(bank, 1, public=True), "cpu")
    W5, clusters5 = _release(_keyword_sets(bank, 5, public=True), "own-cpu")
    assert W1[0] == "message"  # K = 1: the largest topic is the word every message shares
    assert (len(W1), len(W5)) == (12, 19)
    owned1, owned5 = _own_clusters(clusters1, types), _own_clusters(clusters5, types)
    assert owned1 == {"address_proof", "atm_limit", "replacement_card"}
    assert owned5 == owned1 | {"intl_transfer_fee"}


def test_own_cpu_is_the_own_task_default_and_leaves_cpu_alone():
    own, cpu = PRESETS["own-cpu"], PRESETS["cpu"]
    assert default_preset("own") == "own-cpu" and default_preset("medical") == "cpu"
    changed = ("K", "max_document_tokens", "outlier_removal", "synthesis", "phrase_scope", "phrase_max",
               "phrase_min_phrases")
    assert tuple(own.synrag[k] for k in changed) == (5, 256, False, "phrases", "collection", 4, 3)
    assert (cpu.synrag["K"], cpu.synrag["max_document_tokens"]) == (1, 96)
    assert not {"outlier_removal", "synthesis", "phrase_scope", "phrase_max", "phrase_min_phrases"} & set(cpu.synrag)
    assert {k: v for k, v in own.synrag.items() if k not in changed} == {
        k: v for k, v in cpu.synrag.items() if k not in changed}
    assert own.methods == ("non-rag", "rag", "dp-synrag") and (own.top_k, cpu.top_k) == (1, 5)
