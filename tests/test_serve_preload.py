"""The dashboard's server imports the pages' libraries while it starts (ui/serve.py preload; issue 50 item 9: a
first visit waited about 4.7 s for the imports): after preload, the app's first run imports no library and no
module of the engine, preloading prints no warning, and Streamlit's REPL check (about 0.2 s) is not run."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.conftest import ROOT
from ui import serve

CHILD = """
import json, sys
sys.path.insert(0, {root!r})
import streamlit.env_util as env_util
repl_checks = []
env_util.is_repl = lambda: repl_checks.append(1) or False
from ui.serve import starting
starting().join()
print("preloaded", file=sys.stderr, flush=True)
before = set(sys.modules)
from streamlit.testing.v1 import AppTest
after_testing = set(sys.modules)
at = AppTest.from_file({app!r}, default_timeout=300).run()
assert not at.exception, at.exception
print(json.dumps([len(repl_checks), sorted(set(sys.modules) - after_testing)]))
"""


def test_page_imports_name_the_engine_and_its_libraries_not_the_pages_helpers():
    names = serve.page_imports()
    assert {"pandas", "altair", "duckdb", "analytics.alarms.review", "analytics.describe.overview"} <= set(names)
    assert not [n for n in names if n.split(".")[0] in ("ui", "app_pages", "streamlit")]


def test_after_starting_the_first_run_imports_no_library_and_no_engine_module(app_store):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", CHILD.format(root=str(ROOT), app=str(ROOT / "app.py"))],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    preloading = done.stderr.split("preloaded")[0]
    assert "WARNING" not in preloading and "Traceback" not in preloading, preloading
    repl_checks, new = json.loads(done.stdout.strip().splitlines()[-1])
    assert repl_checks == 0  # Streamlit's REPL check reads every frame's source on the first element drawn
    late = [m for m in new if m.split(".")[0] not in ("ui", "app_pages", "streamlit")]
    assert not [m for m in late if m.split(".")[0] == "analytics"], late
    # A library's own lazily imported parts (pandas' reshape on a first pivot) may come late; no library may.
    libraries = {"pandas", "numpy", "scipy", "altair", "duckdb", "pyarrow", "scipy.stats", "jinja2"}
    assert not libraries & set(late), late
