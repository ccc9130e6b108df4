"""Tests of the public keyword vocabulary (dpsynrag.data.vocabulary)."""

from __future__ import annotations

import hashlib
import re

import pytest
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

from dpsynrag.data.vocabulary import public_vocabulary, vocabulary_fingerprint, vocabulary_source
from dpsynrag.errors import ConfigError


def test_words_are_lowercase_alphabetic_without_stop_words():
    vocab = public_vocabulary(50_000)
    assert len(vocab) == 50_000
    assert len(set(vocab)) == 50_000
    assert all(re.fullmatch(r"[a-z]{3,}", w) for w in vocab)
    assert not set(vocab) & ENGLISH_STOP_WORDS
    # frequent content words are in; stop words, short words and capitalised forms are out
    assert {"people", "time", "doctor", "fever", "movie"} <= set(vocab)
    assert "the" not in vocab and "is" not in vocab and "don't" not in vocab


def test_deterministic_cached_and_prefix_consistent():
    assert public_vocabulary(1000) is public_vocabulary(1000)
    assert public_vocabulary(1000) == public_vocabulary(5000)[:1000]
    assert public_vocabulary(3) == ("just", "like", "time")  # wordfreq 3.x "best" English list


def test_fingerprint_is_sha256_of_joined_words():
    assert vocabulary_fingerprint(("a", "b")) == hashlib.sha256(b"a\nb").hexdigest()
    assert vocabulary_fingerprint(("b", "a")) != vocabulary_fingerprint(("a", "b"))
    assert len(vocabulary_fingerprint(public_vocabulary(10))) == 64


def test_source_names_packages_and_versions():
    source = vocabulary_source()
    assert source["wordfreq_version"].startswith("3.")
    assert "ENGLISH_STOP_WORDS" in source["stop_words"]


@pytest.mark.parametrize("size", [0, -5, 1.5, True, 10**7])
def test_bad_sizes(size):
    with pytest.raises(ConfigError, match="`size`"):
        public_vocabulary(size)
