"""Cutting a released text's partial last clause (``trim_partial_ending``): a public rule applied to the
released texts after private prediction, so the release (privacy report, mechanisms) is unchanged."""

import json

import pytest
from fakes import HashEmbedder
from test_decoding import TINY_DOCS
from test_fluency_and_keyword_prompt import BASE
from typer.testing import CliRunner

from dpsynrag.cli import app
from dpsynrag.eval.presets import get_preset
from dpsynrag.pipeline.build import build_corpus
from dpsynrag.pipeline.config import BuildConfig
from dpsynrag.pipeline.prompts import trim_partial_ending


@pytest.mark.parametrize("text, expected", [
    # the MovieLens case: a title cut mid-word is dropped with its separator
    ("In particular, they like The Godfather (1972), The Shaw", "In particular, they like The Godfather (1972)"),
    ("The diagnosis is Flibberflamius Extremus, the treatment should be Bl", "The diagnosis is Flibberflamius Extremus"),
    ("Symptoms: fever; cough; the diag", "Symptoms: fever; cough"),
    # complete endings are kept (trailing whitespace only is removed)
    ("The diagnosis is Flu.", "The diagnosis is Flu."),
    ("They like Heat (1995)  \n", "They like Heat (1995)"),
    ('He said "yes"', 'He said "yes"'),
    ("Wait…", "Wait…"),
    # nothing to cut after, or too little would remain (< 1/3 of the characters): unchanged
    ("the treatment should be Bl", "the treatment should be Bl"),
    ("a, bcdef", "a, bcdef"),
    ("", ""),
    # CJK clause marks
    ("病人发烧，咳嗽，诊断是流", "病人发烧，咳嗽"),
    ("诊断是流感。", "诊断是流感。"),
])
def test_trim_partial_ending_closed_forms(text, expected):
    assert trim_partial_ending(text) == expected


def test_trim_partial_ending_cuts_one_clause_and_keeps_a_prefix():
    # one application removes the partial last clause only ("two" may be partial too: it stays)
    cases = {"x, y, z": "x, y", "a (b) c": "a (b)", "one. two, three": "one. two", "ab, c": "ab",
             "…, The Shaw": "…, The Shaw", "no marks at all": "no marks at all"}
    for text, expected in cases.items():
        got = trim_partial_ending(text)
        assert got == expected and text.startswith(got)


def test_min_kept_bounds():
    assert trim_partial_ending("ab, cdefgh", min_kept=0.0) == "ab"
    assert trim_partial_ending("ab, cdefgh", min_kept=1.0) == "ab, cdefgh"
    with pytest.raises(ValueError, match="min_kept"):
        trim_partial_ending("x", min_kept=1.5)


def test_build_trims_released_texts_and_the_release_is_unchanged(tmp_path, tiny_lm):
    plain = build_corpus(TINY_DOCS, tmp_path / "a", BuildConfig(**BASE), lm=tiny_lm, embedder=HashEmbedder())
    trimmed = build_corpus(TINY_DOCS, tmp_path / "b", BuildConfig(**BASE, trim_partial_ending=True), lm=tiny_lm,
                           embedder=HashEmbedder())
    assert len(plain.records) == len(trimmed.records) > 0
    for p, t in zip(plain.records, trimmed.records):
        assert t["text"] == trim_partial_ending(p["text"])
        assert t["keyword"] == p["keyword"] and t["noisy_count"] == p["noisy_count"]
    a = json.loads((tmp_path / "a" / "manifest.json").read_text())["privacy"]
    b = json.loads((tmp_path / "b" / "manifest.json").read_text())["privacy"]
    assert a["mechanisms"] == b["mechanisms"] and a["epsilon"] == b["epsilon"]


def test_presets_trim_and_the_cli_can_turn_it_off():
    assert get_preset("cpu").synrag["trim_partial_ending"] is True
    assert get_preset("demo").synrag["trim_partial_ending"] is True
    assert "trim_partial_ending" not in get_preset("paper").synrag  # the paper's method: texts as generated
    assert BuildConfig(epsilon=1.0, delta=1e-5).trim_partial_ending is False
    runner = CliRunner()
    args = ["budget", "--preset", "cpu", "--epsilon", "10", "--delta", "1e-3", "--json"]
    applied = json.loads(runner.invoke(app, args).output)["preset"]["applied"]
    assert applied["trim_partial_ending"] is True
    # a typed switch wins over the preset (the preset's value is then not applied)
    result = runner.invoke(app, args + ["--keep-partial-ending"])
    assert result.exit_code == 0, result.output
    assert "trim_partial_ending" not in json.loads(result.output)["preset"]["applied"]
