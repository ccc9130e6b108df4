"""The corpus card (``dpsynrag report DIR --html``) and the service page (``/``): what each variant holds,
where it may be written, and — in headless Chromium (Debian's ``chromium`` driven by Playwright; skipped,
saying so, where neither is installed) — what a person sees: the guarantee's numbers equal the report's,
the chart is drawn, no request leaves the file, and a question typed into the service page gets an answer.
Screenshots are kept under ``tmp_path`` (and ``$DPSYNRAG_SCREENSHOTS`` when set)."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest
from fakes import HashEmbedder
from servers import LoopbackServer
from typer.testing import CliRunner

from dpsynrag.cli import app as cli_app
from dpsynrag.corpus import CorpusWriter, SyntheticCorpus
from dpsynrag.corpus.card import corpus_card_html, mechanism_rows, write_corpus_card
from dpsynrag.errors import ConfigError, DataError
from dpsynrag.privacy.accountant import ZCDPAccountant
from dpsynrag.privacy.events import (ComposedEvent, ExponentialMechanismEvent, GaussianEvent,
                                     OverlappingParallelEvent)
from dpsynrag.privacy.report import PrivacyReport

runner = CliRunner()
TEXTS = ["the patient has fever and cough", "skin rash with fever", "blood test of the heart and lung",
         "<script>alert(1)</script> red eye & ear pain"]
OWNER = {  # the owner record's shape (dpsynrag.corpus.writer), with values to look for
    "note": "OWNER-ONLY, NOT covered by the DP guarantee.",
    "corpus": "notes",
    "input_fingerprint": {"documents": 987654, "sha256": "5e" * 32},
    "timings": {"total_s": 4321.5},
    "truncation": 2,
    "fingerprints": {"algorithm": "hmac-sha256-128/compatibility-text", "key": "c0ffee" * 8, "unit_kind": "document",
                     "units": 987654, "fingerprints": ["ab" * 16], "sha256": "77" * 32},
    "resumes": 0,
    "redaction_counts": {"documents": 987654, "documents_with_spans": 123457, "spans": 246913},
}


def report_dict() -> dict:
    """A DP-SynRAG-shaped report: a histogram, then clusters in overlapping parallel composition (L = 2)."""
    acc = ZCDPAccountant()
    acc.compose(GaussianEvent("keyword histogram", sensitivity=2.0, sigma=6.0))
    branch = ComposedEvent(name="one cluster", events=(GaussianEvent("cluster embedding sum", sensitivity=1.0, sigma=7.0),
                                                       ExponentialMechanismEvent(name="similarity threshold", epsilon=0.4)))
    acc.compose(OverlappingParallelEvent(name="clusters", branch=branch, num_branches=30, max_branches_per_unit=2))
    return PrivacyReport.from_accountant(acc, delta=1e-3).to_dict()


@pytest.fixture()
def corpus_dir(tmp_path):
    records = [{"id": i, "keyword": t.split()[-1], "noisy_count": 20 + i, "text": t, "kept": True}
               for i, t in enumerate(TEXTS)]
    manifest = {"method": "dp-synrag", "config": {}, "model": {"spec": None, "name": "tiny-llama",
                                                               "sha256": {"model.gguf": "9a" * 32}},
                "embedder": {"spec": None, "name": "hash"}, "privacy": report_dict(), "not_for_release": True}
    path = tmp_path / "notes"
    with CorpusWriter(path) as w:
        w.finish(records, manifest, HashEmbedder())
    (tmp_path / "notes.owner.json").write_text(json.dumps(OWNER))
    return path


def owner_values() -> list[str]:
    """The owner record's values that no publishable card may hold (the key last: no card holds it)."""
    return ["987654", "5e" * 32, "4321.5", "123457", "246913", "ab" * 16, "77" * 32, "c0ffee" * 8]


def test_mechanism_rows_split_the_parallel_composition_per_unit():
    rep = report_dict()
    rows = mechanism_rows(rep)
    assert [r["name"] for r in rows] == ["keyword histogram", "clusters › cluster embedding sum",
                                         "clusters › similarity threshold"]
    # each unit is in at most 2 clusters: a branch mechanism costs it twice
    assert [r["rho"] for r in rows] == pytest.approx([4 / 72, 2 / 98, 2 * 0.4**2 / 8])
    assert sum(r["rho"] for r in rows) == pytest.approx(rep["rho_total"])


def test_publishable_card_holds_no_owner_value_and_no_outside_reference(corpus_dir):
    page = corpus_card_html(corpus_dir)
    rep = SyntheticCorpus.load(corpus_dir).privacy_report.to_dict()
    assert 'data-variant="publishable"' in page and "OWNER ONLY" not in page
    assert f"ε = {rep['epsilon']:.6g}" in page and f"δ = {rep['delta']:.3g}" in page
    assert f"ρ = {rep['rho_total']:.6g}" in page
    assert not any(v in page for v in owner_values())
    assert "NOT for release" in page  # a seeded build says so
    assert "<script" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page  # texts escaped
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", page)
    assert "default-src 'none'" in page


def test_owner_card_adds_the_owner_record_but_never_its_key(corpus_dir, tmp_path):
    page = corpus_card_html(corpus_dir, variant="owner")
    assert 'data-variant="owner"' in page and "OWNER ONLY" in page
    assert all(v in page for v in ["987654", "5e" * 32, "4321.5", "123457", "246913"])
    assert "c0ffee" * 8 not in page  # the fingerprint key is never shown
    with pytest.raises(ConfigError, match="must not be written into the corpus folder"):
        write_corpus_card(corpus_dir, corpus_dir / "card.html", variant="owner")
    with pytest.raises(ConfigError, match="must not be written into the corpus folder"):
        write_corpus_card(corpus_dir, corpus_dir / "sub" / "card.html", variant="owner")
    assert write_corpus_card(corpus_dir, tmp_path / "out" / "owner.html", variant="owner").is_file()


def _eval_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "eval"
    folder.mkdir()
    methods = [{"method": "rag", "label": "RAG (no DP)", "epsilon": None, "accuracy": 0.35, "context_recall": 0.78, "n": 100},
               {"method": "dp-synrag", "label": "DP-SynRAG, phrase release (ε=10)", "epsilon": 9.81, "accuracy": 0.271,
                "context_recall": 0.55, "n": 100}]
    (folder / "results.json").write_text(json.dumps({"config": {"task": "medical"}, "methods": methods,
                                                     "references": {"constant": {"accuracy": 0.06, "n": 100}}}))
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    for name in ("accuracy_by_method", "leakage"):
        fig, ax = plt.subplots(figsize=(2, 1))
        ax.bar([0, 1], [35, 27])
        fig.savefig(folder / f"{name}.png")
        plt.close(fig)
    return folder


def test_evaluation_only_by_choice_in_the_publishable_card(corpus_dir, tmp_path):
    folder = _eval_folder(tmp_path)
    with pytest.raises(ConfigError, match="--publish-eval"):
        corpus_card_html(corpus_dir, eval_dir=folder)
    pub = corpus_card_html(corpus_dir, eval_dir=folder, publish_eval=True)
    assert "27.1%" in pub and "not</strong> covered" in pub and "The owner chose to release them" in pub
    # the plots' titles and buckets state the collection's size: owner variant only
    assert "data:image/png" not in pub and "plots are in the owner variant only" in pub
    assert corpus_card_html(corpus_dir, variant="owner", eval_dir=folder).count("data:image/png;base64,") == 2
    with pytest.raises(DataError, match="does not exist"):
        corpus_card_html(corpus_dir, variant="owner", eval_dir=tmp_path / "nope")
    (folder / "results.json").write_text("[1, 2]")
    with pytest.raises(DataError, match="not a JSON object"):
        corpus_card_html(corpus_dir, variant="owner", eval_dir=folder)


def test_the_card_never_replaces_a_corpus_file_and_the_owner_card_is_owner_only(corpus_dir, tmp_path, monkeypatch):
    for target in (corpus_dir / "manifest.json", tmp_path / "notes.owner.json", tmp_path / "card"):
        with pytest.raises(ConfigError, match="ending in .html"):
            write_corpus_card(corpus_dir, target)
    assert json.loads((tmp_path / "notes.owner.json").read_text()) == OWNER
    (tmp_path / "folder.html").mkdir()
    with pytest.raises(ConfigError, match="is a folder"):
        write_corpus_card(corpus_dir, tmp_path / "folder.html")
    path = write_corpus_card(corpus_dir, tmp_path / "owner.html", variant="owner")
    assert path.stat().st_mode & 0o077 == 0
    monkeypatch.chdir(corpus_dir)  # "." finds the owner record beside the folder itself
    assert "987654" in corpus_card_html(".", variant="owner")
    (tmp_path / "notes.owner.json").write_text("{bad json")
    with pytest.raises(DataError, match="owner record"):
        corpus_card_html(corpus_dir, variant="owner")
    (tmp_path / "notes.owner.json").write_text(json.dumps({**OWNER, "corpus": "other"}))
    assert "names the corpus other, not notes" in corpus_card_html(corpus_dir, variant="owner")


def test_owner_card_shows_the_ledger_units_by_lifetime_epsilon(corpus_dir, tmp_path):
    from dpsynrag.privacy.ledger import PrivacyLedger

    led = PrivacyLedger(tmp_path / "ledger")
    dataset = led.register(TEXTS)
    led.record(dataset, kind="build", method="dp-synrag", label="first", rho=0.5, delta_terms=0.0, delta=1e-3)
    led.record(dataset, kind="build", method="dp-synrag", label="second", rho=0.25, delta_terms=0.0, delta=1e-3)
    groups = led.unit_spend(dataset)
    assert [(g["units"], g["releases"]) for g in groups] == [(len(TEXTS), 2)] and groups[0]["rho"] == pytest.approx(0.75)
    page = corpus_card_html(corpus_dir, variant="owner", ledger=tmp_path / "ledger")
    assert "2 release(s) recorded" in page and f"<td class=\"n\">{len(TEXTS)}</td>" in page
    assert f"<td class=\"n\">{groups[0]['epsilon']:.5g}</td>" in page
    with pytest.raises(ConfigError, match="owner variant only"):
        corpus_card_html(corpus_dir, ledger=tmp_path / "ledger")
    with pytest.raises(ConfigError, match="no dataset"):
        corpus_card_html(corpus_dir, variant="owner", ledger=tmp_path / "ledger", dataset="f" * 64)
    with pytest.raises(ConfigError, match="no privacy ledger"):
        corpus_card_html(corpus_dir, variant="owner", ledger=tmp_path / "elsewhere")
    assert not (tmp_path / "elsewhere").exists()


def test_report_html_command(corpus_dir, tmp_path):
    out = tmp_path / "card.html"
    r = runner.invoke(cli_app, ["report", str(corpus_dir), "--html", str(out)])
    assert r.exit_code == 0, r.output
    assert "publishable corpus card written" in r.output and 'data-variant="publishable"' in out.read_text()
    r = runner.invoke(cli_app, ["report", str(corpus_dir), "--html", str(corpus_dir / "x.html"), "--owner"])
    assert r.exit_code == 2 and "must not be written into the corpus folder" in r.output
    r = runner.invoke(cli_app, ["report", str(corpus_dir), "--owner"])
    assert r.exit_code == 2 and "go with --html" in r.output
    r = runner.invoke(cli_app, ["report", str(corpus_dir), "--html", str(out), "--ledger", str(tmp_path / "nope")])
    assert r.exit_code == 2 and "owner variant only" in r.output
    r = runner.invoke(cli_app, ["report", str(corpus_dir), "--html", str(out), "--publish-eval"])
    assert r.exit_code == 2 and "goes with --eval" in r.output
    r = runner.invoke(cli_app, ["report", str(corpus_dir), "--samples", "3"])
    assert r.exit_code == 2 and "go with --html" in r.output


def test_service_serves_the_page_and_the_publishable_card(corpus_dir, tiny_lm):
    from fastapi.testclient import TestClient

    from dpsynrag.serve import CorpusService, create_app

    client = TestClient(create_app(CorpusService.load([corpus_dir], lm=tiny_lm, embedder=HashEmbedder())))
    page = client.get("/")
    assert page.status_code == 200 and "connect-src 'self'" in page.headers["content-security-policy"]
    assert "/v1/query" in page.text and not re.search(r"""(src|href)\s*=\s*["'](https?:|//)""", page.text)
    card = client.get("/v1/corpora/notes/card")
    assert card.status_code == 200 and 'data-variant="publishable"' in card.text
    assert not any(v in card.text for v in owner_values())
    assert client.get("/v1/corpora/nope/card").status_code == 404
    assert "/" not in client.get("/openapi.json").json()["paths"]


# --------------------------------------------------------------------------------------------------
# In a real browser
# --------------------------------------------------------------------------------------------------


def _keep(page, tmp_path: Path, name: str) -> None:
    page.screenshot(path=str(tmp_path / name), full_page=True)
    target = os.environ.get("DPSYNRAG_SCREENSHOTS")
    if target:
        Path(target).mkdir(parents=True, exist_ok=True)
        shutil.copy(tmp_path / name, Path(target) / name)


def test_card_in_the_browser(browser, corpus_dir, tmp_path):
    folder = _eval_folder(tmp_path)
    path = write_corpus_card(corpus_dir, tmp_path / "card.html", eval_dir=folder, publish_eval=True)
    rep = SyntheticCorpus.load(corpus_dir).privacy_report.to_dict()
    page = browser.new_page()
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(path.as_uri())
    page.wait_for_load_state("load")
    assert page.inner_text("#variant").startswith("PUBLISHABLE")
    assert page.inner_text("#epsilon") == f"ε = {rep['epsilon']:.6g}"
    assert page.inner_text("#delta") == f"δ = {rep['delta']:.3g}"
    assert page.inner_text("#rho") == f"ρ = {rep['rho_total']:.6g}"
    rows = page.query_selector_all("table:first-of-type tbody tr")
    assert len(rows) == len(mechanism_rows(rep))
    widths = [float(r.get_attribute("width")) for r in page.query_selector_all("svg rect")]
    assert len(widths) == 3 and max(widths) > 10  # the chart is drawn
    assert page.evaluate("Array.from(document.images).every(i => i.complete && i.naturalWidth > 0)")
    assert len(page.query_selector_all("#samples li")) == len(TEXTS)
    assert requests == [path.as_uri()]  # nothing but the file itself
    _keep(page, tmp_path, "corpus_card.png")


def test_service_page_answers_a_question_in_the_browser(browser, corpus_dir, tiny_lm, tmp_path):
    from dpsynrag.serve import CorpusService, create_app

    service = CorpusService.load([corpus_dir], lm=tiny_lm, embedder=HashEmbedder())
    rep = SyntheticCorpus.load(corpus_dir).privacy_report.to_dict()
    with LoopbackServer(create_app(service)) as url:
        page = browser.new_page()
        outside = []
        page.on("request", lambda r: None if r.url.startswith(url) else outside.append(r.url))
        page.goto(url + "/")
        page.wait_for_selector("#guarantee-values")
        eps = float(f"{rep['epsilon']:.6g}")
        assert page.inner_text("#guarantee-values") == f"(ε = {eps:g}, δ = {rep['delta']:g})-DP"
        page.focus("#question")
        page.keyboard.type("skin rash with fever")
        page.keyboard.press("Enter")  # keyboard only
        page.wait_for_selector("#contexts li")  # (the page's CSP forbids eval: no wait_for_function)
        answer = page.inner_text("#answer")
        assert answer and answer != "…" and page.inner_text("#error") == ""
        first = page.inner_text("#contexts li:first-child")
        assert first.startswith("score 1.000") and first.endswith("skin rash with fever")  # the exact text ranks first
        assert outside == []
        _keep(page, tmp_path, "service_page.png")


def test_service_page_retrieves_only_on_a_retrieval_only_service(browser, corpus_dir, tmp_path):
    from dpsynrag.serve import CorpusService, create_app

    service = CorpusService.load([corpus_dir], embedder=HashEmbedder(), retrieval_only=True)
    with LoopbackServer(create_app(service)) as url:
        page = browser.new_page()
        page.goto(url + "/")
        page.wait_for_selector("#guarantee-values")
        assert page.inner_text("#submit") == "Retrieve" and "retrieves only" in page.inner_text("#mode")
        page.fill("#question", "blood test of the heart and lung")
        page.keyboard.press("Enter")
        page.wait_for_selector("#contexts li")
        assert page.inner_text("#contexts li:first-child").endswith("blood test of the heart and lung")
        assert page.inner_text("#answer") == "(retrieval only: no answer is generated)" and page.inner_text("#error") == ""
