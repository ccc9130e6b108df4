"""Resumable builds (issue 15, item 1): a build killed with SIGKILL after its histogram resumes from the
checkpoints in ``.NAME.work`` and writes, seeded, the same corpus byte for byte as an uninterrupted build;
no released mechanism is drawn again and the ledger records the build once. A changed configuration or
input is refused, and so are a left checkpoint without --resume and a --resume with nothing to resume.

Builds run in subprocesses (the tiny Llama of conftest.py, the hash embedder of fakes.py, seeded, one
torch thread each) so that one can be killed; each takes seconds."""

from __future__ import annotations

import itertools
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from fakes import HashEmbedder
from typer.testing import CliRunner

from dpsynrag.cli import app
from dpsynrag.corpus.format import owner_audit_path
from dpsynrag.errors import CheckpointError
from dpsynrag.pipeline.build import build_corpus
from dpsynrag.pipeline.checkpoint import event_from_dict, event_to_dict, work_folder
from dpsynrag.pipeline.config import BuildConfig
from dpsynrag.privacy.ledger import PrivacyLedger

TESTS = Path(__file__).parent
WORDS = "fever cough rash flu pain drug dose blood heart lung skin eye ear head arm leg".split()
# 24 distinct documents, each with three of the tiny tokenizer's words: four keywords released
DOCS = [f"the patient has {a} and {b} with {c}" for a, b, c in list(itertools.combinations(WORDS, 3))[::23][:24]]
CONFIG = dict(epsilon=10.0, delta=1e-3, K=3, R=4, L=2, k=5, T=6, vocabulary_size=2000, extractor="rarity",
              self_filter=False, seed=3)

_BUILD = """
import os, signal, sys
sys.path.insert(0, sys.argv[1])
from conftest import make_tiny_model, make_tiny_tokenizer
from fakes import HashEmbedder
from dpsynrag.errors import CheckpointError
from dpsynrag.models import LanguageModel
from dpsynrag.pipeline import checkpoint
from dpsynrag.pipeline.build import build_corpus
from dpsynrag.pipeline.config import BuildConfig
from dpsynrag.privacy.ledger import PrivacyLedger

tests, out, ledger, docs, config, kill_after, resume, forbid = sys.argv[1:9]
import dpsynrag.pipeline.build as build
for name in filter(None, forbid.split(",")):  # mechanisms a resumed build must not draw again
    def refuse(*args, _name=name, **kwargs):
        raise AssertionError(f"{_name} drawn again on resume")
    setattr(build, name, refuse)
decoded = []
from dpsynrag.models import PrivatePredictionDecoder
generate_ids = PrivatePredictionDecoder.generate_ids
def counting_generate_ids(self, clusters, *args, **kwargs):
    decoded.append(len(clusters))
    return generate_ids(self, clusters, *args, **kwargs)
PrivatePredictionDecoder.generate_ids = counting_generate_ids
if kill_after != "-":  # SIGKILL this process right after the named checkpoint file is written (the first time)
    write = checkpoint._write_json
    def killing_write(path, obj):
        write(path, obj)
        if path.name == kill_after:
            os.kill(os.getpid(), signal.SIGKILL)
    checkpoint._write_json = killing_write
lm = LanguageModel(make_tiny_model(), make_tiny_tokenizer(), name="tiny-llama")
try:
    build_corpus(docs.split("|"), out, BuildConfig.model_validate_json(config), lm=lm, embedder=HashEmbedder(),
                 ledger=PrivacyLedger(ledger), resume=resume == "resume")
except CheckpointError as exc:
    print("CHECKPOINT-ERROR", exc)
    sys.exit(3)
print("DECODED", sum(decoded))
"""


def _build(out: Path, ledger: Path, *, kill_after: str = "-", resume: bool = False, config: dict = CONFIG,
           forbid: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}  # same float sums in every process
    args = [sys.executable, "-c", _BUILD, str(TESTS), str(out), str(ledger), "|".join(DOCS),
            BuildConfig(**config).model_dump_json(), kill_after, "resume" if resume else "new", ",".join(forbid)]
    return subprocess.run(args, capture_output=True, text=True, timeout=600, env=env)


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """An uninterrupted seeded build."""
    tmp = tmp_path_factory.mktemp("reference")
    done = _build(tmp / "c", tmp / "ledger")
    assert done.returncode == 0, done.stderr
    assert "DECODED 4" in done.stdout
    return tmp / "c"


def _manifest(out: Path) -> dict:
    return json.loads((out / "manifest.json").read_text())


@pytest.mark.parametrize(("kill_after", "forbid", "decoded"), [
    ("histogram.json", ("gaussian_histogram",), 4),
    ("texts.json", ("gaussian_histogram", "noisy_unit_vector_sum", "exponential_threshold"), 3),
])
def test_a_sigkilled_build_resumes_to_the_uninterrupted_corpus(tmp_path, reference, tiny_lm, kill_after, forbid, decoded):
    """Killed right after the histogram was checkpointed (outlier removal then draws from the restored noise
    generator), or after private prediction's first batch of clusters (the others are decoded on resume).
    The resumed run fails if it calls a mechanism whose release is on disk (``forbid``)."""
    out, ledger = tmp_path / "c", tmp_path / "ledger"
    killed = _build(out, ledger, kill_after=kill_after)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    work = work_folder(out)
    assert not out.exists() and work.is_dir()
    assert stat.S_IMODE(work.stat().st_mode) == 0o700
    assert all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in work.iterdir())
    assert {"state.json", "keywords.json", "histogram.json"} <= {p.name for p in work.iterdir()}
    if kill_after == "texts.json":  # one batch of one cluster (4 clusters, up to 20 batches) was finished
        assert len(json.loads((work / "texts.json").read_text())) == 1
    histogram = json.loads((work / "histogram.json").read_text())

    with pytest.raises(CheckpointError, match="pass --resume to continue it .*or delete that folder"):
        build_corpus(DOCS, out, BuildConfig(**CONFIG), lm=tiny_lm, embedder=HashEmbedder())  # without --resume
    assert work.is_dir() and not out.exists()  # refused: the checkpoint is kept

    resumed = _build(out, ledger, resume=True, forbid=forbid)
    assert resumed.returncode == 0, resumed.stderr
    assert f"DECODED {decoded}" in resumed.stdout  # only the clusters not finished before the kill
    assert (out / "texts.jsonl").read_bytes() == (reference / "texts.jsonl").read_bytes()
    assert (out / "index_ids.json").read_bytes() == (reference / "index_ids.json").read_bytes()
    assert _manifest(out)["privacy"] == _manifest(reference)["privacy"]
    records = [json.loads(line) for line in (out / "texts.jsonl").read_text().splitlines()]
    assert [[r["keyword"], r["noisy_count"]] for r in records] == histogram["keywords"]  # the drawn histogram, reused
    assert len(records) == 4 and sum(bool(r["text"].strip()) for r in records) >= 2
    assert not work.exists()  # finished: checkpoints and private intermediates deleted
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
    assert len(PrivacyLedger(ledger).releases()) == 1  # recorded once, by the killed run; not again on resume
    # the public log says nothing of the interruption (issue 29, item 4): the uninterrupted build's, byte for
    # byte; the resume is recorded only in the owner-only record beside the folder
    assert (out / "build.log").read_bytes() == (reference / "build.log").read_bytes()
    resumes = json.loads(owner_audit_path(out).read_text())["resumes"]
    assert len(resumes) == 1 and resumes[0].startswith("resuming: keywords, histogram (4 keywords)")
    assert json.loads(owner_audit_path(reference).read_text())["resumes"] == []


def test_resume_refuses_a_changed_configuration_or_input(tmp_path, tiny_lm):
    out, ledger = tmp_path / "c", tmp_path / "ledger"
    assert _build(out, ledger, kill_after="histogram.json").returncode == -signal.SIGKILL
    with pytest.raises(CheckpointError, match=r"configuration changed .*: T \(6 -> 5\)\. Pass the same options"):
        build_corpus(DOCS, out, BuildConfig(**{**CONFIG, "T": 5}), lm=tiny_lm, embedder=HashEmbedder(), resume=True)
    with pytest.raises(CheckpointError, match=r"input documents changed .*\(24 documents, .*now 23 documents"):
        build_corpus(DOCS[:-1], out, BuildConfig(**CONFIG), lm=tiny_lm, embedder=HashEmbedder(), resume=True)
    assert work_folder(out).is_dir() and not out.exists()  # refused: nothing touched
    # the memory budget only changes how clusters are batched: a resume may lower it (after running out of memory)
    corpus = build_corpus(DOCS, out, BuildConfig(**{**CONFIG, "memory_budget_gb": 0.5}), lm=tiny_lm,
                          embedder=HashEmbedder(), resume=True)
    assert len(corpus.records) == 4 and not work_folder(out).exists()


def test_prediction_checkpoints_change_the_batches_not_the_texts(tmp_path, tiny_lm, reference):
    """1 or 20 checkpointed batches of private prediction (each cluster samples from its own stream on the
    batch-invariant engine): the same corpus, byte for byte; a resume may change the number."""
    for n in (1, 3):
        out = tmp_path / f"c{n}"
        build_corpus(DOCS, out, BuildConfig(**{**CONFIG, "prediction_checkpoints": n}), lm=tiny_lm,
                     embedder=HashEmbedder())
        assert (out / "texts.jsonl").read_bytes() == (reference / "texts.jsonl").read_bytes()
    out, ledger = tmp_path / "k", tmp_path / "ledger"
    assert _build(out, ledger, kill_after="histogram.json").returncode == -signal.SIGKILL
    build_corpus(DOCS, out, BuildConfig(**{**CONFIG, "prediction_checkpoints": 1}), lm=tiny_lm,
                 embedder=HashEmbedder(), resume=True)
    assert (out / "texts.jsonl").read_bytes() == (reference / "texts.jsonl").read_bytes()


def test_resume_after_completion_is_a_clear_message(tmp_path, reference):
    with pytest.raises(CheckpointError, match="nothing to resume .*finished"):
        build_corpus(DOCS, reference, BuildConfig(**CONFIG), resume=True)  # refused before any model loads
    data = tmp_path / "notes.jsonl"
    data.write_text("".join(json.dumps({"text": d}) + "\n" for d in DOCS))
    result = CliRunner().invoke(app, ["build", str(data), "--out", str(reference), "--epsilon", "10", "--delta", "1e-3",
                                      "--no-self-filter", "--R", "4", "--resume"])
    assert result.exit_code == 2 and "nothing to resume (--resume)" in " ".join(result.output.split())
    result = CliRunner().invoke(app, ["build", str(data), "--out", str(tmp_path / "x"), "--epsilon", "10", "--delta",
                                      "1e-3", "--method", "dp-synth", "--resume"])
    assert result.exit_code == 2 and "--resume does not apply to --method dp-synth" in " ".join(result.output.split())


def test_resume_with_no_checkpoint_starts_a_new_build(tmp_path, reference, tiny_lm):
    out = tmp_path / "c"
    corpus = build_corpus(DOCS, out, BuildConfig(**CONFIG), lm=tiny_lm, embedder=HashEmbedder(), resume=True)
    assert len(corpus.records) == 4 and not work_folder(out).exists()
    assert "resum" not in (out / "build.log").read_text()  # console only (tests/test_build_talks.py)


def test_events_round_trip_through_a_checkpoint():
    config = BuildConfig(**{**CONFIG, "open_vocabulary": True})
    plan = config.plan()
    back = event_from_dict(json.loads(json.dumps(event_to_dict(plan))))
    assert back == plan and back.rho == plan.rho and back.delta == plan.delta
    with pytest.raises(CheckpointError, match="unknown privacy event"):
        event_from_dict({"type": "Path", "fields": {}})


def test_a_secure_build_resumes_with_the_values_it_released(tmp_path, tiny_lm):
    """Unseeded: nothing can be drawn again alike, so the resumed corpus must carry the histogram on disk."""
    out, ledger = tmp_path / "c", tmp_path / "ledger"
    assert _build(out, ledger, kill_after="histogram.json", config={**CONFIG, "seed": None}).returncode == -signal.SIGKILL
    histogram = json.loads((work_folder(out) / "histogram.json").read_text())
    assert histogram["noise_state"] is None
    corpus = build_corpus(DOCS, out, BuildConfig(**{**CONFIG, "seed": None}), lm=tiny_lm, embedder=HashEmbedder(),
                          resume=True)
    assert [[r["keyword"], r["noisy_count"]] for r in corpus.records] == histogram["keywords"]
    assert corpus.manifest["not_for_release"] is False and corpus.manifest["privacy"]["secure_randomness"] is True
    assert not work_folder(out).exists()


def test_a_grouped_build_resumes_to_the_uninterrupted_corpus(tmp_path):
    """Member groups (``group_size``): killed after the first checkpointed batch of private prediction, the
    resumed build recomputes the same groups from the restored members, decodes only the groups left and
    writes the uninterrupted corpus byte for byte."""
    grouped = {**CONFIG, "group_size": 2, "max_groups": 3}
    done = _build(tmp_path / "ref", tmp_path / "ledger-ref", config=grouped)
    assert done.returncode == 0, done.stderr
    reference = tmp_path / "ref"
    records = [json.loads(line) for line in (reference / "texts.jsonl").read_text().splitlines()]
    assert len(records) > 4 and {r["group"] for r in records} == {0, 1}
    out, ledger = tmp_path / "c", tmp_path / "ledger"
    assert _build(out, ledger, kill_after="texts.json", config=grouped).returncode == -signal.SIGKILL
    resumed = _build(out, ledger, resume=True, config=grouped,
                     forbid=("gaussian_histogram", "noisy_unit_vector_sum", "exponential_threshold"))
    assert resumed.returncode == 0, resumed.stderr
    assert f"DECODED {len(records) - 1}" in resumed.stdout
    assert (out / "texts.jsonl").read_bytes() == (reference / "texts.jsonl").read_bytes()
    assert _manifest(out)["privacy"] == _manifest(reference)["privacy"]


@pytest.fixture(scope="module")
def killed_after_texts(tmp_path_factory):
    """The work folder of a seeded build SIGKILLed after private prediction's first batch: histogram,
    outlier removal and one cluster's text checkpointed (all drawn values), and its ledger."""
    tmp = tmp_path_factory.mktemp("killed")
    out, ledger = tmp / "c", tmp / "ledger"
    assert _build(out, ledger, kill_after="texts.json").returncode == -signal.SIGKILL
    return work_folder(out), ledger


@pytest.mark.parametrize(("name", "damage"), [
    *itertools.product(["histogram.json", "clusters.json", "texts.json"], ["delete", "corrupt"]),
    ("state.json", "delete"),  # the drawn checkpoints left without it
])
def test_resume_refuses_to_draw_a_released_value_again(tmp_path, monkeypatch, tiny_lm, killed_after_texts, name,
                                                        damage):
    """Issue 29, item 2: with a checkpoint of a drawn value deleted or damaged (or state.json deleted beside
    them), --resume refuses with a clear message, draws nothing (every mechanism and private prediction
    fail the test if called) and leaves the work folder as it was; the ledger still holds one release."""
    import dpsynrag.pipeline.build as build
    from dpsynrag.models import PrivatePredictionDecoder
    from dpsynrag.rng import RandomSource

    work, ledger = killed_after_texts
    out = tmp_path / "c"
    shutil.copytree(work, work_folder(out))
    target = work_folder(out) / name
    if damage == "delete":
        target.unlink()
    else:
        target.write_text('{"keywords": [[')
    before = sorted(p.name for p in work_folder(out).iterdir())

    def drawn(*args, **kwargs):
        raise AssertionError("a mechanism was drawn on a refused resume")

    for mechanism in ("gaussian_histogram", "gaussian_sparse_histogram", "noisy_unit_vector_sum",
                      "exponential_threshold"):
        monkeypatch.setattr(build, mechanism, drawn)
    monkeypatch.setattr(PrivatePredictionDecoder, "generate_ids", drawn)
    for draw in ("discrete_gaussian", "add_gaussian", "categorical"):
        monkeypatch.setattr(RandomSource, draw, drawn)
    checked = work_folder(out) / ("histogram.json" if name == "state.json" else name)
    with pytest.raises(CheckpointError) as refused:
        build_corpus(DOCS, out, BuildConfig(**CONFIG), lm=tiny_lm, embedder=HashEmbedder(),
                     ledger=PrivacyLedger(ledger), resume=True)
    message = " ".join(str(refused.value).split())
    assert f"already drew the value checkpointed in {checked}" in message
    assert ("is missing" if damage == "delete" else "is damaged") in message
    assert "spend the privacy budget twice" in message and "nothing was drawn" in message
    assert f"Start a new build with a fresh budget: delete {work_folder(out)}" in message
    assert sorted(p.name for p in work_folder(out).iterdir()) == before and not out.exists()
    assert len(PrivacyLedger(ledger).releases()) == 1
