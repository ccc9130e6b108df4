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

from dpsynrag.commands.common import console, fail, print_privacy, seed_warning, warn_content
from dpsynrag.commands.estimate import check_input_fields, check_measure_input, estimate
from dpsynrag.commands.ledger import LEDGER_HELP, LIFETIME_HELP, open_ledger, rerelease_guard, summary_line
from dpsynrag.commands.redact import redaction_fields, redaction_params, task_folder_documents
from dpsynrag.commands.options import (
    RegistryCommand,
    choose_method,
    document_params,
    keyword_param,
    method_fields,
    method_options,
    model_params,
)
from dpsynrag.errors import ConfigError, DpsynragError
from dpsynrag.methods import Method, Option, methods

def _preset_param() -> inspect.Parameter:
    from dpsynrag.eval.presets import PRESETS

    return keyword_param("preset", typer.Option(
        None, "--preset", help=f"Method parameters from a preset: {' | '.join(PRESETS)} (the eval presets; default: "
        "cpu on a machine without a CUDA GPU, paper with one). Flags you type win."), Optional[str])


def _expected_param() -> inspect.Parameter:
    return keyword_param("expected_documents", typer.Option(
        None, "--expected-documents", metavar="N", help="Declared, public number of documents: the plan then counts "
        "the work (and build times the model). The real count is private and never used for this."), Optional[int])


def _configure(ctx: typer.Context, values: dict[str, Any], method: Method, offered: list[Option],
               common: dict[str, Any]):
    """``(config, preset, why, applied)``: the method's config from the preset's fields, then the typed
    common options (``common``, None = not given), then the typed method options."""
    from dpsynrag.checks import check_int
    from dpsynrag.commands.plan import preset_fields, resolve_preset

    check_int("--expected-documents", values["expected_documents"], optional=True)
    preset, why = resolve_preset(values["preset"])
    fields, _ = method_fields(ctx, values, method, offered)
    typed = {k: v for k, v in common.items() if v is not None}
    from_preset = preset_fields(method, preset, expected_documents=values["expected_documents"])
    applied = {k: v for k, v in from_preset.items() if k not in typed and k not in fields}
    # a preset value equal to the config's default is left out, so that a typed flag that implies a field
    # (--open-vocabulary-delta: open_vocabulary) still does under a preset that states that field's default
    defaults = method.config_type.model_fields if method.config_type is not None else {}
    passed = {k: v for k, v in applied.items() if not (k in defaults and defaults[k].default == v)}
    return method.make_config(**{**passed, **typed, **fields}), preset, why, applied


def _say_preset(preset, why: str, applied: dict[str, Any]) -> None:
    from dpsynrag.commands.plan import describe_fields

    console.print(f"preset [bold]{preset.name}[/] ({why}): {describe_fields(applied)}")


def _print_plan(report) -> None:
    params = Table(title="Calibrated parameters")
    params.add_column("parameter")
    params.add_column("value", justify="right")
    for key, value in (report.parameters or {}).items():
        params.add_row(key, "-" if value is None else (f"{value:.6g}" if isinstance(value, float) else str(value)))
    console.print(params)
    print_privacy(report)


def _check_device(config) -> None:
    """A typed ``--device`` this machine cannot use is refused before anything loads, for a dry run too,
    with the message the model loader gives (:func:`~dpsynrag.models.loading.resolve_device`).

    Raises:
        ConfigError: not a torch device (``tpu``), or CUDA asked for where none is available.
    """
    device = getattr(config, "device", None)
    if device is not None:
        from dpsynrag.models.loading import resolve_device

        resolve_device(device)


def _warn_weak_epsilon(epsilon: float) -> None:
    """The owner console's warning (stderr) for a target ``epsilon`` above
    :data:`~dpsynrag.privacy.report.WEAK_EPSILON`; the build goes on (the privacy report's notes say it too)."""
    from dpsynrag.privacy.report import weak_epsilon_note

    note = weak_epsilon_note(epsilon)
    if note:
        from dpsynrag.commands.common import err_console

        err_console.print(f"[bold yellow]warning:[/] {note}", highlight=False)


def _interrupted(out: Path, how: str, code: int) -> None:
    """The last message of an interrupted build (its checkpoint folder and the --resume command), on
    stderr; exit with ``code``. The ledger is not read here: a resumed build is not charged again."""
    from rich.markup import escape

    from dpsynrag.commands.common import err_console
    from dpsynrag.pipeline.checkpoint import interruption_message

    message = interruption_message(out, how)
    err_console.print(escape(message), style="bold yellow", highlight=False)
    raise typer.Exit(code=code)


def _owner_summary(audit: Path, seconds: float) -> None:
    """The owner-only facts of a finished build on the console (never in the corpus folder): how many
    documents were cut (from the owner record ``audit``) and the build's total wall time."""
    import json

    from dpsynrag.pipeline.display import format_seconds, truncation_summary

    try:
        line = truncation_summary(json.loads(audit.read_text(encoding="utf-8")).get("truncation", []))
    except (OSError, ValueError):
        line = None
    if line:
        console.print(line, markup=False, highlight=False)
    try:
        counts = json.loads(audit.read_text(encoding="utf-8")).get("redaction_counts")
    except (OSError, ValueError):
        counts = None
    if counts:
        spans = ", ".join(f"{entity} {n}" for entity, n in counts["spans"].items()) or "none"
        console.print(f"owner-only: redaction replaced {spans} spans in {counts['documents_with_spans']} of "
                      f"{counts['documents']} documents", markup=False, highlight=False)
    console.print(f"total wall time: {format_seconds(seconds)}")


def _charge_note(ledger, out: Path, after_id: int | None) -> str | None:
    """The sentence a failed build's error ends with when the ledger was charged for it (a release labelled
    ``out`` recorded after release ``after_id``): the charge stands (noise may have been drawn), so the
    user knows the budget is spent. None when nothing was charged."""
    if ledger is None or after_id is None:
        return None
    from dpsynrag.privacy.lifetime import lifetime_epsilon

    try:
        charged = [r for r in ledger.releases() if r.id > after_id and r.label == str(out.resolve())]
    except DpsynragError:
        return None
    if not charged:
        return None
    r = charged[-1]
    eps = lifetime_epsilon(r.rho, r.delta_terms, r.delta)
    return (f"The privacy ledger charge stands: this build was charged epsilon={eps:.4f} (rho={r.rho:.6g}, "
            f"delta={r.delta:g}; release {r.id} in {ledger.path}) before it failed, since noise may have been "
            "drawn: that budget is spent (dpsynrag ledger show).")


def _say_extension(corpus, out: Path) -> None:
    """An extended corpus's guarantee for both cases (public), and the owner-only count of new documents
    (units) left out because the corpus already held them (from the owner record beside ``out``; never in
    the folder)."""
    import json

    from dpsynrag.methods.extend import describe_guarantee
    from dpsynrag.corpus.format import owner_audit_path

    console.print(describe_guarantee(corpus.manifest), markup=False, highlight=False)
    try:
        ext = json.loads(owner_audit_path(out).read_text(encoding="utf-8"))["extension"]
    except (OSError, ValueError, KeyError):
        return
    console.print(f"owner-only (not DP, never publish): {ext['dropped_units']} of INPUT's {ext['input_units']} "
                  f"{ext['unit_kind']}s ({ext['dropped_documents']} document(s)) were already built into the corpus "
                  f"and were left out (not read, not charged); this build read the {ext['new_units']} new ones.",
                  markup=False, highlight=False)


class BuildCommand(RegistryCommand):
    """Build a differentially private synthetic corpus from a private collection. The build is recorded
    in the privacy-budget ledger (--ledger; see `dpsynrag ledger show`). Options of one method only
    (the help says which) are refused with another --method."""

    def common(self):
        names = ", ".join(m.name for m in self.choices())
        return [
            keyword_param("input", typer.Argument(..., help="Private collection: JSONL, CSV or Parquet file (or a task's data folder with --task)."), Path),
            keyword_param("out", typer.Option(..., "--out", help="Corpus folder to create."), Path),
            keyword_param("extend", typer.Option(None, "--extend", metavar="CORPUS", help="Grow CORPUS: build from INPUT's documents that CORPUS does not hold yet (those already built, or with --privacy-unit-field every document of a person CORPUS holds, are left out before anything is read or charged: their count is printed; same method, model, embedder, task and --privacy-unit-field) and write --out holding CORPUS's texts and the new ones, one index, one report listing both builds. The new documents (persons) cost only this build's epsilon. Needs CORPUS.owner.json beside it."), Optional[Path]),
            keyword_param("epsilon", typer.Option(..., "--epsilon", help="Target epsilon (> 0; above 20 warns that the guarantee is too weak to mean much; the paper uses 10)."), float),
            keyword_param("delta", typer.Option(..., "--delta", help="Target total delta, in (0, 1)."), float),
            keyword_param("method", typer.Option("dp-synrag", "--method", help=f"The method: {names}."), str),
            _preset_param(),
            _expected_param(),
            keyword_param("dry_run", typer.Option(False, "--dry-run", help="Check that INPUT (when it exists) has the named "
                   "fields (field names only: a CSV header, a Parquet schema, a JSON-lines file's first row's keys), print the "
                   "privacy plan and the work (with --expected-documents), then stop: reads no document, spends "
                   "nothing, writes nothing."), bool),
            keyword_param("measure_input", typer.Option(False, "--measure-input", help="With --dry-run, instead of "
                   "--expected-documents: read INPUT once as the build does (redaction and cut, no model on it) and count "
                   "the work on its documents, its distinct texts and their lengths. Owner-only: these counts of the "
                   "private data are not DP; they are printed, never written or logged, and nothing is spent."), bool),
            keyword_param("task", typer.Option(None, "--task", help="Public task (medical, movielens, ...): its self-filter and answer prompts."), Optional[str]),
            keyword_param("filter_prompt", typer.Option(None, "--filter-prompt", help="Self-filter prompt with {document} (instead of --task)."), Optional[str]),
            keyword_param("no_self_filter", typer.Option(False, "--no-self-filter", help="Keep every synthetic text (ablation)."), bool),
            *model_params(),
            keyword_param("seed", typer.Option(None, "--seed", help="Seed: reproducible output, NOT for release (default: secure randomness)."), Optional[int]),
            keyword_param("conversion", typer.Option(None, "--conversion", help="rho->epsilon conversion used to calibrate: bun-steinke (default) | cks."), Optional[str]),
            *document_params(),
            *redaction_params(),
            keyword_param("overwrite", typer.Option(False, "--overwrite", help="Replace --out if it exists (after a successful build)."), bool),
            keyword_param("threads", typer.Option(None, "--threads", help="Torch CPU threads (per Ray worker with --ray; default: the cores free to the process, or $DPSYNRAG_THREADS)."), Optional[int]),
            keyword_param("ledger", typer.Option(None, "--ledger", help=LEDGER_HELP), Optional[Path]),
            keyword_param("lifetime_epsilon", typer.Option(None, "--lifetime-epsilon", help=LIFETIME_HELP), Optional[float]),
            keyword_param("yes", typer.Option(False, "--yes", help="Build even when INPUT's documents (persons) already have releases in the ledger (said first, with their lifetime epsilon after this build); without it such a build asks on a terminal and stops elsewhere, before spending."), bool),
        ]

    def __call__(self, ctx: typer.Context, **values: Any) -> None:
        import signal
        import time

        from pydantic import ValidationError

        t_start = time.perf_counter()
        flags: dict[str, str] = {}
        ledger, charged_after = None, None  # a failure after the ledger charged this build says so
        try:
            identifier_fields = tuple(values["identifier_field"] or ())
            redaction = redaction_fields(values)
            method = choose_method(values["method"], self.choices())
            check_measure_input(values, method)
            flags = {o.field: o.flag for o in method.options if not o.build_only}
            offered = method_options(self.choices(), build=True)
            _, build_options = method_fields(ctx, values, method, offered)
            common = {"epsilon": values["epsilon"], "delta": values["delta"], "task": values["task"],
                      "filter_prompt": values["filter_prompt"], "model": values["model"],
                      "embedder": values["embedder"], "seed": values["seed"], "conversion": values["conversion"],
                      "max_document_tokens": values["max_document_tokens"],
                      # a typed --filter-prompt turns the self-filter on, whatever the preset says
                      "self_filter": False if values["no_self_filter"] else (True if values["filter_prompt"] else None),
                      **redaction}
            config, preset, why, applied = _configure(ctx, values, method, offered, common)
            config.calibrate()
            _check_device(config)
            _warn_weak_epsilon(values["epsilon"])
            if getattr(config, "redact_pii", False):
                from dpsynrag.data.pii import require_presidio

                require_presidio()  # a missing extra stops the build before any model loads
                if config.pii_model is not None:
                    from dpsynrag.data.pii import PIIRedactor

                    PIIRedactor(entities=config.pii_entities, model=config.pii_model)  # a model that does not load too
            _say_preset(preset, why, applied)
            from dpsynrag.pipeline.corpus_config import CorpusConfig

            filter_prompt = None
            if isinstance(config, CorpusConfig):
                from dpsynrag.pipeline.run import resolve_filter_prompt

                filter_prompt = resolve_filter_prompt(config)  # an unknown task or missing prompt stops here
                if not config.self_filter and not values["no_self_filter"]:
                    fluency = getattr(config, "fluency_threshold", None)
                    kept = ("every non-empty synthetic text is kept" if fluency is None else
                            f"every non-empty synthetic text whose mean token log-probability is at least {fluency:g} "
                            "nats is kept (--fluency-threshold)")
                    console.print(f"no self-filter: preset {preset.name} turns it off, so {kept} (--filter-prompt to "
                                  "filter).")
            if values["dry_run"]:
                checked = check_input_fields(values, config, identifier_fields)
                _print_plan(method.plan(config))
                estimate(config, method, values, filter_prompt=filter_prompt, dry_run=True,
                         identifier_fields=identifier_fields)
                if values["measure_input"]:
                    checked = "INPUT read for the owner-only counts above"
                console.print(f"dry run: {checked or 'no data read'}, nothing spent, nothing written.")
                return
            if "threads" in inspect.signature(method.build).parameters:
                build_options["threads"] = values["threads"]
            from dpsynrag.threads import configure_threads

            configure_threads(values["threads"])
            documents = values["input"]
            if documents.is_dir():
                documents = task_folder_documents(documents, values["task"], identifier_fields)
            seed_warning(values["seed"])
            from dpsynrag.privacy.sources import Source

            reading = ({"task": values["task"]} if values["input"].is_dir() else
                       {"text_field": values["text_field"], "id_field": values["id_field"],
                        "unit_field": getattr(config, "privacy_unit_field", None)})
            ledger = open_ledger(values["ledger"], values["lifetime_epsilon"], source=Source(values["input"], reading),
                                 on_rerelease=rerelease_guard(values["yes"]))
            charged_after = max((r.id for r in ledger.releases()), default=0)
            lm, embedder = estimate(config, method, values, filter_prompt=filter_prompt, dry_run=False)
            if lm is not None:
                build_options.update(lm=lm, embedder=embedder)  # loaded for the estimate: not loaded twice
            if values["extend"] is not None:
                from dpsynrag.methods.extend import extend_corpus

                corpus = extend_corpus(method, documents, values["extend"], values["out"], config,
                                       text_field=values["text_field"], id_field=values["id_field"],
                                       identifier_fields=identifier_fields, overwrite=values["overwrite"],
                                       progress=True, ledger=ledger, **build_options)
            else:
                corpus = method.build(documents, values["out"], config, text_field=values["text_field"],
                                      id_field=values["id_field"], identifier_fields=identifier_fields,
                                      overwrite=values["overwrite"], progress=True, ledger=ledger, **build_options)
        except ValidationError as exc:
            fail(exc, flags)
            return
        except (DpsynragError, FileExistsError) as exc:
            fail(exc, {"path": "INPUT", "out_dir": "--out", **flags}, _charge_note(ledger, values["out"], charged_after))
            return
        except KeyboardInterrupt:  # Ctrl-C: one last message, exit 130 (128 + SIGINT)
            _interrupted(values["out"], "Ctrl-C", 128 + signal.SIGINT)
        except SystemExit as exc:  # SIGTERM (dpsynrag.cli turns it into SystemExit(143)): the same, exit 143
            if exc.code != 128 + signal.SIGTERM:
                raise
            _interrupted(values["out"], "SIGTERM", exc.code)
        except Exception:  # an unexpected failure: its traceback follows the note
            from dpsynrag.commands.common import err_console

            note = _charge_note(ledger, values["out"], charged_after)
            if note:
                err_console.print(note, style="bold red", markup=False, highlight=False)
            raise
        out = values["out"]
        console.print(corpus.privacy_report.table())
        m = corpus.manifest
        console.print(
            f"[bold green]built[/] {out}: {m['num_kept']} of {m['num_texts']} synthetic texts kept; "
            f"epsilon={corpus.privacy_report.epsilon:.4f} (tight {corpus.privacy_report.epsilon_tight:.4f}), "
            f"delta={corpus.privacy_report.delta:g}."
        )
        warn_content(corpus)
        if "builds" in m:
            _say_extension(corpus, out)
        from dpsynrag.corpus.format import owner_audit_path

        built = [r for r in ledger.releases() if r.label == str(out.resolve())]
        if built:
            console.print(summary_line(ledger, built[-1].dataset))
        console.print(f"owner-only audit record (input fingerprint, wall times; not DP, never publish): {owner_audit_path(out)}")
        _owner_summary(owner_audit_path(out), time.perf_counter() - t_start)


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
            keyword_param("epsilon", typer.Option(..., "--epsilon", help="Target epsilon (> 0; dp-rag: per query)."), float),
            keyword_param("delta", typer.Option(..., "--delta", help="Target total delta, in (0, 1)."), float),
            keyword_param("method", typer.Option("dp-synrag", "--method", help=f"The method: {names}."), str),
            keyword_param("conversion", typer.Option(None, "--conversion", help="rho->epsilon conversion used to calibrate: bun-steinke (default) | cks."), Optional[str]),
            _preset_param(),
            _expected_param(),
            keyword_param("as_json", typer.Option(False, "--json", help="Print JSON instead of tables."), bool),
        ]

    def __call__(self, ctx: typer.Context, **values: Any) -> None:
        from pydantic import ValidationError

        flags: dict[str, str] = {}
        try:
            method = choose_method(values["method"], self.choices())
            flags = {method.epsilon_field: "--epsilon", **{o.field: o.flag for o in method.options}}
            common = {method.epsilon_field: values["epsilon"], "delta": values["delta"],
                      "conversion": values["conversion"]}
            config, preset, why, applied = _configure(ctx, values, method, method_options(self.choices(), build=False),
                                                      common)
            report = method.plan(config)
            work = None
            if values["expected_documents"] is not None:
                from dpsynrag.pipeline.config import BuildConfig

                if isinstance(config, BuildConfig):
                    import torch

                    from dpsynrag.commands.plan import estimate_work

                    work = estimate_work(config, values["expected_documents"],
                                         device=config.device or ("cuda" if torch.cuda.is_available() else "cpu"))
        except ValidationError as exc:
            fail(exc, flags)
            return
        except DpsynragError as exc:
            fail(exc, flags)
            return
        if values["as_json"]:
            import json

            payload = {**report.to_dict(), "preset": {"name": preset.name, "why": why, "applied": applied}}
            if work is not None:
                payload["work"] = work.to_dict()
            typer.echo(json.dumps(payload, indent=2))
            return
        _say_preset(preset, why, applied)
        _print_plan(report)
        if work is not None:
            from dpsynrag.commands.plan import work_table

            console.print(work_table(work, config=config))
            console.print("time: `dpsynrag build ... --dry-run --expected-documents N` times the model on this machine.")
        elif values["expected_documents"] is not None:
            console.print(f"work: estimated for --method dp-synrag only, not {method.name}.")
