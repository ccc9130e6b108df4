"""The analysis of ``bench_scale.py``'s runs: the Ray overhead fit, the projection to a million documents, the
issue's acceptance targets, and the ``.md`` page (imported by the script as ``_scale_report``).

Every function reads the record ``bench_scale.py`` writes (``runs``: local builds, CPU seconds per stage;
``ray_runs``: the same builds with ``--ray``) and returns plain data; nothing here runs a build.
"""

from __future__ import annotations

import math

SHARD = 1024  # documents per Ray task of a per-document stage (dpsynrag.pipeline.ray_stages.SHARD_DOCUMENTS)
TARGETS = {"all_but_private_prediction_ms": 20.0, "outside_model_forwards_ms": 2.0, "forwards_over_bound": 1.5,
           "one_core_h": 6.0, "workers_16_min": 30.0, "peak_rss_ratio": 1.1}


def shards(documents: int, embedded: int) -> int:
    """Ray tasks of the per-document stages: shards of every document for the reading pass (redaction, cut, keys)
    and for the keywords, shards of the clusters' members for the embeddings."""
    return 2 * math.ceil(documents / SHARD) + math.ceil(embedded / SHARD)


def _line(points: list[tuple[int, float]]) -> tuple[float, float]:
    """(a, b) of the line a + b·n through the first and last of ``(n, seconds)`` points (one point: a = 0)."""
    (n1, s1), (n2, s2) = points[0], points[-1]
    if n2 == n1:
        return 0.0, s2 / n2
    b = (s2 - s1) / (n2 - n1)
    return s2 - b * n2, b


def ray_overhead(runs: list[dict], ray_runs: list[dict]) -> dict:
    """What the Ray runs spend beyond the local build of the same size, from the smallest and largest Ray size:
    the driver's and the actors' extra CPU as fixed + per shard (one size: all of it per shard, an upper bound),
    the driver's own CPU per document (the slope of its CPU: what stays on the driver), and Ray's own processes
    (daemons, idle workers) as their share of a core over the runs.

    Returns:
        ``{"points": [...], "per_shard_cpu_s", "fixed_cpu_s", "driver_ms", "fit", "ray_own_core_share"}``.
    """
    points = []
    for r in sorted(ray_runs, key=lambda r: r["documents"]):
        local = next(x for x in runs if x["documents"] == r["documents"])
        points.append({"documents": r["documents"], "shards": shards(r["documents"], local["embedder"]["texts"]),
                       "extra_cpu_s": r["self_cpu_s"] + r["actors_cpu_s"] - local["cpu_s"],
                       "local_cpu_s": local["cpu_s"], "driver_cpu_s": r["self_cpu_s"], "actors_cpu_s": r["actors_cpu_s"],
                       "ray_own_cpu_s": r["ray_own_cpu_s"], "wall_s": r["wall_s"]})
    first, last = points[0], points[-1]
    if last["shards"] > first["shards"]:
        fixed, per = _line([(p["shards"], p["extra_cpu_s"]) for p in (first, last)])
        fit = f"line through {first['documents']:,} and {last['documents']:,} documents"
    else:
        per, fixed = first["extra_cpu_s"] / first["shards"], 0.0
        fit = f"one size ({first['documents']:,}): all extra CPU per shard (upper bound)"
    _, driver = _line([(p["documents"], p["driver_cpu_s"]) for p in (first, last)])
    share = sum(p["ray_own_cpu_s"] for p in points) / sum(p["wall_s"] for p in points)
    return {"points": points, "per_shard_cpu_s": per, "fixed_cpu_s": fixed, "driver_ms": 1e3 * driver, "fit": fit,
            "ray_own_core_share": share}


def projection(runs: list[dict], overhead: dict | None, *, documents: int, workers: int) -> dict:
    """Seconds of a build of ``documents`` on one core and on ``workers`` Ray workers (module docstring of
    bench_scale.py): the per-document stages at their ms per document at the largest local run, private
    prediction and the filter as measured there (flat); ``fitted_*``: the per-document stages as a line a + b·N
    through the two largest local runs instead (the flat part, models loaded and per-cluster work, counted once).
    A negative fitted cost counts as 0."""
    big = max(runs, key=lambda r: r["documents"])
    ms, t = big["ms_per_document"], big["timings_s"]
    flat = t.get("private_prediction_s", 0.0) + t.get("self_filter_s", 0.0)
    per_doc = ms["read_and_redact"] + ms["keywords"] + ms["outlier_removal"] + ms["outside_stages"]

    def staged(r):  # the per-document stages and outside them (CPU s)
        s = r["timings_s"]
        return s["total_s"] - s.get("private_prediction_s", 0.0) - s.get("self_filter_s", 0.0)

    a, b = _line([(r["documents"], staged(r)) for r in sorted(runs, key=lambda r: r["documents"])[-2:]])
    a = max(a, 0.0)
    out = {"documents": documents, "from_documents": big["documents"], "flat_s": flat, "per_document_ms": per_doc,
           "fitted_per_document_ms": 1e3 * b, "one_core_s": documents * per_doc / 1e3 + flat,
           "fitted_one_core_s": a + b * documents + flat}
    if overhead is None:
        return out
    driver_ms = max(overhead["driver_ms"], 0.0)
    count = shards(documents, documents)  # members <= documents
    per, fixed = max(overhead["per_shard_cpu_s"], 0.0), max(overhead["fixed_cpu_s"], 0.0)

    def on_workers(per_doc_ms: float) -> float:
        return (documents * max(per_doc_ms - driver_ms, 0.0) / 1e3 + count * per) / workers

    out.update(workers=workers, driver_ms=driver_ms, worker_ms=max(per_doc - driver_ms, 0.0), shards=count,
               driver_s=documents * driver_ms / 1e3, workers_s=on_workers(per_doc), fixed_s=fixed)
    out["workers_total_s"] = out["driver_s"] + out["workers_s"] + flat + fixed
    out["fitted_workers_total_s"] = out["driver_s"] + on_workers(1e3 * b) + a + flat + fixed
    return out


def acceptance(record: dict) -> list[dict]:
    """Each target of issue 44 with the measured value and whether it is met."""
    runs = sorted(record["runs"], key=lambda r: r["documents"])
    big, small = runs[-1], runs[0]
    ms, p = big["ms_per_document"], record["projection"]
    rows = [("all stages but private prediction, ms/doc at " + f"{big['documents']:,}", ms["all_but_private_prediction"],
             TARGETS["all_but_private_prediction_ms"]),
            ("outside the model forwards, ms/doc at " + f"{big['documents']:,}", ms.get("outside_model_forwards"),
             TARGETS["outside_model_forwards_ms"]),
            ("embedder forwards / matmul bound at " + f"{big['documents']:,}", big.get("embedder", {}).get("ratio"),
             TARGETS["forwards_over_bound"]),
            ("1M documents on one core, h", p["one_core_s"] / 3600, TARGETS["one_core_h"]),
            ("1M documents on 16 Ray workers, min", p["workers_total_s"] / 60 if "workers_total_s" in p else None,
             TARGETS["workers_16_min"]),
            (f"peak RSS {big['documents']:,} / {small['documents']:,}", big["peak_rss_mib"] / small["peak_rss_mib"],
             TARGETS["peak_rss_ratio"])]
    out = [{"target": name, "value": v, "limit": limit, "met": None if v is None else v <= limit,
            "margin": None if v is None else v - limit} for name, v, limit in rows]
    same = [r["same_texts_as_local"] for r in record["ray_runs"]]
    out.append({"target": "--ray corpus texts equal the local build's", "value": same, "limit": True,
                "met": bool(same) and all(same), "margin": None})
    return out


def _f(v, digits=2) -> str:
    return "—" if v is None else f"{v:,.{digits}f}"


def markdown(record: dict) -> str:
    """The results page: stage table, the embedder's bound, the projection, the Ray comparison, acceptance."""
    runs = record["runs"]
    lines = [f"# bench_scale ({record['commit']}): CPU ms per document per stage, cpu preset, one torch thread", "",
             f"Machine: {record['machine']['cpu_count']} cores, {record['machine']['platform']}. "
             + (record["note"] or ""), "",
             "| documents | read+redact+cut | keywords | embeddings+outliers (of which forwards) | private prediction "
             "| filter | outside stages | outside model forwards | all but private prediction | peak RSS MiB | wall s |",
             "|---" * 11 + "|"]
    for r in runs:
        m = r["ms_per_document"]
        lines.append(f"| {r['documents']:,} | {m['read_and_redact']:.2f} | {m['keywords']:.2f} | "
                     f"{m['outlier_removal']:.2f} ({_f(m.get('embedder_forwards'))}) | {m['private_prediction']:.2f} | "
                     f"{m['self_filter']:.2f} | {m['outside_stages']:.2f} | {_f(m.get('outside_model_forwards'))} | "
                     f"{m['all_but_private_prediction']:.2f} | {r['peak_rss_mib']:.0f} | {r['wall_s']:.0f} |")
    lines += ["", "Outside model forwards = read+redact+cut + keywords + outside stages + outlier removal less the "
              "embedder's forwards (its tokenizing, padding, noisy sums, thresholds); the filter is counted as model "
              "work.", "", "## The embedder's forwards against their matmul bound", "",
              "| documents | texts | tokens (mean) | useful GFLOP | computed GFLOP (padding) | matmul GFLOP/s (median; "
              "best) | bound s | forwards CPU s | forwards / bound | encode CPU s |", "|---" * 10 + "|"]
    for r in runs:
        e = r["embedder"]
        lines.append(f"| {r['documents']:,} | {e['texts']:,} | {e['tokens']:,} ({e['mean_tokens']:.1f}) | "
                     f"{e['useful_gflop']:,.0f} | {e['computed_gflop']:,.0f} | {e['matmul']['gflops_median']:.1f}; "
                     f"{e['matmul']['gflops_best']:.1f} | {e['bound_s']:.1f} | {e['forward_cpu_s']:.1f} | "
                     f"{e['ratio']:.2f} | {e['encode_cpu_s']:.1f} |")
    e = runs[-1]["embedder"]
    lines += ["", f"FLOPs per token: {e['flops_per_token_linear']:,} (2 x the encoder's linear weights) + "
              f"{e['attention_flops_factor']:,} x s (QKᵀ and attention·V, s = the text's tokens) per token, + "
              f"{e['flops_per_text_pooler']:,} per text (pooler). Rate: torch.matmul fp32, one thread, "
              f"[{e['matmul']['rows']}, in] @ [in, out] for each linear "
              "weight of a layer, median of 7 repeats (CPU clock). Bound = useful FLOPs / rate; the forwards compute "
              "the padded FLOPs (computed / rate = "
              f"{e['computed_over_rate_s']:.1f} s at {runs[-1]['documents']:,}).", ""]
    p, o = record["projection"], record["ray_overhead"]
    lines += [f"## Projection to {p['documents']:,} documents (from {p['from_documents']:,})", "",
              f"One core: {p['per_document_ms']:.2f} ms/doc (read, keywords, embeddings+outliers, outside stages) x "
              f"{p['documents']:,} + {p['flat_s']:.0f} s private prediction and filter (flat) = "
              f"**{p['one_core_s'] / 3600:.2f} h** (with the per-document stages a line a + b·N through the two largest "
              f"sizes, {p['fitted_per_document_ms']:.2f} ms/doc and the flat part counted once: "
              f"{p['fitted_one_core_s'] / 3600:.2f} h)."]
    if "workers_total_s" in p:
        lines += ["", f"{p['workers']} Ray workers: driver {p['driver_ms']:.2f} ms/doc (the slope of the Ray runs' "
                  f"driver CPU) x N = {p['driver_s']:.0f} s; workers ({p['worker_ms']:.2f} ms/doc, the per-document "
                  f"stages less the driver's, x N + {p['shards']:,} shards x {max(o['per_shard_cpu_s'], 0):.2f} s) / "
                  f"{p['workers']} = {p['workers_s']:.0f} s; + {p['flat_s']:.0f} s private prediction and filter + "
                  f"{p['fixed_s']:.0f} s fixed Ray overhead (neither divided over the workers, and the driver's part "
                  f"not overlapped with theirs: an upper bound) = **{p['workers_total_s'] / 60:.1f} min** (with the "
                  f"per-document stages a line through the two largest sizes: {p['fitted_workers_total_s'] / 60:.1f} "
                  "min).", "",
                  f"Ray overhead ({o['fit']}): the driver's and the actors' CPU beyond the local build's, "
                  f"{o['per_shard_cpu_s']:.2f} CPU s per shard"
                  + (" (below the measurement's noise: counted as 0)" if o["per_shard_cpu_s"] < 0 else "")
                  + f" and {o['fixed_cpu_s']:.1f} CPU s fixed (the actors' start-up, imports and model loads, the "
                  "embedder sent). Ray's own processes (daemons, idle workers) used "
                  f"{100 * o['ray_own_core_share']:.0f}% of a core beside them, not counted in the wall time (on a "
                  "cluster they run on the head node beside the driver)."]
    if record["ray_runs"]:
        lines += ["", f"## --ray --ray-workers {record['ray_runs'][0]['ray_workers']} against the local build", "",
                  "| documents | texts sha256 local | texts sha256 Ray | equal | wall s local / Ray | CPU s local / Ray "
                  "(driver + actors + Ray's own) | shards | processes below the driver | peak RSS MiB driver |",
                  "|---" * 9 + "|"]
        for r, pt in zip(record["ray_runs"], o["points"]):
            local = next(x for x in runs if x["documents"] == r["documents"])
            lines.append(f"| {r['documents']:,} | `{local['texts_sha256'][:16]}` | `{r['texts_sha256'][:16]}` | "
                         f"{r['same_texts_as_local']} | {local['wall_s']:.0f} / {r['wall_s']:.0f} | "
                         f"{local['cpu_s']:.0f} / {r['cpu_s']:.0f} ({r['self_cpu_s']:.0f} + {r['actors_cpu_s']:.0f} + "
                         f"{r['ray_own_cpu_s']:.0f}) | {pt['shards']} | {r['descendants']} | {r['peak_rss_mib']:.0f} |")
    lines += ["", "## Acceptance (issue 44)", "", "| target | measured | limit | met |", "|---|---|---|---|"]
    for a in record["acceptance"]:
        value = a["value"] if isinstance(a["value"], list) else _f(a["value"])
        verdict = "—" if a["met"] is None else ("met" if a["met"] else f"**missed** by {_f(a['margin'])}")
        lines.append(f"| {a['target']} | {value} | {a['limit']} | {verdict} |")
    return "\n".join(lines) + "\n"
