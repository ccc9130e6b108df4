"""Seeded outputs of every method on a small made-up collection with the tiny test model: the golden
files of tests/test_golden.py (issue 13: a refactoring must not change what any method releases).

Run ``python tests/golden/make_golden.py`` to (re)write ``tests/golden/outputs.json``; only do so when a
change is *meant* to alter seeded outputs, and say so in the commit.
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # tests/: conftest's tiny model, fakes' HashEmbedder

from conftest import TINY_WORDS, make_tiny_model, make_tiny_tokenizer  # noqa: E402
from fakes import HashEmbedder  # noqa: E402

GOLDEN = HERE / "outputs.json"
WORDS = [w for w in TINY_WORDS if w not in (":", ".", ",")]


def documents(n: int = 240) -> list[str]:
    """``n`` made-up notes over the tiny tokenizer's words: 6 topics of 4 words each, plus filler."""
    rng = random.Random(7)
    topics = [WORDS[i * 4:(i + 1) * 4] for i in range(6)]
    docs = []
    for i in range(n):
        topic = topics[i % len(topics)]
        words = topic + rng.sample(WORDS[24:], 5)
        rng.shuffle(words)
        docs.append("the patient " + " ".join(words) + " .")
    return docs


def _corpus_files(folder: Path) -> dict[str, str]:
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    return {
        "texts.jsonl": (folder / "texts.jsonl").read_text(encoding="utf-8"),
        "index_ids.json": (folder / "index_ids.json").read_text(encoding="utf-8"),
        "privacy": json.dumps(manifest["privacy"], sort_keys=True),
    }


def outputs() -> dict[str, dict[str, str]]:
    """Every method's seeded release: corpus methods' texts, index ids and privacy section; DP-RAG's
    answers and session report."""
    from dpsynrag.baselines import AugPEConfig, DPRAGConfig, DPRAGSession, DPSynthConfig, build_aug_pe, build_dp_synth
    from dpsynrag.models import LanguageModel
    from dpsynrag.pipeline.build import build_corpus
    from dpsynrag.pipeline.config import BuildConfig

    model = make_tiny_model()

    def lm():
        return LanguageModel(model, make_tiny_tokenizer(), name="tiny-llama")

    docs = documents()
    synrag = dict(epsilon=10.0, delta=1e-3, K=2, R=6, L=2, k=12, T=5, extractor="rarity", open_vocabulary=True,
                  max_document_tokens=24, self_filter=False, seed=3)
    builds = {
        "dp-synrag-paper": (build_corpus, BuildConfig(**synrag)),
        "dp-synrag-public-prior": (build_corpus, BuildConfig(**{**synrag, "decoding": "public-prior",
                                                                "public_weight": 0.25, "fluency_threshold": -30.0})),
        "dp-synrag-invisibleink": (build_corpus, BuildConfig(**{**synrag, "decoding": "invisibleink",
                                                                "public_top_k": 5, "clustering": "primary"})),
        "dp-synrag-l1-no-outlier-removal-self-filter": (
            build_corpus, BuildConfig(**{**synrag, "L": 1, "outlier_removal": False, "self_filter": True,
                                         "task": "medical"})),
        "dp-synth": (build_dp_synth, DPSynthConfig(epsilon=10.0, delta=1e-3, num_batches=4, T=5, self_filter=False,
                                                   max_document_tokens=24, seed=3)),
        "aug-pe": (build_aug_pe, AugPEConfig(epsilon=10.0, delta=1e-3, population_size=6, iterations=2, L=2, T=5,
                                             self_filter=False, description="notes of a doctor about a patient",
                                             max_document_tokens=24, seed=3)),
    }
    out: dict[str, dict[str, str]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, (builder, config) in builds.items():
            folder = Path(tmp) / name
            builder(docs, folder, config, lm=lm(), embedder=HashEmbedder())
            out[name] = _corpus_files(folder)
    session = DPRAGSession(docs[:40], DPRAGConfig(epsilon_per_query=2.0, delta=1e-3, utility="top-k", top_k=3,
                                                  max_new_tokens=4, max_document_tokens=16, public_weight=0.01,
                                                  prompts="reference"),
                           lm=lm(), embedder=HashEmbedder(dim=32), seed=3)
    answers = session.answer(["the patient has fever", "what drug for the rash"])
    out["dp-rag"] = {"answers": json.dumps([a.text for a in answers]),
                     "privacy": json.dumps(session.report().to_dict(), sort_keys=True)}
    return out


if __name__ == "__main__":
    GOLDEN.write_text(json.dumps(outputs(), indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {GOLDEN}")
