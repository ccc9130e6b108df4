"""Issue 43 (3): a build whose documents already have releases in the ledger says so before it spends
(how many documents or persons, their lifetime epsilon now and after the build), stops in a
non-interactive run without --yes, asks in an interactive one; `ledger show` lists the files each dataset
was read from; `ledger set-budget FILE` reads FILE as its build did."""

from __future__ import annotations

import json

import pytest
from fakes import HashEmbedder
from typer.testing import CliRunner

from dpsynrag.cli import app
from dpsynrag.privacy.charge import find_rerelease
from dpsynrag.privacy.fingerprints import dataset_fingerprint
from dpsynrag.privacy.ledger import PrivacyLedger
from dpsynrag.privacy.lifetime import lifetime_epsilon
from dpsynrag.privacy.sources import Source

runner = CliRunner()
DOCS = ["the patient has fever and cough", "the patient has rash on skin", "the doctor has a test of blood",
        "the patient has pain in the head", "a patient with flu has fever", "the old patient has a bad cough"]


@pytest.fixture()
def data_file(tmp_path):
    path = tmp_path / "bank.jsonl"
    path.write_text("".join(json.dumps({"message": t, "person": f"p{i % 3}"}) + "\n" for i, t in enumerate(DOCS)))
    return path


@pytest.fixture()
def models(monkeypatch, tiny_lm):
    from dpsynrag.models import Embedder, LanguageModel

    monkeypatch.setattr(LanguageModel, "load", classmethod(lambda cls, *a, **k: tiny_lm))
    monkeypatch.setattr(Embedder, "load", classmethod(lambda cls, *a, **k: HashEmbedder(dim=32)))


def _build(tmp_path, data_file, out, *extra, input=None):
    return runner.invoke(app, input=input, args=[
        "build", str(data_file), "--out", str(tmp_path / out), "--epsilon", "8", "--delta", "1e-3", "--text-field",
        "message", "--no-self-filter", "--K", "3", "--R", "2", "--L", "1", "--k", "2", "--T", "2", "--extractor",
        "rarity", "--seed", "0", "--preset", "paper", "--ledger", str(tmp_path / "led"), *extra])


def _out(result) -> str:
    return " ".join(result.output.split())


def test_a_second_build_of_the_same_file_stops_before_spending_without_yes(tmp_path, data_file, models, monkeypatch):
    result = _build(tmp_path, data_file, "first")
    assert result.exit_code == 0, result.output
    assert "already have releases" not in _out(result)
    led = PrivacyLedger(tmp_path / "led")
    (first,) = led.releases()
    eps_one = lifetime_epsilon(first.rho, first.delta_terms, first.delta)
    assert eps_one == pytest.approx(8.0, rel=1e-6)
    eps_two = lifetime_epsilon(2 * first.rho, 2 * first.delta_terms, 2 * first.delta)

    result = _build(tmp_path, data_file, "second")  # CliRunner: stdin is not a terminal
    assert result.exit_code == 2, result.output
    out = _out(result)
    assert (f"6 of the 6 documents of this input already have releases in the privacy ledger, up to 1 each (read "
            f"before from {data_file.resolve()}). Their lifetime epsilon (the most-spent one) is {eps_one:.4f} now "
            f"and would be {eps_two:.4f} after this build (Bun-Steinke at summed delta 0.002)") in out
    assert "stopped before spending anything (nothing drawn or recorded)" in out and "Pass --yes" in out
    assert not (tmp_path / "second").exists() and len(led.releases()) == 1

    # a terminal: asked, default no
    monkeypatch.setattr("dpsynrag.commands.ledger._interactive", lambda: True)
    result = _build(tmp_path, data_file, "second", input="\n")
    assert result.exit_code == 2 and "Spend more of their budget? [y/N]" in result.output
    assert "stopped as you answered" in _out(result) and len(led.releases()) == 1
    result = _build(tmp_path, data_file, "second", input="y\n")
    assert result.exit_code == 0, result.output
    assert len(led.releases()) == 2

    monkeypatch.setattr("dpsynrag.commands.ledger._interactive", lambda: False)
    result = _build(tmp_path, data_file, "third", "--yes")
    assert result.exit_code == 0, result.output
    eps_three = lifetime_epsilon(3 * first.rho, 3 * first.delta_terms, 3 * first.delta)
    assert "up to 2 each" in _out(result) and f"would be {eps_three:.4f} after this build" in _out(result)
    assert "--yes: building anyway." in _out(result)
    assert led.unit_totals(first.dataset)["max"]["releases"] == 3


def test_persons_are_counted_and_a_new_file_with_some_released_documents_says_how_many(tmp_path, data_file, models):
    result = _build(tmp_path, data_file, "first", "--privacy-unit-field", "person")
    assert result.exit_code == 0, result.output
    more = tmp_path / "more.jsonl"  # two persons built before, one new
    more.write_text("".join(json.dumps({"message": t, "person": p}) + "\n"
                            for t, p in [("a new note of fever", "p0"), ("a rash note", "p1"), ("blood test", "p9")]))
    result = _build(tmp_path, more, "second", "--privacy-unit-field", "person")
    assert result.exit_code == 2, result.output
    # each person and each of their documents is a unit: 2 of 3 persons built before, none of the 3 documents
    assert "2 of the 6 persons and documents of this input already have releases" in _out(result), result.output
    assert f"(read before from {data_file.resolve()})" in _out(result)  # the earlier release's file, not this one


def test_find_rerelease_is_none_for_new_documents_and_counts_spent_ones(tmp_path):
    led = PrivacyLedger(tmp_path, source=Source(tmp_path / "a.jsonl", {"text_field": "text"}))
    a = led.register(DOCS[:4])
    assert find_rerelease(led, a, rho=1.0, delta_terms=0.0, delta=1e-3) is None
    led.record(a, kind="build", method="dp-synrag", label="x", rho=1.0, delta_terms=0.0, delta=1e-3)
    b = led.register(DOCS[2:])  # 2 of its 4 documents were read by the first release
    r = find_rerelease(led, b, rho=0.5, delta_terms=0.0, delta=1e-3)
    assert (r.units, r.released, r.releases, r.unit_kind) == (4, 2, 1, "document")
    assert r.epsilon_now == pytest.approx(lifetime_epsilon(1.0, 0.0, 1e-3))
    assert r.epsilon_after == pytest.approx(lifetime_epsilon(1.5, 0.0, 2e-3)) and r.delta_after == pytest.approx(2e-3)
    assert r.sources == (str((tmp_path / "a.jsonl").resolve()),)
    led.source = Source(tmp_path / "c.jsonl")
    c = led.register(["an unrelated note"])
    led.record(c, kind="build", method="dp-synrag", label="y", rho=1.0, delta_terms=0.0, delta=1e-3)
    assert led.release_sources(b) == [str((tmp_path / "a.jsonl").resolve())]  # c shares no document with b


def test_ledger_show_lists_the_files_and_set_budget_reads_a_file_as_its_build_did(tmp_path, data_file, models):
    result = _build(tmp_path, data_file, "first")
    assert result.exit_code == 0, result.output
    dataset = dataset_fingerprint(DOCS)
    result = runner.invoke(app, ["ledger", "show", "--ledger", str(tmp_path / "led")])
    assert result.exit_code == 0, result.output
    assert f"read from {data_file.resolve()} (first " in result.output
    result = runner.invoke(app, ["ledger", "show", "--json", "--ledger", str(tmp_path / "led")])
    (src,) = json.loads(result.stdout)["datasets"][dataset]["sources"]
    assert src["path"] == str(data_file.resolve())
    assert src["reading"] == {"text_field": "message", "id_field": None, "unit_field": None}
    # the ledger page's example, as written: no --text-field (the file has no field `text`)
    result = runner.invoke(app, ["ledger", "set-budget", str(data_file), "--epsilon", "15", "--ledger",
                                 str(tmp_path / "led")])
    assert result.exit_code == 0, result.output
    assert f"read {data_file} as its last build did: --text-field message" in _out(result)
    assert f"dataset {dataset[:12]} has 1 release(s)" in _out(result)
    assert PrivacyLedger(tmp_path / "led").budget(dataset).epsilon == 15
    result = runner.invoke(app, ["ledger", "show", str(data_file), "--ledger", str(tmp_path / "led")])
    assert result.exit_code == 0 and f"dataset {dataset}" in result.output
    other = tmp_path / "other.jsonl"  # a file no build read: the default field, as before
    other.write_text(json.dumps({"message": "x"}) + "\n")
    result = runner.invoke(app, ["ledger", "show", str(other), "--ledger", str(tmp_path / "led")])
    assert result.exit_code == 2 and "text" in _out(result)


def _ledger_block() -> list[list[str]]:
    """The `dpsynrag` commands of the ledger example (docs/ledger.md, linked from the README), as argument lists."""
    import shlex
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "ledger.md").read_text()
    block = text.split("# The privacy-budget ledger", 1)[1].split("```bash\n", 1)[1].split("```", 1)[0]
    return [shlex.split(line.split("#", 1)[0])[1:] for line in block.replace("\\\n", " ").splitlines()
            if line.startswith(".venv/bin/dpsynrag ")]


def test_the_readmes_ledger_example_runs_as_written_after_a_first_build(tmp_path, models, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes.jsonl").write_text("".join(json.dumps({"text": t}) + "\n" for t in DOCS))
    fast = ["--K", "3", "--R", "2", "--L", "1", "--k", "2", "--T", "2", "--extractor", "rarity", "--preset", "paper",
            "--no-self-filter"]
    result = runner.invoke(app, ["build", "notes.jsonl", "--out", "corpus", "--epsilon", "10", "--delta", "1e-3", *fast])
    assert result.exit_code == 0, result.output
    show, set_budget, build = _ledger_block()
    assert show == ["ledger", "show"] and set_budget == ["ledger", "set-budget", "notes.jsonl", "--epsilon", "20"]
    result = runner.invoke(app, show)
    assert result.exit_code == 0 and f"read from {tmp_path / 'notes.jsonl'}" in result.output, result.output
    result = runner.invoke(app, set_budget)
    assert result.exit_code == 0, result.output
    assert "--yes" in build  # the same notes again: a re-release
    result = runner.invoke(app, [*build, *[a for a in fast if a != "--no-self-filter"]])
    assert result.exit_code == 0, result.output
    assert "6 of the 6 documents of this input already have releases" in _out(result)
    result = runner.invoke(app, [*build, "--out", "c3"])  # a third: over --lifetime-epsilon 15, refused first
    assert result.exit_code == 2 and "above 15 set by --lifetime-epsilon" in _out(result), result.output
    assert "already have releases" not in _out(result)


def test_a_dp_rag_query_records_its_documents_file(tmp_path, data_file, models):
    base = ["query", "--method", "dp-rag", "--documents", str(data_file), "--text-field", "message",
            "--epsilon-per-query", "2", "--delta", "1e-3", "--utility", "top-k", "--top-k", "2", "--T", "3",
            "--public-weight", "0", "--max-document-tokens", "12", "--seed", "0", "--ledger", str(tmp_path / "led")]
    result = runner.invoke(app, [*base, "the patient has fever?"])
    assert result.exit_code == 0, result.output
    (src,) = PrivacyLedger(tmp_path / "led").sources(dataset_fingerprint(DOCS))
    assert src["path"] == str(data_file.resolve()) and src["reading"]["text_field"] == "message"
