"""What a fresh-user trial found on the command line: a dry run refuses a device the build would refuse,
an epsilon too large to mean much is warned about, a tiny --memory-budget-gb is warned about, leakage
says when the file is not the corpus's input, and the phrase-release bar advances in chunks."""

from __future__ import annotations

import json

import pytest
import torch
from typer.testing import CliRunner

from dpsynrag.cli import app

runner = CliRunner()


def _out(result) -> str:
    return " ".join(result.output.replace("│", " ").split())


def _notes(tmp_path):
    path = tmp_path / "notes.jsonl"
    path.write_text("".join(json.dumps({"text": f"note {i}"}) + "\n" for i in range(3)), encoding="utf-8")
    return path


@pytest.mark.parametrize("expected", [[], ["--expected-documents", "100"]])
@pytest.mark.parametrize(("device", "message"), [
    ("cuda", "error: --device is 'cuda' but CUDA is not available on this machine; use 'cpu'."),
    ("tpu", "error: --device must be a torch device such as 'cpu' or 'cuda:0'. Found 'tpu'."),
])
def test_dry_run_refuses_a_device_the_build_refuses(tmp_path, monkeypatch, device, message, expected):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    loaded = []
    import dpsynrag.models as models

    monkeypatch.setattr(models.Embedder, "load", classmethod(lambda cls, *a, **k: loaded.append(a)))
    result = runner.invoke(app, ["build", str(_notes(tmp_path)), "--out", str(tmp_path / "c"), "--epsilon", "10",
                                 "--delta", "1e-3", "--device", device, "--dry-run", *expected])
    assert result.exit_code == 2, result.output
    assert message in _out(result) and "dry run:" not in result.output and not loaded


def test_a_large_epsilon_warns_and_the_plan_notes_it(tmp_path):
    base = ["build", str(_notes(tmp_path)), "--out", str(tmp_path / "c"), "--delta", "1e-3", "--dry-run"]
    result = runner.invoke(app, [*base, "--epsilon", "1e9"])
    assert result.exit_code == 0, result.output
    out = _out(result)
    assert "warning: epsilon=1e+09 is above 20: the guarantee is too weak to mean much" in out
    assert "note: epsilon=1e+09 is above 20" in out and "the paper uses epsilon=10" in out
    result = runner.invoke(app, [*base, "--epsilon", "20"])
    assert result.exit_code == 0 and "above 20" not in _out(result), result.output


class _Display:
    """The calls a stage makes on its bar: each update's steps and the count it reaches."""

    def __init__(self):
        self.updates, self.n = [], 0

    def start(self, name, *, total=None, unit="it"):
        self.total = total

    def update(self, n=1):
        self.updates.append(n)
        self.n += n

    def reach(self, n):
        self.n = max(self.n, n)

    def end(self, summary=""):
        return 0.0


def test_collection_phrase_release_bar_advances_in_chunks(monkeypatch):
    """300 documents: at most ceil(300 / READ_UPDATE) updates (one line each in a piped log), not 300, and the
    bar ends at 300."""
    from types import SimpleNamespace

    import dpsynrag.pipeline.phrase_synthesis as synthesis
    from dpsynrag.pipeline.display import READ_UPDATE

    class Texts:
        def __len__(self):
            return 300

        def rows(self, indices):
            return ((i, f"note {i}") for i in indices)

    monkeypatch.setattr(synthesis, "release_phrases", lambda sets, **k: {})
    monkeypatch.setattr(synthesis, "collection_texts", lambda released, keywords, **k: [])
    display = _Display()
    config = SimpleNamespace(redact_identifiers=False, redact_pii=False, phrase_n=2, phrase_max=3, language="en",
                             pii_allow=[], phrase_min_phrases=1)
    cal = SimpleNamespace(phrase_max=3, phrase_sigma=1.0, phrase_threshold=1.0)
    run = SimpleNamespace(config=config, cal=cal, display=display)
    assert synthesis.collection_phrase_synthesis(run, Texts(), [], None, None, None) == []
    assert display.total == 300 and display.n == 300
    assert display.updates == [READ_UPDATE] * (300 // READ_UPDATE) and READ_UPDATE == 32


def test_a_budget_below_one_decoding_row_warns_on_the_owner_console(tmp_path, monkeypatch, tiny_lm):
    from fakes import HashEmbedder

    from dpsynrag.models import Embedder, LanguageModel
    from dpsynrag.models.loading import small_budget_warning

    monkeypatch.setattr(LanguageModel, "load", classmethod(lambda cls, *a, **k: tiny_lm))
    monkeypatch.setattr(Embedder, "load", classmethod(lambda cls, *a, **k: HashEmbedder()))
    words = "fever cough rash flu pain drug dose blood heart lung".split()
    data = tmp_path / "notes.jsonl"
    data.write_text("".join(json.dumps({"text": f"the patient has {a} and {b}"}) + "\n"
                            for a in words for b in words[:2]), encoding="utf-8")
    row = (8 + 6) * tiny_lm.kv_bytes_per_token() + 12 * tiny_lm.model_vocab_size  # 8 prompt + 6 new tokens
    base = ["build", str(data), "--epsilon", "10", "--delta", "1e-3", "--preset", "cpu", "--K", "3", "--R", "4",
            "--L", "2", "--k", "5", "--T", "6", "--max-document-tokens", "8", "--seed", "3"]
    small = row / 2 / 2**30
    result = runner.invoke(app, [*base, "--out", str(tmp_path / "a"), "--ledger", str(tmp_path / "la"), "--memory-budget-gb", f"{small!r}"])
    assert result.exit_code == 0, result.output
    warning = small_budget_warning(small, row)
    assert f"warning: {warning}" in _out(result) and f"({row / 2**30:.3g} GB)" in warning
    log = (tmp_path / "a" / "build.log").read_text()
    assert "cannot hold" not in log  # the owner's console only
    result = runner.invoke(app, [*base, "--out", str(tmp_path / "b"), "--ledger", str(tmp_path / "lb"), "--memory-budget-gb", f"{row / 2**30!r}"])
    assert result.exit_code == 0 and "cannot hold" not in result.output, result.output
    assert small_budget_warning(1.0, 2**30) is None and small_budget_warning(0.5, 2**30 + 1) is not None
