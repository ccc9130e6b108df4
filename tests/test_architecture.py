"""The package layout (ARCHITECTURE.md, issue 31): no import cycle, no module over 500 lines, nothing
loose at the top of the package but its face and shared leaf utilities, and every public import path
the README and the docs/ pages show still imports."""

from __future__ import annotations

import ast
import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "dpsynrag"
MAX_LINES = 500
# the package face (__init__, the CLI entry point cli.py), errors.py and the shared leaf utilities
TOP_LEVEL = {"__init__.py", "cli.py", "errors.py", "checks.py", "threads.py", "rng.py", "textkeys.py", "__main__.py"}


def _modules() -> dict[str, tuple[Path, bool]]:
    """Dotted module name -> (file, is a package ``__init__``)."""
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        out[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return out


def _type_checking_only(tree: ast.AST) -> set[int]:
    """ids of the import nodes under ``if TYPE_CHECKING:`` (never executed)."""
    skip = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skip.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    return skip


def import_graph() -> dict[str, set[str]]:
    """Module -> the package modules importing it runs: module-level *and* function-local imports (a
    local import that dodges a cycle is still a cycle), each with the packages above it whose
    ``__init__`` the import runs (those above the importer have run already). ``TYPE_CHECKING``
    imports are left out."""
    modules = _modules()
    graph = {}
    for name, (path, is_package) in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        package = name if is_package else name.rpartition(".")[0]
        skip = _type_checking_only(tree)
        targets = set()
        for node in ast.walk(tree):
            if id(node) in skip:
                continue
            if isinstance(node, ast.Import):
                targets.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(anchor + ([node.module] if node.module else []))
                for alias in node.names:  # `from pkg import submodule` imports the submodule
                    targets.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base)
        above = {".".join(name.split(".")[:i]) for i in range(1, name.count(".") + 1)}
        deps = set()
        for target in targets:
            parts = target.split(".")
            for i in range(1, len(parts) + 1):
                prefix = ".".join(parts[:i])
                if prefix in modules and prefix not in above and prefix != name:
                    deps.add(prefix)
        graph[name] = deps
    return graph


def find_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return cycles


def test_cycle_finder_finds_a_cycle_through_a_package_init_and_a_local_import():
    graph = {"p": {"p.a"}, "p.a": set(), "q.b": {"p"}, "p.c": {"q.b"}}
    assert find_cycles(graph) == []
    graph["p.a"] = {"q.b"}  # p.a -> q.b -> p (its __init__) -> p.a
    assert find_cycles(graph) == [["p", "p.a", "q.b"]]


def test_no_import_cycle():
    graph = import_graph()
    assert graph["dpsynrag.methods.builtin"], "the graph must see the registry's imports"
    assert find_cycles(graph) == []


# the method implementations and everything they build on (ARCHITECTURE.md)
BELOW_THE_REGISTRY = {"baselines", "pipeline", "privacy", "models", "data", "tasks", "rag", "corpus"}


def _imports_registry(deps: set[str]) -> bool:
    return any(d == "dpsynrag.methods" or d.startswith("dpsynrag.methods.") for d in deps)


def test_methods_never_import_the_registry():
    graph = import_graph()
    below = {m for m in graph if m.count(".") >= 1 and m.split(".")[1] in BELOW_THE_REGISTRY}
    assert sorted(m for m in below if _imports_registry(graph[m])) == []
    assert _imports_registry(graph["dpsynrag.eval.config"])  # the check sees a registry import


# the layers of ARCHITECTURE.md, lowest first: a package imports only packages of lower layers
LAYERS = [
    {"errors"},
    {"checks", "threads", "rng", "textkeys"},
    {"privacy", "data", "rag"},
    {"models", "tasks"},
    {"corpus"},
    {"pipeline"},
    {"baselines"},
    {"methods"},
    {"audit", "serve", "integrations"},
    {"eval"},
    {"commands"},
    {"cli"},
    {"__main__"},
]


def test_packages_import_only_lower_layers():
    layer = {name: i for i, names in enumerate(LAYERS) for name in names}
    tops = {p.stem if p.suffix else p.name for p in PACKAGE.iterdir()
            if (p.suffix == ".py" and p.stem != "__init__") or (p.is_dir() and any(p.glob("*.py")))}
    assert tops == set(layer), "every top-level package and module has a layer"
    upward = sorted(f"{m} -> {d}" for m, deps in import_graph().items() if m.count(".") for d in deps
                    if d.count(".") and layer[d.split(".")[1]] >= layer[m.split(".")[1]]
                    and d.split(".")[1] != m.split(".")[1])
    assert upward == []


def test_only_the_command_line_imports_commands():
    graph = import_graph()
    importers = sorted(m for m, deps in graph.items()
                       if not m.startswith(("dpsynrag.commands", "dpsynrag.cli", "dpsynrag.__main__"))
                       and any(d.startswith(("dpsynrag.commands", "dpsynrag.cli")) for d in deps))
    assert importers == []


def test_no_module_over_500_lines():
    long = {str(p.relative_to(PACKAGE)): n for p, _ in _modules().values()
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}


def test_nothing_loose_at_the_top():
    loose = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert set(loose) - TOP_LEVEL == set()


def _is_module(path: str) -> bool:
    try:
        return importlib.util.find_spec(path) is not None
    except ModuleNotFoundError:
        return False


def _readme_imports() -> list[str]:
    """Every ``from dpsynrag... import ...`` / ``import dpsynrag...`` statement in the code blocks of the README
    and the ``docs/`` pages, and every ``dpsynrag.module.name`` path their prose names in backticks."""
    text = "\n".join(page.read_text(encoding="utf-8") for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))])
    statements = []
    for block in re.findall(r"```[a-z]*\n(.*?)```", text, flags=re.S):
        for line in block.splitlines():
            code = line.split("#")[0].strip()
            if re.match(r"(from dpsynrag(\.\w+)* import |import dpsynrag)", code):
                statements.append(code)
    for path in re.findall(r"`(dpsynrag(?:\.\w+)+)[`(]", text):
        statements.append(f"import {path}" if _is_module(path) else _from_statement(path))
    return sorted(set(statements))


def _from_statement(path: str) -> str:
    module, _, name = path.rpartition(".")
    return f"from {module} import {name}"


README_IMPORTS = _readme_imports()


def test_the_readme_shows_imports():
    assert len(README_IMPORTS) >= 10
    assert "from dpsynrag.corpus import SyntheticCorpus" in README_IMPORTS


@pytest.mark.parametrize("statement", README_IMPORTS)
def test_readme_import_paths_work(statement):
    exec(compile(statement, "<README or docs/>", "exec"), {})


# paths users had before the package layout (issue 31) that the package faces keep
KEPT_PATHS = [
    "from dpsynrag.corpus import CorpusWriter, SyntheticCorpus, content_warning",
    "from dpsynrag.rag import DEFAULT_SYSTEM_PROMPT, Answer, RAGAnswerer, VectorIndex, answer_user_prompt, check_questions",
    "from dpsynrag.serve import BatchPolicy, CorpusService, MicroBatcher, ServiceLimits, ServiceUnavailable, create_app",
    "from dpsynrag.audit import AUDIT_FILE, audit_row, make_canaries, membership_scores, run_audit, run_audit_sweep",
    "from dpsynrag.data import Document, load_documents, read_jsonl, write_jsonl_atomic",
    "from dpsynrag.methods import CorpusConfig, CorpusMethod, get_method",
    "from dpsynrag.baselines import build_aug_pe, build_dp_synth",
    "from dpsynrag.cli import app",
]


@pytest.mark.parametrize("statement", KEPT_PATHS)
def test_kept_import_paths_work(statement):
    exec(compile(statement, "<kept>", "exec"), {})
