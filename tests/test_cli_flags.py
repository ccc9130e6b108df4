"""Issue 13 (first part): every user-facing error names the flag the user typed, options that do not
apply are refused, and corpus-mode `query` honours --model, --embedder and --max-tokens.

Nothing here loads a real model: the corpus is written directly with the hash embedder, and model
loading is replaced by the tiny fakes (or made to fail the test where no model may load)."""

from __future__ import annotations

import json

import pytest
from fakes import HashEmbedder
from typer.testing import CliRunner

from dpsynrag.checks import FLAGS, check_int, check_real, error_message, flag_names
from dpsynrag.cli import app
from dpsynrag.corpus import CorpusWriter
from dpsynrag.errors import ConfigError
from servers import privacy_dict

runner = CliRunner()


def _out(result) -> str:
    return " ".join(result.output.split())


@pytest.fixture()
def notes(tmp_path):
    path = tmp_path / "notes.jsonl"
    path.write_text("".join(json.dumps({"id": str(i), "text": f"the patient has fever {i}"}) + "\n" for i in range(4)))
    return path


@pytest.fixture()
def no_models(monkeypatch):
    """Any model load fails the test (the error must come before)."""
    from dpsynrag.models import Embedder, LanguageModel

    monkeypatch.setattr(LanguageModel, "load", classmethod(lambda cls, *a, **k: pytest.fail("a language model was loaded")))
    monkeypatch.setattr(Embedder, "load", classmethod(lambda cls, *a, **k: pytest.fail("an embedder was loaded")))


# ------------------------------------------------------------------------------------- the shared checks


def test_check_int_and_check_real_reject_bools_nan_inf_and_out_of_range():
    import numpy as np

    assert check_int("K", 3) == 3 and check_int("K", np.int64(3)) == 3 and check_int("seed", 0, minimum=0) == 0
    assert check_int("top_k", None, optional=True) is None
    for bad in (True, 0, 2.0, "3", None):
        with pytest.raises(ConfigError, match=r"`K` must be an integer >= 1\. Found"):
            check_int("K", bad)
    with pytest.raises(ConfigError, match=r"^--max-tokens must be an integer >= 1\. Found 0\.$"):
        check_int("--max-tokens", 0, optional=True)  # a flag's None means "not given": no "or None"
    with pytest.raises(ConfigError, match=r"`n` must be an integer >= 1 and <= 4 or None\. Found 5\."):
        check_int("n", 5, maximum=4, optional=True)

    assert check_real("tau", 0.5, above=0.0) == 0.5 and check_real("w", np.float32(0.0), at_least=0.0) == 0.0
    for bad in (True, 0.0, -1.0, float("nan"), float("inf"), "1"):
        with pytest.raises(ConfigError, match=r"`tau` must be a finite number > 0\. Found"):
            check_real("tau", bad, above=0.0)
    with pytest.raises(ConfigError, match=r"`p` must be a finite number > 0 and < 1\. Found 1\."):
        check_real("p", 1, above=0.0, below=1.0)


def test_flag_names_replace_fields_and_say_a_flag_once():
    assert flag_names("`temperature` must be > 0; `nothing` is kept", FLAGS) == "--tau must be > 0; `nothing` is kept"
    assert flag_names("`language` (--language) must be a code", FLAGS) == "--language must be a code"
    assert flag_names("apply only to `decoding` 'invisibleink' (--decoding invisibleink). Found", FLAGS) == (
        "apply only to --decoding 'invisibleink'. Found")


def test_error_message_of_a_validation_error():
    from pydantic import ValidationError

    from dpsynrag.baselines import DPRAGConfig
    from dpsynrag.pipeline.config import BuildConfig

    with pytest.raises(ValidationError) as info:
        BuildConfig(epsilon=10, delta=1e-3, temperature=0, R=0)
    assert error_message(info.value) == (
        "--tau (`temperature`): Input should be greater than 0 (found 0); "
        "--R (`R`): Input should be greater than or equal to 1 (found 0)")  # in field order: a generating method's first
    with pytest.raises(ValidationError) as info:
        BuildConfig(epsilon=10, delta=1e-3, filter_prompt="no placeholder")
    assert error_message(info.value) == "--filter-prompt must contain the placeholder {document}."
    with pytest.raises(ValidationError) as info:
        DPRAGConfig(epsilon_per_query=1, delta=1e-3, max_new_tokens=0)
    assert error_message(info.value, {"max_new_tokens": "--T"}).startswith("--T (`max_new_tokens`): ")


# ------------------------------------------------------------------------------ errors name the flags


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--tau", "0"], "--tau (`temperature`): Input should be greater than 0"),
        (["--R", "0"], "--R (`R`): Input should be greater than or equal to 1"),
        (["--filter-prompt", "no placeholder"], "error: --filter-prompt must contain the placeholder {document}."),
        (["--open-vocabulary-delta", "0.5"], "--open-vocabulary-delta must be below --delta (0.001). Found 0.5."),
        (["--invisibleink-lambda", "2"], "--invisibleink-lambda applies only to --decoding 'invisibleink'. "
                                         "Found decoding 'paper'."),
        (["--public-top-k", "50"], "--public-top-k takes the candidate set from the public prompt, but the 'paper' "
                                   "decoding with --public-weight 0 runs none"),
        (["--match-text", "--clustering", "primary"], "it cannot be combined with --match-text."),
        (["--public-weight", "-1"], "--public-weight (`public_weight`)"),
        (["--method", "aug-pe", "--pe-L", "0"], "--pe-L (`L`)"),
        (["--method", "aug-pe", "--count-threshold", "-1"], "--count-threshold (`threshold`)"),
    ],
)
def test_build_errors_name_the_flag(tmp_path, notes, no_models, extra, message):
    args = ["build", str(notes), "--out", str(tmp_path / "c"), "--epsilon", "10", "--delta", "1e-3", "--preset", "paper",
            *extra]
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    assert message in _out(result)
    assert "`config`" not in result.output and "'epsilon': 10" not in result.output  # no config dict dumped
    assert not (tmp_path / "c").exists()


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--open-vocabulary-delta", "0.5"], "--open-vocabulary-delta must be below --delta (0.001). Found 0.5."),
        (["--tau", "nan"], "--tau (`temperature`): Input should be a finite number"),
    ],
)
def test_budget_errors_name_the_flag(extra, message):
    result = runner.invoke(app, ["budget", "--epsilon", "10", "--delta", "1e-3", *extra])
    assert result.exit_code == 2 and message in _out(result), result.output


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--T", "0"], "--T (`max_new_tokens`): Input should be greater than or equal to 1"),
        (["--top-p", "2"], "--top-p (`top_p`): Input should be less than 1"),
        (["--composition", "both"], "--composition must be 'basic' or 'zcdp'. Found 'both'."),
        (["--total-epsilon", "0"], "--total-epsilon must be a finite number > 0 or None. Found 0.0."),
        (["--seed", "-1"], "--seed must be an integer >= 0. Found -1."),  # was a ValueError traceback
        (["--max-tokens", "5"], "--max-tokens does not apply to --method dp-rag (its answer length is --T"),
        (["--show-context"], "--show-context does not apply to --method dp-rag"),
    ],
)
def test_dp_rag_query_errors_name_the_flag(notes, no_models, extra, message):
    args = ["query", "--method", "dp-rag", "--documents", str(notes), "--epsilon-per-query", "1", "--delta", "1e-3",
            "what is it?", *extra]
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    assert message in _out(result)


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--tau", "0"], "--tau (`temperature`): Input should be greater than 0"),
        (["--seed", "-1"], "--seed (`seed`): Input should be greater than or equal to 0"),
        (["--documents", "0"], "--documents must be a positive integer or None. Found 0."),
    ],
)
def test_audit_errors_name_the_flag(tmp_path, notes, no_models, extra, message):
    args = ["audit", str(notes), "--out", str(tmp_path / "a"), "--epsilon", "10", "--delta", "1e-3", "--task", "medical",
            *extra]
    result = runner.invoke(app, args)
    assert result.exit_code == 2 and message in _out(result), result.output


def test_audit_sweep_errors_name_epsilons(tmp_path, notes, no_models):
    """A bad claim of --epsilons is named --epsilons (it was named --epsilon, a flag not typed)."""
    args = ["audit", str(notes), "--out", str(tmp_path / "a"), "--epsilons", "-1", "--delta", "1e-3", "--task", "medical",
            "--seed", "0"]
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    assert "error: --epsilons (`epsilon`): Input should be greater than 0 (found -1.0)" in _out(result)
    result = runner.invoke(app, [*args[:4], "--epsilon", "-1", *args[6:]])
    assert result.exit_code == 2 and "error: --epsilon (`epsilon`): Input should be greater than 0" in _out(result)
    assert not (tmp_path / "a").exists()


def test_audit_takes_dp_synrag_options_from_the_registry(tmp_path, notes, no_models):
    """`audit` offers every DP-SynRAG config option of the registry, with its registered help; a typed one reaches
    the audited build's config (here refused by its validation, named by its flag)."""
    from rich.markup import escape

    from dpsynrag.commands.audit import audit_command
    from dpsynrag.methods import get_method

    audit = {p.default.param_decls[0]: p.default.help for p in audit_command.__signature__.parameters.values()
             if getattr(p.default, "param_decls", None) and p.default.param_decls[0].startswith("--")}
    config_options = [o for o in get_method("dp-synrag").options if not o.build_only]
    assert len(config_options) > 40 and all(audit[o.flag] == escape(o.help) for o in config_options)
    assert not {"--resume", "--ray", "--method", "--preset"} & set(audit)  # build-run options and other methods: not audited
    args = ["audit", str(notes), "--out", str(tmp_path / "a"), "--epsilon", "10", "--delta", "1e-3", "--task", "medical",
            "--seed", "0"]
    result = runner.invoke(app, [*args, "--decoding", "greedy"])
    assert result.exit_code == 2 and "--decoding (`decoding`): Input should be 'paper', 'public-prior' or" in _out(result)
    result = runner.invoke(app, [*args, "--threshold-excess-weight", "2"])
    assert result.exit_code == 2 and "--threshold-excess-weight" in _out(result), result.output
    assert not (tmp_path / "a").exists()


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--seed", "-1"], "--seed must be an integer >= 0. Found -1."),  # was a traceback after the models loaded
        (["--epsilon", "0"], "--epsilon: every epsilon must be a finite number > 0. Found 0.0."),
        (["--m", "0"], "--m must be positive integers."),
        (["--limit", "-1"], "--limit must be a positive integer"),
        (["--answer-tokens", "0"], "--answer-tokens must be >= 1."),
    ],
)
def test_eval_errors_name_the_flag(tmp_path, notes, no_models, extra, message):
    result = runner.invoke(app, ["eval", "--out", str(tmp_path / "e"), "--database", str(notes), *extra])
    assert result.exit_code == 2 and message in _out(result), result.output


def test_eval_database_file_without_queries_asks_for_queries(tmp_path, notes, no_models):
    """A document file holds no questions: the error says --queries is needed with --database, instead of
    blaming the task's validation.jsonl missing from the file's folder."""
    result = runner.invoke(app, ["eval", "--out", str(tmp_path / "e"), "--database", str(notes), "--methods", "non-rag",
                                 "--no-plots"])
    assert result.exit_code == 2, result.output
    assert ("--database is a document file (notes.jsonl), so the questions to score need --queries too: a query file "
            f"in the task's format (the task's validation split is not beside it in {tmp_path})") in _out(result)
    assert "validation.jsonl" not in _out(result) and "Traceback" not in result.output


def test_eval_validation_error_is_an_error_message_not_a_traceback(tmp_path, notes, monkeypatch):
    """A method config's pydantic ValidationError raised during the run ends as `error: ...`, exit 2."""
    from dpsynrag.baselines import DPSynthConfig
    from dpsynrag.eval import experiments

    def run_eval(*args, **kwargs):
        DPSynthConfig(epsilon=1, delta=1e-3, seed=-1, T=0)

    monkeypatch.setattr(experiments, "run_eval", run_eval)
    result = runner.invoke(app, ["eval", "--out", str(tmp_path / "e"), "--database", str(notes), "--no-plots"])
    assert result.exit_code == 2 and isinstance(result.exception, SystemExit), result.output
    out = _out(result)
    assert "--seed (`seed`): Input should be greater than or equal to 0 (found -1)" in out
    assert "`T`: Input should be greater than or equal to 1 (found 0)" in out  # a preset value: no flag to name
    assert "Traceback" not in result.output


def test_demo_checks_its_options_before_reading_data_or_models(tmp_path, no_models):
    for args, message in ((["--documents", "0"], "--documents must be an integer >= 1. Found 0."),
                          (["--questions", "-1"], "--questions must be an integer >= 1. Found -1."),
                          (["--seed", "-1"], "--seed must be an integer >= 0. Found -1."),
                          (["--decoding", "fancy"], "--decoding: Input should be 'paper', 'public-prior' or 'invisibleink'")):
        result = runner.invoke(app, ["demo", "--out", str(tmp_path / "d"), "--data-dir", str(tmp_path / "none"), *args])
        assert result.exit_code == 2 and message in _out(result), result.output


# ----------------------------------------------------------------------------------- corpus-mode query


@pytest.fixture()
def corpus(tmp_path):
    records = [{"id": i, "keyword": f"w{i}", "text": f"the patient has fever {i}", "kept": True} for i in range(3)]
    manifest = {"method": "dp-synrag", "config": {}, "model": {"spec": None, "name": "tiny-llama"},
                "embedder": {"spec": None}, "privacy": privacy_dict()}
    with CorpusWriter(tmp_path / "corpus") as writer:
        writer.finish(records, manifest, HashEmbedder(16))
    return tmp_path / "corpus"


@pytest.fixture()
def loads(monkeypatch, tiny_lm):
    """Records the model loads (in order) and each greedy generation's max_new_tokens; the embedder's
    dimension is ``loads.dim`` (16: the corpus index's)."""
    from dpsynrag.models import Embedder, LanguageModel

    class Loads(list):
        dim = 16
        lengths: list[int] = []

    calls = Loads()
    generate = tiny_lm.generate_greedy

    def greedy(prompts, **kwargs):
        calls.lengths.append(kwargs["max_new_tokens"])
        return generate(prompts, **kwargs)

    tiny_lm.generate_greedy = greedy
    monkeypatch.setattr(LanguageModel, "load", classmethod(lambda cls, name=None, **k: calls.append(("lm", name)) or tiny_lm))
    monkeypatch.setattr(Embedder, "load",
                        classmethod(lambda cls, name=None, **k: calls.append(("embedder", name)) or HashEmbedder(calls.dim)))
    return calls


def test_corpus_query_refuses_options_of_other_methods_before_loading_anything(corpus, no_models):
    # the example: it answered with the defaults and exit code 0
    result = runner.invoke(app, ["query", str(corpus), "Q?", "--model", "/nonexistent", "--embedder", "foo/bar", "--T", "3"])
    assert result.exit_code == 2 and "error: --T applies only to --method dp-rag." in _out(result), result.output
    result = runner.invoke(app, ["query", str(corpus), "Q?", "--seed", "1", "--json", "--top-p", "0.5", "--utility", "top-k",
                                 "--task", "medical", "--composition", "zcdp", "--max-document-tokens", "64"])
    assert result.exit_code == 2, result.output
    assert ("--composition, --utility, --top-p, --task, --max-document-tokens, --seed apply only to "
            "--method dp-rag.") in _out(result)
    result = runner.invoke(app, ["query", str(corpus), "Q?", "--max-tokens", "0"])
    assert result.exit_code == 2 and "--max-tokens must be an integer >= 1. Found 0." in _out(result)
    result = runner.invoke(app, ["query", str(corpus), "Q?", "--model", "m", "--answer-endpoint", "http://127.0.0.1:9/v1",
                                 "--answer-model", "x"])
    assert result.exit_code == 2 and "--model and --answer-endpoint both choose the answering model" in _out(result)


def test_corpus_query_defaults_to_the_corpus_models_and_the_evaluation_answer_length(corpus, loads):
    from dpsynrag.eval.presets import PRESETS
    from dpsynrag.rag.answer import DEFAULT_ANSWER_TOKENS

    result = runner.invoke(app, ["query", str(corpus), "the patient has fever"])
    assert result.exit_code == 0, result.output
    # the manifest's specs, and the answer length of eval's cpu-sized presets (one definition: issue 51)
    assert loads == [("embedder", None), ("lm", None)] and loads.lengths == [24] == [DEFAULT_ANSWER_TOKENS]
    assert {name: p.answer_tokens for name, p in PRESETS.items()} == {
        "cpu": 24, "paper": 64, "demo": 24, "own-cpu": 24, "searchqa-cpu": 24, "searchqa-paper": 64}


def test_corpus_query_honours_model_embedder_and_max_tokens(corpus, loads):
    result = runner.invoke(app, ["query", str(corpus), "the patient has fever", "--model", "my/lm", "--embedder",
                                 "my/embedder", "--max-tokens", "3", "--show-context", "--top-k", "2"])
    assert result.exit_code == 0, result.output
    assert loads == [("embedder", "my/embedder"), ("lm", "my/lm")]  # the embedder first, then the LM
    assert loads.lengths == [3]
    assert "): the patient has fever" in result.output and "context [2]" in result.output
    assert "context [3]" not in result.output


def test_corpus_query_refuses_an_embedder_of_another_dimension_before_the_lm(corpus, loads):
    loads.dim = 8
    result = runner.invoke(app, ["query", str(corpus), "Q?", "--embedder", "small/embedder", "--model", "my/lm"])
    assert result.exit_code == 2, result.output
    assert ("--embedder 'small/embedder' gives 8-dimensional vectors, but the corpus index holds 16-dimensional ones "
            "(built with 'hash-embedder')") in _out(result)
    assert loads == [("embedder", "small/embedder")]  # no language model loaded
