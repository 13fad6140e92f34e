#!/usr/bin/env bash
# Install what Concord needs on a fresh Debian machine: a venv with the pinned packages and, with --dev,
# the test tools, Debian's Chromium for the browser tests, and the Spark engine (pyspark from
# requirements-spark.txt, Debian's OpenJDK 17) for its parity tests. Safe to run again: it skips what is there.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
REQ=requirements.txt
if [ "${1:-}" = "--dev" ]; then
  REQ=requirements-dev.txt
  PKGS="chromium chromium-driver fonts-liberation fonts-dejavu-core libatomic1 openjdk-17-jre-headless"
  if ! dpkg -s $PKGS >/dev/null 2>&1; then
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    export DEBIAN_FRONTEND=noninteractive
    $SUDO mkdir -p /usr/share/man/man1  # slim Debian images lack it, and the JRE's post-install needs it
    $SUDO apt-get update -q
    $SUDO apt-get install -y -q --no-install-recommends $PKGS
  fi
fi
[ -x .venv/bin/python ] || "$PY" -m venv .venv
stamp=".venv/.installed-$(cat requirements.txt requirements-dev.txt requirements-spark.txt | sha256sum | cut -c1-16)-$(basename $REQ)"
if [ ! -f "$stamp" ]; then
  .venv/bin/pip install -q --disable-pip-version-check -r "$REQ"
  touch "$stamp"
fi
