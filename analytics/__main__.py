"""python -m analytics: the command line (analytics/cli/main.py)."""

import sys

from analytics.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
