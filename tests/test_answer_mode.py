"""Extractive answers, the shared answer length, and `eval --corpus` (issue 51, item 7).

* ``answer_mode="extractive"``: the answer is the sentence of the top-k retrieved texts most similar to the
  question (the embedder's cosine), ties to the earlier text in retrieval order; no generation.
* ``dpsynrag query`` answers a corpus of the collection phrase release (own data) extractively by default,
  with no language model loaded.
* ``dpsynrag eval --corpus DIR`` scores that folder as it is (its method's row, never built), next to the other
  methods, and refuses a corpus whose index another embedder built.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from fakes import HashEmbedder
from servers import privacy_dict
from typer.testing import CliRunner

from dpsynrag.cli import app
from dpsynrag.corpus import CorpusWriter, SyntheticCorpus
from dpsynrag.errors import ConfigError
from dpsynrag.rag import RAGAnswerer, extract_answers, split_sentences

runner = CliRunner()
TEXTS = [
    "A replacement card takes five working days to arrive. International transfers cost 15 EUR each.",
    "Your card is blocked at once. Call us on 0800 000 000 to block a lost card.",
    "Our branches open at 9 am.",
]


def _out(result) -> str:
    return " ".join((result.output + (result.stderr if result.stderr_bytes is not None else "")).split())


def test_sentences_are_split_after_end_marks_and_at_line_breaks():
    text = 'Hello there. It costs £7.50 a day! See www.x.example.com.\nNext? He said "stop." Then (ok.) end'
    assert split_sentences(text) == ["Hello there.", "It costs £7.50 a day!", "See www.x.example.com.", "Next?",
                                     'He said "stop."', "Then (ok.)", "end"]
    assert split_sentences("no boundary at all") == ["no boundary at all"] and split_sentences("  \n ") == []


def test_the_extractive_answer_is_the_best_matching_sentence_of_the_retrieved_texts():
    answerer = RAGAnswerer(None, HashEmbedder(), TEXTS, top_k=2, answer_mode="extractive")  # no language model
    answers = answerer.answer(["how long does a replacement card take to arrive",
                               "how much do international transfers cost"])
    assert [a.text for a in answers] == ["A replacement card takes five working days to arrive.",
                                         "International transfers cost 15 EUR each."]
    assert answers[1].context == (TEXTS[0], TEXTS[2]) and answers[1].covered
    # equal embeddings (the same words in another order): the earlier text in retrieval order wins
    e = HashEmbedder()
    assert extract_answers(e, ["cards"], [["five take cards days.", "take five cards days."]]) == ["five take cards days."]
    assert extract_answers(e, ["cards"], [["take five cards days.", "five take cards days."]]) == ["take five cards days."]
    assert extract_answers(e, ["q", "r"], [[], ["One. Two."]])[0] == ""
    # a floor no text reaches: not covered, nothing extracted
    floor = RAGAnswerer(None, HashEmbedder(), TEXTS, top_k=2, answer_mode="extractive", min_similarity=0.99)
    assert floor.answer(["how much do international transfers cost"])[0].text == "The corpus does not cover this question."


def test_answer_mode_is_checked():
    with pytest.raises(ConfigError, match="`answer_mode` \\(--answer-mode\\) must be one of generate, extractive"):
        RAGAnswerer(None, HashEmbedder(), TEXTS, answer_mode="quote")
    with pytest.raises(ConfigError, match="there are no texts to retrieve \\(Non-RAG generates\\)"):
        RAGAnswerer(None, HashEmbedder(), [], answer_mode="extractive")


@pytest.mark.slow
def test_extractive_answers_with_the_offline_embedder(offline_embedder):
    answerer = RAGAnswerer(None, offline_embedder, TEXTS, top_k=2, answer_mode="extractive")
    answers = answerer.answer(["How do I block a lost card?", "How much is an international transfer?"])
    assert [a.text for a in answers] == ["Call us on 0800 000 000 to block a lost card.",
                                         "International transfers cost 15 EUR each."]


# ------------------------------------------------------------------------------------------ query


def _corpus(path: Path, texts, *, own_data: bool, dim: int = 16, epsilon: float = 10.0, embedder=None) -> Path:
    records = [{"id": 10 + i, "keyword": t.split()[-1], "noisy_count": 20, "text": t, "kept": True}
               for i, t in enumerate(texts)]
    config = {"epsilon": epsilon, **({"synthesis": "phrases", "phrase_scope": "collection"} if own_data else {})}
    manifest = {"method": "dp-synrag", "config": config, "model": {"spec": None, "name": "tiny-llama"},
                "embedder": {"spec": None}, "privacy": privacy_dict(), "not_for_release": True,
                **({"decoding": {"decoding": "phrase release", "phrase_scope": "collection"}} if own_data else {})}
    with CorpusWriter(path) as w:
        w.finish(records, manifest, embedder or HashEmbedder(dim))
    return path


@pytest.fixture()
def models(monkeypatch, tiny_lm):
    """The hash embedder; the tiny model, whose loads are counted (``models.lm``)."""
    from dpsynrag.models import Embedder, LanguageModel

    class Loads:
        lm = 0
        lengths: list[int] = []

    loads = Loads()
    generate = tiny_lm.generate_greedy

    def greedy(prompts, **kwargs):
        loads.lengths.append(kwargs["max_new_tokens"])
        return generate(prompts, **kwargs)

    def load_lm(cls, *a, **k):
        loads.lm += 1
        return tiny_lm

    tiny_lm.generate_greedy = greedy
    monkeypatch.setattr(LanguageModel, "load", classmethod(load_lm))
    monkeypatch.setattr(Embedder, "load", classmethod(lambda cls, *a, **k: HashEmbedder()))
    return loads


def test_an_own_data_corpus_answers_extractively_without_a_model(tmp_path, models):
    own = _corpus(tmp_path / "own", TEXTS, own_data=True)
    assert SyntheticCorpus.load(own).default_answer_mode == "extractive"
    assert SyntheticCorpus.load(_corpus(tmp_path / "med", TEXTS, own_data=False)).default_answer_mode == "generate"
    result = runner.invoke(app, ["query", str(own), "how much do international transfers cost", "--json"])
    assert result.exit_code == 0, result.output
    record = json.loads(result.output)
    # top-1 (the corpus's default depth): the best sentence of the first text
    assert record["answer"] == "International transfers cost 15 EUR each." and record["answer_mode"] == "extractive"
    assert [c["id"] for c in record["contexts"]] == [10] and models.lm == 0  # no language model loaded
    # a generation option with the extractive default is refused, naming the way out
    result = runner.invoke(app, ["query", str(own), "how much?", "--max-tokens", "8"])
    assert result.exit_code == 2
    assert ("--max-tokens chooses how the model generates, but this corpus answers extractively by default (an "
            "own-data corpus)") in _out(result) and "Add --answer-mode generate" in _out(result)
    result = runner.invoke(app, ["query", str(own), "how much?", "--answer-mode", "generate", "--max-tokens", "3", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["answer_mode"] == "generate" and models.lm == 1 and models.lengths == [3]
    result = runner.invoke(app, ["query", str(own), "how much?", "--answer-mode", "quote"])
    assert result.exit_code == 2 and "--answer-mode must be one of generate, extractive. Found 'quote'." in _out(result)


def test_query_and_eval_help_state_the_shared_answer_length():
    from dpsynrag.eval.presets import PRESETS
    from dpsynrag.rag.answer import DEFAULT_ANSWER_TOKENS

    assert PRESETS["own-cpu"].answer_tokens == PRESETS["cpu"].answer_tokens == DEFAULT_ANSWER_TOKENS == 24
    assert RAGAnswerer(None, HashEmbedder(), TEXTS).max_new_tokens == 24
    import typer

    commands = typer.main.get_command(app).commands
    helps = {name: {p.name: p.help or "" for p in commands[name].params} for name in ("query", "eval")}
    assert helps["query"]["max_tokens"].startswith("Answer length in tokens (default 24: the answer length of "
                                                   "`dpsynrag eval`'s presets cpu, demo, own-cpu and searchqa-cpu")
    assert helps["eval"]["answer_tokens"].startswith("Greedy answer length in tokens (default: the preset's: 24, the "
                                                     "default of `dpsynrag query --max-tokens` too")
    assert "extractive" in helps["query"]["answer_mode"] and "extractive" in helps["eval"]["answer_mode"]
    assert "Score this corpus folder" in helps["eval"]["corpus"]


# ------------------------------------------------------------------------------------------ eval --corpus


FACT_TEXTS = ["the patient has fever so the doctor has a blue skin test.", "the patient has rash so the blood test was bad.",
              "nothing about anyone here."]


class TopicEmbedder:
    """Two topic words and a constant: unit rows [fever count, rash count, 0.1] (no hash collisions)."""

    name = "topic-embedder"
    dim = 3

    def encode(self, texts, batch_size=1, progress=False):
        import numpy as np

        rows = np.array([[t.count("fever"), t.count("rash"), 0.1] for t in texts], np.float32).reshape(-1, 3)
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)


@pytest.fixture()
def owndata(tmp_path):
    records = tmp_path / "records.jsonl"
    rows = [{"rid": f"r{i}", "customer": f"Ann{chr(97 + i)} Lee",
             "message": f"the patient has {'fever' if i % 2 else 'rash'} and pain . call +44 20 7946 0000"}
            for i in range(24)]
    records.write_text("".join(json.dumps(r) + "\n" for r in rows))
    questions = tmp_path / "questions.jsonl"
    questions.write_text(
        json.dumps({"id": "q1", "question": "the patient has fever", "answers": ["blue skin test"]}) + "\n"
        + json.dumps({"id": "q2", "question": "the patient has rash", "answers": ["the blood test was bad"]}) + "\n")
    return records, questions


@pytest.fixture()
def echo(monkeypatch, tiny_lm):
    """The tiny model answers with the first 40 characters of its first document (or "I do not know")."""
    from dpsynrag.models import Embedder, LanguageModel

    def answer(prompts, *, max_new_tokens, batch_size=None, progress=False):
        return [m.group(1) if (m := re.search(r"\[1\] (.{0,40})", p)) else "I do not know" for p in prompts]

    tiny_lm.generate_greedy = answer
    monkeypatch.setattr(LanguageModel, "load", classmethod(lambda cls, *a, **k: tiny_lm))
    monkeypatch.setattr(Embedder, "load", classmethod(lambda cls, *a, **k: TopicEmbedder()))


def _eval(records, questions, out, *extra):
    return runner.invoke(app, ["eval", "--task", "own", "--database", str(records), "--queries", str(questions),
                               "--text-field", "message", "--id-field", "rid", "--identifier-field", "customer",
                               "--pii-allow", "+44 20 7946 0000", "--methods", "rag", "--out", str(out), "--no-plots",
                               *extra])


def test_eval_corpus_scores_the_given_folder_and_builds_nothing(tmp_path, owndata, echo):
    records, questions = owndata
    given = _corpus(tmp_path / "built", FACT_TEXTS, own_data=True, epsilon=5.0, embedder=TopicEmbedder())
    out = tmp_path / "run"
    result = _eval(records, questions, out, "--corpus", str(given))
    assert result.exit_code == 0, result.output
    saved = json.loads((out / "results.json").read_text())
    assert saved["config"]["corpus"] == str(given.resolve()) and saved["corpus"]["path"] == str(given.resolve())
    # own-cpu, the default preset of --task own: the corpora answer extractively, RAG over the file generates
    assert saved["answering"]["corpus_answer_mode"] == "extractive" and saved["answering"]["answer_mode"] == "generate"
    rows = {r["method"]: r for r in saved["methods"]}
    assert list(rows) == ["rag", "dp-synrag"]  # the corpus's method, added to --methods
    assert rows["rag"]["answer_mode"] == "generate" and "corpus" not in rows["rag"]
    row = rows["dp-synrag"]
    assert row["corpus"]["path"] == str(given.resolve()) and row["corpus"]["given"] is True
    assert row["epsilon"] == 5.0 and row["label"] == "DP-SynRAG, phrase release (ε=5), built" and row["answer_mode"] == "extractive"
    # its answers are its own texts' sentences (top-1): both correct
    assert row["accuracy"] == 1.0 and [e["answer"] for e in row["examples"]] == FACT_TEXTS[:2]
    assert not (out / "cache" / "corpora").exists()  # nothing built
    assert f"--corpus {given.resolve()}: a dp-synrag corpus at epsilon 5, scored as it is (not built here)" in _out(result)
    assert f"| scored corpus (--corpus) | {given.resolve()}" in (out / "results.md").read_text()
    assert "extractive answers (the best-matching sentence of its retrieved texts" in saved["corpus"]["note"]
    # generated answers of the same folder: the echo quotes 40 characters, which miss both facts
    result = _eval(records, questions, out, "--corpus", str(given), "--answer-mode", "generate")
    assert result.exit_code == 0, result.output
    saved = json.loads((out / "results.json").read_text())
    row = {r["method"]: r for r in saved["methods"]}["dp-synrag"]
    assert row["answer_mode"] == "generate" and row["accuracy"] == 0.0
    assert row["examples"][0]["answer"] == FACT_TEXTS[0][:40].strip()
    assert "answers by tiny-llama, the model it was built with" in saved["corpus"]["note"]
    assert not (out / "cache" / "corpora").exists()


def test_eval_corpus_refuses_another_embedder_before_the_language_model(tmp_path, owndata, echo, monkeypatch):
    from dpsynrag.models import LanguageModel

    records, questions = owndata
    given = _corpus(tmp_path / "small", FACT_TEXTS, own_data=True, dim=8)
    monkeypatch.setattr(LanguageModel, "load", classmethod(lambda cls, *a, **k: pytest.fail("the model was loaded")))
    result = _eval(records, questions, tmp_path / "run", "--corpus", str(given))
    assert result.exit_code == 2, result.output
    assert (f"--corpus {given} was built with the embedder 'hash-embedder' (8 dimensions), but this evaluation "
            "retrieves with 'topic-embedder' (3 dimensions)") in _out(result)
    assert "Evaluate it with no --embedder (the offline default)." in _out(result)
    result = _eval(records, questions, tmp_path / "run", "--corpus", str(tmp_path))
    assert result.exit_code == 2 and "is not a corpus folder (no manifest.json" in _out(result)
    result = _eval(records, questions, tmp_path / "run", "--corpus", str(given), "--experiment", "multi-query")
    assert result.exit_code == 2 and "the multi-query experiment builds its own corpora" in _out(result)


def test_eval_answer_mode_is_recorded_and_keeps_the_generated_answers_cache(tmp_path, owndata, echo):
    from dpsynrag.eval import EvalConfig
    from dpsynrag.eval.data import load_eval_data
    from dpsynrag.eval.runner import Harness

    records, questions = owndata
    result = _eval(records, questions, tmp_path / "run", "--answer-mode", "extractive", "--methods", "non-rag,rag")
    assert result.exit_code == 0, result.output
    saved = json.loads((tmp_path / "run" / "results.json").read_text())
    assert {r["method"]: r["answer_mode"] for r in saved["methods"]} == {"non-rag": "generate", "rag": "extractive"}
    assert ("| retrieval / answers | top-1; RAG: extractive (the best-matching sentence of the retrieved texts); synthetic "
            "corpora: extractive (the best-matching sentence of the retrieved texts); Non-RAG and DP-RAG: greedy, ≤ 24 "
            "tokens |") in (tmp_path / "run" / "results.md").read_text()
    # generated answers are cached under the identity they had before the answer mode existed
    config = EvalConfig.create(task="own", out=tmp_path / "o", database=records, queries=questions, text_field="message",
                               preset="cpu", methods="rag")
    h = Harness(config, load_eval_data(config), None, TopicEmbedder(), progress=False)
    assert "answer_mode" not in h.answer_identity(h.specs("rag", None))["answering"]
    with pytest.raises(ConfigError, match="must be one of generate, extractive"):
        EvalConfig.create(task="own", out=tmp_path / "o", database=records, queries=questions, answer_mode="quote")
