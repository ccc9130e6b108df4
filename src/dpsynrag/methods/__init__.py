"""The method registry (issue 13): every method of the library by name.

``dpsynrag build --method``, ``budget --method``, ``query --method``, ``eval --methods`` and the reports
look methods up here, so a new method is one module: subclass :class:`CorpusMethod` (a synthetic corpus
built once) or :class:`OnlineMethod` (answers per question), then :func:`register` an instance::

    from dpsynrag.methods import CorpusMethod, register

    class MyMethod(CorpusMethod):
        name, label = "my-method", "My method"
        ...

    register(MyMethod())

Built in (in report order): Non-RAG, RAG (no DP), DP-RAG, DP-Synth, Aug-PE, DP-SynRAG and its three
ablations (:mod:`dpsynrag.methods.builtin`).
"""

from __future__ import annotations

from dpsynrag.errors import ConfigError
from dpsynrag.methods.base import COMMAND_FLAGS, PANELS, CorpusMethod, Method, OnlineMethod, Option, read_options
from dpsynrag.pipeline.corpus_config import CorpusConfig, GenerationConfig

__all__ = ["COMMAND_FLAGS", "PANELS", "CorpusConfig", "CorpusMethod", "GenerationConfig", "Method", "OnlineMethod", "Option", "read_options", "get_method", "method_names", "methods",
           "register", "unregister"]

_REGISTRY: dict[str, Method] = {}


def register(method: Method, *, replace: bool = False) -> Method:
    """Add ``method`` to the registry (after the ones registered before it, in report order).

    Raises:
        ConfigError: a method of that name exists (unless ``replace``), or the name or kind is invalid, or
            its options clash (:func:`_check_options`).
    """
    name = getattr(method, "name", None)
    if not isinstance(name, str) or not name or name != name.strip().lower() or " " in name or "," in name:
        raise ConfigError(f"a method name must be lower case, without spaces or commas. Found {name!r}.")
    if method.kind not in ("corpus", "online"):
        raise ConfigError(f"method {name}: `kind` must be 'corpus' or 'online'. Found {method.kind!r}.")
    if name in _REGISTRY and not replace:
        raise ConfigError(f"a method named {name!r} is registered already.")
    _check_options(method, [m for m in _REGISTRY.values() if m.name != name])
    _REGISTRY[name] = method
    return method


def _check_options(method: Method, others: list[Method]) -> None:
    """Refuse options that would break ``build``/``budget``/``audit`` for every method: not an :class:`Option`,
    a flag of the commands themselves (:data:`COMMAND_FLAGS`), a flag given twice, or a flag that another
    method gives another type, switch value, role (``build_only``) or ``--help`` panel.

    Raises:
        ConfigError: the message names the method and the flag.
    """
    seen: dict[str, tuple[Option, str]] = {}
    for other in others:
        for option in other.options:
            seen.setdefault(option.flag, (option, other.name))  # the first method that gives the flag
    flags: set[str] = set()
    for option in method.options:
        if not isinstance(option, Option):
            raise ConfigError(f"method {method.name}: `options` holds {option!r}, not a dpsynrag.methods.Option.")
        if option.flag in COMMAND_FLAGS:
            raise ConfigError(f"method {method.name}: {option.flag} is a flag of the build/budget/audit commands "
                              "themselves; name the option otherwise.")
        if option.flag in flags:
            raise ConfigError(f"method {method.name}: {option.flag} is given more than once.")
        flags.add(option.flag)
        if option.flag in seen:
            other, owner = seen[option.flag]
            if (other.type, other.value, other.build_only) != (option.type, option.value, option.build_only):
                raise ConfigError(f"method {method.name}: {option.flag} differs from method {owner}'s {option.flag} "
                                  f"in type, switch value or role; use another flag.")
            if None not in (other.panel, option.panel) and other.panel != option.panel:
                raise ConfigError(f"method {method.name}: {option.flag} is in --help panel {option.panel!r}, "
                                  f"method {owner}'s in {other.panel!r}; one flag shows in one panel.")


def unregister(name: str) -> None:
    """Remove a method (e.g. a test's toy method). Unknown names are ignored."""
    _REGISTRY.pop(name, None)


def get_method(name: str) -> Method:
    """The registered method called ``name``.

    Raises:
        ConfigError: no such method (the message lists the registered ones).
    """
    try:
        return _REGISTRY[name]
    except KeyError:
        raise ConfigError(f"unknown method {name!r}; registered: {', '.join(_REGISTRY)}.") from None


def methods(kind: str | None = None) -> list[Method]:
    """The registered methods in report order (only those of ``kind`` when given)."""
    return [m for m in _REGISTRY.values() if kind is None or m.kind == kind]


def method_names(kind: str | None = None) -> list[str]:
    """Names of :func:`methods`."""
    return [m.name for m in methods(kind)]


from dpsynrag.methods.builtin import register_all  # noqa: E402  (the built-in methods)

register_all(register)
