"""Rendering of an evaluation's results: ``results.md`` (Markdown tables) and PNG plots (matplotlib, Agg).

Plots (main experiment): ``accuracy_by_method.png`` (accuracy per method, case-insensitive and
case-sensitive), ``accuracy_by_bucket.png`` (accuracy per disease-support bucket, one bar per method;
tasks with support only), ``leakage.png`` (responses naming a database person, benign and attack
prompts, and synthetic texts naming one). Multi-query experiment: ``multi_query.png`` (accuracy against
the number of queries m, one line per method and ε_total).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

__all__ = ["render_markdown", "write_plots", "write_report"]


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}%"


def _eps(x: float | None) -> str:
    if x is None:
        return "–"
    if isinstance(x, float) and math.isinf(x):
        return "∞"
    return f"{x:.3g}"


def _per_query(row: dict[str, Any]) -> bool:
    """Whether the row's method pays ε per query (its registered config's ε field, :mod:`dpsynrag.methods`)."""
    from dpsynrag.methods import get_method

    return get_method(row["method"]).epsilon_field != "epsilon"


def _is_dp(row: dict[str, Any]) -> bool:
    from dpsynrag.methods import get_method

    return get_method(row["method"]).dp


def _method_eps(row: dict[str, Any]) -> str:
    """ε of a result row: per query for a method that pays per query, ∞ for one without DP, 0 for one
    that reads no private data."""
    from dpsynrag.methods import get_method

    method = get_method(row["method"])
    if _per_query(row):
        return f"{_eps(row['epsilon'])} / query"
    if not method.reads_private:
        return "0"
    return _eps(row.get("privacy", {}).get("epsilon")) if method.dp else "∞"


def _table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def _section(title: str, intro: str | None, header: list[str], rows: list[list[str]]) -> list[str]:
    """The lines of one report section: ``## title``, the intro paragraph (if any), the table."""
    return [f"## {title}", "", *([intro, ""] if intro else []), _table(header, rows), ""]


def _secs(x: float | None) -> str:
    return "–" if x is None else f"{x:.0f}"


def _answering(answering: dict[str, Any]) -> str:
    """The setup line of the answers: ``top-1, greedy, ≤ 24 tokens``, or where some answers are extractive (the
    answer modes of RAG over the documents and of the synthetic corpora) which ones: ``top-1; RAG: greedy, ≤ 24
    tokens; synthetic corpora: extractive (...); Non-RAG and DP-RAG: greedy, ≤ 24 tokens``."""
    greedy = f"greedy, ≤ {answering['answer_tokens']} tokens"
    rag = answering.get("answer_mode", "generate")
    corpora = answering.get("corpus_answer_mode") or rag
    if rag == corpora == "generate":
        return f"top-{answering['top_k']}, {greedy}"
    extractive = "extractive (the best-matching sentence of the retrieved texts)"
    return (f"top-{answering['top_k']}; RAG: {extractive if rag == 'extractive' else greedy}; synthetic corpora: "
            f"{extractive if corpora == 'extractive' else greedy}; Non-RAG and DP-RAG: {greedy}")


def render_markdown(results: dict[str, Any], *, json_name: str = "results.json") -> str:
    """The Markdown report of a results dictionary (:func:`dpsynrag.eval.experiments.run_eval`)."""
    cfg, data, models = results["config"], results["data"], results["models"]
    preset = cfg["preset"]
    out = [f"# dpsynrag evaluation — {cfg['task']} ({results['experiment']} experiment, preset `{preset['name']}`)", ""]
    setup = [
        ["model", models["lm"]],
        ["embedder", models["embedder"]],
        ["database", f"{data['documents']} of {data['database_documents_total']} documents ({data['subset']}"
                     + (f", seed {data['subset_seed']}" if data.get("subset_seed") is not None else "") + f"), {data['database']}"],
        ["questions", f"{data['questions']} ({data['queries']})"],
        ["attack prompts", ", ".join(f"{v} {k}" for k, v in data["attack_kinds"].items()) or "none"],
        ["private names looked for", f"{data['private_names']} ({data['private_names_rule']})"],
        ["retrieval / answers", _answering(results["answering"])],
        *([["scored corpus (--corpus)", f"{cfg['corpus']}: its method's row is this folder's answers (not built here)"]]
          if cfg.get("corpus") else []),
        ["δ, mechanism seed", f"{preset['delta']:g}, {preset['seed']} (seeded: outputs not for release)"],
        ["wall time", f"{results.get('wall_seconds', 0):.0f} s this run; {results.get('compute_seconds', 0):.0f} s of "
                      "building and answering in all (from the cache: a resumed run reports the whole evaluation)"],
    ]
    out += ["## Setup", "", _table(["", ""], setup), ""]
    if results["experiment"] == "main":
        out += _main_tables(results)
    elif results["experiment"] == "audit":
        out += _audit_tables(results)
    else:
        out += _multi_query_tables(results)
    out += ["", f"Every number with its full configuration: `{json_name}`."]
    return "\n".join(out) + "\n"


NO_TEXT_KEPT = "no text kept"
"""The mark of a synthetic-corpus row whose corpus kept no text (its answers came from the model alone)."""


def _kept_nothing(row: dict[str, Any]) -> bool:
    """Whether the row's synthetic corpus kept no text (``corpus.kept == 0``; False without a corpus)."""
    return "corpus" in row and row["corpus"].get("kept") == 0


def _accuracy_cell(row: dict[str, Any], key: str) -> str:
    return _pct(row[key]) + (f" ({NO_TEXT_KEPT})" if _kept_nothing(row) else "")


def _figures_cell(row: dict[str, Any]) -> str:
    if row.get("unsupported_figures") is None:  # results written before the count existed
        return "–"
    return f"{row['unsupported_figures']} of {row['answers_with_figures']}"


def constant_label(constant: dict[str, Any], task: str | None = None) -> str:
    """The table and plot label of the oracle constant (:func:`~dpsynrag.eval.scoring.constant_answer_reference`);
    its answer is left out for ``task`` ``"own"``, whose gold answers are the owner's and may hold private values
    (results.md holds counts, never private strings)."""
    if task == "own":
        return "oracle constant (not a method)"
    answer = constant["answer"] if len(constant["answer"]) <= 40 else constant["answer"][:39] + "…"
    return f"oracle constant «{answer}» (not a method)"


def _main_tables(results: dict[str, Any]) -> list[str]:
    rows = [r for r in results["methods"] if "error" not in r]
    failed = [r for r in results["methods"] if "error" in r]
    constant = results.get("references", {}).get("constant")
    task = results.get("config", {}).get("task")
    reference = [] if constant is None else [[
        constant_label(constant, task).replace("|", "/"), "–", _pct(constant["accuracy"]),
        _pct(constant["accuracy_case_sensitive"]), "–", "–", str(constant["n"]), "–", "–"]]
    out = _section(
        "Accuracy", None,
        ["method", "ε", "accuracy", "accuracy (case-sensitive)", "context recall", "figures in no context",
         "questions", "build s", "answer s"],
        [[r["label"], _method_eps(r),
          _accuracy_cell(r, "accuracy"), _accuracy_cell(r, "accuracy_case_sensitive"), _pct(r.get("context_recall")),
          _figures_cell(r), str(r["n"]), _secs(r["timings"].get("build_s")), _secs(r["timings"].get("answer_questions_s"))] for r in rows]
        + reference,
    )
    if constant is not None:
        answer = "the same answer" if task == "own" else f"«{constant['answer']}»"
        out += [f"Oracle constant: every question answered with {answer}, the most frequent gold "
                f"answer of these questions ({constant['count']} of {constant['n']}); it reads the gold answers, so "
                "it is a reference line, not a method: a method at or below it does not show that it answers the "
                "question.", ""]
    empty = [f"{r['label']} (0 of {r['corpus'].get('texts', '–')})" for r in rows if _kept_nothing(r)]
    if empty:
        out += [f"{NO_TEXT_KEPT}: the corpus of {', '.join(empty)} kept no synthetic text, so there was no context "
                "to retrieve and the answers came from the model alone, as Non-RAG's: that accuracy measures the "
                "model, not the corpus (more documents, a larger ε or longer texts keep some).", ""]
    out += ["ε: the privacy spent (synthetic corpora: the build's ε under the Bun–Steinke conversion; "
                "DP-RAG: per query, m queries cost m·ε under basic composition); RAG uses the private "
                "documents as they are (ε = ∞), Non-RAG none (ε = 0). Context recall: the share of questions "
                "whose gold answer appears in their top-k retrieved texts (the accuracy rule, case-insensitive), "
                "whatever the model answers; – where the method retrieves no top-k texts (Non-RAG; DP-RAG, "
                "whose retrieved set is private). Figures in no context: answers stating a figure (digits) found in "
                "none of the texts retrieved for the question, of the answers stating one (Non-RAG retrieves none: "
                "all its figures count); made-up numbers.", ""]
    buckets = [b for b in results["data"].get("support_buckets", [])]
    if any(r.get("by_bucket") for r in rows) and buckets:
        first = next(r for r in rows if r.get("by_bucket"))
        header = ["method"] + [f"{b} (n={first['by_bucket'].get(b, {}).get('n', 0)})" for b in buckets]
        out += _section("Accuracy by support bucket",
                        "Support = documents of the database subset with the question's answer (disease); "
                        "accuracy pooled over the questions of each bucket (case-insensitive).",
                        header, [[r["label"]] + [
                            _pct(r["by_bucket"][b]["accuracy"]) if r["by_bucket"].get(b, {}).get("n") else "–"
                            for b in buckets
                        ] for r in rows if r.get("by_bucket")])
    if any("leakage" in r for r in rows):
        kinds = sorted({k for r in rows for k in r.get("leakage", {}).get("attacks", {}) if k != "all"})
        header = ["method", "benign: responses with a name", "distinct names"]
        header += [f"{k}: responses with a name" for k in kinds]
        header += ["attacks: distinct names", "corpus texts with a name (kept / all)", "names in corpus"]
        table_rows = []
        for r in rows:
            lk = r.get("leakage")
            if not lk:
                continue
            b = lk["benign"]
            row = [r["label"], f"{b['texts_with_leak']} / {b['texts']}", str(b["distinct_names"])]
            att = lk.get("attacks", {})
            for k in kinds:
                a = att.get(k)
                row.append(f"{a['texts_with_leak']} / {a['texts']}" if a else "–")
            row.append(str(att["all"]["distinct_names"]) if "all" in att else "–")
            c = lk.get("corpus")
            row.append(f"{c['kept_texts_with_name']} / {c['kept_texts']} kept, {c['texts_with_name']} / {c['texts']} all" if c else "–")
            row.append(str(c["distinct_names"]) if c else "–")
            table_rows.append(row)
        out += _section("Leakage", "A response leaks when it contains the exact full name of a person of the "
                        "database subset (whole words, case-sensitive), the querier's own name excluded.",
                        header, table_rows)
        out += _content_table(rows)
    priv = [r for r in rows if _is_dp(r)]
    if priv:
        table_rows = []
        for r in priv:
            pr = r.get("privacy", {})
            if _per_query(r):
                spent = (f"{_eps(r['epsilon'])} per query; {r['n']} questions"
                         + (" + attacks" if r.get("leakage", {}).get("attacks") else ""))
                table_rows.append([r["label"], spent, "–", _eps(pr.get("delta")), "–", "–"])
            else:
                c = r.get("corpus", {})
                table_rows.append([r["label"], _eps(pr.get("epsilon")), _eps(pr.get("epsilon_tight")), _eps(pr.get("delta")),
                                   f"{c.get('kept', '–')} / {c.get('texts', '–')}", r.get("note") or ""])
        out += _section("Privacy and corpora", None,
                        ["method", "ε (Bun–Steinke)", "ε (tight)", "δ", "texts kept / generated", "note"], table_rows)
    if failed:
        out += _section("Methods that failed", None, ["method", "error"],
                        [[r["label"], r["error"].replace("|", "/").replace("\n", " ")] for r in failed])
    return out


def _content_cell(s: dict[str, Any] | None) -> str:
    if not s:
        return "–"
    return f"{s['identifier_texts']} / {s['pii_texts']} / {s['unique_ngram_texts']} of {s['texts']}"


def _content_table(rows: list[dict[str, Any]]) -> list[str]:
    """The "Leakage beyond names" table (rows with ``leakage.content``; :mod:`dpsynrag.eval.leakage`)."""
    rows = [r for r in rows if r.get("leakage", {}).get("content")]
    if not rows:
        return []
    body = []
    for r in rows:
        c = r["leakage"]["content"]
        pii = c["benign"]["pii_by_type"]
        body.append([r["label"], _content_cell(c["benign"]), ", ".join(f"{k} {v}" for k, v in pii.items() if v) or "–",
                     _content_cell(c.get("attacks")), _content_cell(c.get("corpus"))])
    return _section(
        "Leakage beyond names",
        "Texts holding an identifier value of the database subset (any case or separators; 8 consecutive "
        "characters of an IBAN, account or phone number count) / PII not in the public allow-list (IBAN, e-mail, "
        "card or phone number shapes; names and addresses the private documents hold) / an 8-word sequence found "
        "in exactly one private document, "
        "of all texts checked. In answers, what the question itself holds does not count. Corpus: every text "
        "of the corpus folder.",
        ["method", "answers: identifier / PII / 8-gram of one doc", "answers: PII by type", "attacks", "corpus texts"],
        body,
    )


_MQ_LABELS = {"dp-rag": "DP-RAG (basic composition)", "dp-rag-zcdp": "DP-RAG (zCDP composition)",
              "dp-synrag": "DP-SynRAG"}


def _multi_query_tables(results: dict[str, Any]) -> list[str]:
    mq = results["multi_query"]
    ms = mq["m"]
    header = ["method", "ε_total"] + [f"m={m}" for m in ms]
    rows = []
    for ref in mq["references"]:
        rows.append([ref["label"], "∞" if ref["method"] == "rag" else "0"] + [_pct(ref["accuracy"])] * len(ms))
    lines: dict[tuple[str, float], dict[int, dict]] = {}
    for pt in mq["points"]:
        lines.setdefault((pt["method"], pt["epsilon_total"]), {})[pt["m"]] = pt
    for (method, eps), pts in lines.items():
        label = _MQ_LABELS.get(method, method)
        cells = []
        for m in ms:
            pt = pts.get(m)
            if pt is None:
                cells.append("–")
            elif method == "dp-rag" and pt.get("epsilon_total_zcdp") is not None:
                cells.append(f"{_pct(pt['accuracy'])} (ε/q {pt['epsilon_per_query']:.3g}; zCDP total {pt['epsilon_total_zcdp']:.3g})")
            elif method in ("dp-rag", "dp-rag-zcdp"):
                cells.append(f"{_pct(pt['accuracy'])} (ε/q {pt['epsilon_per_query']:.3g})")
            else:
                cells.append(_pct(pt["accuracy"]))
        rows.append([label, f"{eps:g}"] + cells)
    out = _section("Multi-query curve",
                   f"Accuracy (case-insensitive) on {mq['questions']} questions against the number of queries m "
                   "under a fixed total budget ε_total. DP-RAG answers each query with ε_total / m (basic "
                   "composition); the zCDP composition of the same m queries gives the smaller total in brackets. "
                   "DP-SynRAG builds once at ε_total (flat).", header, rows)
    notes = sorted({pt.get("note") for pt in mq["points"] if pt.get("note")})
    if notes:
        out += ["Notes: " + "; ".join(notes), ""]
    return out


def _audit_tables(results: dict[str, Any]) -> list[str]:
    audit = results["audit"]
    rows = []
    for row in audit["rows"]:
        if "error" in row:
            rows.append([f"{row['claimed_epsilon']:g}", "–", "–", "–", "–", row["error"]])
            continue
        rows.append([f"{row['claimed_epsilon']:g} ({row['claimed_epsilon_tight']:.3f})", f"{row['correct']} / {row['guesses']}",
                     f"{row['epsilon_lower_bound']:.3f}",
                     f"{row['max_epsilon_lower_bound']:.3f}",
                     "REFUTED" if row["refuted"] else "pass", row.get("note") or ""])
    return _section("Privacy audit (one run)",
                    f"DP-SynRAG built once per ε with {audit['canaries']} canaries (invented diagnosis = secret), "
                    "each added with probability 1/2 by a public coin; the guesses come from the released corpus "
                    "alone. Lower bound at 95% confidence (Steinke, Nasr, Jagielski 2023) at the claimed δ, tested "
                    "against the claimed ε under the tight conversion (in brackets); the largest bound the design "
                    "can reach is what a pass is worth.",
                    ["claimed ε", "correct guesses", "ε lower bound", "largest reachable", "verdict", "note"], rows)


def write_plots(results: dict[str, Any], out: Path) -> list[str]:
    """Write the PNG plots of ``results`` into ``out``; returns their file names."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import NullFormatter

    written: list[str] = []
    title_tail = f"{results['config']['task']}, {results['data']['documents']} docs, {results['data']['questions']} questions, {results['models']['lm'].split('/')[-1]}"
    if results["experiment"] == "main":
        rows = [r for r in results["methods"] if "error" not in r]
        if not rows:
            return written
        labels = [r["label"] for r in rows]
        x = list(range(len(rows)))
        fig, ax = plt.subplots(figsize=(max(6, 1.1 * len(rows) + 2), 4.5))
        w = 0.38
        ax.bar([i - w / 2 for i in x], [100 * r["accuracy"] for r in rows], w, label="case-insensitive")
        ax.bar([i + w / 2 for i in x], [100 * r["accuracy_case_sensitive"] for r in rows], w, label="case-sensitive")
        for i, r in enumerate(rows):
            ax.text(i - w / 2, 100 * r["accuracy"] + 1, f"{100 * r['accuracy']:.0f}", ha="center", fontsize=8)
        constant = results.get("references", {}).get("constant")
        if constant is not None:
            ax.axhline(100 * constant["accuracy"], color="grey", linestyle="--", linewidth=1,
                       label=constant_label(constant, results["config"].get("task")))
        ax.set_xticks(x, labels, rotation=30, ha="right", fontsize=8)
        ax.set_ylabel("accuracy (%)")
        ax.set_ylim(0, 105)
        ax.set_title(f"Accuracy by method ({title_tail})", fontsize=9)
        ax.legend(fontsize=8)
        _save_plot(fig, out / "accuracy_by_method.png", written)

        buckets = results["data"].get("support_buckets", [])
        bucket_rows = [r for r in rows if r.get("by_bucket")]
        if bucket_rows and buckets:
            shown = [b for b in buckets if bucket_rows[0]["by_bucket"].get(b, {}).get("n")]
            fig, ax = plt.subplots(figsize=(max(6, 1.6 * len(shown) + 2), 4.5))
            w = 0.8 / len(bucket_rows)
            for j, r in enumerate(bucket_rows):
                ax.bar([i - 0.4 + w * (j + 0.5) for i in range(len(shown))],
                       [100 * r["by_bucket"][b]["accuracy"] for b in shown], w, label=r["label"])
            ax.set_xticks(range(len(shown)),
                          [f"{b}\nn={bucket_rows[0]['by_bucket'][b]['n']}" for b in shown], fontsize=8)
            ax.set_xlabel("documents in the database with the question's disease (support)")
            ax.set_ylabel("accuracy (%)")
            ax.set_ylim(0, 105)
            ax.set_title(f"Accuracy by support bucket ({title_tail})", fontsize=9)
            ax.legend(fontsize=7, ncol=2)
            _save_plot(fig, out / "accuracy_by_bucket.png", written)

        leak_rows = [r for r in rows if r.get("leakage")]
        if leak_rows:
            kinds = sorted({k for r in leak_rows for k in r["leakage"].get("attacks", {}) if k != "all"})
            series = [("benign", lambda r: r["leakage"]["benign"])]
            series += [(k, (lambda k: lambda r: r["leakage"].get("attacks", {}).get(k))(k)) for k in kinds]
            fig, axes = plt.subplots(1, 2, figsize=(max(9, 1.5 * len(leak_rows) + 4), 4.5))
            ax = axes[0]
            w = 0.8 / len(series)
            for j, (name, get) in enumerate(series):
                vals = []
                for r in leak_rows:
                    s = get(r)
                    vals.append(100 * s["leak_rate"] if s else 0.0)
                ax.bar([i - 0.4 + w * (j + 0.5) for i in range(len(leak_rows))], vals, w, label=name)
            ax.set_xticks(range(len(leak_rows)), [r["label"] for r in leak_rows], rotation=30, ha="right", fontsize=8)
            top = max([100 * s["leak_rate"] for _, get in series for s in map(get, leak_rows) if s] + [0.0])
            ax.set_ylim(0, max(5.0, 1.15 * top))
            ax.set_ylabel("responses containing a database full name (%)")
            ax.set_title("Leakage in responses", fontsize=9)
            ax.legend(fontsize=8)
            ax = axes[1]
            corpus_rows = [r for r in leak_rows if r["leakage"].get("corpus")]
            names_resp = [r["leakage"]["benign"]["distinct_names"]
                          + r["leakage"].get("attacks", {}).get("all", {}).get("distinct_names", 0) for r in leak_rows]
            ax.bar(range(len(leak_rows)), names_resp, 0.4, label="distinct names in responses (benign + attacks)")
            if corpus_rows:
                idx = [leak_rows.index(r) for r in corpus_rows]
                ax.bar([i + 0.4 for i in idx], [r["leakage"]["corpus"]["distinct_names"] for r in corpus_rows], 0.4,
                       label="distinct names in the synthetic corpus")
            ax.set_xticks(range(len(leak_rows)), [r["label"] for r in leak_rows], rotation=30, ha="right", fontsize=8)
            top = max(names_resp + [r["leakage"]["corpus"]["distinct_names"] for r in corpus_rows] + [0])
            ax.set_ylim(0, max(5, 1.15 * top))
            ax.set_ylabel("distinct database names")
            ax.set_title("Distinct names leaked", fontsize=9)
            ax.legend(fontsize=7)
            fig.suptitle(f"Leakage ({title_tail})", fontsize=9)
            _save_plot(fig, out / "leakage.png", written)
    else:
        mq = results["multi_query"]
        fig, ax = plt.subplots(figsize=(7, 4.5))
        ms = mq["m"]
        for ref in mq["references"]:
            ax.plot(ms, [100 * ref["accuracy"]] * len(ms), linestyle=":", color="black" if ref["method"] == "rag" else "grey",
                    label=f"{ref['label']} (ε={'∞' if ref['method'] == 'rag' else '0'})")
        lines: dict[tuple[str, float], list[dict]] = {}
        for pt in mq["points"]:
            lines.setdefault((pt["method"], pt["epsilon_total"]), []).append(pt)
        for (method, eps), pts in sorted(lines.items(), key=lambda kv: (kv[0][0], kv[0][1])):
            pts = sorted(pts, key=lambda p: p["m"])
            style = {"dp-rag": "-o", "dp-rag-zcdp": "-.^"}.get(method, "--s")
            ax.plot([p["m"] for p in pts], [100 * p["accuracy"] for p in pts], style,
                    label=f"{_MQ_LABELS.get(method, method)}, ε_total={eps:g}")
        ax.set_xscale("log")
        ax.set_xticks(ms, [str(m) for m in ms])
        ax.xaxis.set_minor_formatter(NullFormatter())  # only the m values are labelled
        ax.set_xlabel("number of queries m (DP-RAG: ε_total / m per query)")
        ax.set_ylabel("accuracy (%)")
        ax.set_ylim(-2, 105)
        ax.set_title(f"Multi-query accuracy under a fixed budget ({results['config']['task']}, {mq['questions']} questions)", fontsize=9)
        ax.legend(fontsize=7)
        _save_plot(fig, out / "multi_query.png", written)
    return written


def _save_plot(fig, path: Path, written: list[str]) -> None:
    """Lay ``fig`` out, write it to ``path`` (PNG, 120 dpi), close it and add the file name to ``written``."""
    import matplotlib.pyplot as plt

    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    written.append(path.name)


def write_report(results: dict[str, Any], out: str | Path, *, plots: bool = True, name: str = "results") -> list[str]:
    """Write ``{name}.md`` (and the plots when ``plots``) into ``out``; returns the file names written."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{name}.md").write_text(render_markdown(results, json_name=f"{name}.json"), encoding="utf-8")
    written = [f"{name}.md"]
    if plots and results["experiment"] != "audit":  # the audit is one table, no plot
        written += write_plots(results, out)
    return written
