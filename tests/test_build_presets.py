"""Issue 28 (1, 2): `build --preset` / `budget --preset`, the machine's default preset, and the plan of the
work before the spend (`--dry-run`, `--expected-documents`, the warning before a build over 30 minutes).

Nothing here loads a real model: model loading is replaced by the tiny Llama and the hash embedder, or made
to fail the test where no model may load; the timing of the model is replaced where a test needs its value."""

from __future__ import annotations

import json
import math

import pytest
from fakes import HashEmbedder
from servers import privacy_dict
from typer.testing import CliRunner

from dpsynrag.cli import app
from dpsynrag.commands import plan
from dpsynrag.commands.plan import Timing, estimate_seconds, estimate_work, preset_fields
from dpsynrag.eval.presets import PRESETS
from dpsynrag.methods import get_method
from dpsynrag.pipeline.config import BuildConfig

runner = CliRunner()
BUDGET = ["budget", "--epsilon", "10", "--delta", "1e-3"]
FILTER = "Is this a support ticket? Answer only YES or NO.\nDocument: {document}\nAnswer:"


def _out(result) -> str:
    return " ".join(result.output.split())


@pytest.fixture()
def no_gpu(monkeypatch):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)


@pytest.fixture()
def no_models(monkeypatch):
    """Any model load fails the test."""
    from dpsynrag.models import Embedder, LanguageModel

    monkeypatch.setattr(LanguageModel, "load", classmethod(lambda cls, *a, **k: pytest.fail("a language model was loaded")))
    monkeypatch.setattr(Embedder, "load", classmethod(lambda cls, *a, **k: pytest.fail("an embedder was loaded")))


@pytest.fixture()
def loads(monkeypatch, tiny_lm):
    """Model loads return the tiny Llama and the hash embedder; the list records them in order."""
    from dpsynrag.models import Embedder, LanguageModel

    class Loads(list):
        lm = tiny_lm

    calls = Loads()
    monkeypatch.setattr(LanguageModel, "load", classmethod(lambda cls, name=None, **k: calls.append(("lm", name)) or tiny_lm))
    monkeypatch.setattr(Embedder, "load", classmethod(lambda cls, name=None, **k: calls.append(("embedder", name)) or HashEmbedder()))
    return calls


@pytest.fixture()
def configs(monkeypatch):
    """The configs DP-SynRAG's plan is asked for (the one `build` and `budget` made), in order."""
    method = get_method("dp-synrag")
    seen: list[BuildConfig] = []
    original = method.plan

    def spy(config):
        seen.append(config)
        return original(config)

    monkeypatch.setattr(method, "plan", spy)
    return seen


def _budget(*extra) -> dict:
    result = runner.invoke(app, [*BUDGET, *extra, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


# ------------------------------------------------------------------------------------------- presets


def test_preset_fields_are_the_methods_eval_parameters_minus_the_builds_own():
    cpu = PRESETS["cpu"]
    synrag = preset_fields(get_method("dp-synrag"), cpu)
    # redaction: --identifier-field; the task's record format: --response-template
    assert synrag == {k: v for k, v in cpu.synrag.items() if k not in ("redact_identifiers", "task_response_template")}
    assert synrag["K"] == 1 and synrag["R"] == 48 and synrag["extractor"] == "rarity"
    # DP-Synth's batch size becomes a number of batches only from a declared (public) size, never from the data
    assert preset_fields(get_method("dp-synth"), cpu) == {"T": 32, "max_document_tokens": 96, "self_filter": False}
    assert preset_fields(get_method("dp-synth"), cpu, expected_documents=250)["num_batches"] == math.ceil(250 / 100)
    assert "epsilon_per_query" not in preset_fields(get_method("dp-rag"), cpu)  # --epsilon sets it
    assert preset_fields(get_method("dp-rag"), cpu) == {"max_new_tokens": 24, "max_document_tokens": 96}
    # the paper preset's DP-SynRAG fields are the API's defaults: `--preset paper` is the old command line
    paper = BuildConfig(epsilon=10, delta=1e-3, **preset_fields(get_method("dp-synrag"), PRESETS["paper"]))
    assert paper == BuildConfig(epsilon=10, delta=1e-3)


def test_budget_preset_gives_the_presets_plan(no_gpu):
    report = _budget("--preset", "demo")
    fields = {k: v for k, v in PRESETS["demo"].synrag.items() if k not in ("redact_identifiers", "task_response_template")}
    expected = BuildConfig(epsilon=10, delta=1e-3, **fields).plan()
    assert report["rho_total"] == pytest.approx(expected.rho, rel=1e-12)
    assert report["preset"] == {"name": "demo", "why": "--preset", "applied": fields}
    clusters = report["mechanisms"][1]
    assert clusters["num_branches"] == 48 and clusters["multiplier"] == 1  # R = 48, L = 1


def test_budget_own_cpu_states_one_release_after_the_histogram(no_gpu):
    """`budget --preset own-cpu` (phrase release over the collection): the plan is the keyword histogram, then the
    release with all the histogram leaves; no cluster, no outlier removal: at ε = 10, δ = 1e-3 (ρ = 2.11698 after
    δ/10 for the open vocabulary and δ/4 for the phrases) σ_p = sqrt(4/(2(ρ − 0.1))) = 0.99578, τ_p = 5. The same
    with `--phrase-scope collection` on the cpu preset, whose outlier removal is on: it is not run or charged."""
    log = math.log(1 / (1e-3 - 1e-4 - 2.5e-4))
    rho = (math.sqrt(log + 10) - math.sqrt(log)) ** 2
    for extra in (("--preset", "own-cpu"), ("--preset", "cpu", "--synthesis", "phrases", "--phrase-scope", "collection",
                                             "--phrase-max", "4")):
        report = _budget(*extra)
        assert [m["name"] for m in report["mechanisms"]] == ["keyword histogram (open vocabulary)", "phrase release"]
        assert report["rho_total"] == pytest.approx(rho, rel=1e-9)
        release, parameters = report["mechanisms"][1], report["parameters"]
        assert release["sigma"] == pytest.approx(math.sqrt(4 / (2 * (rho - 0.1))), rel=1e-9)
        assert release["sigma"] == pytest.approx(0.9957827, abs=1e-7) and release["threshold"] == 5
        assert parameters["epsilon_theta"] is None and parameters["rho_embed"] == 0 and "rho_branch" not in parameters


def test_typed_flags_beat_the_preset(no_gpu, configs):
    report = _budget("--preset", "cpu", "--R", "20", "--T", "10", "--open-vocabulary-delta", "1e-5")
    config = configs[-1]
    assert (config.R, config.T, config.hist_delta) == (20, 10, 1e-5)
    assert (config.K, config.L, config.k, config.extractor) == (1, 1, 30, "rarity")  # the rest from the preset
    assert "R" not in report["preset"]["applied"] and "T" not in report["preset"]["applied"]
    assert report["preset"]["applied"]["k"] == 30
    assert report["mechanisms"][1]["num_branches"] == 20
    # a typed flag that implies a field beats the preset's statement of that field's default
    _budget("--preset", "paper", "--open-vocabulary-delta", "1e-5")
    assert configs[-1].open_vocabulary is True and configs[-1].hist_delta == 1e-5


def test_build_typed_common_flags_beat_the_preset(tmp_path, no_gpu, no_models, configs):
    args = ["build", str(tmp_path / "none.jsonl"), "--out", str(tmp_path / "c"), "--epsilon", "10", "--delta", "1e-3",
            "--preset", "cpu", "--filter-prompt", FILTER, "--max-document-tokens", "50", "--k", "7", "--dry-run"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    config = configs[-1]
    assert (config.max_document_tokens, config.k, config.R, config.open_vocabulary) == (50, 7, 48, True)
    assert "preset cpu (--preset):" in _out(result) and "max_document_tokens" not in _out(result).split("Calibrated")[0]


def test_unknown_preset_names_the_flag_and_lists_the_presets(tmp_path, no_models):
    for args in ([*BUDGET, "--preset", "fast"],
                 ["build", "x.jsonl", "--out", str(tmp_path / "c"), "--epsilon", "10", "--delta", "1e-3", "--preset", "fast"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 2, result.output
        assert f"--preset: unknown preset 'fast'; available: {', '.join(PRESETS)}." in _out(result)
        assert not (tmp_path / "c").exists()


@pytest.mark.parametrize("cuda, name", [(True, "paper"), (False, "cpu")])
def test_default_preset_suits_the_machine(monkeypatch, configs, cuda, name):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: cuda)
    report = _budget()
    assert report["preset"]["name"] == name
    assert report["preset"]["why"] == f"the default on a machine {'with' if cuda else 'without'} a CUDA GPU"
    fields = {k: v for k, v in PRESETS[name].synrag.items() if k not in ("redact_identifiers", "task_response_template")}
    assert configs[-1] == BuildConfig(epsilon=10, delta=1e-3, **fields)
    result = runner.invoke(app, BUDGET)
    assert f"preset {name} (the default on a machine" in _out(result)


def test_a_preset_without_self_filter_builds_without_a_task_and_says_so(tmp_path, no_gpu, no_models, configs):
    base = ["build", str(tmp_path / "none.jsonl"), "--out", str(tmp_path / "c"), "--epsilon", "10", "--delta", "1e-3",
            "--dry-run"]
    result = runner.invoke(app, [*base, "--preset", "demo"])
    assert result.exit_code == 0, result.output
    assert ("no self-filter: preset demo turns it off, so every non-empty synthetic text whose mean token "
            "log-probability is at least -8 nats is kept") in _out(result) and configs[-1].self_filter is False
    # a typed --filter-prompt turns it on again
    result = runner.invoke(app, [*base, "--preset", "demo", "--filter-prompt", FILTER])
    assert result.exit_code == 0, result.output
    assert "no self-filter" not in _out(result) and configs[-1].self_filter is True
    # the paper preset self-filters: without a task or prompt the build is refused, naming the ways out
    result = runner.invoke(app, [*base, "--preset", "paper"])
    assert result.exit_code == 2 and "--filter-prompt" in _out(result) and "--no-self-filter" in _out(result)


# ------------------------------------------------------------------------------------------- the work


def test_work_closed_forms():
    config = BuildConfig(epsilon=10, delta=1e-3, K=3, R=6, L=2, k=5, T=4, prediction_checkpoints=20)
    work = estimate_work(config, 7)  # CPU: 32 rows per decode forward (R·k = 30 < 256)
    members = min(6 * 5, 7 * 2)  # min(R·k, N·L), L = min(L, R, K) = 2
    assert (work.member_rows, work.member_rows_max, work.public_rows) == (14, 14, 0) == (members, 14, 0)
    assert work.member_token_evaluations == members * 4
    assert work.step_rows == 32 and work.keyword_step_rows == 32
    # 20 checkpoint batches of 6 texts: one each, its 2 or 3 member rows in one forward a step, T - 1 steps
    assert work.prediction_decode_forwards == 6 * (4 - 1) * math.ceil(3 / 32)
    # a prompt forward per document and one for the public prefix; 6K - 1 steps of one 32-row forward
    assert work.keyword_prefills == 7 + 1 and work.keyword_decode_forwards == (6 * 3 - 1) * math.ceil(7 / 32)
    assert work.embeddings == 7 + 6 and work.filter_forwards == 6  # self-filter on, no fluency filter
    assert work.embed_rows == 8 and work.embed_forwards == 1  # CPU: 8 texts per embedder forward (embed_rows)
    assert work.prediction_prefills == members + 1  # each member row's prompt, and the public prefix
    assert (work.prefills, work.decode_forwards) == (8 + 15 + 6, 17 + 18)

    assert work.clusters == work.texts == 6 and work.pii_documents == 0  # public vocabulary: the top R released

    # the cpu preset on the 300 tickets of issue 28: rarity keywords (no model), public prior (one public row
    # per cluster), 2 batches of 64-row forwards (R·k = 1440 >= 256), fluency filter (no self-filter). Open
    # vocabulary: 300 documents cast 300·K = 300 votes and a keyword needs a noisy count above τ = 9, so at most
    # ⌊300/9⌋ = 33 of the R = 48 clusters are counted (issue 43: the build of 400 released 13, not 48)
    cpu = BuildConfig(epsilon=10, delta=1e-3, **preset_fields(get_method("dp-synrag"), PRESETS["cpu"]))
    assert cpu.calibrate().hist_threshold == 9.0
    work = estimate_work(cpu, 300)
    assert (work.keyword_prefills, work.keyword_decode_forwards, work.keyword_documents) == (0, 0, 300)
    assert work.clusters == work.texts == 300 // 9 == 33
    assert (work.member_rows, work.public_rows, work.step_rows) == (300, 33, 64)
    assert work.member_token_evaluations == 300 * 48
    # 2 batches of 17 and 16 clusters: 3·10 + 14·9 + 17 = 173 and 16·9 + 16 = 160 rows, 3 forwards a step each
    assert work.prediction_decode_forwards == (48 - 1) * (math.ceil(173 / 64) + math.ceil(160 / 64)) == 282
    # the members' prompts, the one public prompt in each batch, the public prefix
    assert work.filter_forwards == 33 and work.prediction_prefills == 300 + 2 + 1 and work.embeddings == 300 + 33
    assert estimate_work(cpu, 9000).clusters == 48  # never more than R
    # the PII pass is counted once per document when on, and timed
    pii = estimate_work(BuildConfig(**{**cpu.model_dump(), "redact_pii": True}), 300)
    assert pii.pii_documents == 300 and work.pii_documents == 0
    timing = Timing(prefill_s=0.0, step_s=0.0, keyword_step_s=0.0, embed_s=0.0, pii_s=0.05)
    assert estimate_seconds(pii, timing) == pytest.approx(300 * 0.05)
    rarity = Timing(prefill_s=0.0, step_s=0.0, keyword_step_s=0.0, embed_s=0.0, keyword_doc_s=0.001)
    assert estimate_seconds(work, rarity) == pytest.approx(300 * 0.001)  # the rarity extractor, timed
    # the paper's settings on them: 5 clusters per document, 20 batches, the LLM extractor
    paper = estimate_work(BuildConfig(epsilon=10, delta=1e-3), 300)
    assert paper.member_rows == 1500 and paper.member_token_evaluations == 1500 * 70
    assert paper.prediction_decode_forwards == (70 - 1) * 20 * math.ceil(1500 / (20 * 64)) == 2760
    assert paper.keyword_decode_forwards == (60 - 1) * math.ceil(300 / 32)
    # without outlier removal every membership predicts; on a GPU forwards hold 128 rows
    bare = estimate_work(BuildConfig(epsilon=10, delta=1e-3, R=10, k=2, outlier_removal=False), 100, device="cuda")
    assert bare.member_rows == 100 * 5 and bare.embeddings == 10 and bare.step_rows == 128 and bare.embed_rows == 256
    with pytest.raises(Exception, match="--expected-documents must be an integer >= 1"):
        estimate_work(config, 0)


def test_estimate_seconds_is_the_timed_sum():
    work = estimate_work(BuildConfig(epsilon=10, delta=1e-3, K=3, R=6, L=2, k=5, T=4), 7)
    timing = Timing(prefill_s=1.0, step_s=2.0, keyword_step_s=0.5, embed_s=0.25)
    assert estimate_seconds(work, timing) == 29 * 1.0 + 18 * 2.0 + 17 * 0.5 + 13 * 0.25
    stages = {stage: seconds for stage, _, seconds in plan.stage_work(work, timing)}  # the table's rows add up
    assert stages == {"keyword extraction": 8 * 1.0 + 17 * 0.5, "embeddings": 13 * 0.25,
                      "private prediction": 15 * 1.0 + 18 * 2.0, "filters": 6 * 1.0}
    assert sum(stages.values()) == estimate_seconds(work, timing)
    # counted on INPUT (--measure-input): the outlier removal's 7 documents at half the full cut's width
    import dataclasses

    half = dataclasses.replace(work, embed_width_ratio=0.5, distinct_documents=7)
    assert estimate_seconds(half, timing) == estimate_seconds(work, timing) - 7 * 0.5 * 0.25
    assert {stage: seconds for stage, _, seconds in plan.stage_work(half, timing)}["embeddings"] == (7 * 0.5 + 6) * 0.25


def test_the_work_table_shows_the_stages_that_run():
    """issue 43: the PII pass has its row (it took 25 s while keyword extraction showed 0 s); the rarity
    extractor and the phrase release say they run no model; no filter row when no filter runs."""
    from rich.console import Console

    def table(config, n=300, timing=None):
        console = Console(width=250, record=True)
        console.print(plan.work_table(estimate_work(config, n), timing, config))
        return console.export_text()

    cpu = dict(epsilon=10, delta=1e-3, **preset_fields(get_method("dp-synrag"), PRESETS["cpu"]))
    timing = Timing(prefill_s=1.0, step_s=1.0, keyword_step_s=1.0, embed_s=1.0, pii_s=0.1)
    out = table(BuildConfig(**cpu, redact_pii=True), timing=timing)
    assert "PII pass" in out and "300 documents through the automatic PII pass" in out and "30 s" in out
    assert "rarity extractor: no model work (300 documents)" in out and "33 clusters (the most the plan allows), 33 texts" in out
    assert "filters" in out  # the fluency filter of the cpu preset
    bare = table(BuildConfig(**{**cpu, "fluency_threshold": None, "synthesis": "phrases"}))
    assert "PII pass" not in bare and "filters" not in bare and "phrase release" in bare
    assert "private prediction" not in bare
    paper = table(BuildConfig(epsilon=10, delta=1e-3, K=3, R=6, L=2, k=5, T=4), 7)
    assert "keyword extraction" in paper and "8 prefills" in paper and "6 clusters" in paper
    assert "1 forwards of 8 for the outlier removal, 6 for the index" in paper


def test_time_model_times_the_builds_shapes(tiny_lm):
    config = BuildConfig(epsilon=10, delta=1e-3, K=3, R=6, L=2, k=5, T=4, max_document_tokens=16)
    timing = plan.time_model(tiny_lm, HashEmbedder(), config, estimate_work(config, 7), repeats=2, load_s=3.0)
    assert timing.prefill_s > 0 and timing.step_s > 0 and timing.embed_s > 0 and timing.load_s == 3.0
    assert timing.keyword_step_s == timing.step_s  # the same 32-row shape
    assert timing.pii_s == 0.0 and timing.keyword_doc_s == 0.0  # no PII pass, no rarity extractor to time
    rarity = BuildConfig(epsilon=10, delta=1e-3, K=3, R=6, L=2, k=5, T=4, max_document_tokens=16, extractor="rarity")
    assert plan.time_model(tiny_lm, HashEmbedder(), rarity, estimate_work(rarity, 7), repeats=1).keyword_doc_s > 0
    pii = BuildConfig(epsilon=10, delta=1e-3, K=3, R=6, L=2, k=5, T=4, max_document_tokens=16, redact_pii=True)
    assert plan.time_model(tiny_lm, HashEmbedder(), pii, estimate_work(pii, 7), repeats=1).pii_s > 0


def test_budget_counts_the_work_of_a_declared_size(no_gpu):
    report = _budget("--preset", "cpu", "--expected-documents", "300")
    assert report["work"]["member_token_evaluations"] == 300 * 48
    assert report["work"]["prediction_decode_forwards"] == 282 and report["work"]["expected_documents"] == 300
    result = runner.invoke(app, [*BUDGET, "--preset", "cpu", "--expected-documents", "300"])
    assert result.exit_code == 0 and "Work for 300 documents" in _out(result) and "times the model" in _out(result)
    assert "work" not in _budget("--preset", "cpu")
    result = runner.invoke(app, [*BUDGET, "--expected-documents", "0"])
    assert result.exit_code == 2 and "--expected-documents must be an integer >= 1" in _out(result)


def _dry_run(tmp_path, *extra):
    return ["build", str(tmp_path / "private.jsonl"), "--out", str(tmp_path / "c"), "--epsilon", "10", "--delta", "1e-3",
            "--ledger", str(tmp_path / "ledger"), "--preset", "paper", "--dry-run", *extra]


def test_dry_run_prints_the_plan_and_the_work_and_touches_nothing(tmp_path, no_gpu, loads, monkeypatch):
    # the input does not exist: a dry run never opens it; no ledger, no output folder
    timing = Timing(prefill_s=1.0, step_s=2.0, keyword_step_s=0.5, embed_s=0.25)
    monkeypatch.setattr(plan, "time_model", lambda lm, embedder, config, work, **k: timing)
    args = _dry_run(tmp_path, "--K", "3", "--R", "6", "--L", "2", "--k", "5", "--T", "4", "--task", "medical",
                    "--expected-documents", "7")
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    out = _out(result)
    assert "Calibrated parameters" in out and "Privacy report" in out and "epsilon (Bun-Steinke)" in out
    assert "Work for 7 documents (declared; estimates)" in out
    assert "timing the model at the build's shapes: prompts of 256-token documents" in out  # said before it runs
    assert "29 prefills, 35 decode forwards" in out  # test_work_closed_forms
    assert plan.minutes(29 * 1.0 + 18 * 2.0 + 17 * 0.5 + 13 * 0.25) in out and "77 s" in out
    assert "dry run: no data read, nothing spent, nothing written." in out
    assert [kind for kind, _ in loads] == ["embedder", "lm"]  # the models timed, the embedder first as the build
    assert not (tmp_path / "c").exists() and not (tmp_path / "ledger").exists()
    assert list(tmp_path.iterdir()) == []


def test_a_dry_run_refuses_prompts_that_would_not_fit_the_model(tmp_path, no_gpu, loads, monkeypatch):
    """The tiny Llama has 512 positions: 600-token documents cannot fit the rephrase prompt. The dry run
    says so (what the build would say before any draw) instead of timing a build that would fail."""
    monkeypatch.setattr(plan, "time_model", lambda *a, **k: pytest.fail("a build that cannot run was timed"))
    result = runner.invoke(app, _dry_run(tmp_path, "--task", "medical", "--expected-documents", "7",
                                         "--max-document-tokens", "600"))
    assert result.exit_code != 0
    out = _out(result)
    assert "do not fit the context window of" in out and "(512 positions)" in out
    assert "keyword extraction (LLM extractor prompt) needs up to" in out and "600 (--max-document-tokens)" in out
    assert list(tmp_path.iterdir()) == []
    monkeypatch.setattr(plan, "time_model", lambda *a, **k: Timing(prefill_s=1.0, step_s=1.0, keyword_step_s=1.0,
                                                                    embed_s=1.0))
    ok = runner.invoke(app, _dry_run(tmp_path, "--task", "medical", "--expected-documents", "7",
                                     "--max-document-tokens", "64", "--T", "4"))
    assert ok.exit_code == 0 and "do not fit" not in _out(ok), _out(ok)


def test_dry_run_without_a_declared_size_loads_nothing_and_says_what_it_needs(tmp_path, no_gpu, no_models):
    result = runner.invoke(app, _dry_run(tmp_path, "--no-self-filter"))
    assert result.exit_code == 0, result.output
    assert "pass --expected-documents N (a declared, public size" in _out(result) and "Privacy report" in _out(result)
    assert list(tmp_path.iterdir()) == []


@pytest.fixture()
def fake_build(monkeypatch):
    """`build_corpus` replaced: records its keywords and writes a small corpus (no model runs)."""
    import dpsynrag.pipeline.build as build_module
    from dpsynrag.corpus import CorpusWriter

    seen: dict = {}

    def fake(documents, out, config, **kw):
        seen.update(kw, config=config)
        records = [{"id": i, "keyword": f"w{i}", "text": f"the patient has fever {i}", "kept": True} for i in range(4)]
        manifest = {"method": "dp-synrag", "config": {}, "model": {"spec": None, "name": "tiny-llama"},
                    "embedder": {"spec": None}, "privacy": privacy_dict()}
        with CorpusWriter(out) as writer:
            return writer.finish(records, manifest, HashEmbedder())

    monkeypatch.setattr(build_module, "build_corpus", fake)
    return seen


@pytest.mark.parametrize("step_s, warned", [(10.0, True), (0.01, False)])
def test_a_build_estimated_over_30_minutes_says_so_before_it_starts(tmp_path, no_gpu, loads, fake_build, monkeypatch,
                                                                     step_s, warned):
    timing = Timing(prefill_s=0.01, step_s=step_s, keyword_step_s=0.01, embed_s=0.01)
    monkeypatch.setattr(plan, "time_model", lambda lm, embedder, config, work, **k: timing)
    data = tmp_path / "t.jsonl"
    data.write_text(json.dumps({"body": "a ticket"}) + "\n")
    args = ["build", str(data), "--out", str(tmp_path / "c"), "--epsilon", "10", "--delta", "1e-3", "--text-field", "body",
            "--no-self-filter", "--preset", "cpu", "--expected-documents", "300", "--ledger", str(tmp_path / "led")]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    seconds = estimate_seconds(estimate_work(fake_build["config"], 300), timing)
    assert (seconds > 30 * 60) == warned  # 282 decode forwards of 10 s: 47 minutes
    out = _out(result)
    assert ("warning: this build is estimated to take" in out) == warned
    if warned:
        assert f"to take {plan.minutes(seconds)} on this machine for 300 documents (over 30 minutes)" in out
        assert out.index("estimated to take") < out.index("built")
    assert fake_build["lm"] is loads.lm and isinstance(fake_build["embedder"], HashEmbedder)  # loaded once
    assert [kind for kind, _ in loads] == ["embedder", "lm"]


def test_a_build_without_a_declared_size_says_how_to_get_an_estimate(tmp_path, no_gpu, fake_build):
    data = tmp_path / "t.jsonl"
    data.write_text(json.dumps({"text": "a ticket"}) + "\n")
    result = runner.invoke(app, ["build", str(data), "--out", str(tmp_path / "c"), "--epsilon", "10", "--delta", "1e-3",
                                 "--preset", "demo", "--ledger", str(tmp_path / "led")])
    assert result.exit_code == 0, result.output
    out = _out(result)
    assert "preset demo (--preset)" in out and "no self-filter: preset demo" in out
    assert "pass --expected-documents N" in out and fake_build["lm"] is None  # the build loads its models itself
    assert fake_build["config"].self_filter is False and fake_build["config"].k == 40


def test_a_dry_run_can_count_the_work_on_input_for_the_owner(tmp_path, no_gpu, loads, monkeypatch):
    """--measure-input (issue 44): the dry run reads INPUT as the build does and counts its work there; the table
    says the counts are the private data's, and nothing is written or spent. Misuse is one clear error."""
    timing = Timing(prefill_s=0.5, step_s=1.0, keyword_step_s=0.5, embed_s=0.1)
    monkeypatch.setattr(plan, "time_model", lambda lm, embedder, config, work, **k: timing)
    counted = []
    estimate = plan.estimate_work
    monkeypatch.setattr(plan, "estimate_work", lambda *a, **k: counted.append(estimate(*a, **k)) or counted[-1])
    data = tmp_path / "t.jsonl"
    rows = [{"id": i, "body": f"{name} asks about the card fee", "who": name} for i, name in enumerate("ABCDEFGH" * 3)]
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    base = ["build", str(data), "--out", str(tmp_path / "c"), "--epsilon", "10", "--delta", "1e-3", "--preset", "cpu",
            "--text-field", "body", "--identifier-field", "who", "--ledger", str(tmp_path / "led")]
    result = runner.invoke(app, [*base, "--dry-run", "--measure-input"])
    assert result.exit_code == 0, result.output
    out = _out(result)
    assert ("Work for the 24 documents of INPUT, 1 distinct after redaction and the cut (owner-only counts of the "
            "private data: do not publish; estimates)") in out
    assert "dry run: INPUT read for the owner-only counts above, nothing spent, nothing written." in out
    assert not (tmp_path / "c").exists() and not (tmp_path / "led").exists() and "Calibrated parameters" in out
    work = counted[-1]
    assert (work.expected_documents, work.distinct_documents, work.member_rows) == (24, 1, 1)  # D·L, L = 1
    # what the estimate does not count is said: a memory budget below one decoding row, and Ray's workers
    result = runner.invoke(app, [*base, "--dry-run", "--measure-input", "--memory-budget-gb", "1e-9", "--ray"])
    assert result.exit_code == 0, result.output
    assert "warning: --memory-budget-gb 1e-09 cannot hold one decoding row" in _out(result)
    assert "The estimate above does not count that." in _out(result)
    assert "--ray: the estimate is for this one process" in _out(result)
    assert "cannot hold one decoding row" not in _out(runner.invoke(app, [*base, "--dry-run", "--measure-input"]))
    missing = [*base[:1], str(tmp_path / "none.jsonl"), *base[2:]]
    for args, message in [([*base, "--measure-input"], "use it with --dry-run and without --expected-documents"),
                          ([*base, "--measure-input", "--dry-run", "--expected-documents", "24"],
                           "without --expected-documents"),
                          ([*base, "--measure-input", "--dry-run", "--method", "dp-synth"],
                           "for --method dp-synrag only, not dp-synth"),
                          ([*missing, "--measure-input", "--dry-run"], "none.jsonl does not exist")]:
        result = runner.invoke(app, args)
        assert result.exit_code == 2 and message in _out(result), result.output
        assert "Calibrated parameters" not in result.output  # refused before the plan is printed
        assert not (tmp_path / "c").exists() and not (tmp_path / "led").exists()


# ------------------------------------------------------------------------------------------- the README


def _readme_commands(section: str = "## Your own data") -> list[list[str]]:
    """The `dpsynrag` commands of the first bash block of a README section, as argument lists."""
    import shlex
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    block = text.split(section, 1)[1].split("```bash\n", 1)[1].split("```", 1)[0]
    lines = [line for line in block.replace("\\\n", " ").splitlines() if line.startswith(".venv/bin/dpsynrag ")]
    return [shlex.split(line)[1:] for line in lines]


@pytest.mark.slow
def test_the_readmes_own_data_cpu_commands_plan_then_build_a_corpus(tmp_path, offline_lm, offline_embedder, monkeypatch):
    """The README's laptop commands as written (the offline models) on 200 generated tickets, seeded: the
    redaction preview names no customer, the dry run writes nothing, the build writes a corpus whose texts name
    no customer."""
    from tickets import write_tickets

    from dpsynrag.corpus import SyntheticCorpus
    from dpsynrag.models import Embedder, LanguageModel

    monkeypatch.setattr(LanguageModel, "load", classmethod(lambda cls, *a, **k: offline_lm))  # loaded once per session
    monkeypatch.setattr(Embedder, "load", classmethod(lambda cls, *a, **k: offline_embedder))
    data = write_tickets(tmp_path / "tickets.jsonl", n=200, seed=0)  # own-cpu (K = 5) releases no topic from 60
    out = tmp_path / "runs" / "tickets"
    redact, dry_run, build, query, report, leakage = _readme_commands()  # the five steps (5: two commands)
    assert "--dry-run" in dry_run and "--preset" in build and build[build.index("--preset") + 1] == "own-cpu"
    assert dry_run == [*build, "--dry-run"] and query[0] == "query" and redact[0] == "redact"
    assert report == ["report", "runs/tickets"] and leakage[:3] == ["leakage", "runs/tickets", "tickets.jsonl"]
    result = runner.invoke(app, [str(data) if a == "tickets.jsonl" else a for a in redact])
    assert result.exit_code == 0, result.output
    names = {json.loads(line)["customer_name"] for line in data.read_text().splitlines()}
    documents, review = result.output.split("Spans replaced", 1)
    assert "PERSON" in review and not [n for n in names if n in documents]  # the preview is redacted
    assert "Most often redacted (owner-only: private strings of your file; do not publish)" in review

    def ours(args):
        args = [str(data) if a == "tickets.jsonl" else str(out) if a == "runs/tickets" else a for a in args]
        args[args.index("--expected-documents") + 1] = "200"
        return [*args, "--seed", "0", "--ledger", str(tmp_path / "ledger")]

    result = runner.invoke(app, ours(dry_run))
    assert result.exit_code == 0, result.output
    assert "Work for 200 documents" in _out(result) and not out.exists() and not (tmp_path / "ledger").exists()
    result = runner.invoke(app, ours(build))
    assert result.exit_code == 0, result.output
    assert "preset own-cpu (--preset)" in _out(result) and "built" in _out(result)
    corpus = SyntheticCorpus.load(out)
    assert corpus.manifest["num_texts"] >= 1 and corpus.manifest["config"]["R"] == 48
    texts = " ".join(r["text"] for r in corpus.records)
    assert not [n for n in names if " " in n and n in texts]  # redacted before any model read them
    result = runner.invoke(app, [str(out) if a == "runs/tickets" else a for a in query])
    assert result.exit_code == (0 if corpus.manifest["num_kept"] else 2), result.output  # 2: no kept text, said
    result = runner.invoke(app, [str(out) if a == "runs/tickets" else a for a in report])
    assert result.exit_code == 0 and "epsilon" in result.output, result.output
    result = runner.invoke(app, [str(data) if a == "tickets.jsonl" else str(out) if a == "runs/tickets" else a
                                 for a in leakage])
    assert result.exit_code == 0, result.output
    assert not [n for n in names if n in result.output]  # counts and text ids, never a private value
