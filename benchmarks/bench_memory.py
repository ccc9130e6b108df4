"""Peak memory and time per document of a DP-SynRAG build at 2,000, 10,000 and 50,000 documents (issue 15, item 3).

Workload: synthetic Medical-Synth-like records ("Given the symptoms (...) of NAME. The diagnosis is
DISEASE, ...") generated from a seeded template (diseases with Zipf-like popularity, invented names),
written to a JSONL file, and built **from the file path** (so input streaming is exercised) with
small parameters: R=8, k=10, T=4, K=1, L=1, the rarity extractor, the open vocabulary, no
self-filter, epsilon=10, delta=1e-3, seed 0, outlier removal on.

Each size runs in a fresh subprocess; its peak resident set size is the ``ru_maxrss`` of that child
(``os.wait4``). The child also reports its peak RSS just before the build starts (interpreter,
libraries and models loaded, every weight touched once), so the table shows how much the build itself adds.

Models (``--models``):

* ``tiny`` (default): the tiny randomly initialised Llama and word-level tokenizer of
  ``tests/conftest.py`` and a tiny sentence-transformers BERT (hidden size 32, one layer, mean pooling)
  built in code as in ``tests/test_embedder.py``. The offline embedder (all-MiniLM-L6-v2) embeds one text
  per forward pass (batch invariance, see :meth:`dpsynrag.models.Embedder.encode`): ~20–60 ms per
  document on the 2-core build machine, i.e. 15–50 minutes for 50,000 documents, too slow for this
  benchmark. Its 384-d rows would make the embedding part of the memory 12× that of the tiny model.
* ``offline``: SmolLM2-135M-Instruct and all-MiniLM-L6-v2 (use with small sizes only).

Writes ``benchmarks/results/bench_memory.json`` (all labelled runs; ``--label`` replaces the runs of
that label) and ``bench_memory.md`` (the table).

Usage::

    OMP_NUM_THREADS=1 python benchmarks/bench_memory.py --label after
    OMP_NUM_THREADS=1 python benchmarks/bench_memory.py --sizes 2000 --models offline --label offline
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import resource
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
CONFIG = dict(
    epsilon=10.0, delta=1e-3, K=1, R=8, L=1, k=10, T=4, extractor="rarity", open_vocabulary=True,
    self_filter=False, max_document_tokens=64, seed=0,
)

_SYMPTOMS = (
    "Abdominal cramps|Fatigue|Rash on the palms|Loss of appetite|Dizziness|Fever|Dry cough|Headache|Nausea|"
    "Joint pain|Blurred vision|Night sweats|Chills|Sore throat|Muscle aches|Shortness of breath|Itchy skin|"
    "Swollen ankles|Ringing in the ears|Hiccups|Sneezing|Blue fingernails|Sudden yawning|Hair loss"
).split("|")
_SYLLABLES = "blor fli zan quor mip tes vel dra kon bur pli snof gru wex lam tiv och rab zem fu".split()
_FIRST = ("Achille Beatriz Cyrus Dalia Emeric Farah Gustav Hana Ilias Jovana Kenji Lucia Matteo Nadia Oskar "
          "Priya Quentin Rosa Samir Tamsin Ugo Vera Wendell Ximena Yusuf Zora").split()


def _word(rng: random.Random, syllables: int) -> str:
    return "".join(rng.choice(_SYLLABLES) for _ in range(syllables))


def synthetic_records(n: int, seed: int = 0) -> Iterator[dict]:
    """``n`` Medical-Synth-like records (id, text, patient_name, disease, treatment, symptoms), seeded."""
    rng = random.Random(seed)
    diseases = []
    for _ in range(120):
        name = _word(rng, 3).capitalize() + rng.choice(["osis", "itis", "emia", " syndrome", " fever"])
        diseases.append((name, rng.sample(_SYMPTOMS, rng.randint(3, 5)), _word(rng, 2).capitalize() + " drops"))
    weights = [1.0 / (r + 1) for r in range(len(diseases))]  # Zipf-like popularity
    last_names = [_word(rng, 2).capitalize() + rng.choice(["son", "ez", "ova", "er", "i"]) for _ in range(400)]
    for i in range(n):
        disease, symptoms, treatment = rng.choices(diseases, weights)[0]
        shown = rng.sample(symptoms, rng.randint(2, len(symptoms)))
        name = f"{rng.choice(_FIRST)} {rng.choice(last_names)}"
        text = (f"Given the symptoms ({', '.join(shown)}) of {name}. The diagnosis is {disease}, "
                f"the treatment should be {treatment}. {disease.split()[0]} was confirmed.")
        yield {"id": i, "text": text, "patient_name": name, "disease": disease, "treatment": treatment,
               "symptoms": shown}


def _tiny_models(folder: Path):
    sys.path.insert(0, str(ROOT / "tests"))
    import torch
    from conftest import make_tiny_model, make_tiny_tokenizer
    from sentence_transformers import SentenceTransformer

    try:
        from sentence_transformers.sentence_transformer.modules import Pooling, Transformer
    except ImportError:  # sentence-transformers < 6
        from sentence_transformers.models import Pooling, Transformer
    from transformers import BertConfig, BertModel, BertTokenizerFast

    from dpsynrag.models import Embedder, LanguageModel

    words = sorted({w.lower().strip("(),.") for s in _SYMPTOMS for w in s.split()} | {"given", "the", "of", "is"})
    base = folder / "tiny-bert"
    base.mkdir()
    (base / "vocab.txt").write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + words) + "\n")
    BertTokenizerFast(vocab_file=str(base / "vocab.txt")).save_pretrained(base)
    torch.manual_seed(0)
    BertModel(BertConfig(vocab_size=len(words) + 5, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                         intermediate_size=64, max_position_embeddings=128)).save_pretrained(base)
    transformer = Transformer(str(base), max_seq_length=128)
    st = SentenceTransformer(modules=[transformer, Pooling(32, "mean")], device="cpu")
    st.save(str(folder / "tiny-st"))
    lm = LanguageModel(make_tiny_model(), make_tiny_tokenizer(), name="tiny-llama")
    return lm, Embedder.load(folder / "tiny-st", device="cpu")


def child(args) -> None:
    """Load the models, build from ``args.input``, print one JSON line."""
    from dpsynrag.pipeline.build import build_corpus
    from dpsynrag.pipeline.config import BuildConfig

    work = Path(args.work)
    if args.models == "tiny":
        lm, embedder = _tiny_models(work)
    else:
        from dpsynrag.models import Embedder, LanguageModel

        lm, embedder = LanguageModel.load(None), Embedder.load(None)
    import torch

    with torch.no_grad():  # touch every weight: a safetensors load maps the file and reads it lazily
        for module in (lm.model, embedder.model):
            for p in module.parameters():
                p.sum()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t = time.perf_counter()
    corpus = build_corpus(args.input, work / "corpus", BuildConfig(**CONFIG), lm=lm, embedder=embedder)
    seconds = time.perf_counter() - t
    texts = (work / "corpus" / "texts.jsonl").read_bytes()
    import hashlib

    print(json.dumps({"build_s": seconds, "rss_before_build_kb": before, "num_texts": len(corpus.records),
                      "texts_sha256": hashlib.sha256(texts).hexdigest()}))


def _run_child(n: int, models: str) -> dict:
    """One size in a fresh subprocess: its peak RSS from os.wait4's rusage."""
    with tempfile.TemporaryDirectory(prefix="bench-memory-") as tmp:
        data = Path(tmp) / "documents.jsonl"
        with open(data, "w", encoding="utf-8") as f:
            for record in synthetic_records(n):
                f.write(json.dumps(record) + "\n")
        cmd = [sys.executable, os.path.abspath(__file__), "--child", "--input", str(data), "--work", tmp,
               "--models", models]
        with open(Path(tmp) / "stdout", "w+") as out, open(Path(tmp) / "stderr", "w+") as err:
            t = time.perf_counter()
            pid = os.posix_spawn(sys.executable, cmd, os.environ,
                                 file_actions=[(os.POSIX_SPAWN_DUP2, out.fileno(), 1),
                                               (os.POSIX_SPAWN_DUP2, err.fileno(), 2)])
            _, status, usage = os.wait4(pid, 0)
            wall = time.perf_counter() - t
            out.seek(0)
            err.seek(0)
            stdout, stderr = out.read(), err.read()
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"size {n}: the build failed (exit {os.waitstatus_to_exitcode(status)}):\n{stderr[-4000:]}")
        result = json.loads(stdout.strip().splitlines()[-1])
        kb = 1 if platform.system() == "Linux" else 1 / 1024  # ru_maxrss: KiB on Linux, bytes on macOS
        return {
            "documents": n,
            "input_mb": round(data.stat().st_size / 2**20, 2) if data.exists() else None,
            "peak_rss_mb": round(usage.ru_maxrss * kb / 1024, 1),
            "rss_before_build_mb": round(result["rss_before_build_kb"] * kb / 1024, 1),
            "build_s": round(result["build_s"], 1),
            "ms_per_document": round(1000 * result["build_s"] / n, 3),
            "process_wall_s": round(wall, 1),
            "num_texts": result["num_texts"],
            "texts_sha256": result["texts_sha256"],
        }


def render(results: dict) -> str:
    lines = [
        "# Memory benchmark: DP-SynRAG build from a JSONL file (issue 15, item 3)",
        "",
        f"Workload: synthetic Medical-Synth-like records, built from the file path; {json.dumps(CONFIG)}. "
        "Each size in a fresh subprocess; peak RSS = the child's ru_maxrss; 'before build' = its peak RSS once "
        "the libraries and models are loaded (every weight touched). Times were measured with other processes sharing the 2 cores: "
        "they are noisy; RSS is not.",
        "",
        "| label | models | documents | input (MiB) | peak RSS (MiB) | before build (MiB) | build adds (MiB) | "
        "build (s) | ms / document | texts sha256 (first 12) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for label, entry in results["runs"].items():
        for r in entry["sizes"]:
            lines.append(
                f"| {label} | {entry['models']} | {r['documents']:,} | {r['input_mb']} | {r['peak_rss_mb']} | "
                f"{r['rss_before_build_mb']} | {round(r['peak_rss_mb'] - r['rss_before_build_mb'], 1)} | "
                f"{r['build_s']} | {r['ms_per_document']} | {r['texts_sha256'][:12]} |"
            )
        sizes = {r["documents"]: r["peak_rss_mb"] for r in entry["sizes"]}
        if 10_000 in sizes and 50_000 in sizes:
            lines.append(f"| {label}: peak RSS 50,000 / 10,000 | | | | {sizes[50_000] / sizes[10_000]:.2f}x | | | | | |")
    notes = [n for entry in results["runs"].values() for n in entry.get("notes", [])]
    if notes:
        lines += [""] + [f"- {n}" for n in notes]
    lines += ["", "Command: `OMP_NUM_THREADS=1 python benchmarks/bench_memory.py --label LABEL` "
              "(`--sizes`, `--models tiny|offline`)."]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[2_000, 10_000, 50_000])
    parser.add_argument("--models", choices=["tiny", "offline"], default="tiny")
    parser.add_argument("--label", default="current", help="runs are stored under this label (replacing its old runs)")
    parser.add_argument("--note", action="append", default=[], help="a note stored with this label's runs")
    parser.add_argument("--json", type=Path, default=RESULTS / "bench_memory.json")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--input", help=argparse.SUPPRESS)
    parser.add_argument("--work", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args)
        return
    results = json.loads(args.json.read_text()) if args.json.exists() else {"runs": {}}
    entry = {"models": args.models, "config": CONFIG, "python": platform.python_version(),
             "cpus": os.cpu_count(), "omp_num_threads": os.environ.get("OMP_NUM_THREADS"),
             "date": time.strftime("%Y-%m-%d"), "notes": args.note, "sizes": []}
    for n in args.sizes:
        row = _run_child(n, args.models)
        print(json.dumps(row), flush=True)
        entry["sizes"].append(row)
    results["runs"][args.label] = entry
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(results, indent=2) + "\n")
    args.json.with_suffix(".md").write_text(render(results))
    print(render(results))


if __name__ == "__main__":
    main()
