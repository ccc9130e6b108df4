"""The built-in methods' command-line options, read from ``methods/options.toml`` (data), and the reader's
refusals of a malformed file."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dpsynrag.errors import ConfigError
from dpsynrag.methods import COMMAND_FLAGS, PANELS, Option, get_method, read_options, register, unregister
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
    ('[[toy]]\nflag = "-a"\ntype = "int"\nhelp = "x"\n', "option '-a': a flag is '--' and words"),
    ('[[toy]]\nuse = "--T"\n', r"'use' takes one \[\[common\]\] flag, alone; common flags: none"),
    ('toy = 3\n', r"toy must be an array of tables \(\[\[toy\]\] entries\)"),
    ('[[toy]\n', "not valid TOML"),
    ('[[toy]]\nflag = "--a"\ntype = ["int"]\nhelp = "x"\n', r"type must be one of int, float, str, bool; found \['int'\]"),
    ('[[toy]]\nuse = ["--T"]\n', "'use' takes one"),
    ('[[toy]]\nflag = 3\ntype = "int"\nhelp = "x"\n', "option 3: a flag is '--' and words"),
    ('[[toy]]\nflag = "--a"\ntype = "int"\nhelp = 5\n', "help must be non-empty text; found 5"),
    ('[[toy]]\nflag = "--a"\nfield = "not a field"\ntype = "int"\nhelp = "x"\n', "field must be an identifier"),
    ('[[toy]]\nflag = "--a"\ntype = "bool"\nvalue = "no"\nhelp = "x"\n', "a switch's value must be true or false"),
    ('[[toy]]\nflag = "--a"\ntype = "int"\nvalue = false\nhelp = "x"\n', r"value is for switches \(type bool\) only"),
    ('[[toy]]\nflag = "--a"\ntype = "int"\nbuild = "yes"\nhelp = "x"\n', "build_only must be true or false"),
    ('[[toy]]\nflag = "--a"\ntype = "int"\nhelp = "x"\n[[toy]]\nflag = "--a"\ntype = "str"\nhelp = "y"\n',
     "toy: --a given more than once"),
    ('[[common]]\nflag = "--T"\ntype = "int"\nhelp = "x"\n[[common]]\nflag = "--T"\ntype = "float"\nhelp = "y"\n',
     "common: --T given more than once"),
])
def test_reader_refuses_a_malformed_file(tmp_path, text, message):
    with pytest.raises(ConfigError, match=message):
        read_options(_write(tmp_path, text))


def test_reader_refuses_an_unreadable_file_and_tolerates_a_byte_order_mark(tmp_path):
    with pytest.raises(ConfigError, match="cannot read the options file"):
        read_options(tmp_path / "missing.toml")
    with pytest.raises(ConfigError, match="cannot read the options file"):
        read_options(tmp_path)  # a folder
    latin = tmp_path / "latin.toml"
    latin.write_bytes('[[toy]]\nflag = "--a"\ntype = "int"\nhelp = "Fièvre."\n'.encode("latin-1"))
    with pytest.raises(ConfigError, match="not UTF-8 text"):
        read_options(latin)
    bom = tmp_path / "bom.toml"
    bom.write_bytes(b"\xef\xbb\xbf" + '[[toy]]\nflag = "--a"\ntype = "int"\nhelp = "x"\n'.encode())
    assert read_options(bom) == {"toy": (Option("--a", "a", int, "x"),)}
    assert read_options(_write(tmp_path, "# nothing yet\n")) == {}


@pytest.mark.parametrize("flag", ["--", "-a", "---a", "--a b", "--a=b", "--1x", "--a_b", "--a-", "--a--b"])
def test_option_refuses_a_malformed_flag(flag):
    with pytest.raises(ConfigError, match="a flag is '--' and words of letters and digits joined by '-'"):
        Option(flag, "a", int, "x")


def test_option_refuses_an_unknown_type_or_panel():
    with pytest.raises(ConfigError, match="type must be one of"):
        Option("--words", "words", list, "Words.")
    with pytest.raises(ConfigError, match="panel must be one of"):
        Option("--words", "words", str, "Words.", panel="Words")


class _Toy:
    """A method with given options (registered only for a test)."""

    kind = "corpus"

    def __init__(self, name, *options):
        self.name, self.options = name, options


@pytest.mark.parametrize("options, message", [
    ((Option("--epsilon", "bins", float, "Bins."),), "--epsilon is a flag of the build/budget/audit commands"),
    ((Option("--seed", "seed", int, "Seed."),), "--seed is a flag of the build/budget/audit commands"),
    ((Option("--bins", "bins", int, "Bins."), Option("--bins", "bins", int, "Again.")), "--bins is given more than once"),
    ((Option("--K", "K", float, "Keywords."),), "--K differs from method dp-synrag's --K in type, switch value or role"),
    ((Option("--K", "K", int, "Keywords.", panel="Index"),), "--K is in --help panel 'Index', method dp-synrag's in "
                                                             "'Keywords and clustering'"),
    (("--bins",), "`options` holds '--bins', not a dpsynrag.methods.Option"),
])
def test_register_refuses_options_that_would_break_the_commands(options, message):
    """Before: such an option was accepted, then broke ``build``/``budget`` for every method (a command's own
    ``--epsilon`` refused as "does not apply", or a traceback while building the command)."""
    with pytest.raises(ConfigError, match=re.escape(message)):
        register(_Toy("toy-options", *options))
    with pytest.raises(ConfigError):
        get_method("toy-options")  # nothing registered


def test_a_shared_flag_shows_in_the_panel_a_method_names():
    from dpsynrag.commands.options import method_options

    toy = register(_Toy("toy-options", Option("--K", "K", int, "Keywords.")))  # no panel: the other method's
    try:
        options = {o.flag: o for o in method_options([toy, get_method("dp-synrag")], build=True)}
        assert options["--K"].panel == "Keywords and clustering"
    finally:
        unregister(toy.name)


def test_command_flags_hold_every_flag_and_argument_of_the_registry_commands():
    """:data:`COMMAND_FLAGS` (what ``register`` refuses) is the commands' own flags and argument names, and no
    built-in option is one of them."""
    from dpsynrag.commands.audit import AuditCommand
    from dpsynrag.commands.build import BudgetCommand, BuildCommand

    own = {"--help"}
    for command in (BuildCommand(), BudgetCommand(), AuditCommand()):
        for param in command.common():
            decls = getattr(param.default, "param_decls", None) or ()
            own |= {d for d in decls if d.startswith("--")} or {"--" + param.name.replace("_", "-")}
    assert own == COMMAND_FLAGS
    assert not {o.flag for opts in OPTIONS.values() for o in opts} & COMMAND_FLAGS
