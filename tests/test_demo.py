"""The main job's code path (`dpsynrag demo`) on a small slice: it runs, prints its three parts and
writes results.json with an epsilon within the target."""

import json

import pytest
from rich.console import Console

from dpsynrag.demo import run_demo

pytestmark = pytest.mark.slow


def test_demo_small(tmp_path, offline_lm, offline_embedder, monkeypatch):
    import dpsynrag.models as models

    # reuse the session's loaded models instead of loading them again
    monkeypatch.setattr(models.LanguageModel, "load", classmethod(lambda cls, *a, **k: offline_lm))
    monkeypatch.setattr(models.Embedder, "load", classmethod(lambda cls, *a, **k: offline_embedder))
    console = Console(record=True, width=160)
    results = run_demo(out_dir=tmp_path, documents=300, questions=4, seed=0, console=console)
    text = console.export_text()
    assert "Medical Synth accuracy" in text and "Privacy report" in text and "Synthetic texts" in text
    saved = json.loads((tmp_path / "results.json").read_text())
    assert saved["documents"] == 300 and saved["questions"] == 4
    assert [r["method"] for r in saved["results"]][:2] == ["Non-RAG", "RAG (private documents, no DP)"]
    assert all(0.0 <= r["accuracy"] <= 1.0 for r in saved["results"])
    assert saved["privacy"]["epsilon"] <= 10.0
    assert results["build_config"]["self_filter"] is False
