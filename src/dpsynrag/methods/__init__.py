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
from dpsynrag.methods.base import PANELS, CorpusMethod, Method, OnlineMethod, Option, read_options
from dpsynrag.pipeline.corpus_config import CorpusConfig, GenerationConfig

__all__ = ["PANELS", "CorpusConfig", "CorpusMethod", "GenerationConfig", "Method", "OnlineMethod", "Option", "read_options", "get_method", "method_names", "methods",
           "register", "unregister"]

_REGISTRY: dict[str, Method] = {}


def register(method: Method, *, replace: bool = False) -> Method:
    """Add ``method`` to the registry (after the ones registered before it, in report order).

    Raises:
        ConfigError: a method of that name exists (unless ``replace``), or the name or kind is invalid.
    """
    name = getattr(method, "name", None)
    if not isinstance(name, str) or not name or name != name.strip().lower() or " " in name or "," in name:
        raise ConfigError(f"a method name must be lower case, without spaces or commas. Found {name!r}.")
    if method.kind not in ("corpus", "online"):
        raise ConfigError(f"method {name}: `kind` must be 'corpus' or 'online'. Found {method.kind!r}.")
    if name in _REGISTRY and not replace:
        raise ConfigError(f"a method named {name!r} is registered already.")
    _REGISTRY[name] = method
    return method


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
