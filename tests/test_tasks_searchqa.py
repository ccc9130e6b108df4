"""Tests of the SearchQA task (issue 17): the answer normalisation and scoring, both distributed formats
read from a hand-written fixture (tests/data/searchqa/json, and the same questions written here in the
Hugging Face parquet layout), the seeded split, the presets, the message when the data is absent, and an
end-to-end build + evaluation with the tiny Llama and the hash embedder."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from fakes import HashEmbedder
from typer.testing import CliRunner

from dpsynrag.cli import app
from dpsynrag.data.io import DataFileNotFoundError
from dpsynrag.errors import ConfigError, DataError
from dpsynrag.eval import EvalConfig, run_eval
from dpsynrag.eval.presets import SEARCHQA_METHODS, default_preset, get_preset
from dpsynrag.tasks import Query, SearchQAConfig, SearchQATask, get_task
from dpsynrag.tasks import base as tasks_base
from dpsynrag.tasks.searchqa import (
    EXPECTED_LAYOUT,
    SEARCHQA_ENV_VAR,
    contains_answer,
    load_searchqa,
    normalise_answer,
    question_id,
)

JSON_DIR = Path(__file__).parent / "data" / "searchqa" / "json"
# Bins [1, 3) and [3, 5] of support; one validation and one test question per bin.
TINY = SearchQAConfig(min_support=1, bin_width=2, n_bins=2, per_bin=1)
# Hand-counted from the fixture: (clue, answer) -> (support, snippet documents).
EXPECTED = {
    ("This red planet is the fourth from the sun", "Mars"): (3, 4),  # one result has no snippet text
    ("This African river is the longest in the world", "the Nile"): (2, 4),  # "Nileland" is not "Nile"
    ("This U.S. capital city sits on the Potomac", "Washington, D.C."): (3, 4),  # "Washington" alone is not
    ("He wrote Hamlet and Macbeth", "William Shakespeare"): (1, 3),  # "Shakespeare" alone is not
}
NOT_SELECTED = ("This metal has the chemical symbol Au", "Gold")  # support 0: in no bin
HF_SCHEMA = pa.schema([  # features of the Hugging Face search_qa dataset (configs raw_jeopardy, train_test_val)
    ("category", pa.string()), ("air_date", pa.string()), ("question", pa.string()), ("value", pa.string()),
    ("answer", pa.string()), ("round", pa.string()), ("show_number", pa.int32()),
    ("search_results", pa.struct([(k, pa.list_(pa.string())) for k in ("urls", "snippets", "titles", "related_links")])),
])


def _json_records() -> list[dict]:
    files = sorted(p for p in JSON_DIR.rglob("*.json") if "__MACOSX" not in p.parts)
    return [json.loads(p.read_text(encoding="utf-8")) for p in files]


def _hf_row(data: dict) -> dict:
    """One row as the Hugging Face builder script writes it: search_results as parallel lists."""
    results = data["search_results"]
    return {
        "category": data["category"], "air_date": data["air_date"], "question": data["question"],
        "value": data["value"], "answer": data["answer"], "round": data["round"],
        "show_number": int(data["show_number"]),
        "search_results": {"urls": [r["url"] for r in results], "snippets": [r["snippet"] for r in results],
                           "titles": [r["title"] for r in results],
                           "related_links": [r["related_links"] or "" for r in results]},
    }


@pytest.fixture(scope="module")
def parquet_dir(tmp_path_factory):
    """The fixture's questions in the Hugging Face parquet layout, split over two files."""
    folder = tmp_path_factory.mktemp("searchqa_hf")
    rows = [_hf_row(r) for r in _json_records()]
    shard_dir = folder / "train_test_val" / "train"
    shard_dir.mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist(rows[:3], schema=HF_SCHEMA), shard_dir / "0000.parquet")
    pq.write_table(pa.Table.from_pylist(rows[3:], schema=HF_SCHEMA), shard_dir / "0001.parquet")
    (folder / "README.md").write_text("dataset card\n", encoding="utf-8")
    return folder


@pytest.fixture(params=["json", "parquet"])
def data_dir(request, parquet_dir):
    return JSON_DIR if request.param == "json" else parquet_dir


# ---------------------------------------------------------------------- scoring


@pytest.mark.parametrize("text, normalised", [
    ("The Nile!", "nile"),
    ("Washington, D.C.", "washington dc"),
    ("  An   Apple a day ", "apple day"),
    ("Theatre of the absurd", "theatre of absurd"),  # "the" removed as a word only
    ("Rock 'n' Roll", "rock n roll"),
    ("Côte d'Ivoire", "côte divoire"),
    ("snake_case & co.", "snakecase co"),
])
def test_normalise_answer(text, normalised):
    assert normalise_answer(text) == normalised


@pytest.mark.parametrize("response, gold, expected", [
    ("I think it is the Nile.", "the Nile", True),
    ("NILE", "Nile", True),
    ("the nile river", "The Nile", True),
    ("Nileland", "Nile", False),  # whole words only
    ("The capital is Washington DC", "Washington, D.C.", True),
    ("Washington", "Washington, D.C.", False),
    ("William Shakespeare wrote it", "Shakespeare", True),
    ("Shakespeare", "William Shakespeare", False),
    ("anything", "The", False),  # the gold answer normalises to nothing: never correct
    ("", "Mars", False),
])
def test_contains_answer(response, gold, expected):
    assert contains_answer(response, gold) is expected


def test_is_correct_case_sensitive_and_any_gold():
    task = SearchQATask(config=TINY)
    query = Query(id="x", question="Question: ?", answers=("Mars", "the Red Planet"))
    assert task.is_correct("it is mars", query) and not task.is_correct("it is mars", query, case_sensitive=True)
    assert task.is_correct("It is Mars.", query, case_sensitive=True)
    assert task.is_correct("THE RED PLANET", query) and not task.is_correct("Venus", query)


# ---------------------------------------------------------------------- loading both formats


def test_fixture_selection_supports_and_documents(data_dir):
    data = load_searchqa(data_dir, TINY)
    assert data.format == ("parquet" if data_dir != JSON_DIR else "json")
    assert data.questions_read == 5  # the empty answer and the repeated clue are skipped
    found = {(q.clue, q.answer): (q.support, len(q.documents)) for q in data.questions}
    assert found == EXPECTED and NOT_SELECTED not in found
    assert data.sizes() == {"validation": 2, "test": 2, "documents": 15, "questions_read": 5}
    mars = next(q for q in data.questions if q.answer == "Mars")
    assert mars.id == question_id("This red planet is the fourth from the sun", "Mars")
    assert mars.category == "SPACE"
    assert [d.id for d in mars.documents] == [f"{mars.id}:{r}" for r in (0, 1, 2, 4)]  # rank 3 has no snippet
    assert mars.documents[0].text == ("Mars - Wikipedia\n"
                                      "Mars is the fourth planet from the Sun and the second-smallest planet.")
    assert mars.documents[3].text == "Olympus Mons on Mars is the tallest volcano."  # no title
    assert not any("repeated clue" in d.text for d in data.documents())  # the first copy is kept


def test_split_is_the_documented_seeded_rule(data_dir):
    data = load_searchqa(data_dir, TINY)

    def order(qid):
        return hashlib.sha256(f"{TINY.seed}:{qid}".encode()).hexdigest()

    for low, high in ((1, 3), (3, 6)):
        in_bin = sorted((q for q in data.questions if low <= q.support < high), key=lambda q: order(q.id))
        assert [q.split for q in in_bin] == ["validation", "test"]
    other = load_searchqa(data_dir, SearchQAConfig(min_support=1, bin_width=2, n_bins=2, per_bin=1, seed="s2"))
    seeds = [load_searchqa(data_dir, SearchQAConfig(min_support=1, bin_width=2, n_bins=2, per_bin=1, seed=s))
             for s in ("s2", "s3", "s4", "s5")]
    assert other == seeds[0]  # same seed, same split
    assert any({q.id: q.split for q in s.questions} != {q.id: q.split for q in data.questions} for s in seeds)


def test_both_formats_give_the_same_task(parquet_dir, tmp_path):
    from_json = SearchQATask(JSON_DIR, config=TINY)
    from_parquet = SearchQATask(parquet_dir, config=TINY)
    assert from_json.load_database() == from_parquet.load_database()
    assert from_json.load_queries() == from_parquet.load_queries()
    assert from_json.load_queries(split="test") == from_parquet.load_queries(split="test")
    # a list of {title, snippet} structs (e.g. converted with pandas) is read the same way
    rows = []
    for record in _json_records():
        rows.append({"question": record["question"], "answer": record["answer"],
                     "search_results": [{"title": r["title"], "snippet": r["snippet"]} for r in record["search_results"]]})
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "searchqa.parquet")
    assert SearchQATask(tmp_path, config=TINY).load_database() == from_json.load_database()


def test_task_queries_database_and_support(data_dir):
    task = SearchQATask(data_dir, config=TINY)
    database = task.load_database()
    assert len(database) == 15 and task.load_database(limit=4) == database[:4]
    queries = task.load_queries() + task.load_queries(split="test")
    assert len(queries) == 4 and len(task.load_queries(limit=1)) == 1
    for query in queries:
        clue, answer = query.meta["clue"], query.answers[0]
        assert query.question == f"Question: {clue}" and query.id == question_id(clue, answer)
        assert task.support(query, database) == EXPECTED[(clue, answer)][0] == query.meta["support"]
        assert task.support_bucket(task.support(query, database)) in ("[1,10)",)
    assert task.private_names() == [] and task.attack_queries() == []
    with pytest.raises(ConfigError, match="`split`"):
        task.load_queries(split="train")
    with pytest.raises(ConfigError, match="`limit`"):
        task.load_database(limit=0)


def test_query_file(tmp_path):
    path = tmp_path / "q.jsonl"
    path.write_text(json.dumps({"id": "a", "question": "Question: Red planet?", "answer": ["Mars", "Red Planet"],
                                "category": "SPACE"}) + "\n", encoding="utf-8")
    [query] = SearchQATask(config=TINY).load_queries(path)
    assert query.answers == ("Mars", "Red Planet") and query.meta["category"] == "SPACE"


def test_registry_prompts_and_presets():
    task = get_task("searchqa")
    assert isinstance(task, SearchQATask) and task.filter_prompt is None and task.rag_top_k == 10
    assert task.default_config == SearchQAConfig(min_support=40, bin_width=10, n_bins=6, per_bin=17)
    assert default_preset("searchqa") == "searchqa-cpu" and default_preset("medical") == "cpu"
    paper = get_preset("searchqa-paper")
    assert paper.synrag["R"] == 1000 and paper.synrag["k"] == 100 and paper.synrag["K"] == 10
    assert paper.dp_rag["max_new_tokens"] == 30 and paper.dp_rag["top_p"] == 0.05
    assert paper.documents is None and paper.questions is None and paper.top_k is None
    for preset in (paper, get_preset("searchqa-cpu")):
        assert preset.methods == SEARCHQA_METHODS and "dp-synrag-no-self-filter" not in preset.methods
        assert not preset.synrag["self_filter"] and not preset.dp_synth["self_filter"]
        assert not preset.aug_pe["self_filter"]
    assert get_preset("searchqa-cpu").synrag["R"] == get_preset("cpu").synrag["R"]
    config = EvalConfig.create(task="searchqa", out="unused")
    assert config.preset.name == "searchqa-cpu" and config.methods == SEARCHQA_METHODS
    # a preset that self-filters, or the no-self-filter ablation, is refused before any data is read
    with pytest.raises(ConfigError, match="no self-filter prompt, so it cannot run dp-synth, aug-pe, dp-synrag,"):
        EvalConfig.create(task="searchqa", out="unused", preset="paper")
    assert EvalConfig.create(task="searchqa", out="unused", preset="cpu")  # cpu self-filters no corpus
    with pytest.raises(ConfigError, match="cannot run dp-synrag-no-self-filter with preset 'searchqa-paper'"):
        EvalConfig.create(task="searchqa", out="unused", preset="searchqa-paper", methods="dp-synrag-no-self-filter")
    assert EvalConfig.create(task="searchqa", out="unused", preset="cpu", methods="non-rag,rag,dp-rag")


# ---------------------------------------------------------------------- errors


def test_errors_name_the_folder_and_the_layout(tmp_path, monkeypatch):
    monkeypatch.delenv(SEARCHQA_ENV_VAR, raising=False)
    monkeypatch.setattr(tasks_base, "find_shared_dir", lambda start=None: None)
    with pytest.raises(DataError, match="no SearchQA data folder given") as info:
        SearchQATask().load_database()
    assert "--database DIR" in str(info.value) and SEARCHQA_ENV_VAR in str(info.value)
    assert EXPECTED_LAYOUT in str(info.value)
    with pytest.raises(DataError) as info:
        SearchQATask(tmp_path).load_queries()
    assert str(tmp_path.resolve()) in str(info.value) and EXPECTED_LAYOUT in str(info.value)
    with pytest.raises(DataFileNotFoundError, match="folder not found"):
        SearchQATask(tmp_path / "absent").load_database()
    with pytest.raises(DataError, match="no question .* has between 40 and 100 snippets"):
        SearchQATask(JSON_DIR).load_database()  # the paper's selection: the fixture is too small
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "q1.json").write_text('{"question": "Secret clue", "answer": "x"}', encoding="utf-8")
    with pytest.raises(DataError, match="q1.json: expected an object with fields") as info:
        SearchQATask(bad).load_database()
    assert "Secret clue" not in str(info.value)  # never quote the data
    (bad / "q1.json").write_text('{"question": "Secret clue", ', encoding="utf-8")
    with pytest.raises(DataError, match="q1.json: not valid JSON"):
        SearchQATask(bad).load_database()
    pq.write_table(pa.Table.from_pylist([{"question": "q", "answers": "a"}]), bad / "x.parquet")
    with pytest.raises(DataError, match=r"x.parquet: missing column\(s\) answer, search_results"):
        SearchQATask(bad).load_database()
    with pytest.raises(ConfigError, match="per_bin"):
        SearchQAConfig(per_bin=0)


def test_cli_eval_without_data_names_the_layout(tmp_path, monkeypatch):
    monkeypatch.delenv(SEARCHQA_ENV_VAR, raising=False)
    monkeypatch.setattr(tasks_base, "find_shared_dir", lambda start=None: None)
    result = CliRunner().invoke(app, ["eval", "--task", "searchqa", "--out", str(tmp_path / "run")])
    assert result.exit_code == 2
    message = " ".join(result.output.split())
    assert "no SearchQA data folder given" in message and "--database DIR" in message
    assert "'question', 'answer' and 'search_results'" in message
    empty = tmp_path / "empty"
    empty.mkdir()
    result = CliRunner().invoke(app, ["eval", "--task", "searchqa", "--database", str(empty), "--out",
                                      str(tmp_path / "run2")])
    assert result.exit_code == 2 and "no SearchQA data file (*.json or *.parquet)" in " ".join(result.output.split())


# ---------------------------------------------------------------------- end to end (tiny models)


class TinySearchQA(SearchQATask):
    """The task with a selection that fits the fixture (bound to a folder by the harness)."""

    name = "searchqa-tiny"
    default_config = TINY


E2E = dict(
    documents=0, questions=0, answer_tokens=3, top_k=3, mq_m=(1,), mq_questions=2,
    synrag=dict(K=2, R=3, L=1, k=4, T=3, extractor="rarity", open_vocabulary=False, vocabulary_size=2000,
                max_document_tokens=32, decoding="paper", public_weight=None),
)


@pytest.mark.parametrize("fmt", ["json", "parquet"])
def test_build_and_eval_end_to_end(fmt, parquet_dir, tmp_path, monkeypatch, tiny_lm):
    monkeypatch.setitem(tasks_base._REGISTRY, TinySearchQA.name, TinySearchQA())
    folder = JSON_DIR if fmt == "json" else shutil.copytree(parquet_dir, tmp_path / "hf")
    config = EvalConfig.create(task=TinySearchQA.name, out=tmp_path / "run", preset="searchqa-cpu", database=folder,
                               methods="non-rag,rag,dp-synrag", **E2E)
    results = run_eval(config, lm=tiny_lm, embedder=HashEmbedder(), progress=False, log=lambda s: None,
                       plots=False)
    data = results["data"]
    assert data["documents"] == data["database_documents_total"] == 15 and data["questions"] == 2
    assert data["attacks"] == 0 and data["private_names"] == 0
    rows = {r["method"]: r for r in results["methods"]}
    for row in rows.values():
        assert "error" not in row, row.get("error")
        assert row["n"] == 2 and 0.0 <= row["accuracy"] <= 1.0
        assert sum(b["n"] for b in row["by_bucket"].values()) == 2
    # each validation clue shares words with its own snippets: the hash embedder retrieves one that
    # holds the answer, and the scorer sees it (context recall of plain RAG is 1)
    assert rows["rag"]["context_hits"] == 2
    build = rows["dp-synrag"]["config"]["build"]
    assert build["self_filter"] is False and build["R"] == 3
    assert rows["dp-synrag"]["corpus"]["texts"] == 3  # R texts, all kept: no self-filter
    assert rows["dp-synrag"]["privacy"]["epsilon"] <= 10.0 + 1e-9
    saved = json.loads((tmp_path / "run" / "results.json").read_text())
    assert saved["config"]["preset"]["name"] == "searchqa-cpu"


def test_cli_eval_with_database_folder(tmp_path, monkeypatch, tiny_lm):
    """`dpsynrag eval --task ... --database DIR` (the README command) on the fixture, preset searchqa-cpu."""
    from dpsynrag.models import Embedder, LanguageModel

    monkeypatch.setitem(tasks_base._REGISTRY, TinySearchQA.name, TinySearchQA())
    monkeypatch.setattr(LanguageModel, "load", classmethod(lambda cls, *a, **k: tiny_lm))
    monkeypatch.setattr(Embedder, "load", classmethod(lambda cls, *a, **k: HashEmbedder()))
    out = tmp_path / "run"
    result = CliRunner().invoke(app, ["eval", "--task", TinySearchQA.name, "--database", str(JSON_DIR), "--out",
                                      str(out), "--preset", "searchqa-cpu", "--methods", "rag,dp-synrag",
                                      "--answer-tokens", "2", "--no-plots"])
    assert result.exit_code == 0, result.output
    saved = json.loads((out / "results.json").read_text())
    assert saved["data"]["documents"] == 15 and saved["data"]["questions"] == 2
    rows = {r["method"]: r for r in saved["methods"]}
    assert "error" not in rows["rag"] and rows["rag"]["n"] == 2 and rows["rag"]["context_hits"] == 2
    # the cpu preset's open-vocabulary histogram (threshold 9) releases no keyword from 15 snippets: the
    # build stops there, with a data error, and not on a missing self-filter prompt (the full build with
    # tiny parameters: test_build_and_eval_end_to_end)
    assert rows["dp-synrag"]["error"].startswith("DataError: the DP histogram released no keyword")
