"""``dpsynrag build``'s look before the spend: ``--dry-run``'s check of INPUT's fields, and the work and time
estimate (:mod:`dpsynrag.commands.plan`) printed before a build or a dry run, from a declared
``--expected-documents N`` or, with ``--measure-input``, from INPUT's own owner-only counts
(:mod:`dpsynrag.commands.input_profile`)."""

from __future__ import annotations

from typing import Any

from dpsynrag.commands.common import console
from dpsynrag.errors import ConfigError
from dpsynrag.methods import Method

__all__ = ["check_input_fields", "check_measure_input", "estimate"]


def check_input_fields(values: dict, config, identifier_fields: tuple[str, ...]) -> str:
    """``build --dry-run``: the named fields exist in INPUT, from field names only (a CSV header, a Parquet
    schema, a JSON-lines file's first object's keys; :func:`~dpsynrag.data.io.check_fields`). A task's data
    folder is not checked (the task reads it), nor an INPUT that does not exist yet (said). Returns what the
    dry run says it read ("" when nothing)."""
    if values["input"].is_dir():
        return ""
    if not values["input"].exists():
        console.print(f"{values['input']} does not exist (yet): its fields were not checked.")
        return ""
    from dpsynrag.data.io import check_fields

    fields = {"--text-field": values["text_field"], "--id-field": values["id_field"],
              "--identifier-field": identifier_fields,
              "--privacy-unit-field": getattr(config, "privacy_unit_field", None)}
    check_fields(values["input"], fields)
    return "INPUT's field names checked (no document read)"


def check_measure_input(values: dict[str, Any], method: Method) -> None:
    """``--measure-input`` goes with ``--dry-run``, without ``--expected-documents``, for DP-SynRAG, on an INPUT
    that exists (checked first: a misuse stops before the plan is printed, a ledger opened or a model loaded).

    Raises:
        ConfigError: it does not.
    """
    if not values.get("measure_input"):
        return
    if not values["dry_run"] or values["expected_documents"] is not None:
        raise ConfigError("--measure-input counts the work on INPUT's own documents in a dry run: use it with "
                          "--dry-run and without --expected-documents.")
    if method.name != "dp-synrag":
        raise ConfigError(f"--measure-input: the work is estimated for --method dp-synrag only, not {method.name}.")
    if not values["input"].exists():
        raise ConfigError(f"--measure-input: {values['input']} does not exist.")


def _profile(values: dict[str, Any], config, identifier_fields: tuple[str, ...], lm, embedder):
    """INPUT read once as the build reads it, profiled (:func:`~dpsynrag.commands.input_profile.measure_input`),
    with a progress bar on stderr."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from dpsynrag.commands.common import err_console
    from dpsynrag.commands.input_profile import measure_input
    from dpsynrag.commands.redact import input_documents
    from dpsynrag.data.io import max_document_chars

    documents = input_documents(values, identifier_fields, max_document_chars(config.max_document_tokens))
    columns = (TextColumn("reading INPUT (owner-only counts)"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=err_console, transient=True) as bar:
        task = bar.add_task("read", total=len(documents) if hasattr(documents, "__len__") else None)
        return measure_input(documents, config, lm, embedder, on_document=lambda: bar.advance(task))


def _say_slower(config, lm, values: dict[str, Any]) -> None:
    """What the estimate does not count, said after it: a ``--memory-budget-gb`` below one decoding row (every
    batch then holds one cluster, several times slower: :func:`~dpsynrag.models.loading.small_budget_warning`,
    public sizes only), and ``--ray`` (the estimate is one process's)."""
    from dpsynrag.commands.common import err_console
    from dpsynrag.models.loading import decoding_row_bytes, memory_budget, small_budget_warning

    row = decoding_row_bytes(lm, config.max_document_tokens, config.calibrate().T)  # as private prediction's
    warning = small_budget_warning(memory_budget(config.memory_budget_gb, lm.device), row)
    if warning and config.synthesis != "phrases":
        err_console.print(f"[bold yellow]warning:[/] {warning} The estimate above does not count that.")
    if values.get("ray"):
        console.print("--ray: the estimate is for this one process; the per-document stages and private prediction "
                      "run on the Ray workers (docs/scale.md).")


def estimate(config, method: Method, values: dict[str, Any], *, filter_prompt: str | None, dry_run: bool,
             identifier_fields: tuple[str, ...] = ()):
    """Print the work of the build (and its timed estimate); returns the models it loaded ``(lm, embedder)``
    for the build to reuse, or ``(None, None)``. The work is counted for ``values["expected_documents"]``, or
    with ``values["measure_input"]`` (a dry run only) on INPUT's own counts. A real build estimated over 30
    minutes says so first. With the models loaded, a build whose prompts would not fit the model's context is
    refused here (:func:`~dpsynrag.pipeline.context.check_context`, public numbers only), so a dry run says so too.

    Raises:
        ConfigError: a stage's longest prompt exceeds the model's positions.
    """
    from dpsynrag.commands.common import err_console
    from dpsynrag.commands.plan import (SLOW_BUILD_S, estimate_seconds, estimate_work, minutes, time_model,
                                        timing_note, work_table)
    from dpsynrag.pipeline.config import BuildConfig

    expected, measure = values["expected_documents"], values.get("measure_input", False)
    if not isinstance(config, BuildConfig):
        if expected is not None:
            console.print(f"work: estimated for --method dp-synrag only, not {method.name}.")
        return None, None
    if expected is None and not measure:
        console.print("work: pass --expected-documents N (a declared, public size; the real count is private"
                      + (" and a dry run reads no data; or --measure-input to count INPUT's own, owner-only)"
                         if dry_run else ") for the work and a time estimate."))
        return None, None
    import time

    from dpsynrag.models import Embedder, LanguageModel

    t = time.perf_counter()
    embedder = Embedder.load(config.embedder, device=config.device)  # the embedder first, as the build
    lm = LanguageModel.load(config.model, device=config.device, dtype=config.dtype)
    load_s = time.perf_counter() - t
    from dpsynrag.data.vocabulary import public_vocabulary
    from dpsynrag.pipeline.build import resolve_public_prompt
    from dpsynrag.pipeline.context import check_context

    vocabulary = None if config.open_vocabulary else public_vocabulary(config.vocabulary_size, config.language)
    check_context(lm, config, public_prompt=resolve_public_prompt(config), filter_prompt=filter_prompt,
                  vocabulary=vocabulary)
    profile = _profile(values, config, identifier_fields, lm, embedder) if measure else None
    work = estimate_work(config, expected, device=lm.device, self_filter=filter_prompt is not None, profile=profile)
    err_console.print(f"timing the model at the build's shapes: prompts of {config.max_document_tokens}-token documents, "
                      f"decode steps of {work.step_rows} rows (public filler, no data read) ...")
    timing = time_model(lm, embedder, config, work, load_s=load_s)
    console.print(work_table(work, timing, config))
    console.print(timing_note(timing, work))
    _say_slower(config, lm, values)
    seconds = estimate_seconds(work, timing)
    if not dry_run and seconds > SLOW_BUILD_S:
        err_console.print(f"[bold yellow]warning:[/] this build is estimated to take {minutes(seconds)} on this "
                          f"machine for {expected} documents (over {SLOW_BUILD_S // 60} minutes). Stop it now "
                          "(Ctrl-C) to choose smaller settings (--preset cpu, --R, --T, --extractor rarity) or a GPU.")
    return lm, embedder
