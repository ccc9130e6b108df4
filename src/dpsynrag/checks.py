"""One place for argument checks: the shared number guards, and user-facing errors that name the
command-line flag the user typed.

The guards reject what Python would otherwise accept silently (``True`` as the integer 1, NaN and ±inf as
numbers) and raise :class:`~dpsynrag.errors.ConfigError` in the usual template (the name, the rule, the
value found). The command line turns pydantic's ``ValidationError`` and our own messages, which name
config fields (``temperature``, ``max_new_tokens``, …), into messages naming the flags (``--tau``,
``--T``, …) with :func:`error_message`, and finds the options the user typed with :func:`typed_flags`.
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Mapping

from dpsynrag.errors import ConfigError

__all__ = ["FLAGS", "check_int", "check_real", "error_message", "flag_names", "typed_flags"]


def _label(name: str) -> str:
    return name if name.startswith("-") else f"`{name}`"


def _or_none(name: str, optional: bool) -> str:
    return " or None" if optional and not name.startswith("-") else ""  # a flag's None is "not given"


def check_int(name: str, value, *, minimum: int = 1, maximum: int | None = None, optional: bool = False) -> int | None:
    """``value`` as an ``int``: an integer (Python or NumPy, not a bool) in [``minimum``, ``maximum``].

    Args:
        name: the argument's name (a flag such as ``"--top-k"`` is printed as is, a field in backquotes).
        optional: None is accepted (and returned): "not given".

    Raises:
        ConfigError: "`name` must be an integer >= minimum[ and <= maximum][ or None]. Found value." (a
            flag's message leaves out "or None")
    """
    if value is None and optional:
        return None
    if (isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum
            or (maximum is not None and value > maximum)):
        rule = f">= {minimum}" + ("" if maximum is None else f" and <= {maximum}") + _or_none(name, optional)
        raise ConfigError(f"{_label(name)} must be an integer {rule}. Found {value!r}.")
    return int(value)


def check_real(name: str, value, *, above: float | None = None, at_least: float | None = None,
               below: float | None = None, optional: bool = False) -> float | None:
    """``value`` as a ``float``: a finite real number (not a bool, NaN or ±inf) with ``value > above``,
    ``value >= at_least`` and ``value < below`` for the bounds given.

    Raises:
        ConfigError: "`name` must be a finite number > above[ and < below][ or None]. Found value."
    """
    if value is None and optional:
        return None
    ok = not isinstance(value, bool) and isinstance(value, numbers.Real) and math.isfinite(value)
    ok = ok and (above is None or value > above) and (at_least is None or value >= at_least)
    ok = ok and (below is None or value < below)
    if not ok:
        bounds = [f"> {above:g}" if above is not None else "", f">= {at_least:g}" if at_least is not None else "",
                  f"< {below:g}" if below is not None else ""]
        rule = " and ".join(b for b in bounds if b)
        rule = "a finite number" + (f" {rule}" if rule else "") + _or_none(name, optional)
        raise ConfigError(f"{_label(name)} must be {rule}. Found {value!r}.")
    return float(value)


FLAGS: Mapping[str, str] = {
    **{name: f"--{name}" for name in (
        "epsilon", "delta", "K", "R", "L", "k", "T", "seed", "language", "extractor", "split", "conversion",
        "clustering", "decoding", "selection", "iterations", "task", "model", "embedder", "utility", "composition",
        "description",
    )},
    **{name: "--" + name.replace("_", "-") for name in (
        "max_document_tokens", "batch_size", "open_vocabulary", "open_vocabulary_delta", "filter_prompt",
        "match_text", "public_prompt", "public_weight", "invisibleink_lambda", "public_top_k",
        "public_top_k_margin", "rho_hist", "epsilon_theta", "rho_embed", "num_batches", "population_size",
        "num_nearest_neighbor", "epsilon_per_query", "retrieval_epsilon", "total_epsilon", "top_p", "top_k",
        "text_field", "id_field", "fluency_threshold", "identifier_placeholder",
    )},
    "redact_identifiers": "--identifier-field",
    "redact_pii": "--redact-pii",
    "pii_entities": "--pii-entities",
    "pii_allow": "--pii-allow",
    "pii_model": "--pii-model",
    "pii_names": "--pii-names-file",
    "temperature": "--tau",
    "self_filter": "--no-self-filter",
    "outlier_removal": "--no-outlier-removal",
}
"""The command-line flag of each config field (``BuildConfig``, the baselines' configs, ``DPRAGConfig``)
that ``build``, ``budget``, ``audit``, ``demo`` and ``query`` set; a command passes its own additions
(``aug-pe``'s ``L`` is ``--pe-L``, DP-RAG's ``max_new_tokens`` is ``--T``, …) to :func:`error_message`."""

_FIELD = re.compile(r"`([A-Za-z_][A-Za-z0-9_]*)`")


def flag_names(message: str, flags: Mapping[str, str]) -> str:
    """``message`` with each backquoted field name that ``flags`` maps (```temperature```) replaced by
    its flag (``--tau``); a flag repeated in parentheses right after it is said once."""

    def sub(m: re.Match) -> str:
        return flags.get(m.group(1), m.group(0))

    out = _FIELD.sub(sub, message)
    for flag in set(flags.values()):  # "--flag (--flag)" and "--flag 'x' (--flag x)": say it once
        out = re.sub(rf"{re.escape(flag)}( [^()]*?)? \({re.escape(flag)}\b[^)]*\)", lambda m: flag + (m.group(1) or ""), out)
    return out


def _pydantic_message(exc, flags: Mapping[str, str]) -> str:
    parts = []
    for e in exc.errors():
        where = ".".join(str(x) for x in e.get("loc", ()))
        msg = str(e.get("msg", "")).removeprefix("Value error, ")
        found = f" (found {e.get('input')!r})"
        if not where or isinstance(e.get("input"), dict) or msg.rstrip(".").endswith(f"Found {e.get('input')!r}"):
            found = ""  # a model-level check (no field) names its fields itself; or it quotes the value already
        label = f"{flags[where]} (`{where}`): " if where in flags else (f"`{where}`: " if where else "")
        parts.append(f"{label}{flag_names(msg, flags)}{found}")
    return "; ".join(parts)


def error_message(exc: BaseException, extra: Mapping[str, str] | None = None, *,
                  base: Mapping[str, str] = FLAGS) -> str:
    """The message a command prints for ``exc``, naming flags instead of config fields.

    A pydantic ``ValidationError`` becomes "--flag (`field`): rule (found value)" for each invalid
    field, "; "-separated (a model-level check gives its own message); any other error keeps its text
    with backquoted field names replaced by flags. ``base`` maps fields to the command's flags (default
    :data:`FLAGS`); ``extra`` adds or overrides pairs for one command.
    """
    from pydantic import ValidationError

    flags = {**base, **(extra or {})}
    if isinstance(exc, ValidationError):
        return _pydantic_message(exc, flags)
    return flag_names(str(exc), flags)


def typed_flags(ctx, names=None) -> list[str]:
    """The options of ``ctx``'s command that the user gave (on the command line or through an
    environment variable), as their first flag (``--top-k``), in the command's order.

    Args:
        ctx: the ``typer.Context`` (a ``click.Context``) of the running command.
        names: only these parameters (Python names); None: all.
    """
    given = ("COMMANDLINE", "ENVIRONMENT")  # by name: typer vendors its own click, with its own enum
    return [
        (p.opts[0] if p.opts else p.name) for p in ctx.command.params
        if (names is None or p.name in names) and getattr(ctx.get_parameter_source(p.name), "name", None) in given
    ]
