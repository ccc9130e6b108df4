"""The corpus card: one self-contained HTML page a reviewer can open (``dpsynrag report DIR --html FILE``).

Two variants, each marked at the top:

* **publishable** — the corpus folder alone: its privacy report (DP guarantee, mechanisms, public
  settings, models and their hashes) and its synthetic texts, all DP output or public. An evaluation
  folder is added only when the owner chooses to release it (``publish_eval``), under a warning: its
  numbers are measured on the private data and are not covered by the guarantee.
* **owner** — adds the owner record beside the folder (``NAME.owner.json``: the input's size and hash,
  redaction counts, timings; never its fingerprint key) and the evaluation's leakage checks. It refuses to
  be written into the corpus folder, which is what gets published.

The page has inline CSS, inline SVG charts and the evaluation's PNG plots as ``data:`` URIs: no script, no
request to anything outside the file. Every value is HTML-escaped.
"""

from __future__ import annotations

import base64
import html
import json
import os
from pathlib import Path
from typing import Any, Literal

from dpsynrag.errors import ConfigError, DataError

Variant = Literal["publishable", "owner"]

CARD_CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"
"""The card's Content-Security-Policy (also in its own ``<meta>``): inline style and ``data:`` images only."""

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:60rem;margin:0 auto;padding:1rem;
color:#1b1b1b;line-height:1.45}
h1{font-size:1.5rem;margin:.5rem 0}h2{font-size:1.15rem;margin-top:1.6rem;border-bottom:1px solid #ccc}
.banner{padding:.6rem .8rem;border-radius:.3rem;font-weight:600;margin:.5rem 0}
.pub{background:#e7f4ea;border:1px solid #2e7d32}.own{background:#fdecea;border:1px solid #c62828}
.warn{background:#fff4e5;border:1px solid #ef6c00;padding:.5rem .8rem;border-radius:.3rem}
table{border-collapse:collapse;width:100%;margin:.5rem 0;font-size:.92rem}
th,td{border:1px solid #ccc;padding:.25rem .45rem;text-align:left;vertical-align:top}
td.n{text-align:right;font-variant-numeric:tabular-nums}
.guarantee{font-size:1.05rem}.big{font-size:1.3rem;font-weight:700}
code{font-size:.85rem;word-break:break-all}img{max-width:100%;height:auto}
li{margin:.2rem 0}svg{max-width:100%;height:auto}
@media print{.banner,.warn{-webkit-print-color-adjust:exact;print-color-adjust:exact}a{color:inherit}}
"""


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _num(value: Any, digits: int = 4) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.{digits}g}"
    return _e(value)


def mechanism_rows(report: dict) -> list[dict[str, Any]]:
    """The report's mechanisms as rows ``{name, mechanism, rho, delta, detail}``: each top-level mechanism
    and, for a parallel composition, its branch's mechanisms with their cost per privacy unit (the branch
    cost times the most branches a unit is in, the composition's ``multiplier``)."""
    rows = []

    def detail(ev: dict) -> str:
        keys = ("l2_sensitivity", "utility_sensitivity", "sigma", "epsilon", "clip", "temperature", "threshold",
                "max_contributions", "count")
        return ", ".join(f"{k} {_num(ev[k])}" for k in keys if ev.get(k) is not None)

    for ev in report.get("mechanisms", []):
        branch = ev.get("branch")
        if branch is not None:
            mult = ev.get("multiplier", 1) or 1
            parts = branch.get("events", [branch])
            for sub in parts:
                rows.append({"name": f"{ev.get('name')} › {sub.get('name')}", "mechanism": sub.get("mechanism"),
                             "rho": float(sub.get("rho", 0.0)) * mult, "delta": sub.get("delta"),
                             "detail": detail(sub) + (f"; ×{mult} per unit" if mult != 1 else "")
                             + f"; {ev.get('num_branches')} branches, each unit in at most {ev.get('max_branches_per_unit')}"})
        else:
            rows.append({"name": ev.get("name"), "mechanism": ev.get("mechanism"), "rho": float(ev.get("rho", 0.0)),
                         "delta": ev.get("delta"), "detail": detail(ev)})
    return rows


def _bar_chart(rows: list[dict[str, Any]], total: float, *,
               label: str = "share of the privacy budget (rho) by mechanism") -> str:
    """An inline SVG bar chart of each row's share of ``total`` (its ``rho``: a mechanism's ρ, or a count)."""
    height, width, label_w = 26 * len(rows) + 10, 640, 300
    bars = []
    for i, r in enumerate(rows):
        share = r["rho"] / total if total > 0 else 0.0
        y = 5 + 26 * i
        bars.append(f'<text x="0" y="{y + 15}" font-size="12">{_e(r["name"])[:48]}</text>'
                    f'<rect x="{label_w}" y="{y}" width="{max(1.0, share * (width - label_w - 60)):.1f}" height="18" '
                    f'fill="#3f6fb5"><title>{_e(r["name"])}: {100 * share:.1f}%</title></rect>'
                    f'<text x="{label_w + share * (width - label_w - 60) + 4:.1f}" y="{y + 14}" font-size="12">'
                    f'{100 * share:.1f}%</text>')
    return (f'<svg role="img" aria-label="{_e(label)}" '
            f'viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
            f'xmlns="http://www.w3.org/2000/svg">{"".join(bars)}</svg>')


def _table(header: list[str], rows: list[list[str]], numeric: set[int] = frozenset()) -> str:
    head = "".join(f"<th>{_e(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f'<td class="n">{c}</td>' if i in numeric else f"<td>{c}</td>"
                                    for i, c in enumerate(row)) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _read_object(path: Path, what: str) -> dict:
    """A JSON object from ``path``. Raises DataError when it is not one."""
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DataError(f"{what} {path} cannot be read as JSON ({type(exc).__name__}: {exc}).") from None
    if not isinstance(value, dict):
        raise DataError(f"{what} {path} is not a JSON object.")
    return value


def _value(v: Any) -> str:
    """A record value as text: JSON for lists and dicts (not Python reprs)."""
    return _e(json.dumps(v, ensure_ascii=False) if isinstance(v, (dict, list)) else v)


def _png(path: Path) -> str:
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    return f'<img alt="{_e(path.stem.replace("_", " "))}" src="data:image/png;base64,{data}">'


def _eval_section(eval_dir: Path, *, owner: bool) -> str:
    if not eval_dir.is_dir():
        raise DataError(f"the evaluation folder {eval_dir} does not exist or is not a folder.")
    results = eval_dir / "results.json"
    if not results.is_file():
        raise DataError(f"{eval_dir} holds no results.json: give the folder `dpsynrag eval --out` wrote.")
    r = _read_object(results, "the evaluation's")
    rows = []
    for m in r.get("methods", []):
        eps = m.get("epsilon")
        rows.append([_e(m.get("label", m.get("method"))), "∞" if m.get("method") == "rag" else _num(eps, 3),
                     f"{100 * m['accuracy']:.1f}%" if m.get("accuracy") is not None else "–",
                     f"{100 * m['context_recall']:.1f}%" if m.get("context_recall") is not None else "–",
                     _e(m.get("n", "–"))])
    const = (r.get("references") or {}).get("constant")
    if const:
        rows.append(["oracle constant (reads the gold answers; not a method)", "–", f"{100 * const['accuracy']:.1f}%",
                     "–", _e(const.get("n", "–"))])
    parts = [f"<h2>Evaluation ({_e(r.get('config', {}).get('task', ''))})</h2>",
             '<p class="warn">Measured on the private data: these numbers are <strong>not</strong> covered by the '
             "differential-privacy guarantee."
             + ("" if owner else " The owner chose to release them with this page.") + "</p>",
             _table(["method", "ε", "accuracy", "context recall", "questions"], rows, numeric={1, 2, 3, 4})]
    if owner:  # the plots' titles and support buckets state the collection's size: owner variant only
        plots = ["accuracy_by_method.png", "accuracy_by_bucket.png", "multi_query.png", "leakage.png"]
        parts += [_png(eval_dir / p) for p in plots if (eval_dir / p).is_file()]
    else:
        parts.append("<p>The evaluation's plots are in the owner variant only: their titles and support buckets "
                     "state how many documents the private collection has.</p>")
    return "\n".join(parts)


def _ledger_section(ledger, dataset: str | None) -> str:
    from dpsynrag.privacy.ledger import PrivacyLedger

    if not isinstance(ledger, PrivacyLedger) and not (Path(ledger) / "ledger.sqlite").is_file():
        raise ConfigError(f"no privacy ledger in {ledger} (its ledger.sqlite is missing).")
    led = ledger if isinstance(ledger, PrivacyLedger) else PrivacyLedger(ledger)
    known = led.datasets()
    if dataset is None:
        if len(known) != 1:
            raise ConfigError(f"the ledger holds {len(known)} datasets: name this corpus's with --dataset "
                              "(`dpsynrag ledger show` lists them).")
        dataset = known[0]
    elif dataset not in known:
        raise ConfigError(f"the ledger has no dataset {dataset!r} (`dpsynrag ledger show` lists them).")
    totals, groups = led.totals(dataset), led.unit_spend(dataset)
    parts = ["<h2>Lifetime spend in the privacy ledger (owner only, not DP)</h2>",
             f"<p>Dataset <code>{_e(dataset)}</code>: {_e(totals['releases'])} release(s) recorded; "
             f"their composed spend ε = {_num(totals['epsilon'], 5)} at δ = {_num(totals['delta'], 3)}.</p>"]
    if groups:
        rows = [{"name": f"ε = {g['epsilon']:.4g} ({g['releases']} release(s))", "rho": float(g["units"])}
                for g in groups]
        parts += [_table(["lifetime ε (Bun–Steinke)", "ε (CKS)", "ρ", "releases", "units"],
                         [[_num(g["epsilon"], 5), _num(g["epsilon_tight"], 5), _num(g["rho"], 5), _e(g["releases"]),
                           _e(g["units"])] for g in groups], numeric={0, 1, 2, 3, 4}),
                  _bar_chart(rows, sum(r["rho"] for r in rows), label="units by lifetime ε")]
    else:
        parts.append("<p>No unit of this dataset is registered in the ledger (a schema-1 release).</p>")
    return "\n".join(parts)


def corpus_card_html(corpus_dir: str | os.PathLike, *, variant: Variant = "publishable",
                     eval_dir: str | os.PathLike | None = None, publish_eval: bool = False, samples: int = 8,
                     ledger=None, dataset: str | None = None) -> str:
    """The corpus card of ``corpus_dir`` as one HTML document (str).

    Args:
        corpus_dir: a corpus folder (``dpsynrag build``).
        variant: "publishable" (the folder alone) or "owner" (adds the owner record and leakage checks).
        eval_dir: an evaluation folder (``dpsynrag eval --out``) whose accuracy table and plots are added to
            the owner variant, and to the publishable one only with ``publish_eval``.
        publish_eval: release the evaluation in the publishable variant (a choice of the owner: its numbers
            are measured on private data).
        samples: how many kept synthetic texts to show (>= 0).
        ledger: a :class:`~dpsynrag.privacy.ledger.PrivacyLedger` or its folder (owner variant only): the
            dataset's releases and how many units have spent each lifetime ε (a table and a chart).
        dataset: the corpus's dataset in ``ledger`` (None: the ledger's only one).

    Raises:
        ConfigError: a bad variant or ``samples``, ``eval_dir`` with the publishable variant without
            ``publish_eval``, ``ledger`` with the publishable variant, or no such dataset. DataError: the
            corpus folder or evaluation folder cannot be read.
    """
    from dpsynrag.corpus import SyntheticCorpus
    from dpsynrag.corpus.format import owner_audit_path

    if variant not in ("publishable", "owner"):
        raise ConfigError(f"`variant` must be 'publishable' or 'owner'. Found {variant!r}.")
    if isinstance(samples, bool) or not isinstance(samples, int) or samples < 0:
        raise ConfigError(f"`samples` must be an integer >= 0. Found {samples!r}.")
    owner = variant == "owner"
    if eval_dir is not None and not owner and not publish_eval:
        raise ConfigError("an evaluation is measured on the private data: add it to the publishable report only "
                          "by choice (--publish-eval), or make the owner variant (--owner).")
    if ledger is not None and not owner:
        raise ConfigError("how many units a dataset has is not DP output: the ledger goes in the owner variant "
                          "only (--owner).")
    corpus = SyntheticCorpus.load(corpus_dir)
    m, rep = corpus.manifest, corpus.privacy_report.to_dict()
    name = Path(corpus_dir).resolve().name
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           f'<meta http-equiv="Content-Security-Policy" content="{CARD_CSP}">',
           f"<title>Corpus card: {_e(name)} ({variant})</title><style>{_CSS}</style></head><body>"]
    if owner:
        out.append('<div class="banner own" id="variant" data-variant="owner">OWNER ONLY — do not publish. This page '
                   "holds the owner's private measurements (input size and hash, redaction counts, timings, "
                   "leakage checks), which are not covered by the differential-privacy guarantee.</div>")
    else:
        out.append('<div class="banner pub" id="variant" data-variant="publishable">PUBLISHABLE — differentially '
                   "private output and public settings only"
                   + (", plus an evaluation the owner chose to release (marked below)" if eval_dir else "")
                   + ".</div>")
    out.append(f"<h1>Corpus card: {_e(name)}</h1>")
    if m.get("not_for_release") or not rep.get("secure_randomness", True):
        out.append('<p class="warn" id="not-for-release">Built with a fixed seed: reproducible, <strong>NOT for '
                   "release</strong> (a seeded generator's noise can be recomputed).</p>")
    # -- the guarantee --------------------------------------------------------------------------------
    eps, delta, rho = rep.get("epsilon"), rep.get("delta"), rep.get("rho_total")
    out += ["<h2>The guarantee</h2>",
            f'<p class="guarantee">Neighbouring datasets: <strong>{_e(rep.get("neighbouring_relation", ""))}</strong>. '
            f'Everything in the corpus folder is (<span class="big" id="epsilon">ε = {_num(eps, 6)}</span>, '
            f'<span class="big" id="delta">δ = {_num(delta, 3)}</span>)-differentially private, from '
            f'<span id="rho">ρ = {_num(rho, 6)}</span> zCDP (nats; Bun–Steinke conversion; the tight CKS '
            f"conversion gives ε = {_num(rep.get('epsilon_tight'), 6)}). Any use of the texts — retrieval, "
            "answers, fine-tuning — is post-processing and costs nothing more.</p>",
            "<p><strong>Covered:</strong> the synthetic texts, their index and the manifest's data-dependent "
            "values. <strong>Not covered:</strong> the owner record beside the folder, any evaluation on the "
            "private data, and what the public settings and models already reveal (they are public).</p>"]
    rows = mechanism_rows(rep)
    total = sum(r["rho"] for r in rows) or (rho or 0.0)
    out += ["<h2>Mechanisms and their share of the budget</h2>",
            _table(["mechanism", "kind", "ρ (zCDP)", "share", "δ term", "parameters"],
                   [[_e(r["name"]), _e(r["mechanism"]), _num(r["rho"], 5),
                     f"{100 * r['rho'] / total:.1f}%" if total else "–", _num(r["delta"], 3), _e(r["detail"])]
                    for r in rows], numeric={2, 3, 4}),
            _bar_chart(rows, total),
            f"<p>{_e(rep.get('composition', ''))}</p>"]
    if rep.get("notes"):
        out.append("<h2>Notes</h2><ul>" + "".join(f"<li>{_e(n)}</li>" for n in rep["notes"]) + "</ul>")
    # -- settings and models --------------------------------------------------------------------------
    params = rep.get("parameters") or {}
    out += ["<h2>Settings (public)</h2>",
            _table(["parameter", "value"], [[_e(k), _e(json.dumps(v) if isinstance(v, (dict, list)) else v)]
                                            for k, v in params.items()])]
    model_rows = []
    for role in ("model", "embedder"):
        info = m.get(role) or {}
        hashes = "<br>".join(f"{_e(f)}: <code>{_e(h)}</code>" for f, h in (info.get("sha256") or {}).items())
        model_rows.append([role, _e(info.get("name", "")), hashes or "–"])
    out += ["<h2>Models</h2>", _table(["role", "name", "SHA-256"], model_rows),
            f"<p>Method <code>{_e(m.get('method'))}</code>, dpsynrag {_e(m.get('dpsynrag_version'))}, built "
            f"{_e(m.get('created'))}; {_e(m.get('num_kept'))} of {_e(m.get('num_texts'))} synthetic texts kept.</p>"]
    # -- the texts --------------------------------------------------------------------------------------
    kept = [r for r in corpus.records if r.get("kept", True)]
    keywords = list(dict.fromkeys(str(r["keyword"]) for r in corpus.records if r.get("keyword")))
    out.append("<h2>Synthetic texts (DP output)</h2>")
    if keywords:
        out.append(f"<p>Topic keywords ({len(keywords)}, released by the DP histogram): "
                   + ", ".join(f"<code>{_e(k)}</code>" for k in keywords) + "</p>")
    out.append('<ol id="samples">' + "".join(
        f"<li>{'<code>' + _e(r['keyword']) + '</code>: ' if r.get('keyword') else ''}{_e(r.get('text', ''))}</li>"
        for r in kept[:samples]) + "</ol>")
    # -- owner-only and evaluation ------------------------------------------------------------------------
    if owner:
        record_path = owner_audit_path(Path(corpus_dir).resolve())  # beside the folder itself ("." or a link)
        out.append("<h2>Owner record (not DP)</h2>")
        if record_path.is_file():
            rec = _read_object(record_path, "the owner record")
            if rec.get("corpus") not in (None, name):
                out.append(f'<p class="warn">This owner record names the corpus {_e(rec.get("corpus"))}, not '
                           f"{_e(name)}: it may belong to another build.</p>")
            fp = rec.get("input_fingerprint") or {}
            rows = [["input documents", _e(fp.get("documents", "–"))], ["input SHA-256", f"<code>{_e(fp.get('sha256', '–'))}</code>"],
                    ["documents cut to the token limit", _value(rec.get("truncation", "–"))],
                    ["resumes", _e(rec.get("resumes", "–"))]]
            for k, v in (rec.get("redaction_counts") or {}).items():
                rows.append([f"redaction: {_e(k)}", _value(v)])
            for k, v in (rec.get("timings") or {}).items():
                rows.append([f"time: {_e(k)} (s)", _num(v, 6)])
            fps = rec.get("fingerprints") or {}
            if fps:
                rows.append(["unit fingerprints", f"{_e(fps.get('units', '–'))} ({_e(fps.get('algorithm', ''))}; the key is "
                             "not shown)"])
            out += [f"<p>{_e(rec.get('note', ''))}</p>", _table(["", "value"], rows)]
        else:
            out.append(f"<p>No owner record at {_e(record_path)}.</p>")
    if ledger is not None:
        out.append(_ledger_section(ledger, dataset))
    if eval_dir is not None:
        out.append(_eval_section(Path(eval_dir), owner=owner))
    out.append("</body></html>")
    return "\n".join(out)


def write_corpus_card(corpus_dir: str | os.PathLike, path: str | os.PathLike, **kwargs) -> Path:
    """Write :func:`corpus_card_html` to ``path`` (its folder created); returns the path. The owner variant
    is written readable by its owner only (mode 600), as the owner record.

    Raises:
        ConfigError: ``path`` does not end in ``.html`` / ``.htm`` (a card never replaces a corpus file or an
            owner record) or is a folder, or the owner variant is asked inside the corpus folder (which is what
            gets published), or any error of :func:`corpus_card_html`. DataError: the file cannot be written.
    """
    given = Path(path)
    if given.suffix.lower() not in (".html", ".htm"):
        raise ConfigError(f"the corpus card is an HTML file: give a path ending in .html (found {str(path)!r}).")
    target = given.resolve()
    if target.is_dir():
        raise ConfigError(f"{path} is a folder: give the card's file name (e.g. {given / 'card.html'}).")
    if kwargs.get("variant") == "owner" and Path(corpus_dir).resolve() in (target, *target.parents):
        raise ConfigError(f"the owner report must not be written into the corpus folder {corpus_dir} (it is "
                          "published with it): choose a path outside it.")
    text = corpus_card_html(corpus_dir, **kwargs).encode("utf-8")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        if kwargs.get("variant") == "owner":
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            os.fchmod(fd, 0o600)  # also when the file existed with wider permissions
            with os.fdopen(fd, "wb") as f:
                f.write(text)
        else:
            target.write_bytes(text)
    except OSError as exc:
        raise DataError(f"the corpus card cannot be written to {path}: {exc.strerror or exc}.") from None
    return target
