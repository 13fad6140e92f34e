"""Rules of the style guide that a reader cannot check at a glance, checked on the source: SQL binds its values
by name (DESIGN.md, Style: named query objects with named parameters), and pages hold no SQL."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RUNNERS = ("execute", "executemany", "sql")


def _calls(folder: str) -> list[tuple[Path, ast.Call]]:
    """Every call of a DuckDB runner (`execute`, `executemany`, `sql`) in the Python files under `folder`."""
    out = []
    for path in sorted((ROOT / folder).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in RUNNERS:
                out.append((path, node))
    return out


def _sql_text(node: ast.expr) -> str:
    """The literal text of a call's SQL argument (an f-string's literal parts; '' when built elsewhere)."""
    parts = node.values if isinstance(node, ast.JoinedStr) else [node]
    return "".join(p.value for p in parts if isinstance(p, ast.Constant) and isinstance(p.value, str))


def _positional(call: ast.Call) -> bool:
    """Whether the call binds parameters by position: a `?` in its SQL (outside quoted text), or values given as a
    list or tuple (named ones are a dict; executemany's rows, dicts)."""
    text = _sql_text(call.args[0]) if call.args else ""
    if "?" in "".join(text.split("'")[::2]):
        return True
    params = [*call.args[1:2], *(k.value for k in call.keywords if k.arg == "parameters")]
    for p in params:
        rows = p.elts if isinstance(p, ast.List) else [p.elt] if isinstance(p, ast.ListComp) else []
        if isinstance(call.func, ast.Attribute) and call.func.attr == "executemany":
            if any(isinstance(r, ast.List | ast.Tuple) for r in rows):
                return True
        elif isinstance(p, ast.ListComp | ast.GeneratorExp) or (isinstance(p, ast.List | ast.Tuple) and p.elts):
            return True
    return False


def test_analytics_binds_sql_parameters_by_name():
    found = [f"{p.relative_to(ROOT)}:{c.lineno}" for p, c in _calls("analytics") if _positional(c)]
    assert found == [], f"SQL with positional parameters (use a named Query with $name parameters): {found}"


def test_the_rule_sees_positional_parameters():
    def call(code: str) -> ast.Call:
        (statement,) = ast.parse(code).body
        assert isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)
        return statement.value

    for code in (
        "con.execute('SELECT ?', [1])",
        "con.execute(f'SELECT {x} WHERE a = ?', params)",
        "con.execute('SELECT $a', [1])",
        "con.executemany('INSERT INTO t VALUES ($a)', [(r,) for r in rows])",
    ):
        assert _positional(call(code)), code
    for code in (
        "con.execute('SELECT $x', {'x': 1})",
        "con.execute('SELECT 1', [])",
        "con.execute(\"SELECT '?' WHERE a = $a\", params)",
        "con.executemany('INSERT INTO t VALUES ($a)', [{'a': r} for r in rows])",
    ):
        assert not _positional(call(code)), code


def test_pages_run_no_sql():
    found = [f"{p.relative_to(ROOT)}:{c.lineno}" for p, c in _calls("app_pages")]
    assert found == [], f"pages call analytics, never DuckDB: {found}"
