"""A corpus empty of content says so: the kept-text count and a warning from `build` and `report`, `query`
refusing a corpus with no kept text (exit 2, no answer from the model's prior), and parameters that cannot
work refused with the flag named. Corpora are written directly (no build); models are the tiny fakes."""

from __future__ import annotations

import json

import pytest
from fakes import HashEmbedder
from pydantic import ValidationError
from typer.testing import CliRunner

from dpsynrag.cli import app
from dpsynrag.corpus import CorpusWriter, SyntheticCorpus, content_warning
from dpsynrag.errors import ConfigError, CorpusError
from dpsynrag.pipeline.config import BuildConfig
from servers import privacy_dict

runner = CliRunner()


def _corpus(path, kept: list[bool]) -> SyntheticCorpus:
    records = [{"id": i, "keyword": f"w{i}", "text": f"the patient has fever {i}", "kept": k} for i, k in enumerate(kept)]
    manifest = {"method": "dp-synrag", "config": {}, "model": {"spec": None, "name": "tiny-llama"},
                "embedder": {"spec": None},
                "privacy": privacy_dict()}
    with CorpusWriter(path) as writer:
        return writer.finish(records, manifest, HashEmbedder())


@pytest.fixture()
def fake_models(monkeypatch, tiny_lm):
    """`query` loads the corpus's models: hand it the tiny model and the hash embedder."""
    from dpsynrag.models import Embedder, LanguageModel

    monkeypatch.setattr(LanguageModel, "load", classmethod(lambda cls, *a, **k: tiny_lm))
    monkeypatch.setattr(Embedder, "load", classmethod(lambda cls, *a, **k: HashEmbedder()))


def test_content_warning_none_few_enough():
    assert "no synthetic text was kept (0 of 8)" in content_warning(0, 8)
    assert "no synthetic text was kept (0 of 0)" in content_warning(0, 0)
    assert "only 1 of 8" in content_warning(1, 8)  # 1/8 < 1/4
    assert content_warning(2, 8) is None and content_warning(3, 3) is None


def test_empty_corpus_refuses_to_answer_before_loading_a_model(tmp_path, monkeypatch):
    from dpsynrag.models import LanguageModel

    monkeypatch.setattr(LanguageModel, "load", classmethod(lambda cls, *a, **k: pytest.fail("a model was loaded")))
    corpus = _corpus(tmp_path / "empty", [False] * 8)
    assert corpus.texts == [] and "0 of 8" in corpus.content_warning
    with pytest.raises(CorpusError, match="keeps no synthetic text"):
        corpus.answer_many(["what is my disease?"])
    with pytest.raises(CorpusError):
        corpus.answer("what is my disease?")

    result = runner.invoke(app, ["query", str(tmp_path / "empty"), "What is my disease?"])
    assert result.exit_code == 2
    assert "keeps no synthetic text" in " ".join(result.output.split())

    result = runner.invoke(app, ["report", str(tmp_path / "empty")])
    assert result.exit_code == 0, result.output
    out = " ".join(result.output.split())
    assert "0 of 8 texts kept" in out and "warning: no synthetic text was kept (0 of 8)" in out


def test_few_texts_answer_with_a_warning_and_enough_without(tmp_path, fake_models):
    _corpus(tmp_path / "few", [True] + [False] * 7)
    result = runner.invoke(app, ["query", str(tmp_path / "few"), "the patient has fever", "--show-context"])
    assert result.exit_code == 0, result.output
    out = " ".join(result.output.split())
    assert "warning: only 1 of 8 synthetic texts were kept" in out and "context [1] (similarity" in out and "): the patient has fever 0" in out

    _corpus(tmp_path / "full", [True, True, False])
    result = runner.invoke(app, ["query", str(tmp_path / "full"), "the patient has fever"])
    assert result.exit_code == 0 and "warning" not in result.output
    result = runner.invoke(app, ["report", str(tmp_path / "full")])
    assert "2 of 3 texts kept" in result.output and "warning" not in result.output

    result = runner.invoke(app, ["query", str(tmp_path / "full"), "fever?", "--top-k", "0"])
    assert result.exit_code == 2 and "--top-k" in result.output


def test_k_zero_and_other_unusable_parameters_are_refused():
    with pytest.raises(ValidationError, match="greater than or equal to 1"):
        BuildConfig(epsilon=10, delta=1e-3, k=0)
    assert BuildConfig(epsilon=10, delta=1e-3, k=1).k == 1


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--k", "0"], "--k (`k`): Input should be greater than or equal to 1"),
        (["--T", "0"], "--T (`T`)"),
        (["--R", "0"], "--R (`R`)"),
        (["--L", "0"], "--L (`L`)"),
        (["--tau", "0"], "--tau (`temperature`)"),
        (["--language", "xx"], "--language (`language`)"),
        (["--method", "dp-synth", "--language", "de"], "--language does not apply to --method dp-synth"),
    ],
)
def test_build_refuses_parameters_that_cannot_work(tmp_path, monkeypatch, extra, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "x.jsonl").write_text(json.dumps({"text": "a document"}) + "\n")
    result = runner.invoke(app, ["build", "x.jsonl", "--out", "o", "--epsilon", "10", "--delta", "1e-3", *extra])
    assert result.exit_code == 2, result.output
    assert message in " ".join(result.output.split())
    assert not (tmp_path / "o").exists()


def test_build_states_the_kept_count_and_warns_when_empty(tmp_path, monkeypatch):
    import dpsynrag.pipeline.build as build_module

    monkeypatch.setattr(build_module, "build_corpus", lambda documents, out, config, **kw: _corpus(out, [False] * 8))
    (tmp_path / "x.jsonl").write_text(json.dumps({"text": "a document"}) + "\n")
    result = runner.invoke(app, ["build", str(tmp_path / "x.jsonl"), "--out", str(tmp_path / "c"), "--epsilon", "10",
                                 "--delta", "1e-3", "--no-self-filter"])
    assert result.exit_code == 0, result.output
    out = " ".join(result.output.split())
    assert "0 of 8 synthetic texts kept" in out and "warning: no synthetic text was kept (0 of 8)" in out


class _CountingLM:
    """Records every prompt it is asked; answers with the prompt's last context line."""

    def __init__(self):
        self.prompts = []

    def chat_prompt(self, user, system=None):
        return user

    def generate_greedy(self, prompts, max_new_tokens=64, batch_size=None, progress=False):
        self.prompts += list(prompts)
        return [" answer" for _ in prompts]


def test_a_question_no_text_reaches_is_not_covered_and_the_model_is_not_asked():
    """Issue 41 (3): with a public similarity floor, a question whose retrieved texts are all below it is
    answered NOT_COVERED without asking the model; texts below the floor are not given to the model."""
    from dpsynrag.rag import NOT_COVERED, RAGAnswerer

    emb, lm = HashEmbedder(), _CountingLM()
    texts = ["the transfer fee is 15 EUR", "a new card arrives in 5 days", "zebra"]
    exact = float(emb.encode([texts[0]])[0] @ emb.encode([texts[0]])[0])
    assert exact == pytest.approx(1.0, abs=1e-6)
    answerer = RAGAnswerer(lm, emb, texts, top_k=3, min_similarity=0.99)
    covered, missed = answerer.answer([texts[0], "quantum chromodynamics lattice"])
    assert covered.covered and covered.text == "answer" and covered.context == (texts[0],)
    assert covered.scores[0] == pytest.approx(1.0, abs=1e-6)
    assert not missed.covered and missed.text == NOT_COVERED and missed.context == ()
    assert len(lm.prompts) == 1 and "quantum" not in lm.prompts[0]
    assert "a new card" not in lm.prompts[0]  # under the floor: not given
    plain = RAGAnswerer(lm, emb, texts, top_k=3).answer(["quantum chromodynamics lattice"])[0]
    assert plain.covered and len(plain.context) == 3  # no floor: as before
    for bad in (1.5, -2, True, "0.3"):
        with pytest.raises(ConfigError, match="min_similarity"):
            RAGAnswerer(lm, emb, texts, min_similarity=bad)


def test_query_labels_contexts_and_answer_and_says_when_not_covered(tmp_path, fake_models):
    _corpus(tmp_path / "c", [True, True, True])
    result = runner.invoke(app, ["query", str(tmp_path / "c"), "the patient has fever 1", "--show-context"])
    assert result.exit_code == 0, result.output
    assert "context [1] (similarity 1.000): the patient has fever 1" in result.output
    assert "answer: " in result.output
    result = runner.invoke(app, ["query", str(tmp_path / "c"), "unrelated words entirely", "--show-context",
                                 "--min-similarity", "0.99"])
    assert result.exit_code == 0, result.output
    out = " ".join(result.output.split())
    assert "under the floor 0.99: not given to the model" in out
    assert out.endswith("answer: The corpus does not cover this question.")
    result = runner.invoke(app, ["query", str(tmp_path / "c"), "unrelated words entirely", "--json",
                                 "--min-similarity", "0.99"])
    payload = json.loads(result.stdout)
    assert payload["covered"] is False and payload["answer"] == "The corpus does not cover this question."
    assert payload["contexts"] and not any(c["given"] for c in payload["contexts"])
