"""The command-line options of the registered methods (:class:`~dpsynrag.methods.Option`) as typer
parameters of ``dpsynrag build`` / ``budget`` / ``audit`` (:class:`RegistryCommand`): their ``--help`` panels,
their help naming the methods that take them, and the fields a typed option sets; and the options of the
models and the document file that these commands share."""

from __future__ import annotations

import inspect
from typing import Any, Optional

import typer

from dpsynrag.errors import ConfigError
from dpsynrag.methods import PANELS, Method, Option, get_method, methods

_KW = inspect.Parameter.KEYWORD_ONLY


def keyword_param(name: str, default: Any, annotation: Any) -> inspect.Parameter:
    return inspect.Parameter(name, _KW, default=default, annotation=annotation)


_CORE, _RUN, _OTHER_METHODS = PANELS[0], PANELS[4], PANELS[-1]
HELP_PANELS: dict[str, str] = {
    **dict.fromkeys(("--out", "--extend", "--epsilon", "--delta", "--method", "--preset", "--expected-documents",
                     "--conversion", "--task", "--filter-prompt", "--no-self-filter", "--model", "--embedder",
                     "--max-document-tokens", "--text-field", "--id-field", "--identifier-field", "--redact-pii",
                     "--pii-entities", "--pii-allow", "--pii-allow-file", "--pii-names-file", "--pii-model",
                     "--identifier-placeholder"),
                   _CORE),
    **dict.fromkeys(("--seed", "--dry-run", "--measure-input", "--json", "--overwrite", "--threads", "--ledger", "--lifetime-epsilon"), _RUN),
}
"""The ``--help`` panel of each flag of the commands themselves (``build`` / ``budget`` / ``audit``; typer's
``rich_help_panel``). A method's option says its own (:attr:`~dpsynrag.methods.Option.panel`; the built-in
ones in ``methods/options.toml``); a flag in neither shows in the last panel, "Other methods"."""


def with_panel(param: inspect.Parameter) -> inspect.Parameter:
    """``param`` with its ``--help`` panel (its own, else :data:`HELP_PANELS`) and its help escaped for rich markup
    (a lower-case ``[word]`` such as ``dpsynrag[ray]`` would otherwise be read as a style and dropped)."""
    from rich.markup import escape

    info = param.default
    if isinstance(info, typer.models.OptionInfo):
        flag = next((d for d in info.param_decls if d.startswith("--")), None)
        if info.rich_help_panel is None:
            info.rich_help_panel = HELP_PANELS.get(flag, _OTHER_METHODS)
        if info.help:
            info.help = escape(info.help)
    return param


def option_param(option: Option, owners: dict[str, list[str]], everyone: list[str]) -> inspect.Parameter:
    """The typer parameter of a method option; ``owners``: its help -> the methods giving it that help. The help
    names the methods (when not all of ``everyone``), one help per method when they differ."""
    methods_of = [m for names in owners.values() for m in names]
    if len(owners) == 1:
        (text, names), = owners.items()
        help = text if sorted(names) == sorted(everyone) else f"{text} (--method {', '.join(names)})"
    else:
        help = " ".join(f"{', '.join(names)}: {text}" for text, names in owners.items())
        if sorted(methods_of) != sorted(everyone):
            help += f" (--method {', '.join(methods_of)})"
    panel = option.panel
    if option.type is bool:
        return keyword_param(option.param, typer.Option(False, option.flag, help=help, rich_help_panel=panel), bool)
    return keyword_param(option.param, typer.Option(None, option.flag, help=help, rich_help_panel=panel),
                         Optional[option.type])


def method_options(choices: list[Method], *, build: bool) -> list[Option]:
    """Every option of ``choices`` once, in registration order (``build=False``: config options only); of a flag
    that several methods give (the same type and role: :func:`~dpsynrag.methods.register` checks it), the
    first that names a ``--help`` panel."""
    seen: dict[str, Option] = {}
    for method in choices:
        for option in method.options:
            if option.build_only and not build:
                continue
            if seen.setdefault(option.flag, option).panel is None and option.panel is not None:
                seen[option.flag] = option
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
        verb = "does" if len(foreign) == 1 else "do"
        raise ConfigError(f"{', '.join(foreign)} {verb} not apply to --method {method.name}.")
    fields: dict[str, Any] = {}
    build: dict[str, Any] = {}
    for flag in typed:
        option = own[flag]
        value = option.value if option.type is bool else values[option.param]
        (build if option.build_only else fields)[option.field] = value
    return fields, build


def choose_method(name: str, choices: list[Method]) -> Method:
    """The method ``name`` among ``choices``; the error lists only ``choices`` (not every registered method)."""
    names = [m.name for m in choices]
    if name not in names:
        raise ConfigError(f"`--method` must be one of {', '.join(names)}. Found {name!r}.")
    return get_method(name)


def in_panel_order(params: list[inspect.Parameter]) -> list[inspect.Parameter]:
    """``params`` with their ``--help`` panels (:func:`with_panel`), sorted so that typer, which shows the
    panels in the order of their first parameter, shows core, keywords, decoding, index, run, other methods."""
    params = [with_panel(p) for p in params]
    return sorted(params, key=lambda p: PANELS.index(getattr(p.default, "rich_help_panel", None) or _CORE))


class RegistryCommand:
    """A typer command whose options are its ``common()`` parameters plus the registered methods' options,
    read from the registry each time the command line is parsed (so a method registered later is offered)."""

    build_options = True

    def choices(self) -> list[Method]:
        return [m for m in methods("corpus") if not m.ablation]

    def common(self) -> list[inspect.Parameter]:
        raise NotImplementedError

    def arrange(self, common: list[inspect.Parameter], offered: list[inspect.Parameter]) -> list[inspect.Parameter]:
        """The parameters in ``--help`` order (``common`` starts with ``ctx``; ``offered``: the methods' options):
        each in its panel (:func:`in_panel_order`)."""
        return in_panel_order([*common, *offered])

    @property
    def __signature__(self) -> inspect.Signature:
        common = [keyword_param("ctx", inspect.Parameter.empty, typer.Context), *self.common()]
        taken = {p.name for p in common}
        choices = self.choices()
        owners: dict[str, dict[str, list[str]]] = {}  # flag -> help -> methods
        for method in choices:
            for option in method.options:
                owners.setdefault(option.flag, {}).setdefault(option.help, []).append(method.name)
        offered = [option_param(o, owners[o.flag], [m.name for m in choices])
                   for o in method_options(choices, build=self.build_options) if o.param not in taken]
        return inspect.Signature(self.arrange(common, offered))

    @property
    def __annotations__(self) -> dict[str, Any]:  # read by typing.get_type_hints
        return {p.name: p.annotation for p in self.__signature__.parameters.values()}


def model_params() -> list[inspect.Parameter]:
    """``--model`` and ``--embedder`` of a build (``build``, ``audit``): None = the offline defaults."""
    return [
        keyword_param("model", typer.Option(None, "--model", help="Language model: hub id, folder or GGUF file (default: offline SmolLM2-135M-Instruct)."), Optional[str]),
        keyword_param("embedder", typer.Option(None, "--embedder", help="Sentence-transformers model id or folder (default: offline all-MiniLM-L6-v2)."), Optional[str]),
    ]


def document_params() -> list[inspect.Parameter]:
    """How a build reads the document file (``build``, ``audit``): ``--max-document-tokens`` (None: the config's
    default), ``--text-field``, ``--id-field``."""
    return [
        keyword_param("max_document_tokens", typer.Option(None, "--max-document-tokens", help="Truncate each document to this many tokens (default 256)."), Optional[int]),
        keyword_param("text_field", typer.Option("text", "--text-field", help="Field holding the document text."), str),
        keyword_param("id_field", typer.Option(None, "--id-field", help="Field holding a unique document id."), Optional[str]),
    ]
