"""Issue 15 (2): the persistent privacy-budget ledger per dataset — builds and DP-RAG queries are
recorded across sessions and processes, a lifetime budget refuses before anything is drawn, and
concurrent writers never overspend together."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest
from fakes import HashEmbedder
from typer.testing import CliRunner

from dpsynrag.baselines import DPRAGConfig, DPRAGSession
from dpsynrag.cli import app
from dpsynrag.data.io import Document
from dpsynrag.errors import PrivacyBudgetExceededError
from dpsynrag.pipeline.build import build_corpus
from dpsynrag.pipeline.config import BuildConfig
from dpsynrag.privacy.conversions import epsilon_from_rho
from dpsynrag.privacy.fingerprints import dataset_fingerprint
from dpsynrag.privacy.ledger import LEDGER_ENV, PrivacyLedger
from dpsynrag.privacy.lifetime import lifetime_epsilon

runner = CliRunner()
DOCS = ["the patient has fever and cough", "the patient has rash on skin", "the doctor has a test of blood",
        "the patient has pain in the head", "a patient with flu has fever", "the old patient has a bad cough"]


def test_fingerprint_is_the_collection_of_texts():
    fp = dataset_fingerprint(DOCS)
    assert len(fp) == 64
    assert dataset_fingerprint([Document(id=f"x{i}", text=t) for i, t in enumerate(reversed(DOCS))]) == fp
    assert dataset_fingerprint(DOCS[:-1]) != fp
    assert dataset_fingerprint([*DOCS[:-1], DOCS[-1] + "."]) != fp


def test_totals_compose_rho_and_delta_by_adding(tmp_path):
    led = PrivacyLedger(tmp_path)
    led.record("d" * 64, kind="build", method="dp-synrag", label="a", rho=0.5, delta_terms=1e-6, delta=1e-5)
    led.record("d" * 64, kind="dp-rag query", method="dp-rag", label="b", rho=0.25, delta_terms=0.0, delta=2e-5, count=2)
    led.record("e" * 64, kind="build", method="dp-synth", label="c", rho=9.0, delta_terms=0.0, delta=1e-3)
    t = led.totals("d" * 64)
    assert t["releases"] == 2 and t["rho"] == 0.75 and t["delta"] == pytest.approx(3e-5, rel=1e-15)
    assert t["delta_terms"] == 1e-6
    # Bun–Steinke closed form at the summed delta minus the delta terms
    assert t["epsilon"] == pytest.approx(0.75 + 2 * math.sqrt(0.75 * math.log(1 / (3e-5 - 1e-6))), rel=1e-12)
    assert t["epsilon_tight"] == epsilon_from_rho(0.75, 3e-5 - 1e-6, conversion="cks") < t["epsilon"]
    assert [r.label for r in led.releases("d" * 64)] == ["a", "b"] and led.datasets() == ["d" * 64, "e" * 64]
    assert PrivacyLedger(tmp_path).totals("e" * 64)["rho"] == 9.0  # persistent: a new object, same file
    assert (tmp_path / "ledger.sqlite").stat().st_mode & 0o077 == 0  # owner-only


def test_budget_refuses_and_records_nothing(tmp_path):
    led = PrivacyLedger(tmp_path)
    ds = "f" * 64
    cost = dict(kind="build", method="dp-synrag", label="x", rho=1.0, delta_terms=0.0, delta=1e-5)
    eps2 = lifetime_epsilon(2.0, 0.0, 2e-5)
    led.set_budget(ds, eps2 * (1 + 1e-6))  # room for exactly two such releases
    led.record(ds, **cost)
    led.record(ds, **cost)
    with pytest.raises(PrivacyBudgetExceededError, match="lifetime budget"):
        led.record(ds, **cost)
    assert led.totals(ds)["releases"] == 2
    # --lifetime-epsilon: a limit of this ledger object only, checked with the stored budget
    with pytest.raises(PrivacyBudgetExceededError, match="--lifetime-epsilon"):
        PrivacyLedger(tmp_path, lifetime_epsilon=1.0).record("0" * 64, **cost)
    assert "0" * 64 not in led.datasets()
    led.set_budget(ds, 1000.0, delta=2.5e-5)  # summed delta capped: a third 1e-5 does not fit
    with pytest.raises(PrivacyBudgetExceededError, match="summed delta"):
        led.record(ds, **cost)


_WRITER = """
import sys
from dpsynrag.errors import PrivacyBudgetExceededError
from dpsynrag.privacy.ledger import PrivacyLedger

led = PrivacyLedger(sys.argv[1])
ok = refused = 0
for i in range(30):
    try:
        led.record("c" * 64, kind="build", method="dp-synrag", label=sys.argv[2], rho=0.01, delta_terms=0.0, delta=1e-6)
        ok += 1
    except PrivacyBudgetExceededError:
        refused += 1
print(ok, refused)
"""


def test_two_processes_never_overspend_together(tmp_path):
    led = PrivacyLedger(tmp_path)
    eps40, eps41 = lifetime_epsilon(0.4, 0.0, 40e-6), lifetime_epsilon(0.41, 0.0, 41e-6)
    led.set_budget("c" * 64, (eps40 + eps41) / 2)  # exactly 40 releases of rho 0.01 fit
    procs = [subprocess.Popen([sys.executable, "-c", _WRITER, str(tmp_path), name], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for name in ("p1", "p2")]
    outs = [p.communicate(timeout=600) for p in procs]
    assert all(p.returncode == 0 for p in procs), [o[1] for o in outs]
    counts = [tuple(map(int, o[0].split())) for o in outs]
    assert sum(ok for ok, _ in counts) == 40 and sum(r for _, r in counts) == 20
    t = led.totals("c" * 64)
    assert t["releases"] == 40 and t["rho"] == pytest.approx(0.4, rel=1e-12) and t["epsilon"] <= t["budget"]["epsilon"]


def _tiny_build(tmp_path, lm, name, epsilon, ledger):
    config = BuildConfig(epsilon=epsilon, delta=1e-3, K=3, R=2, L=1, k=2, T=2, extractor="rarity", self_filter=False,
                         seed=0)
    return build_corpus(DOCS, tmp_path / name, config, lm=lm, embedder=HashEmbedder(), ledger=ledger), config


def test_build_is_recorded_and_an_over_budget_build_is_refused_before_anything_is_drawn(tmp_path, tiny_lm, monkeypatch):
    led = PrivacyLedger(tmp_path / "ledger", lifetime_epsilon=14.0)
    corpus, config = _tiny_build(tmp_path, tiny_lm, "first", 10.0, led)
    [release] = led.releases()
    assert release.dataset == dataset_fingerprint(DOCS) and release.kind == "build" and release.method == "dp-synrag"
    assert release.rho == corpus.manifest["privacy"]["rho_total"] == config.plan().rho
    assert release.delta == 1e-3 and release.delta_terms == corpus.manifest["privacy"]["delta_terms"]
    assert release.label == str((tmp_path / "first").resolve())

    import dpsynrag.pipeline.build as build_module

    def no_draw(*a, **k):
        raise AssertionError("a mechanism ran")

    monkeypatch.setattr(build_module, "gaussian_histogram", no_draw)
    # a second build at epsilon 10 composes (zCDP, rho 2 x 2.2012 at summed delta 2e-3) to epsilon 14.86 > 14
    assert lifetime_epsilon(2 * release.rho, 0.0, 2e-3) == pytest.approx(14.86, abs=0.01)
    with pytest.raises(PrivacyBudgetExceededError, match="--lifetime-epsilon"):
        _tiny_build(tmp_path, tiny_lm, "second", 10.0, led)
    assert not (tmp_path / "second").exists() and len(led.releases()) == 1
    # the stored budget applies to every later build, with or without --lifetime-epsilon
    led.set_budget(release.dataset, 12.0)
    with pytest.raises(PrivacyBudgetExceededError, match="set-budget"):
        _tiny_build(tmp_path, tiny_lm, "third", 10.0, PrivacyLedger(tmp_path / "ledger"))
    assert len(led.releases()) == 1


def _session(tiny_lm, ledger, seed=0):
    config = DPRAGConfig(epsilon_per_query=2.0, delta=1e-3, utility="top-k", top_k=2, max_new_tokens=3,
                         max_document_tokens=12, public_weight=0.0)
    return DPRAGSession(DOCS, config, lm=tiny_lm, embedder=HashEmbedder(dim=32), seed=seed, ledger=ledger)


def test_dp_rag_queries_are_recorded_across_sessions_and_refused_over_budget(tmp_path, tiny_lm):
    led = PrivacyLedger(tmp_path)
    s1 = _session(tiny_lm, led)
    s1.answer(["the patient has fever", "pain in the head"])
    s2 = _session(tiny_lm, led)  # a new session: the ledger remembers the first
    s2.answer(["what test was good"])
    rho_q = s1.calibration.rho_query
    t = led.totals(dataset_fingerprint(DOCS))
    assert [r.count for r in led.releases()] == [2, 1] and t["rho"] == pytest.approx(3 * rho_q, rel=1e-12)
    assert t["delta"] == pytest.approx(3e-3) and t["epsilon"] == epsilon_from_rho(t["rho"], t["delta"])
    led.set_budget(dataset_fingerprint(DOCS), lifetime_epsilon(4 * rho_q, 0.0, 4e-3) * (1 + 1e-9))  # one more fits
    with pytest.raises(PrivacyBudgetExceededError, match="lifetime"):
        s2.answer(["fever?", "cough?"])  # two do not: refused before anything is charged or drawn
    assert s2.queries == 1 and len(led.releases()) == 2
    s2.answer(["fever?"])
    with pytest.raises(PrivacyBudgetExceededError, match="lifetime"):
        _session(tiny_lm, led)  # a new session cannot pay for one query: refused before loading anything
    assert led.totals(dataset_fingerprint(DOCS))["releases"] == 3


# -- the command line ----------------------------------------------------------------------------------


@pytest.fixture()
def data_file(tmp_path):
    path = tmp_path / "notes.jsonl"
    path.write_text("".join(json.dumps({"body": t}) + "\n" for t in DOCS))
    return path


def test_cli_build_over_lifetime_budget_is_refused_before_loading_a_model(tmp_path, data_file, monkeypatch):
    from dpsynrag.models import LanguageModel

    monkeypatch.setattr(LanguageModel, "load", classmethod(lambda cls, *a, **k: pytest.fail("model loaded")))
    led = PrivacyLedger(tmp_path / "led")
    led.record(dataset_fingerprint(DOCS), kind="build", method="dp-synrag", label="earlier", rho=2.2, delta_terms=0.0,
               delta=1e-3)
    args = ["build", str(data_file), "--out", str(tmp_path / "c"), "--epsilon", "10", "--delta", "1e-3", "--text-field",
            "body", "--no-self-filter", "--ledger", str(tmp_path / "led")]
    result = runner.invoke(app, [*args, "--lifetime-epsilon", "12"])
    assert result.exit_code == 2, result.output
    assert "--lifetime-epsilon" in " ".join(result.output.split()) and not (tmp_path / "c").exists()
    result = runner.invoke(app, ["ledger", "set-budget", str(data_file), "--text-field", "body", "--epsilon", "12",
                                 "--ledger", str(tmp_path / "led")])
    assert result.exit_code == 0, result.output
    result = runner.invoke(app, args)  # the stored budget refuses without the flag too
    assert result.exit_code == 2 and "set-budget" in " ".join(result.output.split())
    assert len(led.releases()) == 1


def test_cli_ledger_show_and_dp_rag_queries_across_calls(tmp_path, data_file, monkeypatch, tiny_lm):
    from dpsynrag.models import Embedder, LanguageModel

    monkeypatch.setattr(LanguageModel, "load", classmethod(lambda cls, *a, **k: tiny_lm))
    monkeypatch.setattr(Embedder, "load", classmethod(lambda cls, *a, **k: HashEmbedder(dim=32)))
    monkeypatch.setenv(LEDGER_ENV, str(tmp_path / "led"))  # the default ledger folder
    base = ["query", "--method", "dp-rag", "--documents", str(data_file), "--text-field", "body", "--epsilon-per-query",
            "2", "--delta", "1e-3", "--utility", "top-k", "--top-k", "2", "--T", "3", "--public-weight", "0",
            "--max-document-tokens", "12", "--seed", "0"]
    for n in (1, 2):
        result = runner.invoke(app, [*base, "the patient has fever?"])
        assert result.exit_code == 0, result.output
        assert f"has {n} release(s)" in " ".join(result.output.split())
    result = runner.invoke(app, ["ledger", "show", "--json"])
    assert result.exit_code == 0, result.output
    shown = json.loads(result.output)["datasets"][dataset_fingerprint(DOCS)]
    assert [r["kind"] for r in shown["releases"]] == ["dp-rag query", "dp-rag query"]
    assert shown["totals"]["epsilon"] == pytest.approx(epsilon_from_rho(shown["totals"]["rho"], 2e-3), rel=1e-12)
    result = runner.invoke(app, ["ledger", "show", dataset_fingerprint(DOCS)[:10]])
    assert result.exit_code == 0 and "Bun-Steinke" in result.output and "CKS" in result.output
    result = runner.invoke(app, [*base, "--lifetime-epsilon", "2", "again?"])  # 3 x 2 basic, ~3.5 zCDP > 2
    assert result.exit_code == 2 and "lifetime epsilon" in " ".join(result.output.split())
    assert len(PrivacyLedger(tmp_path / "led").releases()) == 2


def _build_args(tmp_path, data_file, out="c"):
    return ["build", str(data_file), "--out", str(tmp_path / out), "--epsilon", "8", "--delta", "1e-3", "--text-field",
            "body", "--no-self-filter", "--K", "3", "--R", "2", "--L", "1", "--k", "2", "--T", "2", "--extractor",
            "rarity", "--seed", "0", "--preset", "paper", "--ledger", str(tmp_path / "led"),
            "--yes"]  # the same documents again: a re-release (issue 43)


def test_cli_a_build_failing_after_its_charge_says_the_charge_stands(tmp_path, data_file, monkeypatch, tiny_lm):
    """The ledger records a build before its first draw; when it fails after that, the error says that the
    charge stands (epsilon, release, ledger path), for a library error and an unexpected one alike."""
    from dpsynrag.corpus.writer import CorpusWriter
    from dpsynrag.errors import CorpusError, ModelLoadError
    from dpsynrag.models import Embedder, LanguageModel

    monkeypatch.setattr(LanguageModel, "load", classmethod(lambda cls, *a, **k: tiny_lm))
    monkeypatch.setattr(Embedder, "load", classmethod(lambda cls, *a, **k: HashEmbedder(dim=32)))

    def disk_full(self, *a, **k):
        raise CorpusError("cannot write the corpus folder: disk full")

    monkeypatch.setattr(CorpusWriter, "finish_with_owner", disk_full)
    result = runner.invoke(app, _build_args(tmp_path, data_file))
    assert result.exit_code == 2, result.output
    led = PrivacyLedger(tmp_path / "led")
    (r,) = led.releases()
    out = " ".join(result.output.split())
    assert "disk full" in out
    assert (f"The privacy ledger charge stands: this build was charged epsilon={lifetime_epsilon(r.rho, r.delta_terms, 1e-3):.4f} "
            f"(rho={r.rho:.6g}, delta=0.001; release {r.id} in {led.path}) before it failed") in out
    assert lifetime_epsilon(r.rho, r.delta_terms, r.delta) == pytest.approx(8.0, rel=1e-6)  # the build's epsilon

    def crash(self, *a, **k):
        raise RuntimeError("unexpected")

    monkeypatch.setattr(CorpusWriter, "finish_with_owner", crash)
    result = runner.invoke(app, _build_args(tmp_path, data_file, out="c2"))
    assert isinstance(result.exception, RuntimeError)
    r2 = led.releases()[-1]
    assert r2.id == r.id + 1 and f"release {r2.id} in {led.path}" in " ".join(result.output.split())

    def no_model(cls, *a, **k):
        raise ModelLoadError("no such model")

    monkeypatch.setattr(LanguageModel, "load", classmethod(no_model))  # fails before the charge: nothing to say
    result = runner.invoke(app, _build_args(tmp_path, data_file, out="c3"))
    assert result.exit_code == 2 and "no such model" in result.output
    assert "charge stands" not in result.output and len(led.releases()) == 2


def test_cli_ledger_show_refuses_a_missing_ledger_and_never_creates_one(tmp_path, monkeypatch):
    typo = tmp_path / "ledgr"
    result = runner.invoke(app, ["ledger", "show", "--ledger", str(typo)])
    assert result.exit_code == 2
    assert f"no privacy ledger at {typo / 'ledger.sqlite'} (--ledger)" in " ".join(result.output.split())
    assert not typo.exists()
    monkeypatch.setenv(LEDGER_ENV, str(typo))  # the default folder too
    result = runner.invoke(app, ["ledger", "show", "--json"])
    assert result.exit_code == 2 and not typo.exists()
    PrivacyLedger(typo)  # an existing, empty ledger is shown
    result = runner.invoke(app, ["ledger", "show", "--ledger", str(typo)])
    assert result.exit_code == 0 and "no release recorded" in result.output
