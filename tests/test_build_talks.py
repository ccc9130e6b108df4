"""A build that talks (issue 28, items 5 and 6): one bar per stage ("stage i of N: NAME", counts, ETA, the
stage's wall time), private prediction in ONE bar across its checkpointed batches ("batch i of N"), what a
resume restored, the last message of an interrupted build (Ctrl-C: 130, SIGTERM: 143) naming its
``.NAME.work`` folder and ``--resume``, the total wall time and the number of documents cut: all on the
owner's console, none of it in the public ``build.log``. And documents cut at read time to a public
character bound (``max_document_chars``), never carried whole through a build.

CLI builds use the tiny Llama of conftest.py and the hash embedder of fakes.py (their loaders patched);
an interrupted build runs in a subprocess slowed by a sleep patched in from this file only."""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import signal
import subprocess
import sys
import time
import tracemalloc
import warnings
from pathlib import Path

import pytest
from fakes import HashEmbedder
from typer.testing import CliRunner

from dpsynrag.cli import app
from dpsynrag.data.io import (
    MAX_CHARS_PER_TOKEN,
    as_documents,
    load_documents,
    max_document_chars,
    warn_duplicate_texts,
)
from dpsynrag.data.streaming import DocumentFile
from dpsynrag.pipeline.checkpoint import interruption_message, work_folder
from dpsynrag.privacy.fingerprints import dataset_fingerprint

TESTS = Path(__file__).parent
WORDS = "fever cough rash flu pain drug dose blood heart lung skin eye ear head arm leg".split()
DOCS = [f"the patient has {a} and {b} with {c}" for a, b, c in list(itertools.combinations(WORDS, 3))[::23][:24]]
LONG = "the patient has fever and cough with rash " + "blood " * 300  # 1,842 characters: cut at read time
STAGES = ["reading documents", "keywords", "keyword histogram", "clustering", "embeddings and outlier removal", "private prediction",
          "self-filter", "index"]


def _args(data: Path, out: Path, *extra: str) -> list[str]:
    return ["build", str(data), "--out", str(out), "--epsilon", "10", "--delta", "1e-3", "--preset", "paper",
            "--K", "3", "--R", "4", "--L", "2", "--k", "5", "--T", "6", "--extractor", "llm", "--batch-size", "8",
            "--max-document-tokens", "8", "--prediction-checkpoints", "4", "--seed", "3",
            "--filter-prompt", "rephrase {document}", *extra]


@pytest.fixture()
def data(tmp_path) -> Path:
    path = tmp_path / "notes.jsonl"
    path.write_text("".join(json.dumps({"text": d}) + "\n" for d in [*DOCS[:-1], LONG]))
    return path


@pytest.fixture()
def tiny_models(monkeypatch, tiny_lm):
    """`dpsynrag build` loads the tiny Llama and the hash embedder (no download, seconds)."""
    from dpsynrag.models import Embedder, LanguageModel

    monkeypatch.setattr(LanguageModel, "load", classmethod(lambda cls, *a, **k: tiny_lm))
    monkeypatch.setattr(Embedder, "load", classmethod(lambda cls, *a, **k: HashEmbedder()))


def test_a_cli_build_shows_its_stages_one_prediction_bar_and_owner_facts(tmp_path, data, tiny_models):
    result = CliRunner().invoke(app, _args(data, tmp_path / "c"))
    assert result.exit_code == 0, result.output
    out = result.output
    for i, name in enumerate(STAGES, start=1):  # every stage, numbered, with its wall time when it ends
        assert f"stage {i} of {len(STAGES)}: {name}: done in " in out, name
    # the keyword bar advances per generation batch (8 distinct prompts; a repeated prompt, computed once, counts
    # with its batch: 9 documents in the first), not per 512-document chunk
    assert "stage 2 of 8: keywords:  38%" in out and "9/24" in out and "24/24" in out
    # issue 43: the documents cut, said after the reading pass and before the histogram (the first spend)
    advice = ("owner-only (not DP): 1 of 24 documents are longer than --max-document-tokens 8 and are cut to their "
              "first 8 tokens. Nothing is spent yet: to let the model read more of each, stop now (Ctrl-C) and raise "
              "--max-document-tokens")
    assert out.index("stage 1 of 8: reading documents: done in ") < out.index(advice)
    assert out.index(advice) < out.index("stage 2 of 8: keywords:") < out.index("stage 3 of 8: keyword histogram")
    assert "| 24/24 [" in next(line for line in out.split("\n") if "reading documents:" in line)  # its bar, in documents
    # private prediction: one bar (one line of refreshes) across its 4 checkpointed batches, no bar per batch,
    # counted in tokens (4 texts x T = 6) and advanced at every decoding step (issue 43)
    lines = [line for line in out.split("\n") if "private prediction (batch" in line]
    assert len(lines) == 1 and "batch 4 of 4" in lines[0] and "24/24" in lines[0]
    assert all(f"| {n}/24 [" in lines[0] for n in range(1, 25)) and "token/s" in lines[0]
    assert "batch x token" not in out
    # owner-only facts on the console: the documents cut (LONG: at read time and by the token cut), total time
    assert ("documents cut (owner-only, not DP): 1 to --max-document-tokens 8 (at read time to "
            f"{9 * MAX_CHARS_PER_TOKEN:,} characters first)") in out
    assert "total wall time: " in out.rsplit("owner-only audit record", 1)[1]
    owner = json.loads((tmp_path / "c.owner.json").read_text())
    assert owner["truncation"][0] == {"stage": "language model (max_document_tokens)", "max_tokens": 8,
                                      "max_chars": 9 * MAX_CHARS_PER_TOKEN, "documents_cut": 1}
    log = (tmp_path / "c" / "build.log").read_text()
    assert "stage 1 of" not in log and "done in" not in log and "24" not in log.split("calibrated:")[-1]
    assert "self-filter kept " in log  # the filter that ran, by its name


def test_the_log_names_the_filter_that_ran(tmp_path, tiny_lm):
    """The trial's finding: build.log said "self-filter kept 1 of 6 texts" when the self-filter was off and the
    fluency filter dropped them."""
    from dpsynrag.pipeline.build import build_corpus
    from dpsynrag.pipeline.config import BuildConfig

    common = dict(epsilon=10.0, delta=1e-3, K=3, R=4, L=2, k=5, T=6, extractor="rarity", self_filter=False, seed=3,
                  vocabulary_size=2000)
    for fluency, name in ((-50.0, "fluency filter kept "), (None, "empty-text filter kept ")):
        out = tmp_path / str(fluency)
        build_corpus(DOCS, out, BuildConfig(**common, fluency_threshold=fluency), lm=tiny_lm, embedder=HashEmbedder(),
                     progress=False)
        log = (out / "build.log").read_text()
        assert name in log and "self-filter kept" not in log


def test_progress_false_is_silent(tmp_path, capfd, tiny_lm):
    from dpsynrag.pipeline.build import build_corpus
    from dpsynrag.pipeline.config import BuildConfig

    config = BuildConfig(epsilon=10.0, delta=1e-3, K=3, R=4, L=2, k=5, T=6, extractor="rarity", self_filter=False,
                         seed=3, vocabulary_size=2000)
    build_corpus(DOCS, tmp_path / "c", config, lm=tiny_lm, embedder=HashEmbedder())
    captured = capfd.readouterr()
    assert "stage" not in captured.err and "stage" not in captured.out


_INTERRUPTED = """
import signal, sys, time
# Ctrl-C as in a terminal: a test run started in the background by a non-interactive shell (`( make test & )`)
# passes SIGINT on as ignored, and Python then never raises KeyboardInterrupt (the build would sleep on)
signal.signal(signal.SIGINT, signal.default_int_handler)
sys.path.insert(0, sys.argv[1])
from conftest import make_tiny_model, make_tiny_tokenizer
from fakes import HashEmbedder
from dpsynrag.models import Embedder, LanguageModel, PrivatePredictionDecoder

lm = LanguageModel(make_tiny_model(), make_tiny_tokenizer(), name="tiny-llama")
LanguageModel.load = classmethod(lambda cls, *a, **k: lm)
Embedder.load = classmethod(lambda cls, *a, **k: HashEmbedder())
generate_ids, calls = PrivatePredictionDecoder.generate_ids, []
def slow_generate_ids(self, *args, **kwargs):  # the test's hook: the second batch of clusters never ends
    calls.append(1)
    if len(calls) == 2:
        time.sleep(600)
    return generate_ids(self, *args, **kwargs)
PrivatePredictionDecoder.generate_ids = slow_generate_ids
from dpsynrag.cli import app
sys.argv = ["dpsynrag", *sys.argv[2:]]
app()
"""


@pytest.mark.parametrize(("sig", "code", "how"), [(signal.SIGTERM, 143, "SIGTERM"), (signal.SIGINT, 130, "Ctrl-C")])
def test_an_interrupted_build_names_its_checkpoint_and_resumes(tmp_path, data, tiny_models, sig, code, how):
    out = tmp_path / "c"
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    proc = subprocess.Popen([sys.executable, "-c", _INTERRUPTED, str(TESTS), *_args(data, out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    texts = work_folder(out) / "texts.json"
    deadline = time.monotonic() + 300
    while not texts.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.2)  # the first batch of private prediction is checkpointed; the second one hangs
    assert texts.exists(), proc.communicate(timeout=60)
    time.sleep(0.5)
    proc.send_signal(sig)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == code, stderr
    said = " ".join(stderr.split())  # the last message: the checkpoint folder and the command with --resume
    last = said[said.index(f"interrupted ({how}): the build's checkpoint (private intermediates, owner-only) is kept "
                           f"in {work_folder(out)}. Continue it with the same command and --resume: dpsynrag build "):]
    assert last.endswith(" --resume; or delete that folder to start over.")
    assert not out.exists() and work_folder(out).is_dir()

    result = CliRunner().invoke(app, _args(data, out, "--resume"))
    assert result.exit_code == 0, result.output
    assert ("resuming: keywords, histogram (4 keywords), outlier removal, 1 of 4 clusters restored from .c.work"
            in result.output)
    assert "stage 1 of 7: keywords: restored from .c.work" in result.output  # no reading pass: keywords restored
    assert "reading documents" not in result.output
    assert "batch 3 of 3" in result.output  # the 3 clusters left, in the same one bar
    assert "total wall time: " in result.output
    log = (out / "build.log").read_text()
    assert "resum" not in log and "interrupt" not in log and ".work" not in log  # nothing of it in public


def test_the_interruption_message_without_a_checkpoint(tmp_path):
    message = interruption_message(tmp_path / "c", "Ctrl-C", argv=["x", "build"])
    assert message.startswith("interrupted (Ctrl-C): nothing was kept") and "--resume" not in message
    work_folder(tmp_path / "c").mkdir()
    (work_folder(tmp_path / "c") / "state.json").write_text("{}")
    message = interruption_message(tmp_path / "c", "SIGTERM", argv=["x", "build", "n.jsonl", "--out", "my c"])
    assert str(work_folder(tmp_path / "c")) in message
    assert message.endswith("--resume: dpsynrag build n.jsonl --out 'my c' --resume; "
                            "or delete that folder to start over.")


# ---------------------------------------------------------------------------------------------- read-time cut

BIG = 20 * 2**20  # characters of the 20 MB document


@pytest.fixture(scope="module")
def big_text() -> str:
    return ("the patient has fever " * (BIG // 22 + 1))[:BIG]


@pytest.mark.parametrize("suffix", [".jsonl", ".csv", ".parquet"])
def test_a_20_mb_document_is_cut_as_it_is_read(tmp_path, big_text, suffix):
    path = tmp_path / f"notes{suffix}"
    rows = ["a short note", big_text, "another short note"]
    if suffix == ".jsonl":
        path.write_text("".join(json.dumps({"text": t}) + "\n" for t in rows))
    elif suffix == ".csv":
        path.write_text("text\n" + "".join(f"{t}\n" for t in rows))
    else:
        import pyarrow as pa
        import pyarrow.parquet as pq

        pq.write_table(pa.table({"text": rows}), path)
    max_chars = max_document_chars(256)
    assert max_chars == 257 * 128
    tracemalloc.start()
    try:
        documents = DocumentFile(path, max_chars=max_chars)  # checked (one pass) when opened
        texts = [d.text for d in documents]  # a second pass, every text kept
        retained, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert texts == ["a short note", big_text[:max_chars], "another short note"]
    assert documents.cut == 1 and len(documents) == 3
    assert retained < 2**20  # the kept texts: 32 KiB, not 20 MiB
    if suffix == ".parquet":  # cut in Arrow: the 20 MB text never becomes a Python string
        assert peak < 2**20
    cut = list(documents)[1]
    assert cut.text_sha256 == hashlib.sha256(big_text.encode()).digest()
    # the ledger identifies the collection by its whole texts, whatever the cut
    assert dataset_fingerprint(list(documents)) == dataset_fingerprint(rows)


def test_the_read_time_cut_leaves_the_token_cut_as_it_was(tiny_lm):
    """Under the bound a text is not touched; over it, lm.truncate keeps the same prefix as from the whole text
    (every token of ordinary text covers far fewer than MAX_CHARS_PER_TOKEN characters)."""
    short = "the patient has fever and cough with rash"
    long = " ".join(itertools.islice(itertools.cycle(WORDS), 5000))  # 21,650 characters
    max_chars = max_document_chars(8)
    docs = as_documents([short, long], max_chars=max_chars)
    assert docs[0].text == short and docs[0].text_sha256 is None
    assert docs[1].text == long[:max_chars] and docs[1].text_sha256 == hashlib.sha256(long.encode()).digest()
    for n in (1, 8):
        assert tiny_lm.truncate(docs[1].text, n) == tiny_lm.truncate(long, n)
    with pytest.raises(Exception, match="--max-document-tokens"):
        max_document_chars(0)


def test_texts_that_differ_only_after_the_cut_are_not_duplicates():
    a, b = "fever " * 100 + "cough", "fever " * 100 + "rash"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        docs = as_documents([a, b], max_chars=50)
        assert docs[0].text == docs[1].text  # the same first 50 characters ...
        assert warn_duplicate_texts(docs) == 0  # ... but different documents
    with pytest.warns(UserWarning, match="repeat the exact text"):
        assert warn_duplicate_texts(as_documents([a, a], max_chars=50)) == 1



def test_a_document_cut_at_read_time_is_counted_as_cut_after_redaction():
    """The owner's count of documents cut (``ReadingTally.changed``) includes a text cut at read time even
    when the token cut then leaves it as it is, and redaction keeps that mark."""
    from dpsynrag.data.io import Document
    from dpsynrag.data.preparation import DocumentPreparer, ReadingTally
    from dpsynrag.data.redaction import RedactedDocuments
    from dpsynrag.data.spool import DocumentSpool

    docs = as_documents([Document("0", "Ada has fever " * 20, ("Ada",)), Document("1", "a short note")], max_chars=100)
    redacted = RedactedDocuments(docs)
    assert [d.text_sha256 is not None for d in redacted] == [True, False]
    assert list(redacted)[0].text.startswith("[REDACTED] has fever")
    tally = ReadingTally()  # a cut that changes nothing
    texts = DocumentSpool(tally.documents(map(DocumentPreparer(redacted, lambda text: text), docs)), folder=".").texts
    assert list(texts)[1] == "a short note" and tally.changed == 1


class _Recorder:
    """A BuildDisplay stand-in that records its calls."""

    def __init__(self):
        self.calls = []

    def __getattr__(self, name):
        return lambda *a, **k: self.calls.append((name, *a))


@pytest.mark.parametrize("n", [70, 64, 5])
def test_the_reading_stage_advances_every_32_documents_and_says_the_cut_count(n):
    """issue 43: the reading pass (the PII pass when redacting) talks: an update every READ_UPDATE documents, the
    rest at the end; then the cut count with the advice to raise --max-document-tokens (none when nothing is cut).
    issue 44: that pass is the build's one read (a DocumentSpool reads, redacts and cuts through it)."""
    from dpsynrag.data.preparation import DocumentPreparer, ReadingTally
    from dpsynrag.data.spool import DocumentSpool
    from dpsynrag.pipeline.display import READ_UPDATE, end_reading, reading_pass

    assert READ_UPDATE == 32
    docs = as_documents([(f"a long text {i} " * 5 if i % 3 == 0 else f"short {i}") for i in range(n)])
    display = _Recorder()
    tally = ReadingTally()
    spool = DocumentSpool(tally.documents(map(DocumentPreparer(None, lambda t: t[:20]),
                                              reading_pass(display, "reading documents", docs))), folder=".")
    end_reading(display, tally.changed, len(spool), 4)
    cut = tally.changed
    assert cut == len(range(0, n, 3))
    assert display.calls[0] == ("start", "reading documents")
    assert [c for c in display.calls if c[0] == "update"] == [("update", 32)] * (n // 32)
    assert ("reach", n) in display.calls and display.calls[-1][0] == "say"
    assert display.calls[-1][1].startswith(f"owner-only (not DP): {cut} of {n} documents are longer than "
                                           "--max-document-tokens 4")
    quiet = _Recorder()
    uncut = ReadingTally()
    DocumentSpool(uncut.documents(map(DocumentPreparer(None, None), reading_pass(quiet, "reading documents", docs))),
                  folder=".")
    end_reading(quiet, uncut.changed, n, 4)
    assert [c[0] for c in quiet.calls][-1] == "end"  # nothing cut: no advice
