"""benchmarks/bench_scale.py (issue 44, item 5): the replicated notes are distinct documents of distinct persons,
the embedder's FLOPs are all-MiniLM-L6-v2's, the CPU of the processes below a build is counted (Ray actors apart
from Ray's own processes), and the Ray overhead fit and the projection to 1M documents compute the stated model."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parents[1] / "benchmarks"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, HERE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(HERE))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(HERE))
    return module


bench = _load("bench_scale")
report = _load("_scale_report")


def test_replicated_notes_are_distinct_documents_of_distinct_persons(tmp_path, monkeypatch):
    rows = [{"id": i, "text": f"Symptoms of {name}. Diagnosis X.", "dialogue": f"Patient: I am {name}.",
             "patient_name": name} for i, name in enumerate(["Ada Lovelace", "Alan Turing", "Emmy Noether"])]
    source = tmp_path / "database.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in rows))
    monkeypatch.setattr(bench, "DATA", source)
    out = tmp_path / "notes.jsonl"
    bench.write_notes(10, out)
    notes = [json.loads(line) for line in out.read_text().splitlines()]
    assert [n["id"] for n in notes] == [0, 1, 2, 10000, 10001, 10002, 20000, 20001, 20002, 30000]
    assert [n["patient_name"] for n in notes][2:8] == ["Emmy Noether", "Ada Lovelace II", "Alan Turing II",
                                                       "Emmy Noether II", "Ada Lovelace III", "Alan Turing III"]
    assert notes[9]["patient_name"] == "Ada Lovelace IV"
    assert notes[7]["text"] == "Symptoms of Alan Turing III. Diagnosis X."
    assert notes[7]["dialogue"] == "Patient: I am Alan Turing III."
    assert len({n["text"] for n in notes}) == 10  # every row another document
    assert [bench.roman(k) for k in (2, 4, 9, 14, 40, 1994)] == ["II", "IV", "IX", "XIV", "XL", "MCMXCIV"]


@pytest.mark.slow
def test_embedder_flops_are_minilm_l6(offline_embedder):
    f = bench.embedder_flops(offline_embedder.model)
    assert f["per_token"] == 2 * 6 * (4 * 384 * 384 + 2 * 384 * 1536) == 21_233_664
    assert f["per_text"] == 2 * 384 * 384  # the pooler, once per text
    assert f["attention_factor"] == 4 * 6 * 384
    assert f["layer_shapes"] == [[384, 384]] * 4 + [[1536, 384], [384, 1536]]


def test_descendant_cpu_counts_actors_apart_from_rays_own_processes():
    busy = "import time\nt = time.process_time()\nwhile time.process_time() - t < {}: pass"
    procs = [subprocess.Popen(["bash", "-c", f'exec -a "{title}" "{sys.executable}" -c "$0"', busy.format(s)])
             for title, s in (("ray::Worker.embed", 0.6), ("ray::IDLE", 0.3))]
    below = bench.DescendantCPU(os.getpid())
    while any(p.poll() is None for p in procs):
        below.sample()
        time.sleep(0.05)
    assert below.seconds(actors=True) == pytest.approx(0.6, abs=0.15)
    assert below.seconds(actors=False) == pytest.approx(0.3, abs=0.15)
    assert below.seconds() == pytest.approx(below.seconds(actors=True) + below.seconds(actors=False))


def _local(n, embedded, total, pp, filt, encode, cpu):
    t = {"read_and_redact_s": 0.0002 * n, "keywords_s": 0.0002 * n, "outlier_removal_s": encode + 2.0,
         "private_prediction_s": pp, "self_filter_s": filt, "total_s": total}
    run = {"documents": n, "timings_s": t, "cpu_s": cpu, "embedder": {"texts": embedded, "encode_cpu_s": encode,
                                                                      "forward_cpu_s": 0.9 * encode}}
    run["ms_per_document"] = bench.per_document(run)
    return run


def test_ray_overhead_fit_and_projection_follow_the_stated_model():
    runs = [_local(8000, 7000, 200.0, 40.0, 14.0, 120.0, 210.0), _local(32000, 28000, 600.0, 32.0, 15.0, 480.0, 650.0)]
    big = runs[1]["ms_per_document"]
    assert big["all_but_private_prediction"] == pytest.approx(1e3 * (600 - 32) / 32000)
    assert big["outside_stages"] == pytest.approx(1e3 * (600 - 6.4 - 6.4 - 482 - 32 - 15) / 32000)
    assert big["outside_model_forwards"] == pytest.approx(
        big["read_and_redact"] + big["keywords"] + big["outside_stages"] + big["outlier_removal"] - 1e3 * 432 / 32000)
    small = _local(2000, 1800, 90.0, 42.0, 14.0, 30.0, 100.0)
    ray = [{"documents": 2000, "self_cpu_s": 25.0, "actors_cpu_s": 165.0, "ray_own_cpu_s": 7.0, "wall_s": 250.0},
           {"documents": 8000, "self_cpu_s": 27.0, "actors_cpu_s": 290.0, "ray_own_cpu_s": 10.0, "wall_s": 400.0}]
    o = report.ray_overhead([small, runs[0]], ray)
    assert [p["shards"] for p in o["points"]] == [2 * 2 + 2, 2 * 8 + 7]  # reading and keywords of all, members'
    assert o["per_shard_cpu_s"] == pytest.approx(((27 + 290 - 210) - (25 + 165 - 100)) / (23 - 6))
    assert o["fixed_cpu_s"] == pytest.approx(90 - 6 * o["per_shard_cpu_s"])
    assert o["driver_ms"] == pytest.approx(1e3 * 2 / 6000)
    assert o["ray_own_core_share"] == pytest.approx(17 / 650)
    p = report.projection(runs, o, documents=1_000_000, workers=16)
    per_doc = 1e3 * (600 - 32 - 15) / 32000
    assert p["one_core_s"] == pytest.approx(1e6 * per_doc / 1e3 + 47)
    slope = (553 - (200 - 40 - 14)) / 24000
    assert p["fitted_one_core_s"] == pytest.approx(553 - slope * 32000 + slope * 1e6 + 47)
    assert p["shards"] == 3 * 977
    assert p["workers_total_s"] == pytest.approx(
        1e6 * o["driver_ms"] / 1e3 + (1e6 * (per_doc - o["driver_ms"]) / 1e3 + 2931 * o["per_shard_cpu_s"]) / 16
        + 47 + o["fixed_cpu_s"])
