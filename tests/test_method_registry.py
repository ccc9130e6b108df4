"""The method registry (issue 13): a toy corpus method defined and registered in this file alone runs
through `dpsynrag build`, `budget`, `query`, `report` and `eval` (and its report) without any other module
knowing it; the built-in methods are all registered; registration refuses bad or duplicate names."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

import numpy as np
import pytest
from pydantic import Field
from typer.testing import CliRunner

from dpsynrag.cli import app
from dpsynrag.errors import ConfigError
from dpsynrag.methods import CorpusMethod, Option, get_method, method_names, register, unregister
from dpsynrag.pipeline.corpus_config import CorpusConfig
from dpsynrag.privacy.conversions import epsilon_from_rho, rho_from_epsilon
from dpsynrag.privacy.events import DiscreteGaussianEvent

runner = CliRunner()


# ------------------------------------------------------------------------------------------ the toy


@dataclass(frozen=True)
class ToyCalibration:
    sigma: float
    rho_total: float
    words: int

    def plan(self):
        # each document adds at most 1 to each word's count: L2 sensitivity sqrt(number of words)
        return DiscreteGaussianEvent("toy word counts", sensitivity=math.sqrt(self.words), sigma=self.sigma,
                                     dimension=self.words)

    def to_dict(self):
        return {"sigma": self.sigma, "rho_total": self.rho_total}


class ToyConfig(CorpusConfig):
    words: str = Field("fever,cough", min_length=1)

    @property
    def word_list(self) -> list[str]:
        return [w.strip() for w in self.words.split(",") if w.strip()]

    def calibrate(self) -> ToyCalibration:
        rho = rho_from_epsilon(self.epsilon, self.delta, conversion=self.conversion) * (1 - 1e-9)
        n = len(self.word_list)
        return ToyCalibration(sigma=math.sqrt(n / (2 * rho)), rho_total=rho, words=n)


class ToyCounts(CorpusMethod):
    """Noisy counts of public words, one sentence per word."""

    name = "toy-counts"
    label = "Toy counts"
    help = "toy: noisy counts of public words"
    options = (Option("--toy-words", "words", str, "Comma-separated public words (default fever,cough)."),)

    @property
    def config_type(self):
        return ToyConfig

    def generate(self, run):
        run.start()
        words = run.config.word_list
        counts = np.array([sum(w in d.text.lower().split() for d in run.documents) for w in words], dtype=np.int64)
        run.charge.commit()
        accountant = run.accountant()
        accountant.compose(run.cal.plan())
        noisy = counts + run.stream("privacy-noise").discrete_gaussian(run.cal.sigma, size=len(words)).astype(np.int64)
        texts = [f"About {int(c)} notes mention {w}." for w, c in zip(words, noisy)]
        kept = run.filter(texts)
        records = [{"id": i, "text": t, "kept": k} for i, (t, k) in enumerate(zip(texts, kept))]
        report = run.report(accountant, plan=run.cal.plan(), parameters=run.cal.to_dict())
        return run.finish(records, report)


@pytest.fixture()
def toy():
    method = register(ToyCounts())
    yield method
    unregister(method.name)


@pytest.fixture()
def notes(tmp_path):
    path = tmp_path / "notes.jsonl"
    rows = [{"text": f"patient {i} has {'fever' if i % 2 else 'cough'} and pain"} for i in range(40)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _out(result) -> str:
    return " ".join(result.output.split())


# ------------------------------------------------------------------------------------------ tests


def test_builtin_methods_registered_in_report_order():
    rivals = ["murag", "murag-ada", "dp-vote-rag", "dp-sparse-vote-rag", "dp-ksa"]  # issue 45, after DP-RAG
    assert method_names() == ["non-rag", "rag", "dp-rag", *rivals, "dp-synth", "aug-pe", "dp-synrag", "dp-synrag-l1",
                              "dp-synrag-no-outlier-removal", "dp-synrag-no-self-filter"]
    assert method_names("online") == ["non-rag", "rag", "dp-rag", *rivals]
    assert not get_method("rag").dp and get_method("rag").private_prompts and not get_method("non-rag").reads_private


def test_register_refuses_bad_and_duplicate_names(toy):
    with pytest.raises(ConfigError, match="registered already"):
        register(ToyCounts())
    bad = ToyCounts()
    bad.name = "Toy Counts"
    with pytest.raises(ConfigError, match="lower case"):
        register(bad)
    with pytest.raises(ConfigError, match="unknown method 'nope'"):
        get_method("nope")


def test_toy_budget_build_report_query(tmp_path, notes, toy):
    # budget: the toy's plan at (1, 1e-5): sigma = sqrt(2 / (2 rho)), epsilon within the target
    result = runner.invoke(app, ["budget", "--method", "toy-counts", "--epsilon", "1", "--delta", "1e-5",
                                 "--toy-words", "fever,cough", "--json"])
    assert result.exit_code == 0, result.output
    plan = json.loads(result.output)
    rho = rho_from_epsilon(1.0, 1e-5) * (1 - 1e-9)
    assert plan["rho_total"] == pytest.approx(rho, rel=1e-12)
    assert plan["mechanisms"][0]["sigma"] == pytest.approx(math.sqrt(2 / (2 * rho)), rel=1e-12)
    assert plan["epsilon"] <= 1.0 and plan["epsilon"] == pytest.approx(epsilon_from_rho(rho, 1e-5), rel=1e-12)

    # an option of another method is refused; the toy's own option is refused for other methods
    result = runner.invoke(app, ["build", str(notes), "--out", str(tmp_path / "x"), "--epsilon", "1", "--delta", "1e-5",
                                 "--method", "toy-counts", "--K", "3"])
    assert result.exit_code == 2 and "--K does not apply to --method toy-counts" in _out(result)
    result = runner.invoke(app, ["build", str(notes), "--out", str(tmp_path / "x"), "--epsilon", "1", "--delta", "1e-5",
                                 "--toy-words", "fever"])
    assert result.exit_code == 2 and "--toy-words does not apply to --method dp-synrag" in _out(result)

    out = tmp_path / "toy"
    result = runner.invoke(app, ["build", str(notes), "--out", str(out), "--epsilon", "1", "--delta", "1e-5",
                                 "--method", "toy-counts", "--toy-words", "fever,cough,rash", "--no-self-filter",
                                 "--seed", "0"])
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["method"] == "toy-counts" and manifest["config"]["words"] == "fever,cough,rash"
    texts = [json.loads(line)["text"] for line in (out / "texts.jsonl").read_text().splitlines()]
    assert [t.split()[-1] for t in texts] == ["fever.", "cough.", "rash."]
    assert manifest["privacy"]["epsilon"] <= 1.0

    result = runner.invoke(app, ["report", str(out), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["mechanisms"][0]["name"] == "toy word counts"

    result = runner.invoke(app, ["query", str(out), "How many notes mention fever?", "--method", "toy-counts",
                                 "--top-k", "1", "--max-tokens", "4", "--show-context"])
    assert result.exit_code == 0, result.output
    assert "notes mention fever." in result.output


def test_toy_through_eval_and_its_report(tmp_path, toy, offline_lm, offline_embedder):
    from dpsynrag.eval import EvalConfig, run_eval

    config = EvalConfig.create(task="medical", out=tmp_path / "eval", methods="non-rag,toy-counts", preset="cpu",
                               documents=40, questions=2, attacks=1, answer_tokens=4, top_k=1,
                               params={"toy-counts": {"words": "fever,rash"}})
    results = run_eval(config, lm=offline_lm, embedder=offline_embedder, progress=False, log=lambda s: None)
    rows = {r["method"]: r for r in results["methods"]}
    assert set(rows) == {"non-rag", "toy-counts"}
    toy_row = rows["toy-counts"]
    assert "error" not in toy_row, toy_row.get("error")
    assert toy_row["label"] == "Toy counts (ε=10)" and toy_row["delta"] == 1e-3
    assert toy_row["privacy"]["epsilon"] <= 10.0 and toy_row["corpus"]["texts"] == 2
    assert toy_row["context_recall"] is not None  # a corpus method retrieves: its context recall is scored
    assert "Toy counts (ε=10)" in (tmp_path / "eval" / "results.md").read_text()


def test_open_vocabulary_delta_implies_open_vocabulary():
    from pydantic import ValidationError

    from dpsynrag.pipeline.config import BuildConfig

    assert BuildConfig(epsilon=10, delta=1e-3, open_vocabulary_delta=1e-4).open_vocabulary is True
    with pytest.raises(ValidationError, match="open_vocabulary"):
        BuildConfig(epsilon=10, delta=1e-3, open_vocabulary=False, open_vocabulary_delta=1e-4)
