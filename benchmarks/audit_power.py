"""Audit power (issue 29, "Deliver 2"): can the one-run audit refute a leaking build at the ε we claim?

For each claimed ε, each corpus method is audited with the same design (:func:`dpsynrag.audit.run_audit`):

* **honest**: the shipped build of DP-SynRAG, DP-Synth and Aug-PE (``--methods``);
* **broken control**: the same build with a leak injected here (never a switch of the shipped code): the
  open-vocabulary keyword histogram releases exact counts with no noise and no threshold, while the
  accountant is charged as usual, so the report still claims the configured ε. Every included canary's
  secret is then released as a keyword. DP-SynRAG only: DP-Synth and Aug-PE release model-written text
  alone, and the tiny test model cannot spell an invented word, so no leak of theirs could show here.

The canary count follows the public rule (:func:`dpsynrag.audit.bound.design_audit`: the smallest of
1,000 … 16,000 canaries whose largest reachable bound exceeds the claimed ε; m/4 guesses IN, m/4 OUT,
the rest abstain), known before each build. Expected: every honest build "consistent" (or "not
refutable" where no outcome could refute it); the broken control "refuted" wherever the reachable bound
exceeds the tested (tight) ε.

Models: the tiny random Llama and word-level tokenizer of ``tests/conftest.py`` and the hash embedder of
``tests/fakes.py`` (CPU, no download). Data: synthetic Medical-Synth-like records (two invented diseases),
enough that the honest open-vocabulary histogram releases keywords down to ε = 0.5.

Usage (from the repository root)::

    .venv/bin/python benchmarks/audit_power.py             # the acceptance table: ε ∈ {0.5, 1, 2, 4, 8}
    .venv/bin/python benchmarks/audit_power.py --quick     # smallest setting: ε ∈ {1, 4}, 200 canaries

Writes ``benchmarks/results/audit_power.{md,json,png}`` (``audit_power_quick.*`` with ``--quick``); the
audited corpora (seeded, holding canaries: NOT for release) go to a temporary folder unless ``--work``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from unittest import mock

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
DISEASES = (("Flibberflux", ["Fatigue", "Dizziness", "Fever"], "Giggle Drops"),
            ("Snurfleosis", ["Cough", "Headache", "Nausea"], "Tummy Tickle Therapy"))
FIRST = ("Anna", "Peter", "Maria", "Lucas", "Emma", "Noah", "Julia", "Felix")
LAST = ("Miller", "Rossi", "Keller", "Weber", "Costa", "Novak", "Larsen", "Dubois", "Jansen", "Moreau")


def documents(n: int) -> list[str]:
    """``n`` records of distinct patients (as far as 80 names go) with one of two invented diseases."""
    from dpsynrag.tasks.medical_source import medical_document_text

    names = [f"{a} {b}" for a in FIRST for b in LAST]
    return [medical_document_text(f"{names[i % len(names)]} {i // len(names)}", *DISEASES[i % 2][:1],
                                  DISEASES[i % 2][1], DISEASES[i % 2][2]) for i in range(n)]


@contextlib.contextmanager
def broken_histogram():
    """The broken control: exact keyword counts released, the honest mechanism's accounting kept."""
    import dpsynrag.pipeline.build as build_module
    from dpsynrag.privacy.mechanisms import cap_keywords

    real = build_module.gaussian_sparse_histogram

    def broken(keyword_sets, **kwargs):
        real(keyword_sets, **kwargs)  # charged as usual; its output is discarded
        counts = Counter(w for ks in keyword_sets for w in cap_keywords(ks, max_keywords=kwargs["max_keywords"]))
        return {w: float(c) for w, c in counts.items()}

    with mock.patch.object(build_module, "gaussian_sparse_histogram", broken):
        yield


def tiny_models():
    sys.path.insert(0, str(ROOT / "tests"))
    from conftest import make_tiny_model, make_tiny_tokenizer
    from fakes import HashEmbedder

    from dpsynrag.models import LanguageModel

    return LanguageModel(make_tiny_model(), make_tiny_tokenizer(), name="tiny-llama"), HashEmbedder()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smallest setting: eps 1,4; 200 canaries; 400 documents; "
                        "DP-SynRAG and Aug-PE")
    parser.add_argument("--epsilons", default=None, help="claimed epsilons (default 0.5,1,2,4,8; quick: 1,4)")
    parser.add_argument("--delta", type=float, default=1e-5)
    parser.add_argument("--documents", type=int, default=None, help="private records (default 1200; quick: 400)")
    parser.add_argument("--canaries", type=int, default=None, help="fix m (default: the public rule; quick: 200)")
    parser.add_argument("--max-canaries", type=int, default=16000, help="largest m the public rule may pick")
    parser.add_argument("--methods", default=None, help="corpus methods audited (default dp-synrag,dp-synth,aug-pe; "
                        "quick: dp-synrag,aug-pe)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--work", type=Path, default=None, help="keep the audited corpora here (new folder)")
    args = parser.parse_args(argv)
    t0 = time.time()

    from dpsynrag.audit import audit_row, run_audit, write_audit_table
    from dpsynrag.audit.bound import CANARY_SIZES, design_audit
    from dpsynrag.baselines import DPSynthConfig
    from dpsynrag.baselines.aug_pe import AugPEConfig
    from dpsynrag.errors import DpsynragError
    from dpsynrag.pipeline.config import BuildConfig

    def configs(eps: float, m: int):
        """(method, build, config) audited at one claimed ε; small CPU settings of each method."""
        common = dict(epsilon=eps, delta=args.delta, task="medical", seed=args.seed, self_filter=False,
                      max_document_tokens=64)
        # R caps the released keywords (= clusters): room for every included canary's secret in the broken build
        synrag = BuildConfig(**common, K=3, R=max(400, m), L=1, k=5, T=2, open_vocabulary=True, extractor="rarity",
                             split="fractions")
        out = [("dp-synrag", "honest", synrag), ("dp-synrag", "broken control", synrag)]
        if "dp-synth" in methods:
            out.append(("dp-synth", "honest", DPSynthConfig(**common, T=2, num_batches=20)))
        if "aug-pe" in methods:
            out.append(("aug-pe", "honest", AugPEConfig(**common, T=4, population_size=20, iterations=2, L=2)))
        return [c for c in out if c[0] in methods]

    epsilons = [float(e) for e in (args.epsilons or ("1,4" if args.quick else "0.5,1,2,4,8")).split(",")]
    default_methods = "dp-synrag,aug-pe" if args.quick else "dp-synrag,dp-synth,aug-pe"
    methods = [m.strip() for m in (args.methods or default_methods).split(",")]
    n_docs = args.documents or (400 if args.quick else 1200)
    fixed = args.canaries or (200 if args.quick else None)
    sizes = tuple(m for m in CANARY_SIZES if m <= args.max_canaries) or (args.max_canaries,)
    lm, embedder = tiny_models()
    private = documents(n_docs)
    work = args.work or Path(tempfile.mkdtemp(prefix="audit-power-"))
    work.mkdir(parents=True, exist_ok=args.work is None)
    rows = []
    for eps in epsilons:
        design = design_audit(eps, args.delta, canaries=fixed, sizes=sizes)
        for method, build, config in configs(eps, design.canaries):
            t = time.time()
            folder = work / f"{method}-{build.replace(' ', '-')}-eps-{eps:g}"
            try:
                with broken_histogram() if build == "broken control" else contextlib.nullcontext():
                    result = run_audit(private, folder, config, canaries=design.canaries, k_in=design.k_in,
                                       k_out=design.k_out, lm=lm, embedder=embedder, log=print, method=method)
            except DpsynragError as exc:
                rows.append(audit_row(None, claimed_epsilon=eps, build=build, method=method,
                                      error=f"{type(exc).__name__}: {exc}"))
                print(f"eps={eps:g} {method} {build}: build failed: {rows[-1]['error']}")
                continue
            rows.append({**audit_row(result, claimed_epsilon=eps, build=build), "seconds": round(time.time() - t, 1)})
            print(f"eps={eps:g} {method} {build} ({rows[-1]['seconds']} s): {result.summary()}")
    total = time.time() - t0

    done = [r for r in rows if "error" not in r]
    honest_ok = all(r["verdict"] != "refuted" for r in done if r["build"] == "honest") and len(done) == len(rows)
    should = [r for r in done if r["build"] == "broken control" and r["max_epsilon_lower_bound"] > r["claimed_epsilon_tight"]]
    broken_ok = all(r["verdict"] == "refuted" for r in should)
    caught = sorted(r["claimed_epsilon"] for r in done if r["build"] == "broken control" and r["verdict"] == "refuted")
    command = ".venv/bin/python benchmarks/audit_power.py" + (" " + " ".join(sys.argv[1:]) if argv is None and sys.argv[1:] else "")
    note = (
        f"One-run audit (Steinke, Nasr, Jagielski 2023), δ = {args.delta:g}, 95% confidence; {n_docs} synthetic "
        f"Medical-Synth-like records; tiny random Llama + hash embedder (CPU), seed {args.seed}; DP-SynRAG: K=3, "
        f"L=1, k=5, T=2, open vocabulary, rarity extractor, fractions split; DP-Synth: 20 batches, T=2; Aug-PE: "
        f"population 20, 2 iterations, L=2, T=4. Canaries per claim: "
        f"{'fixed ' + str(fixed) if fixed else 'the public rule (design_audit, ≤ ' + str(max(sizes)) + ')'}; "
        f"m/4 guesses IN, m/4 OUT, the rest abstain. Score: exact occurrences of the secret, then its character "
        f"4-gram echo in the released texts. The tested claim is the tight ε (CKS conversion) of the report. "
        f"Broken control (DP-SynRAG): exact keyword counts, no noise, no threshold (injected by this script); "
        f"DP-Synth and Aug-PE have none here: their releases are model-written text, and the tiny model cannot "
        f"spell an invented secret."
    )
    write_audit_table(rows, work, title="Audit power: honest corpus builds and a broken control, one run per claimed ε",
                      note=note)
    stem = "audit_power_quick" if args.quick else "audit_power"
    RESULTS.mkdir(parents=True, exist_ok=True)
    for suffix, name in (("md", "audit-table.md"), ("json", "audit-table.json"), ("png", "audit-plot.png")):
        shutil.copyfile(work / name, RESULTS / f"{stem}.{suffix}")
    summary = [
        "",
        f"Every honest build ran and was not refuted: **{'yes' if honest_ok else 'NO'}**. Broken control refuted at every ε "
        f"whose reachable bound exceeds the tested ε: **{'yes' if broken_ok else 'NO'}** (refuted at ε ∈ "
        f"{{{', '.join(f'{e:g}' for e in caught)}}}).",
        "",
        f"Command: `{command}` — {total / 60:.1f} min (models, data and every build) on {platform.machine()} ({os.cpu_count()} CPU cores, "
        f"{platform.python_implementation()} {platform.python_version()}). Plot: `{stem}.png`.",
    ]
    with open(RESULTS / f"{stem}.md", "a", encoding="utf-8") as f:
        f.write("\n".join(summary) + "\n")
    data = json.loads((RESULTS / f"{stem}.json").read_text())
    data.update(command=command, seconds=round(total, 1), honest_not_refuted=honest_ok, broken_refuted=broken_ok)
    (RESULTS / f"{stem}.json").write_text(json.dumps(data, indent=2))
    print("\n".join(summary))
    print(f"wrote {RESULTS / stem}.md/.json/.png; audited corpora (NOT for release) in {work}")
    return 0 if honest_ok and broken_ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
