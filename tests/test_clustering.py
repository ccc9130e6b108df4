"""Stage 1b: top-R selection and soft clustering (least frequent keyword first, at most L clusters)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpsynrag.errors import ConfigError
from dpsynrag.pipeline.clustering import soft_cluster, top_keywords
from dpsynrag.data.words import candidate_words
from dpsynrag.pipeline.keywords import RarityKeywordExtractor, make_extractor


def test_top_keywords_from_array_and_mapping():
    vocab = ["a", "b", "c", "d"]
    assert top_keywords((vocab, np.array([1.0, 5.0, 3.0, 5.0])), 3) == [("b", 5.0), ("d", 5.0), ("c", 3.0)]
    assert top_keywords({"x": 2.0, "y": 9.0}, 5) == [("y", 9.0), ("x", 2.0)]
    with pytest.raises(ConfigError):
        top_keywords({"x": 1.0}, 0)


def test_soft_cluster_hand_made():
    # W most frequent first: fever (r=0), rash (r=1), cough (r=2). Walk cough, rash, fever.
    docs = [("fever", "rash", "cough"), ("fever", "rash"), ("fever",), ("cough",)]
    clusters = soft_cluster(docs, ["fever", "rash", "cough"], L=2)
    # doc0 joins cough then rash, and is full (L=2) before fever.
    assert clusters == [[1, 2], [0, 1], [0, 3]]


def test_soft_cluster_text_matching():
    texts = ["The rash spread.", "A dry cough", "rashes"]
    clusters = soft_cluster([(), (), ()], ["rash", "cough"], L=1, texts=texts)
    assert clusters == [[0], [1]]


def test_soft_cluster_text_matching_ignores_edge_punctuation():
    # Unicode word boundaries (UAX #29, the keyword extractors' tokenisation): edge apostrophes and
    # hyphens are not part of a word, and a hyphen splits "well-known" into "well" and "known"
    texts = ["the patients' rash", "covid-19 and asthma-", "a well-known cough", "Patients"]
    clusters = soft_cluster([()] * 4, ["patients", "covid", "asthma", "well", "known", "cough"], L=6, texts=texts)
    assert clusters == [[0, 3], [1], [1], [2], [2], [2]]


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.lists(st.sampled_from(list("abcdefgh")), max_size=6, unique=True), min_size=1, max_size=40),
    st.integers(1, 4),
)
def test_no_document_in_more_than_L_clusters(docs, L):
    W = list("hgfedcba")
    clusters = soft_cluster(docs, W, L=L)
    counts = np.zeros(len(docs), int)
    for r, members in enumerate(clusters):
        for i in members:
            assert W[r] in docs[i]
            counts[i] += 1
    assert counts.max() <= L
    # a document misses a cluster of one of its keywords only when it is already full
    for i, d in enumerate(docs):
        assert counts[i] == min(L, len(set(d)))


def test_primary_rule_hand_made():
    # W most frequent first; a document joins its own first L released keywords, in its own order
    docs = [("flu", "aspirin", "fever"), ("flu", "aspirin"), ("aspirin", "flu"), ("fever",), ("unknown", "fever")]
    W = ["fever", "flu", "aspirin"]
    assert soft_cluster(docs, W, L=1, rule="primary") == [[3, 4], [0, 1], [2]]
    assert soft_cluster(docs, W, L=2, rule="primary") == [[3, 4], [0, 1, 2], [0, 1, 2]]
    # the paper's walk puts every document in the rarest keyword's cluster first: a duplicate topic
    assert soft_cluster(docs, W, L=1) == [[3, 4], [], [0, 1, 2]]
    with pytest.raises(ConfigError):
        soft_cluster(docs, W, L=1, rule="primary", texts=["a"] * 5)
    with pytest.raises(ConfigError):
        soft_cluster(docs, W, L=1, rule="largest")


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.lists(st.sampled_from(list("abcdefgh")), max_size=6, unique=True), min_size=1, max_size=40),
    st.integers(1, 4),
)
def test_primary_rule_membership_is_per_document(docs, L):
    # each document's memberships depend on its own keywords and W only: removing another document
    # never changes them (the condition of overlapping parallel composition)
    W = list("hgfe")
    full = soft_cluster(docs, W, L=L, rule="primary")
    mine = [{r for r, m in enumerate(full) if i in m} for i in range(len(docs))]
    for i, d in enumerate(docs):
        assert mine[i] == {W.index(w) for w in [w for w in d if w in W][:L]}
    if len(docs) > 1:
        rest = soft_cluster(docs[1:], W, L=L, rule="primary")
        assert [{r for r, m in enumerate(rest) if i in m} for i in range(len(docs) - 1)] == mine[1:]


def test_candidate_words_and_rarity_extractor():
    doc = "Given the symptoms (Fatigue, Rash on the palms) of Achille Ketterer. The diagnosis is Flibberflamosis."
    words = candidate_words(doc)
    assert words[:3] == ["given", "symptoms", "fatigue"]
    assert "the" not in words and "is" not in words
    ranked = RarityKeywordExtractor().extract([doc + " Flibberflamosis again."])[0]
    assert ranked[0] == "flibberflamosis"  # most frequent in the document
    assert ranked.index("ketterer") < ranked.index("given")  # rarer in public English first
    with pytest.raises(ConfigError):
        make_extractor("llm")
    with pytest.raises(ConfigError):
        make_extractor("tfidf")
