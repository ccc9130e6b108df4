"""Keywords in any language (dpsynrag.pipeline.keywords): Unicode word boundaries, per-language stop words
and public frequencies, one test per script (Latin with diacritics, Cyrillic, Arabic, Japanese), the same
tokenisation in the clustering's text matching, and the public vocabulary of a language."""

from __future__ import annotations

import pytest
import regex
from pydantic import ValidationError
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

from dpsynrag.data.vocabulary import public_vocabulary, vocabulary_source
from dpsynrag.errors import ConfigError
from dpsynrag.pipeline.clustering import soft_cluster
from dpsynrag.pipeline.config import BuildConfig
from dpsynrag.data.words import STOP_WORDS_TOP_N, candidate_words, check_language, stop_words, text_words
from dpsynrag.pipeline.keywords import LLMKeywordExtractor, RarityKeywordExtractor, make_extractor

# One document per script; in each the symptom/finding word occurs twice, so it ranks first.
SCRIPTS = [
    pytest.param(
        "de", "Der Patient klagt über Ausschlag auf den Handflächen und Müdigkeit. Die Handflächen jucken stark.",
        "handflächen", {"ausschlag", "müdigkeit", "jucken"}, {"der", "die", "und", "auf", "den"}, id="german",
    ),
    pytest.param(
        "ru", "Пациент жалуется на сыпь и усталость. Сыпь зудит, температура нормальная.",
        "сыпь", {"пациент", "жалуется", "усталость", "зудит"}, {"на", "и"}, id="russian",
    ),
    pytest.param(
        "ar", "يشكو المريض من صداع شديد وحمى. الصداع يزداد في المساء ثم صداع آخر.",
        "صداع", {"المريض", "شديد", "المساء"}, {"من", "في", "ثم"}, id="arabic",
    ),
    pytest.param(
        "ja", "患者は手のひらの発疹と疲労を訴えている。発疹はかゆい。",
        "発疹", {"手のひら", "疲労", "患者"}, {"は", "の", "と", "を"}, id="japanese",
    ),
]


@pytest.mark.parametrize("language, text, first, some, stops", SCRIPTS)
def test_each_script_gives_sensible_keywords(language, text, first, some, stops):
    ranked = RarityKeywordExtractor(language).extract([text])[0]
    assert ranked[0] == first  # the most frequent word of the document
    assert some <= set(ranked)
    assert not stops & set(ranked)  # function words are stop words of the language
    letters = regex.compile(r"[\p{L}\p{M}]+")
    assert all(letters.fullmatch(w) for w in ranked) and len(set(ranked)) == len(ranked)


def test_umlauts_are_letters_not_word_ends():
    # the former [A-Za-z] pattern cut "Handflächen" to "handfl"
    assert candidate_words("Handflächen, Übelkeit und Straße", "de") == ["handflächen", "übelkeit", "strasse"]
    assert "handfl" not in candidate_words("Handflächen", "en")


def test_english_words_and_stop_words_are_unchanged():
    doc = "Given the symptoms (Fatigue, Rash on the palms) of Achille Ketterer. Don't: covid-19, Zorblasteron5."
    assert candidate_words(doc) == ["given", "symptoms", "fatigue", "rash", "palms", "achille", "ketterer", "covid",
                                    "zorblasteron"]  # digits split off: UAX #29 keeps "Zorblasteron5" one word
    assert text_words("Zorblasteron5 well-known") == ["zorblasteron", "well", "known"]
    assert stop_words("en") == frozenset(ENGLISH_STOP_WORDS)


def test_stop_words_of_other_languages_are_their_most_frequent_words():
    import wordfreq

    for language in ("de", "ru", "ar", "ja"):
        stops = stop_words(language)
        assert stops == frozenset(wordfreq.top_n_list(language, STOP_WORDS_TOP_N, wordlist="best"))
        assert len(stops) == STOP_WORDS_TOP_N
    assert {"und", "der"} <= stop_words("de") and {"は", "の"} <= stop_words("ja")


def test_short_words_in_chinese_japanese_korean():
    # a two-character word is a word there; one character (a particle) is not a candidate
    assert candidate_words("頭痛", "ja") == ["頭痛"]
    assert candidate_words("头痛", "zh") == ["头痛"]
    assert "to" not in candidate_words("to rash", "en") and candidate_words("rash", "en") == ["rash"]


def test_text_matching_uses_the_same_tokenisation():
    texts = ["患者は発疹を訴えた。", "Пациент жалуется на сыпь.", "Die Handflächen jucken.", "نوبة صداع"]
    keywords = ["発疹", "сыпь", "handflächen", "صداع", "handfl"]
    clusters = soft_cluster([()] * 4, keywords, L=5, texts=texts, language="ja")
    assert clusters[0] == [0]
    for i, language in enumerate(["ru", "de", "ar"], start=1):
        assert soft_cluster([()] * 4, keywords, L=5, texts=texts, language=language)[i] == [i]
    assert soft_cluster([()] * 4, keywords, L=5, texts=texts, language="de")[4] == []  # whole words only


def test_llm_extractor_reads_the_answer_in_the_language():
    class Echo:  # a model that answers with fixed words
        def chat_prompt(self, text, system=None):
            return text

        def public_prefix(self, user, system=None):
            return []

        def generate_greedy(self, prompts, **kwargs):
            return ["Handflächen, Müdigkeit und Ausschlag" for _ in prompts]

    extractor = make_extractor("llm", lm=Echo(), K=3, language="de")
    assert isinstance(extractor, LLMKeywordExtractor)
    assert extractor.extract(["irrelevant"]) == [["handflächen", "müdigkeit", "ausschlag"]]


def test_unknown_language_is_refused_naming_the_flag():
    for call in (lambda: check_language("xx"), lambda: RarityKeywordExtractor("klingon"), lambda: text_words("a", "xx")):
        with pytest.raises(ConfigError, match="--language"):
            call()
    with pytest.raises(ValidationError, match="--language"):
        BuildConfig(epsilon=10, delta=1e-3, language="xx")
    assert BuildConfig(epsilon=10, delta=1e-3, language="ja").language == "ja"
    assert BuildConfig(epsilon=10, delta=1e-3).language == "en"


def test_public_vocabulary_of_a_language():
    ru = public_vocabulary(5000, "ru")
    assert len(ru) == len(set(ru)) == 5000 and "врач" in ru
    assert not set(ru) & stop_words("ru")
    assert all(regex.fullmatch(r"[\p{L}\p{M}]{3,}", w) for w in ru)
    assert public_vocabulary(100, "ru") == ru[:100]
    assert "arzt" in public_vocabulary(5000, "de") and "患者" in public_vocabulary(5000, "ja")
    assert public_vocabulary(3) == ("just", "like", "time")  # English unchanged
    assert vocabulary_source("ru")["stop_words"] == f"wordfreq.top_n_list('ru', {STOP_WORDS_TOP_N}, wordlist='best')"
    with pytest.raises(ConfigError, match="open-vocabulary"):
        public_vocabulary(50_000, "ko")  # Korean has about 30,000 words in wordfreq
