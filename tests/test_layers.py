"""The house's floors (docs/architecture.md): every import in analytics/ runs to its own floor or a lower one, no
two modules import each other round a circle, and no analytics import hides inside a function (the command line
aside, whose lazy imports keep its start fast). The demo simulator lives outside the engine."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# Lowest first. A module may import its own floor and those below; within a floor, any order without circles.
FLOORS: list[tuple[str, ...]] = [
    ("analytics",),  # the package itself: its version only
    ("analytics.core", "analytics.access"),  # access: the roles file and table, stdlib only
    ("analytics.store",),
    ("analytics.explore",),
    ("analytics.agreement",),
    ("analytics.describe",),
    ("analytics.review",),
    ("analytics.consistency",),
    ("analytics.ingest",),
    ("analytics.engines",),
    ("analytics.effects",),
    ("analytics.alarms",),
    ("analytics.model",),
    ("analytics.feedback",),
    ("analytics.plan",),
    ("analytics.cli", "analytics.__main__"),
]
LAZY_IMPORTS_ALLOWED = ("analytics.cli", "analytics.__main__")


def modules(top: str = "analytics") -> dict[str, Path]:
    """Every module under `top`, by dotted name."""
    found = {}
    for path in (ROOT / top).rglob("*.py"):
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        found[name.removesuffix(".__init__")] = path
    return found


def floor_of(module: str) -> int:
    """The index of the floor holding `module` (the longest matching prefix)."""
    best, floor = -1, -1
    for i, prefixes in enumerate(FLOORS):
        for p in prefixes:
            if (module == p or module.startswith(p + ".")) and len(p) > best:
                best, floor = len(p), i
    return floor


def imports(module: str, path: Path, known: dict[str, Path]) -> list[tuple[str, int, bool]]:
    """(imported module, line, inside a function) for each analytics or demo module `module` imports."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    in_function = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            in_function.update(id(sub) for sub in ast.walk(node))
    out = []
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            assert not node.level, f"{module}:{node.lineno}: relative import"
            base = node.module or ""
            names = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute | ast.Name)
            and getattr(node.func, "attr", getattr(node.func, "id", "")) in ("import_module", "__import__")
            and node.args
            and isinstance(node.args[0], ast.Constant | ast.JoinedStr)
        ):
            arg = node.args[0]
            text = (
                arg.value
                if isinstance(arg, ast.Constant)
                else "".join(v.value for v in arg.values if isinstance(v, ast.Constant))
            )
            names = [str(text)]
        for n in names:
            if n.split(".")[0] in ("analytics", "demo") and n != module:
                out.append((n, node.lineno, id(node) in in_function))
    return out


@functools.cache
def graph() -> dict[str, list[tuple[str, int, bool]]]:
    """Each analytics module's imports of analytics and demo modules."""
    known = modules() | modules("demo")
    return {m: imports(m, p, known) for m, p in modules().items()}


def test_every_module_has_a_floor():
    assert [m for m in modules() if floor_of(m) < 0] == []


def test_no_import_climbs():
    climbing = [
        f"{m}:{line} imports {target} (floor {FLOORS[floor_of(target)][0]} is above {FLOORS[floor_of(m)][0]})"
        for m, edges in graph().items()
        for target, line, _ in edges
        if target.startswith("analytics") and floor_of(target) > floor_of(m)
    ]
    assert climbing == []


def test_the_engine_does_not_import_the_demo_simulator_except_the_command_line():
    found = [
        f"{m}:{line}"
        for m, edges in graph().items()
        for target, line, _ in edges
        if target.startswith("demo") and not m.startswith(LAZY_IMPORTS_ALLOWED)
    ]
    assert found == []
    assert not (ROOT / "analytics" / "demo").exists()


def test_no_import_hides_inside_a_function():
    hidden = [
        f"{m}:{line} imports {target}"
        for m, edges in graph().items()
        for target, line, inside in edges
        if inside and not m.startswith(LAZY_IMPORTS_ALLOWED)
    ]
    assert hidden == []


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for start in edges:
        if start in index:
            continue
        work = [(start, iter(sorted(edges.get(start, ()))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            v, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[v] = min(low[v], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                component = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    component.append(w)
                    if w == v:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_circle():
    edges = {m: {t for t, _, _ in imp if t.startswith("analytics")} for m, imp in graph().items()}
    assert circles(edges) == []


@pytest.mark.parametrize(
    "edges, expected",
    [
        ({"a": {"b"}, "b": {"a"}}, [["a", "b"]]),
        ({"a": {"b"}, "b": {"c"}, "c": set()}, []),
        ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [["a", "b", "c"]]),
    ],
)
def test_the_circle_finder(edges, expected):
    assert circles(edges) == expected


def test_floors_of_names():
    assert floor_of("analytics.core.filters") < floor_of("analytics.store.people") < floor_of("analytics.ingest.load")
    assert floor_of("analytics.__main__") == floor_of("analytics.cli.handover") == len(FLOORS) - 1
