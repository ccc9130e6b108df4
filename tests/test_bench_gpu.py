"""benchmarks/bench_gpu.py (issue 16, item 2) runs end to end with its tiny configuration on CPU and
writes every field the GPU run reports."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_gpu.py"


def test_tiny_gpu_benchmark_on_cpu_writes_its_measurements(tmp_path):
    spec = importlib.util.spec_from_file_location("bench_gpu", SCRIPT)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    out = tmp_path / "bench.json"
    assert bench.main(["--tiny", "--device", "cpu", "--out", str(out)]) == 0
    r = json.loads(out.read_text())
    assert r["tiny"] is True and r["device"] == "cpu" and r["dtype"] == "float32"
    w = r["workload"]
    assert (w["clusters"], w["members"], w["tokens"], w["prompt_tokens"]) == (3, 4, 4, 40)
    ours = r["ours"]
    assert ours["member_token_evals"] == 3 * 4 * 4
    assert ours["member_token_evals_per_s"] == pytest.approx(48 / ours["seconds"])
    assert ours["peak_memory_gb"] > 0
    assert r["batch_invariant_first_step"] is True and r["batch_invariance_max_abs_diff"] == 0.0
    naive = r["naive"]
    assert naive["clusters"] == 1 and naive["member_token_evals"] == 4 * 4
    assert r["speedup"] == pytest.approx(ours["member_token_evals_per_s"] / naive["member_token_evals_per_s"])
    proj = r["paper_scale_projection"]
    assert (proj["documents"], proj["R"], proj["L"], proj["k"], proj["T"]) == (8000, 500, 5, 80, 70)
    assert proj["member_token_evals"] == 500 * 80 * 70
    assert proj["private_prediction_s"] == pytest.approx(ours["seconds"] / 3 * 500)
    assert proj["naive_private_prediction_s"] == pytest.approx(naive["seconds"] * 500)


def test_paper_shapes_are_llama_3_1_8b():
    spec = importlib.util.spec_from_file_location("bench_gpu", SCRIPT)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    s = bench.LLAMA_8B
    assert (s["hidden_size"], s["intermediate_size"], s["num_hidden_layers"]) == (4096, 14336, 32)
    assert (s["num_attention_heads"], s["num_key_value_heads"], s["vocab_size"]) == (32, 8, 128256)
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    with torch.device("meta"):  # shapes only, no memory
        model = LlamaForCausalLM(LlamaConfig(**s, tie_word_embeddings=False))
    assert sum(p.numel() for p in model.parameters()) == 8_030_261_248  # Llama-3.1-8B's published count
    tok = bench.make_tokenizer(512)
    assert len(tok) == 512
