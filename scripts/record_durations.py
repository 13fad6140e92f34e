"""Record each test's measured time (setup, call and teardown) from a pytest JUnit XML report into
tests/durations.json, which tests/conftest.py reads to start the longest work first on the xdist workers and to
leave the tests over FAST_LIMIT_S out of the fast lane.

    .venv/bin/python -m pytest -n auto --dist loadgroup --junitxml=/tmp/junit.xml
    .venv/bin/python scripts/record_durations.py /tmp/junit.xml
"""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "durations.json"


def node_id(classname: str, name: str) -> str:
    """The pytest node id of a JUnit test case (classname 'tests.e2e.test_x.TestY', name 'test_z[p]')."""
    parts = classname.split(".")
    for i in range(len(parts), 0, -1):
        path = "/".join(parts[:i]) + ".py"
        if (ROOT / path).is_file():
            return "::".join([path, *parts[i:], name])
    raise ValueError(f"no test file for {classname}")


def main(report: str) -> int:
    """Write tests/durations.json from the JUnit report at `report`."""
    durations = {
        node_id(case.get("classname", ""), case.get("name", "")): round(float(case.get("time", 0)), 2)
        for case in ET.parse(report).getroot().iter("testcase")
    }
    OUT.write_text(json.dumps(dict(sorted(durations.items())), indent=0) + "\n", encoding="utf-8")
    print(f"{len(durations)} tests, {sum(durations.values()) / 60:.1f} min in all -> {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
