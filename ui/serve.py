"""Start the dashboard with the anti-framing headers installed before its server answers a first request, and the
pages' libraries imported while it starts.

`streamlit run app.py` adds the headers only once app.py has first run (ui/headers.py), so the very first page load
of a server would go without; scripts/dashboard.sh starts the server through this module instead:
`python -m ui.serve run app.py [streamlit options]`, the same arguments as the `streamlit` command.

A first visit used to wait about 4.7 s for Python to import pandas, Altair, SciPy, scikit-learn and the engine
(bench/RESULTS.md, issue 50 item 9): the server imports them in a background thread as it starts (`preload`), so a
visitor who comes after that finds them loaded, and one who comes sooner waits only for the rest."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import sys
import threading
from pathlib import Path

from streamlit import delta_generator
from streamlit.web import cli

import ui.headers  # noqa: F401 - installs the headers on import

ROOT = Path(__file__).resolve().parent.parent
# Not preloaded: the pages' own helpers (ui: their Streamlit caches are declared when the server runs a page) and
# Streamlit, which the server has already imported.
NOT_PRELOADED = ("ui", "app_pages", "streamlit", "__future__")
# Imported by a library on first use rather than by the pages: pandas' Styler (DataFrame.style, the tables with
# coloured cells) and jinja2 under it, about 0.23 s of the first page that draws one.
LAZY = ("pandas.io.formats.style",)


def page_imports(root: Path = ROOT) -> list[str]:
    """The modules app.py, the pages and their ui helpers import, leaving out NOT_PRELOADED, in first-seen order."""
    files = [root / "app.py", *sorted((root / "app_pages").glob("*.py")), *sorted((root / "ui").glob("*.py"))]
    names: dict[str, None] = {}
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names.update(dict.fromkeys(a.name for a in node.names))
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names[node.module] = None
                names.update(dict.fromkeys(f"{node.module}.{a.name}" for a in node.names if a.name != "*"))
    return [n for n in names if n.split(".")[0] not in NOT_PRELOADED]


def preload(names: list[str] | None = None) -> list[str]:
    """Import each of `names` (page_imports by default) that is a module; the names imported."""
    done = []
    for name in [*page_imports(), *LAZY] if names is None else names:
        parent, _, _ = name.rpartition(".")
        if parent and parent not in sys.modules and not _is_module(parent):
            continue
        if _is_module(name):
            importlib.import_module(name)
            done.append(name)
    return done


def _is_module(name: str) -> bool:
    """Whether `name` names an importable module (not a function or class imported from one)."""
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def not_a_repl() -> None:
    """Skip Streamlit's once-a-process check, at the first element a page draws, of whether it runs in a Python
    REPL: it reads the source of every frame of the run (about 0.2 s of the first visit on the 2-core machine) to
    decide whether to print a hint; a server started here never is one."""
    delta_generator._use_warning_has_been_displayed = True  # Streamlit 1.x: the flag that check sets once


def starting() -> threading.Thread:
    """What the server does as it starts, before its first visitor: no REPL check, and preload in a background
    thread (returned)."""
    not_a_repl()
    thread = threading.Thread(target=preload, name="concord-preload", daemon=True)
    thread.start()
    return thread


if __name__ == "__main__":
    starting()
    sys.exit(cli.main(prog_name="streamlit"))
