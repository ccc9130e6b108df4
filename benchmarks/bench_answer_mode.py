"""Extractive answers against the 135M generator on own-data collections (issue 51, item 7.3).

For each collection folder (written by ``benchmarks.blind.generate`` or ``benchmarks.owndata.generate``: records.jsonl,
questions.jsonl, public.json, and public.txt or public.json's ``strings``) it runs

    dpsynrag eval --task own --database F/records.jsonl --queries F/questions.jsonl --text-field text \\
        --id-field id --identifier-field <each of public.json's identifier_fields> --redact-pii \\
        --pii-allow-file F/public.txt --preset own-cpu --methods rag,dp-synrag --out OUT/NAME --no-plots \\
        --answer-mode MODE

once per answer mode into the same ``OUT/NAME``: ``generate`` first, which builds the DP-SynRAG corpus, then
``extractive`` with ``--corpus`` set to that corpus folder (scored as it is, not rebuilt: both modes answer from
the same corpus), and writes the accuracy and context recall of RAG and DP-SynRAG per collection and mode, with
their means, as Markdown (stdout, or ``--md``).

    .venv/bin/python benchmarks/bench_answer_mode.py runs/blind/hr-s0 runs/blind/hr-s1 ... --out runs/blind-eval \\
        --md benchmarks/results/answer_mode_table.md
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

MODES = ("generate", "extractive")
METHODS = ("rag", "dp-synrag")


def command(folder: Path, out: Path, mode: str, corpus: str | None = None) -> list[str]:
    """The ``dpsynrag eval`` command of one collection and answer mode."""
    public = json.loads((folder / "public.json").read_text(encoding="utf-8"))
    cmd = [str(Path(sys.executable).with_name("dpsynrag")), "eval", "--task", "own",
           "--database", str(folder / "records.jsonl"), "--queries", str(folder / "questions.jsonl"),
           "--text-field", public.get("text_field", "text"), "--id-field", public.get("id_field", "id")]
    for field in public["identifier_fields"]:
        cmd += ["--identifier-field", field]
    cmd += ["--redact-pii"]
    if (folder / "public.txt").is_file():
        cmd += ["--pii-allow-file", str(folder / "public.txt")]
    else:  # benchmarks/owndata collections: the public strings in public.json
        for text in public.get("strings", []):
            cmd += ["--pii-allow", text]
    return cmd + ["--preset", "own-cpu", "--methods", ",".join(METHODS), "--out", str(out), "--no-plots",
                  "--answer-mode", mode, *(["--corpus", corpus] if corpus else [])]


def run(folder: Path, out_root: Path) -> dict:
    """Both modes on one collection: ``{mode: {method: row}}`` from each run's results.json."""
    out = out_root / folder.name
    rows: dict = {}
    corpus = None
    for mode in MODES:
        t = time.time()
        subprocess.run(command(folder, out, mode, corpus), check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        results = json.loads((out / "results.json").read_text(encoding="utf-8"))
        assert results["answering"]["answer_mode"] == mode, results["answering"]
        rows[mode] = {r["method"]: r for r in results["methods"]}
        corpus = rows[mode]["dp-synrag"]["corpus"]["path"]  # the generate run's build, scored again as it is
        print(f"{folder.name} {mode}: " + ", ".join(
            f"{m} {100 * rows[mode][m]['accuracy']:.1f}%" for m in METHODS) + f" ({time.time() - t:.0f} s)",
            file=sys.stderr, flush=True)
    return rows


def table(measured: dict[str, dict]) -> str:
    """The Markdown table: per collection, each method's accuracy per mode (and context recall), then means."""
    head = ("| collection | questions | RAG generate | RAG extractive | DP-SynRAG generate | DP-SynRAG extractive "
            "| DP-SynRAG context recall |")
    lines = [head, "|---|---|---|---|---|---|---|"]
    means: dict[tuple[str, str], list[float]] = {}
    recall: list[float] = []
    for name, rows in measured.items():
        cells = []
        for method in METHODS:
            for mode in MODES:
                acc = 100 * rows[mode][method]["accuracy"]
                means.setdefault((method, mode), []).append(acc)
                cells.append(f"{acc:.1f}%")
        r = 100 * rows["generate"]["dp-synrag"]["context_recall"]
        recall.append(r)
        n = rows["generate"]["rag"]["config"]["questions"]
        lines.append(f"| {name} | {n} | " + " | ".join(cells) + f" | {r:.1f}% |")
    lines.append("| **mean** | | " + " | ".join(f"**{statistics.mean(means[(m, mode)]):.1f}%**"
                                                for m in METHODS for mode in MODES)
                 + f" | {statistics.mean(recall):.1f}% |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="+", type=Path, help="collection folders")
    parser.add_argument("--out", type=Path, default=Path("runs/blind-eval"), help="the evaluations' parent folder")
    parser.add_argument("--md", type=Path, help="also write the table here")
    args = parser.parse_args(argv)
    measured = {folder.name: run(folder, args.out) for folder in args.folders}
    text = table(measured)
    print(text)
    if args.md:
        args.md.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
