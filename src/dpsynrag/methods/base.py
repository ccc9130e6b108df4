"""What a method is (issue 13): a name, a label, a config type, its own command-line options, a privacy
plan, and either a corpus generator (run once, answers free) or an online answerer.

:class:`CorpusMethod` subclasses implement :meth:`CorpusMethod.generate` inside a shared
:class:`~dpsynrag.pipeline.run.BuildRun`; :class:`OnlineMethod` subclasses implement
:meth:`OnlineMethod.answerer`. Register an instance with :func:`dpsynrag.methods.register`: ``build``,
``budget``, ``query``, ``eval`` and the report then know it.
"""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover  (Python 3.10: the same parser, from PyPI)
    import tomli as tomllib

from dpsynrag.errors import ConfigError

if TYPE_CHECKING:  # pragma: no cover
    from dpsynrag.corpus import SyntheticCorpus
    from dpsynrag.pipeline.run import BuildRun
    from dpsynrag.privacy.report import PrivacyReport


COMMAND_FLAGS = frozenset((
    "--canaries", "--canary-template", "--confidence", "--conversion", "--delta", "--documents", "--dry-run",
    "--embedder", "--epsilon", "--epsilons", "--expected-documents", "--extend", "--filter-prompt", "--guesses-in",
    "--guesses-out", "--help", "--id-field", "--identifier-field", "--identifier-placeholder", "--input", "--json",
    "--ledger", "--lifetime-epsilon", "--max-document-tokens", "--measure-input", "--method", "--model",
    "--no-self-filter", "--out", "--overwrite", "--pii-allow", "--pii-allow-file", "--pii-entities", "--pii-model",
    "--pii-names-file",
    "--preset", "--redact-pii", "--seed", "--task", "--text-field", "--threads", "--yes",
))
"""The flags (and argument names) that ``build``, ``budget`` and ``audit`` take themselves: no method option may
use one (:func:`~dpsynrag.methods.register` refuses it; ``tests/test_method_options.py`` keeps the set whole)."""

_FLAG = re.compile(r"--[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*")

PANELS = ("Core", "Keywords and clustering", "Decoding", "Index", "Run", "Other methods")
"""The ``--help`` panels of ``build`` / ``budget``, in the order they are shown; an option without a panel
shows in the last."""


@dataclass(frozen=True)
class Option:
    """One command-line option of a method (``dpsynrag build`` / ``budget``), mapped to a config field.

    Attributes:
        flag: the flag as typed, e.g. ``"--num-batches"``.
        field: the config field it sets (or, with ``build_only``, the keyword of :meth:`CorpusMethod.build`).
        type: ``int``, ``float``, ``str`` or ``bool`` (a switch).
        help: one line for ``--help``; say the default.
        value: for a switch: the field's value when the switch is typed (e.g. ``False`` for
            ``--no-outlier-removal`` on ``outlier_removal``).
        build_only: not a config field but an option of the build run (``--resume``, ``--ray``); not
            offered by ``budget``.
        panel: its ``--help`` panel, one of :data:`PANELS` (None: the last, "Other methods").

    Raises:
        ConfigError: ``flag`` is not ``--`` and words of letters and digits joined by ``-`` (``--top-k``),
            ``field`` is not an identifier, ``help`` is empty or not text, ``type`` is not one of the four,
            ``value`` is not a bool of a switch (or is given to a non-switch), ``build_only`` is not a bool,
            or ``panel`` is not one of :data:`PANELS`.
    """

    flag: str
    field: str
    type: type
    help: str
    value: Any = True
    build_only: bool = False
    panel: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.flag, str) or not _FLAG.fullmatch(self.flag):
            raise ConfigError(f"option {self.flag!r}: a flag is '--' and words of letters and digits joined by '-' "
                              "(e.g. '--top-k').")
        problems = [
            (not isinstance(self.field, str) or not self.field.isidentifier(), f"field must be an identifier; found {self.field!r}"),
            (not isinstance(self.help, str) or not self.help.strip(), f"help must be non-empty text; found {self.help!r}"),
            (self.type not in _TYPES.values(), f"type must be one of int, float, str, bool; found {self.type!r}"),
            (self.type is bool and not isinstance(self.value, bool), f"a switch's value must be true or false; found {self.value!r}"),
            (self.type is not bool and self.value is not True, f"value is for switches (type bool) only; found {self.value!r}"),
            (not isinstance(self.build_only, bool), f"build_only must be true or false; found {self.build_only!r}"),
            (self.panel is not None and self.panel not in PANELS,
             f"panel must be one of {', '.join(PANELS)}; found {self.panel!r}"),
        ]
        for bad, message in problems:
            if bad:
                raise ConfigError(f"option {self.flag}: {message}.")

    @property
    def param(self) -> str:
        """The Python parameter name of the flag (``--num-batches`` -> ``num_batches``)."""
        return self.flag.lstrip("-").replace("-", "_")


_TYPES = {"int": int, "float": float, "str": str, "bool": bool}
_KEYS = {"flag", "field", "type", "value", "build", "panel", "help"}


def read_options(path: str | Path) -> dict[str, tuple[Option, ...]]:
    """The options of each method in a TOML file (``methods/options.toml`` holds the built-in ones; its
    header gives the format): ``{method name: options in --help order}``.

    Raises:
        ConfigError: the file cannot be read, is not UTF-8 or not TOML; an entry has an unknown or missing key
            or a value :class:`Option` refuses; a method (or ``[[common]]``) gives a flag twice; or ``use``
            names no ``[[common]]`` option (the message names the method and entry).
    """
    path = Path(path)
    try:
        tables = tomllib.loads(path.read_text(encoding="utf-8-sig"))  # a byte-order mark is tolerated
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the options file ({exc.strerror or exc}).") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start}).") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc}).") from exc

    def option(where: str, entry: dict[str, Any]) -> Option:
        unknown, missing = set(entry) - _KEYS, {"flag", "type", "help"} - set(entry)
        if unknown or missing:
            raise ConfigError(f"{path}: {where}: unknown key(s) {sorted(unknown)}, missing {sorted(missing)}.")
        if not isinstance(entry["type"], str) or entry["type"] not in _TYPES:
            raise ConfigError(f"{path}: {where}: type must be one of {', '.join(_TYPES)}; found {entry['type']!r}.")
        flag = entry["flag"]
        field = entry.get("field", flag.lstrip("-").replace("-", "_") if isinstance(flag, str) else flag)
        try:
            return Option(flag, field, _TYPES[entry["type"]], entry["help"], value=entry.get("value", True),
                          build_only=entry.get("build", False), panel=entry.get("panel"))
        except ConfigError as exc:
            raise ConfigError(f"{path}: {where}: {exc}") from exc

    for name, entries in tables.items():
        if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
            raise ConfigError(f"{path}: {name} must be an array of tables ([[{name}]] entries).")

    def unique(name: str, options: list[Option]) -> tuple[Option, ...]:
        flags = [o.flag for o in options]
        twice = sorted({f for f in flags if flags.count(f) > 1})
        if twice:
            raise ConfigError(f"{path}: {name}: {', '.join(twice)} given more than once.")
        return tuple(options)

    common = {o.flag: o for o in unique("common", [option(f"common #{i + 1}", e)
                                                    for i, e in enumerate(tables.pop("common", []))])}
    out: dict[str, tuple[Option, ...]] = {}
    for name, entries in tables.items():
        options = []
        for i, entry in enumerate(entries):
            where = f"{name} #{i + 1}"
            if "use" in entry:
                if set(entry) != {"use"} or not isinstance(entry["use"], str) or entry["use"] not in common:
                    raise ConfigError(f"{path}: {where}: 'use' takes one [[common]] flag, alone; "
                                      f"common flags: {', '.join(common) or 'none'}.")
                options.append(common[entry["use"]])
            else:
                options.append(option(where, entry))
        out[name] = unique(name, options)
    return out


def _resolve(path: str) -> Any:
    """The object named by ``"package.module:attribute"``, imported now (so that listing methods never
    imports a method's heavy module)."""
    module, _, attribute = path.partition(":")
    return getattr(importlib.import_module(module), attribute)


class Method:
    """A method of the library. Subclass :class:`CorpusMethod` or :class:`OnlineMethod`.

    Class attributes:
        name: the name users type (``--method``, ``--methods``), lower case with dashes.
        label: the name in reports and tables.
        kind: ``"corpus"`` or ``"online"``.
        dp: whether its output is differentially private (False: Non-RAG, which reads no private data,
            and RAG without DP).
        retrieves: whether it answers from top-k retrieved texts (their context recall is scored).
        options: its own command-line options (see :class:`Option`).
        help: one line for ``--help`` listings.
        ablation: an evaluation-only variant of another method (not offered by ``build``/``budget``).
        reads_private: whether it reads the private documents at all (False: Non-RAG).
        epsilon_field: the config field that ``--epsilon`` sets (DP-RAG: ``epsilon_per_query``).
        private_prompts: whether its answering prompts hold private documents or need the model's
            logits (RAG, DP-RAG): such a method cannot answer through an external endpoint.
        config_class: ``"module:attribute"`` of its config class, imported when first needed (None: no
            config); or override :attr:`config_type`.
    """

    name: ClassVar[str]
    label: ClassVar[str]
    kind: ClassVar[str]
    dp: ClassVar[bool] = True
    retrieves: ClassVar[bool] = False
    options: ClassVar[tuple[Option, ...]] = ()
    help: ClassVar[str] = ""
    ablation: ClassVar[bool] = False
    reads_private: ClassVar[bool] = True
    epsilon_field: ClassVar[str] = "epsilon"
    private_prompts: ClassVar[bool] = False
    config_class: ClassVar[str | None] = None

    @property
    def config_type(self) -> type | None:
        """The method's frozen pydantic config class (None: no config, e.g. Non-RAG)."""
        return None if self.config_class is None else _resolve(self.config_class)

    def make_config(self, **fields: Any):
        """The method's config from ``fields`` (validated by pydantic).

        Raises:
            ConfigError: the method has no config. pydantic.ValidationError: a bad or unknown field.
        """
        if self.config_type is None:
            raise ConfigError(f"method {self.name} has no configuration.")
        return self.config_type(**fields)

    def plan(self, config) -> "PrivacyReport":
        """The privacy plan of ``config`` (its guarantee, fixed before any data is read), for ``budget``
        and reports. Raises InfeasibleBudgetError when the target cannot pay."""
        from dpsynrag.privacy.report import PrivacyReport

        cal = config.calibrate()
        return PrivacyReport.from_plan(cal.plan(), delta=config.delta, parameters=cal.to_dict())

    def eval_label(self, epsilon: float | None, params: dict[str, Any] | None = None) -> str:
        """The label of a result row at ``epsilon`` (None: no ε) with the method's parameters ``params``."""
        return self.label if epsilon is None else f"{self.label} (ε={epsilon:g})"

    def eval_params(self, preset, epsilon: float | None) -> dict[str, Any]:
        """The method's parameters under an evaluation preset (default: ``preset.params[name]``, else none)."""
        return dict(preset.params.get(self.name, {}))

    def self_filters(self, preset) -> bool:
        """Whether, under ``preset``, the method self-filters with the task's prompt (default: no)."""
        return False

    def eval_privacy(self, harness, spec, answer_info: dict, corpus) -> dict[str, Any]:
        """The privacy fields of a result row (default: the corpus's report)."""
        report = corpus.privacy_report
        return {"epsilon": report.epsilon, "epsilon_tight": report.epsilon_tight, "delta": report.delta,
                "rho": report.rho_total, "secure_randomness": report.secure_randomness}


class CorpusMethod(Method):
    """A method that builds a synthetic corpus once (its ε paid then); answers are post-processing.

    Class attributes (besides :class:`Method`'s):
        generator: ``"module:function"`` of ``function(run, **build_options)``, imported when a build
            starts; or override :meth:`generate`.
    """

    kind: ClassVar[str] = "corpus"
    retrieves: ClassVar[bool] = True
    generator: ClassVar[str | None] = None

    def generate(self, run: "BuildRun", **build_options: Any) -> "SyntheticCorpus":
        """Read the private documents of ``run`` through mechanisms and write the corpus
        (``run.finish``). Called inside ``with run:``. ``build_options``: the method's ``build_only``
        options that were given. Default: the :attr:`generator` function."""
        if self.generator is None:
            raise NotImplementedError(f"method {self.name}: set `generator` or override generate().")
        return _resolve(self.generator)(run, **build_options)

    def build(self, documents, out_dir, config, *, lm=None, embedder=None, text_field: str = "text",
              id_field: str | None = None, identifier_fields: Sequence[str] = (), overwrite: bool = False,
              progress: bool = False, ledger=None, **build_options: Any) -> "SyntheticCorpus":
        """Build a corpus: a :class:`~dpsynrag.pipeline.run.BuildRun` around :meth:`generate`.

        Args:
            config: the method's config (an instance of :attr:`config_type`).
            documents, out_dir, lm, embedder, text_field, id_field, identifier_fields, overwrite, progress:
                as in :class:`~dpsynrag.pipeline.run.BuildRun` (the private collection, the corpus folder to
                create, the loaded models or None, the fields of a file input, replace an existing folder
                once the build has succeeded, show progress).
            ledger: a :class:`~dpsynrag.privacy.ledger.PrivacyLedger` (``--ledger``): checked before any
                model loads, recorded just before the first draw (see
                :func:`~dpsynrag.pipeline.build.build_corpus`).
            build_options: the method's ``build_only`` options (:class:`Option`).

        Returns:
            The :class:`~dpsynrag.corpus.SyntheticCorpus`, manifest ``method`` = :attr:`name`.

        Raises:
            TypeError: a keyword that is not one of the method's ``build_only`` options (before anything
                runs). ConfigError: ``config`` is not the method's config type; bad parameters.
            DataError: unusable input. FileExistsError: ``out_dir`` exists and ``overwrite`` is False.
        """
        from dpsynrag.pipeline.run import BuildRun

        unknown = sorted(set(build_options) - {o.field for o in self.options if o.build_only})
        if unknown:
            raise TypeError(f"build of method {self.name} got unexpected keyword argument(s): {', '.join(unknown)}")
        if self.config_type is not None and not isinstance(config, self.config_type):
            raise ConfigError(f"`config` must be a {self.config_type.__name__}. Found {type(config).__name__}.")
        run = BuildRun(self.name, documents, out_dir, config, lm=lm, embedder=embedder, text_field=text_field,
                       id_field=id_field, identifier_fields=identifier_fields, overwrite=overwrite,
                       progress=progress, ledger=ledger, prepare=lambda cal: self.prepare(config))
        with run:
            return self.generate(run, **build_options)

    def prepare(self, config) -> Any:
        """Checks and public values a build needs before it reads any document (``run.prepared``)."""
        return None

    def self_filters(self, preset) -> bool:
        params = self.eval_params(preset, None)
        return bool(params.get("self_filter", True)) and not params.get("filter_prompt")

    def eval_config(self, harness, spec):
        """The config of an evaluation run: the run's ε, δ, task, seed and models, then ``spec.params``.
        Returns ``(config, note)`` (note: a string said in the report, or None)."""
        accepted = set(self.config_type.model_fields) if self.config_type is not None else set()
        fields = {"epsilon": spec.epsilon, "delta": harness.config.preset.delta}
        for name, value in (("task", harness.data.task.name), ("seed", harness.config.preset.seed),
                            ("model", harness.config.model), ("embedder", harness.config.embedder)):
            if name in accepted:
                fields[name] = value
        fields.update(spec.params)
        if fields.get("redact_identifiers") and not harness.data.task.identifier_fields:
            fields["redact_identifiers"] = False  # a preset's redaction; this task declares no identifier column
        unknown = sorted(set(fields) - accepted)
        if unknown:
            raise ConfigError(f"{self.config_type.__name__} has no field(s) {', '.join(unknown)}; "
                              f"fields: {', '.join(sorted(accepted))}.")
        return self.make_config(**fields), None

    def eval_corpus(self, harness, spec, folder) -> tuple["SyntheticCorpus", str | None]:
        """Build the corpus of an evaluation run into ``folder``; returns ``(corpus, note)``."""
        config, note = self.eval_config(harness, spec)
        corpus = self.build(harness.data.documents, folder, config, lm=harness.lm, embedder=harness.embedder,
                            identifier_fields=harness.data.task.identifier_fields, overwrite=True,
                            progress=harness.progress)
        return corpus, note


class OnlineMethod(Method):
    """A method that answers each question itself (Non-RAG, RAG, DP-RAG: ε per query when private)."""

    kind: ClassVar[str] = "online"

    def answerer(self, harness, spec) -> tuple[Callable[[Sequence], list], Callable[[], dict | None]]:
        """``(answer_fn, finish)`` for an evaluation run: ``answer_fn(queries)`` returns one answer per
        query (a string, or a :class:`~dpsynrag.rag.Answer` with its context); ``finish()`` returns
        what the answering spent (DP-RAG), or None."""
        raise NotImplementedError

    def eval_privacy(self, harness, spec, answer_info: dict, corpus) -> dict[str, Any]:
        return {"epsilon": 0.0, "note": "no private data used"}
