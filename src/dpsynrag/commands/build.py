"""``dpsynrag build`` and ``dpsynrag budget``: their method options come from the method registry.

Each command is a callable whose signature is made from the registry when the command line is parsed
(:class:`RegistryCommand`): the common options, then every registered method's own options
(:class:`~dpsynrag.methods.Option`). Only the options the user typed reach the method's config, so its
own defaults apply to the rest, and a typed option of another method is an error naming it.
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any, Optional

import typer
from rich.table import Table

from dpsynrag.commands.common import console, fail, seed_warning, warn_content
from dpsynrag.errors import ConfigError, DpsynragError
from dpsynrag.ledger_cli import LEDGER_HELP, LIFETIME_HELP, open_ledger, summary_line
from dpsynrag.methods import Method, Option, get_method, methods

_KW = inspect.Parameter.KEYWORD_ONLY


def _param(name: str, default: Any, annotation: Any) -> inspect.Parameter:
    return inspect.Parameter(name, _KW, default=default, annotation=annotation)


def _option_param(option: Option) -> inspect.Parameter:
    if option.type is bool:
        return _param(option.param, typer.Option(False, option.flag, help=option.help), bool)
    return _param(option.param, typer.Option(None, option.flag, help=option.help), Optional[option.type])


def method_options(choices: list[Method], *, build: bool) -> list[Option]:
    """Every option of ``choices`` once, in registration order (``build=False``: config options only).

    Raises:
        ConfigError: two methods give one flag a different type, switch value or role.
    """
    seen: dict[str, Option] = {}
    for method in choices:
        for option in method.options:
            if option.build_only and not build:
                continue
            first = seen.setdefault(option.flag, option)
            if (first.type, first.value, first.build_only) != (option.type, option.value, option.build_only):
                raise ConfigError(f"method {method.name}: {option.flag} differs from another method's {option.flag}.")
    return list(seen.values())


def method_fields(ctx: typer.Context, values: dict[str, Any], method: Method, offered: list[Option]) -> tuple[dict, dict]:
    """The config fields and build options of ``method`` that the user typed.

    Raises:
        ConfigError: a typed option belongs to other methods only (the message names it).
    """
    from dpsynrag.checks import typed_flags

    own = {o.flag: o for o in method.options}
    typed = set(typed_flags(ctx, {o.param for o in offered}))
    foreign = [o.flag for o in offered if o.flag in typed and o.flag not in own]
    if foreign:
        raise ConfigError(f"{', '.join(foreign)} do not apply to --method {method.name}.")
    fields: dict[str, Any] = {}
    build: dict[str, Any] = {}
    for flag in typed:
        option = own[flag]
        value = option.value if option.type is bool else values[option.param]
        (build if option.build_only else fields)[option.field] = value
    return fields, build


def _method(name: str, choices: list[Method]) -> Method:
    method = get_method(name)
    if method not in choices:
        raise ConfigError(f"`--method` must be one of {', '.join(m.name for m in choices)}. Found {name!r}.")
    return method


class RegistryCommand:
    """A typer command whose options are its ``common()`` parameters plus the registered methods' options,
    read from the registry each time the command line is parsed (so a method registered later is offered)."""

    build_options = True

    def choices(self) -> list[Method]:
        return [m for m in methods("corpus") if not m.ablation]

    def common(self) -> list[inspect.Parameter]:
        raise NotImplementedError

    @property
    def __signature__(self) -> inspect.Signature:
        params = [_param("ctx", inspect.Parameter.empty, typer.Context), *self.common()]
        taken = {p.name for p in params}
        params += [_option_param(o) for o in method_options(self.choices(), build=self.build_options)
                   if o.param not in taken]
        return inspect.Signature(params)

    @property
    def __annotations__(self) -> dict[str, Any]:  # read by typing.get_type_hints
        return {p.name: p.annotation for p in self.__signature__.parameters.values()}


class BuildCommand(RegistryCommand):
    """Build a differentially private synthetic corpus from a private collection. The build is recorded
    in the privacy-budget ledger (--ledger; see `dpsynrag ledger show`). Options of one method only
    (the help says which) are refused with another --method."""

    def common(self):
        names = ", ".join(m.name for m in self.choices())
        return [
            _param("input", typer.Argument(..., help="Private collection: JSONL, CSV or Parquet file (or a task's data folder with --task)."), Path),
            _param("out", typer.Option(..., "--out", help="Corpus folder to create."), Path),
            _param("epsilon", typer.Option(..., "--epsilon", help="Target epsilon (> 0)."), float),
            _param("delta", typer.Option(..., "--delta", help="Target total delta, in (0, 1)."), float),
            _param("method", typer.Option("dp-synrag", "--method", help=f"The method: {names}."), str),
            _param("task", typer.Option(None, "--task", help="Public task (medical, movielens, ...): its self-filter and answer prompts."), Optional[str]),
            _param("filter_prompt", typer.Option(None, "--filter-prompt", help="Self-filter prompt with {document} (instead of --task)."), Optional[str]),
            _param("no_self_filter", typer.Option(False, "--no-self-filter", help="Keep every synthetic text (ablation)."), bool),
            _param("model", typer.Option(None, "--model", help="Language model: hub id, folder or GGUF file (default: offline SmolLM2-135M-Instruct)."), Optional[str]),
            _param("embedder", typer.Option(None, "--embedder", help="Sentence-transformers model id or folder (default: offline all-MiniLM-L6-v2)."), Optional[str]),
            _param("seed", typer.Option(None, "--seed", help="Seed: reproducible output, NOT for release (default: secure randomness)."), Optional[int]),
            _param("conversion", typer.Option(None, "--conversion", help="rho->epsilon conversion used to calibrate: bun-steinke (default) | cks."), Optional[str]),
            _param("max_document_tokens", typer.Option(None, "--max-document-tokens", help="Truncate each document to this many tokens (default 256)."), Optional[int]),
            _param("text_field", typer.Option("text", "--text-field", help="Field holding the document text."), str),
            _param("id_field", typer.Option(None, "--id-field", help="Field holding a unique document id."), Optional[str]),
            _param("identifier_field", typer.Option(None, "--identifier-field", metavar="NAME", help="Field holding direct identifiers (names, e-mails, account numbers; repeat for several): each document's own values are redacted from its text before any model reads it."), Optional[list[str]]),
            _param("identifier_placeholder", typer.Option(None, "--identifier-placeholder", help="Public text replacing a redacted identifier (default [REDACTED]; needs --identifier-field)."), Optional[str]),
            _param("overwrite", typer.Option(False, "--overwrite", help="Replace --out if it exists (after a successful build)."), bool),
            _param("threads", typer.Option(None, "--threads", help="Torch CPU threads (per Ray worker with --ray; default: the cores free to the process, or $DPSYNRAG_THREADS)."), Optional[int]),
            _param("ledger", typer.Option(None, "--ledger", help=LEDGER_HELP), Optional[Path]),
            _param("lifetime_epsilon", typer.Option(None, "--lifetime-epsilon", help=LIFETIME_HELP), Optional[float]),
        ]

    def __call__(self, ctx: typer.Context, **values: Any) -> None:
        from pydantic import ValidationError

        flags: dict[str, str] = {}
        try:
            identifier_fields = tuple(values["identifier_field"] or ())
            if values["identifier_placeholder"] is not None and not identifier_fields:
                raise ConfigError("--identifier-placeholder needs --identifier-field (the fields to redact).")
            method = _method(values["method"], self.choices())
            flags = {o.field: o.flag for o in method.options if not o.build_only}
            fields, build_options = method_fields(ctx, values, method,
                                                  method_options(self.choices(), build=True))
            common = {"epsilon": values["epsilon"], "delta": values["delta"], "task": values["task"],
                      "filter_prompt": values["filter_prompt"], "model": values["model"],
                      "embedder": values["embedder"], "seed": values["seed"], "conversion": values["conversion"],
                      "max_document_tokens": values["max_document_tokens"],
                      "self_filter": False if values["no_self_filter"] else None,
                      "redact_identifiers": True if identifier_fields else None,
                      "identifier_placeholder": values["identifier_placeholder"]}
            config = method.make_config(**{k: v for k, v in common.items() if v is not None}, **fields)
            config.calibrate()
            if "threads" in inspect.signature(method.build).parameters:
                build_options["threads"] = values["threads"]
            from dpsynrag.threads import configure_threads

            configure_threads(values["threads"])
            documents = values["input"]
            if documents.is_dir():
                if not values["task"]:
                    raise ConfigError("INPUT is a folder: pass --task to say how to read it, or give a file.")
                from dpsynrag.tasks import get_task

                task = get_task(values["task"])
                others = [f for f in identifier_fields if f not in task.identifier_fields]
                if others:
                    raise ConfigError(f"--identifier-field {others[0]}: a task's data folder is read with the task's "
                                      f"identifier fields ({', '.join(task.identifier_fields) or 'none'}).")
                documents = task.load_database(documents)
            seed_warning(values["seed"])
            ledger = open_ledger(values["ledger"], values["lifetime_epsilon"])
            corpus = method.build(documents, values["out"], config, text_field=values["text_field"],
                                  id_field=values["id_field"], identifier_fields=identifier_fields,
                                  overwrite=values["overwrite"], progress=True, ledger=ledger, **build_options)
        except ValidationError as exc:
            fail(exc, flags)
            return
        except (DpsynragError, FileExistsError) as exc:
            fail(exc, {"path": "INPUT", "out_dir": "--out", **flags})
            return
        out = values["out"]
        console.print(corpus.privacy_report.table())
        m = corpus.manifest
        console.print(
            f"[bold green]built[/] {out}: {m['num_kept']} of {m['num_texts']} synthetic texts kept; "
            f"epsilon={corpus.privacy_report.epsilon:.4f} (tight {corpus.privacy_report.epsilon_tight:.4f}), "
            f"delta={values['delta']:g}."
        )
        warn_content(corpus)
        from dpsynrag.corpus_format import owner_audit_path

        built = [r for r in ledger.releases() if r.label == str(out.resolve())]
        if built:
            console.print(summary_line(ledger, built[-1].dataset))
        console.print(f"owner-only audit record (input fingerprint, wall times; not DP, never publish): {owner_audit_path(out)}")


class BudgetCommand(RegistryCommand):
    """Print the privacy plan of a build (or of one DP-RAG query) for a target (epsilon, delta): the same
    configuration, calibration and plan `dpsynrag build` uses with these options (its guarantee, fixed
    before any data is read)."""

    build_options = False

    def choices(self) -> list[Method]:
        return [m for m in methods() if not m.ablation and m.dp and m.config_type is not None]

    def common(self):
        names = ", ".join(m.name for m in self.choices())
        return [
            _param("epsilon", typer.Option(..., "--epsilon", help="Target epsilon (> 0; dp-rag: per query)."), float),
            _param("delta", typer.Option(..., "--delta", help="Target total delta, in (0, 1)."), float),
            _param("method", typer.Option("dp-synrag", "--method", help=f"The method: {names}."), str),
            _param("conversion", typer.Option(None, "--conversion", help="rho->epsilon conversion used to calibrate: bun-steinke (default) | cks."), Optional[str]),
            _param("as_json", typer.Option(False, "--json", help="Print JSON instead of tables."), bool),
        ]

    def __call__(self, ctx: typer.Context, **values: Any) -> None:
        from pydantic import ValidationError

        flags: dict[str, str] = {}
        try:
            method = _method(values["method"], self.choices())
            flags = {method.epsilon_field: "--epsilon", **{o.field: o.flag for o in method.options}}
            fields, _ = method_fields(ctx, values, method, method_options(self.choices(), build=False))
            common = {method.epsilon_field: values["epsilon"], "delta": values["delta"],
                      "conversion": values["conversion"]}
            config = method.make_config(**{k: v for k, v in common.items() if v is not None}, **fields)
            report = method.plan(config)
        except ValidationError as exc:
            fail(exc, flags)
            return
        except DpsynragError as exc:
            fail(exc, flags)
            return
        if values["as_json"]:
            typer.echo(report.to_json())
            return
        params = Table(title="Calibrated parameters")
        params.add_column("parameter")
        params.add_column("value", justify="right")
        for key, value in (report.parameters or {}).items():
            params.add_row(key, "-" if value is None else (f"{value:.6g}" if isinstance(value, float) else str(value)))
        console.print(params)
        console.print(report.table())
