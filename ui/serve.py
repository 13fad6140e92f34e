"""Start the dashboard with the anti-framing headers installed before its server answers a first request.

`streamlit run app.py` adds them only once app.py has first run (ui/headers.py), so the very first page load of a
server would go without; scripts/dashboard.sh starts the server through this module instead:
`python -m ui.serve run app.py [streamlit options]`, the same arguments as the `streamlit` command."""

from __future__ import annotations

import sys

from streamlit.web import cli

import ui.headers  # noqa: F401 - installs the headers on import

if __name__ == "__main__":
    sys.exit(cli.main(prog_name="streamlit"))
