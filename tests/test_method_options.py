"""The built-in methods' command-line options, read from ``methods/options.toml`` (data), and the reader's
refusals of a malformed file."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dpsynrag.errors import ConfigError
from dpsynrag.methods import PANELS, Option, get_method, read_options
from dpsynrag.methods.builtin import OPTIONS

BUILTIN = ("dp-synrag", "dp-synth", "aug-pe", "dp-rag")


def test_every_builtin_method_reads_its_options_from_the_file():
    assert set(OPTIONS) == set(BUILTIN)
    for name in BUILTIN:
        assert get_method(name).options == OPTIONS[name]
    synrag = {o.flag: o for o in OPTIONS["dp-synrag"]}
    assert (synrag["--K"].field, synrag["--K"].type, synrag["--K"].panel) == ("K", int, "Keywords and clustering")
    assert (synrag["--tau"].field, synrag["--tau"].type) == ("temperature", float)  # a [[common]] option
    assert synrag["--tau"] is {o.flag: o for o in OPTIONS["aug-pe"]}["--tau"]
    assert (synrag["--no-outlier-removal"].field, synrag["--no-outlier-removal"].value) == ("outlier_removal", False)
    assert synrag["--resume"].build_only and not synrag["--K"].build_only
    assert "--open-vocabulary)." in synrag["--open-vocabulary-delta"].help  # a wrapped help joins with one space
    assert all("  " not in o.help and not o.help.endswith(" ") for opts in OPTIONS.values() for o in opts)


@pytest.mark.parametrize("name", BUILTIN)
def test_each_option_sets_a_field_of_its_config_and_states_its_default(name):
    """Every config option names a field of the method's config; a numeric "(default N)" in a help is that
    field's default (a help that drifts from the config fails here)."""
    method = get_method(name)
    fields = method.config_type.model_fields
    checked = 0
    for option in method.options:
        assert option.panel in PANELS, option.flag
        if option.build_only:
            continue
        assert option.field in fields, (name, option.flag, option.field)
        said = re.findall(r"\(default (-?[0-9.]+)[);]", option.help)
        if len(said) == 1:  # two: one default per mode (--public-weight), resolved from None by the config
            assert float(said[0]) == fields[option.field].default, (name, option.flag)
            checked += 1
    assert checked >= {"dp-synrag": 10, "dp-synth": 3, "aug-pe": 7, "dp-rag": 2}[name]


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "options.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_reader_defaults_and_common_options(tmp_path):
    path = _write(tmp_path, '[[common]]\nflag = "--T"\ntype = "int"\nhelp = "Tokens."\n\n'
                            '[[toy]]\nflag = "--max-words"\ntype = "int"\npanel = "Decoding"\nhelp = "Words."\n\n'
                            '[[toy]]\nuse = "--T"\n\n'
                            '[[toy]]\nflag = "--no-filter"\nfield = "filter"\ntype = "bool"\nvalue = false\n'
                            'help = "No filter."\n')
    assert read_options(path) == {"toy": (
        Option("--max-words", "max_words", int, "Words.", panel="Decoding"),
        Option("--T", "T", int, "Tokens."),
        Option("--no-filter", "filter", bool, "No filter.", value=False),
    )}


@pytest.mark.parametrize("text, message", [
    ('[[toy]]\nflag = "--a"\ntype = "int"\nhelp = "x"\npanels = "Core"\n', r"toy #1: unknown key\(s\) \['panels'\]"),
    ('[[toy]]\nflag = "--a"\ntype = "int"\n', r"missing \['help'\]"),
    ('[[toy]]\nflag = "--a"\ntype = "list"\nhelp = "x"\n', "type must be one of int, float, str, bool; found 'list'"),
    ('[[toy]]\nflag = "--a"\ntype = "int"\npanel = "Misc"\nhelp = "x"\n', "toy #1: option --a: panel must be one of"),
    ('[[toy]]\nflag = "-a"\ntype = "int"\nhelp = "x"\n', "a flag starts with '--'"),
    ('[[toy]]\nuse = "--T"\n', r"'use' takes one \[\[common\]\] flag, alone; common flags: none"),
    ('toy = 3\n', r"toy must be an array of tables \(\[\[toy\]\] entries\)"),
    ('[[toy]\n', "not valid TOML"),
])
def test_reader_refuses_a_malformed_file(tmp_path, text, message):
    with pytest.raises(ConfigError, match=message):
        read_options(_write(tmp_path, text))


def test_option_refuses_an_unknown_type_or_panel():
    with pytest.raises(ConfigError, match="type must be one of"):
        Option("--words", "words", list, "Words.")
    with pytest.raises(ConfigError, match="panel must be one of"):
        Option("--words", "words", str, "Words.", panel="Words")
