"""A hub id that cannot load fails at once with a ModelLoadError naming its flag (issue 13): with the hub
switched off (HF_HUB_OFFLINE) or unreachable, a name that is neither a local path nor in the local
Hugging Face cache never reaches `from_pretrained` (whose retries took ~75 s per model); a cached one
loads with local_files_only. The embedder loads before the language model, so a bad embedder fails
first. No network: the probe is replaced, or pointed at a socket on 127.0.0.1."""

from __future__ import annotations

import json
import socket

import pytest
from typer.testing import CliRunner

from dpsynrag.errors import ModelLoadError
from dpsynrag.models import Embedder, LanguageModel, hub

OFFLINE_VARS = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")


@pytest.fixture()
def cache(tmp_path, monkeypatch):
    """An empty local Hugging Face cache; ``cache(repo_id)`` adds a downloaded snapshot of ``repo_id``."""
    root = tmp_path / "hf-cache"
    root.mkdir()
    monkeypatch.setenv("HF_HUB_CACHE", str(root))

    def add(repo_id: str) -> None:
        (root / ("models--" + repo_id.replace("/", "--")) / "snapshots" / "0123abc").mkdir(parents=True)

    return add


@pytest.fixture()
def offline(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


@pytest.fixture()
def online(monkeypatch):
    """The hub is not switched off; ``online(reachable)`` sets what the probe answers."""
    for var in OFFLINE_VARS:
        monkeypatch.delenv(var, raising=False)

    def set_reachable(reachable: bool) -> None:
        monkeypatch.setattr(hub, "hub_reachable", lambda *a, **k: reachable)

    return set_reachable


@pytest.fixture()
def loaders(monkeypatch, tiny_model):
    """transformers' and sentence-transformers' loaders replaced: each call is recorded with its
    keyword arguments and returns the tiny model / tokenizer / a fake sentence model."""
    import sentence_transformers
    import transformers
    from conftest import make_tiny_tokenizer

    calls = []

    class FakeSentenceModel:
        max_seq_length = 32

        def __init__(self, source, **kwargs):
            calls.append(("sentence-transformers", source, kwargs))

        def get_sentence_embedding_dimension(self):
            return 8

    def tokenizer(source, **kwargs):
        calls.append(("tokenizer", source, kwargs))
        return make_tiny_tokenizer()

    def model(source, **kwargs):
        calls.append(("model", source, kwargs))
        return tiny_model

    monkeypatch.setattr(transformers.AutoTokenizer, "from_pretrained", tokenizer)
    monkeypatch.setattr(transformers.AutoModelForCausalLM, "from_pretrained", model)
    monkeypatch.setattr(sentence_transformers, "SentenceTransformer", FakeSentenceModel)
    return calls


@pytest.mark.parametrize("value, expected", [("1", True), ("true", True), ("YES", True), ("on", True), ("0", False),
                                             ("", False), ("no", False)])
def test_hub_offline_reads_the_environment_now(monkeypatch, value, expected):
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", value)
    assert hub.hub_offline() is expected
    monkeypatch.delenv("HF_HUB_OFFLINE")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", value)
    assert hub.hub_offline() is expected


def test_in_hub_cache(cache):
    assert not hub.in_hub_cache("org/model")
    cache("org/model")
    assert hub.in_hub_cache("org/model") and not hub.in_hub_cache("org/other")


def test_offline_and_not_cached_fails_before_any_loading(cache, offline, loaders):
    with pytest.raises(ModelLoadError) as info:
        LanguageModel.load("nobody/no-such-model")
    message = str(info.value)
    assert "language model 'nobody/no-such-model' (--model)" in message and "HF_HUB_OFFLINE" in message
    with pytest.raises(ModelLoadError, match=r"embedding model 'nobody/no-such-embedder' \(--embedder\).*HF_HUB_OFFLINE"):
        Embedder.load("nobody/no-such-embedder")
    assert loaders == []  # transformers / sentence-transformers were never asked


def test_unreachable_hub_and_not_cached_fails_before_any_loading(cache, online, loaders):
    online(False)
    with pytest.raises(ModelLoadError, match=r"'nobody/no-such-model' \(--model\).*the hub \(.*\) cannot be reached"):
        LanguageModel.load("nobody/no-such-model")
    with pytest.raises(ModelLoadError, match=r"'nobody/no-such-embedder' \(--embedder\).*cannot be reached"):
        Embedder.load("nobody/no-such-embedder")
    assert loaders == []


def test_cached_model_loads_from_the_cache_only_when_the_hub_is_off_or_unreachable(cache, online, loaders, monkeypatch):
    cache("org/lm")
    cache("org/embedder")
    online(False)
    assert LanguageModel.load("org/lm").vocab_size > 0
    assert Embedder.load("org/embedder").dim == 8
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    LanguageModel.load("org/lm")
    assert [c[2].get("local_files_only") for c in loaders] == [True, True, True, True, True]
    assert [c[:2] for c in loaders] == [("tokenizer", "org/lm"), ("model", "org/lm"),
                                        ("sentence-transformers", "org/embedder"),
                                        ("tokenizer", "org/lm"), ("model", "org/lm")]


def test_reachable_hub_loads_normally(cache, online, loaders):
    online(True)
    LanguageModel.load("org/lm")
    Embedder.load("org/embedder")
    assert [c[2].get("local_files_only", False) for c in loaders] == [False, False, False]


def test_hub_reachable_probes_the_endpoint_once(monkeypatch):
    for var in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(hub, "_reachable", {})
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{server.getsockname()[1]}")
        assert hub.hub_reachable() is True
    # the same endpoint again: the recorded answer (the server is gone)
    assert hub.hub_reachable() is True
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]  # bound, not listening: a connection is refused at once
        monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{port}")
        assert hub.hub_reachable() is False
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.invalid:3128")
    monkeypatch.setenv("HF_ENDPOINT", "http://never-probed.invalid")
    assert hub.hub_reachable() is True  # behind a proxy: no probe, the proxy decides


def test_build_loads_the_embedder_first_so_a_bad_one_fails_before_the_lm(tmp_path, cache, offline, monkeypatch):
    from dpsynrag.cli import app

    lm_loads = []
    monkeypatch.setattr(LanguageModel, "load", classmethod(lambda cls, *a, **k: lm_loads.append(a) or pytest.fail("LM first")))
    notes = tmp_path / "notes.jsonl"
    notes.write_text("".join(json.dumps({"text": f"the patient has fever {i}"}) + "\n" for i in range(4)))
    for method in ("dp-synrag", "dp-synth", "aug-pe"):
        result = CliRunner().invoke(app, [
            "build", str(notes), "--out", str(tmp_path / method), "--epsilon", "10", "--delta", "1e-3", "--method", method,
            "--model", "nobody/lm", "--embedder", "nobody/embedder", "--no-self-filter",
            *{"dp-synrag": ["--extractor", "rarity"], "aug-pe": ["--description", "public notes"]}.get(method, []),
        ])
        assert result.exit_code == 2, result.output
        assert "embedding model 'nobody/embedder' (--embedder) is neither a local path nor in the local Hugging Face cache" in (
            " ".join(result.output.split()))
        assert not (tmp_path / method).exists()
    assert lm_loads == []
