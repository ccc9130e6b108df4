"""`dpsynrag budget`: calibrated parameters and the privacy report, as JSON and as tables."""

import json

import pytest
from fakes import HashEmbedder
from typer.testing import CliRunner

from dpsynrag.cli import app
from dpsynrag.pipeline.build import build_corpus
from dpsynrag.pipeline.config import BuildConfig

runner = CliRunner()
DOCS = [f"the {who} has {what} and {where} pain" for who in ("patient", "doctor") for what in ("fever", "cough", "flu")
        for where in ("head", "leg", "arm")]


def test_budget_json_paper_values():
    result = runner.invoke(app, ["budget", "--epsilon", "10", "--delta", "1e-3", "--preset", "paper", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    for key in ("rho_total", "epsilon", "delta", "epsilon_tight", "sigma_hist", "sigma_embed", "epsilon_theta", "clip", "mechanisms"):
        assert key in report
    assert report["rho_total"] == pytest.approx(2.2012, abs=1e-4)
    assert report["epsilon"] == pytest.approx(10.0, abs=1e-6) and report["epsilon"] <= 10.0
    assert report["epsilon_tight"] == pytest.approx(8.955, abs=0.01)
    assert report["sigma_hist"] == pytest.approx(7.071, abs=5e-4)
    assert report["sigma_embed"] == pytest.approx(7.454, abs=5e-4)
    assert report["clip"] == pytest.approx(0.1057, abs=5e-4)
    kinds = [m["mechanism"] for m in report["mechanisms"]]
    assert kinds == ["discrete_gaussian", "overlapping_parallel_composition"]
    assert report["mechanisms"][1]["multiplier"] == 5
    assert report["realised_spend"] is None  # a plan, not a run


def test_budget_prints_the_plan_the_build_reports(tmp_path, tiny_lm):
    """Issue 12 (5): `budget` builds the same BuildConfig, calibration and plan as `build`. At R = 3 < L = 5
    both spend epsilon = 10 over min(L, R) = 3 clusters (a re-implementation with L printed 7.49)."""
    args = ["--epsilon", "10", "--delta", "1e-3", "--preset", "paper", "--R", "3", "--L", "5", "--T", "4", "--json"]
    result = runner.invoke(app, ["budget", *args])
    assert result.exit_code == 0, result.output
    planned = json.loads(result.output)
    config = BuildConfig(epsilon=10.0, delta=1e-3, R=3, L=5, T=4, k=2, extractor="rarity", self_filter=False, seed=0)
    corpus = build_corpus(DOCS, tmp_path / "c", config, lm=tiny_lm, embedder=HashEmbedder())
    built = corpus.manifest["privacy"]
    assert planned["epsilon"] == pytest.approx(10.0, abs=1e-6) and planned["epsilon"] <= 10.0
    for key in ("epsilon", "epsilon_tight", "rho_total", "delta_terms", "delta", "mechanisms"):
        assert built[key] == planned[key], key
    assert planned["mechanisms"][1]["multiplier"] == 3 and planned["mechanisms"][1]["num_branches"] == 3
    assert {k: built["parameters"][k] for k in planned["parameters"]} == planned["parameters"]


def test_budget_open_vocabulary_plan():
    result = runner.invoke(
        app, ["budget", "--epsilon", "10", "--delta", "1e-3", "--open-vocabulary", "--K", "3", "--R", "8", "--L", "8", "--json"]
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    hist = report["mechanisms"][0]
    assert hist["mechanism"] == "discrete_gaussian_sparse_histogram" and hist["threshold"] == int(hist["threshold"])
    assert 0 < report["delta_terms"] == hist["delta"] <= 1e-4  # the default delta/10, as in the build
    assert report["mechanisms"][1]["multiplier"] == 3  # min(L, R, K): a document holds at most K = 3 keywords
    assert report["epsilon"] <= 10.0


def test_budget_table_and_options():
    result = runner.invoke(
        app, ["budget", "--epsilon", "10", "--delta", "1e-3", "--K", "5", "--L", "3", "--T", "32", "--conversion", "cks"]
    )
    assert result.exit_code == 0, result.output
    assert "Privacy report" in result.output and "epsilon (tight, CKS)" in result.output


def test_budget_prints_the_plans_notes():
    """The notes that the build's report will carry (the preset's and the slot template's) are printed with
    the plan, as ``dpsynrag report`` prints them."""
    args = ["budget", "--epsilon", "10", "--delta", "1e-3", "--T", "32", "--response-template", "The diagnosis is {8}."]
    notes = json.loads(runner.invoke(app, [*args, "--json"]).output)["notes"]
    assert any(n.startswith("slot-template decoding: the public template 'The diagnosis is {8}.'") for n in notes)
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    printed = " ".join(result.output.split())
    assert printed.count("note: ") == len(notes) and all(f"note: {' '.join(n.split())}" in printed for n in notes)


@pytest.mark.parametrize(
    "args, message",
    [
        (["--epsilon", "1", "--delta", "1e-3"], "keyword histogram"),
        (["--epsilon", "0", "--delta", "1e-3"], "epsilon"),
        (["--epsilon", "10", "--delta", "2"], "delta"),
        (["--epsilon", "10", "--delta", "1e-3", "--tau", "0"], "temperature"),
        (["--epsilon", "10", "--delta", "1e-3", "--T", "0"], "`T`"),
    ],
)
def test_budget_bad_input_exits_2_with_message(args, message):
    result = runner.invoke(app, ["budget", *args])
    assert result.exit_code == 2
    assert message in result.output
