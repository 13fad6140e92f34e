"""Starting Spark for the `--engine spark` path: local mode, a cluster's master, or Spark Connect.

Every way it can fail before any figure (pyspark not installed, no Java, a master nobody answers on) becomes one
SparkUnavailable with a line a person can act on, never a JVM stack trace.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import warnings
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

INSTALL_HINT = "pip install -r requirements-spark.txt"
JAVA_HINT = "install Java 17 (Debian: apt-get install openjdk-17-jre-headless) or set JAVA_HOME"
CONNECT_TIMEOUT_S = 5.0
LOG_CONFIG = Path(__file__).with_name("log4j2.properties")

# pyspark warns that it does not fully support pandas 3; results here come back as rows, never through pandas.
warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas", category=FutureWarning)


class SparkUnavailable(RuntimeError):
    """Spark cannot be started or reached; the message says why and what to do."""


def start(master: str | None = None, remote: str | None = None) -> Any:
    """A SparkSession on `master` (default local[*]) or, with `remote` (or $SPARK_REMOTE), Spark Connect."""
    try:
        from pyspark.sql import SparkSession
    except ImportError as e:
        raise SparkUnavailable(f"--engine spark needs pyspark, which is not installed: {INSTALL_HINT}") from e
    remote = remote or os.environ.get("SPARK_REMOTE")
    if remote:
        _check_reachable(remote, "Spark Connect server", default_port=15002)
        try:
            return SparkSession.builder.remote(remote).getOrCreate()
        except Exception as e:  # noqa: BLE001 - pyspark raises many kinds; the user needs one line
            raise SparkUnavailable(f"cannot use the Spark Connect server {remote}: {first_line(e)}") from e
    master = master or "local[*]"
    if not master.startswith("local"):
        _check_reachable(master, "Spark master", default_port=7077)
    _check_java()
    if master.startswith("local"):
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")  # local mode needs no network interface
    builder = (
        SparkSession.builder.master(master)
        .appName("concord")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.session.timeZone", "UTC")  # times without a zone are read as written, like the store
        .config("spark.sql.shuffle.partitions", os.environ.get("CONCORD_SPARK_PARTITIONS", "8"))
        .config("spark.driver.memory", os.environ.get("CONCORD_SPARK_DRIVER_MEMORY", "4g"))
        .config("spark.driver.extraJavaOptions", f"-Dlog4j2.configurationFile={LOG_CONFIG.as_uri()}")
    )
    try:
        spark = builder.getOrCreate()
    except Exception as e:  # noqa: BLE001
        raise SparkUnavailable(f"Spark could not start on {master}: {first_line(e)}") from e
    spark.sparkContext.setLogLevel("OFF")  # failures reach the user as one line, not as logged JVM traces
    return spark


def _check_java() -> None:
    """Java is where pyspark will look for it (JAVA_HOME, else PATH) and runs."""
    home = os.environ.get("JAVA_HOME")
    java = os.path.join(home, "bin", "java") if home else shutil.which("java")
    if not java or not os.path.isfile(java):
        where = f"JAVA_HOME={home} has no bin/java" if home else "no java on PATH"
        raise SparkUnavailable(f"--engine spark needs Java ({where}): {JAVA_HINT}")
    try:
        subprocess.run([java, "-version"], capture_output=True, timeout=30, check=True)
    except (OSError, subprocess.SubprocessError) as e:
        raise SparkUnavailable(f"--engine spark needs a working Java ({java} failed: {e}): {JAVA_HINT}") from e


def _check_reachable(url: str, what: str, default_port: int) -> None:
    """A TCP connection to the master's host and port opens within a few seconds (pyspark would retry for a
    minute, then print a JVM stack trace)."""
    first = url.split(",")[0]
    parsed = urlparse(first if "://" in first else f"spark://{first}")
    host, port = parsed.hostname, parsed.port or default_port
    if not host:
        raise SparkUnavailable(f"{what} {url} is not a URL like spark://HOST:PORT or sc://HOST:PORT")
    try:
        with socket.create_connection((host, port), timeout=CONNECT_TIMEOUT_S):
            pass
    except OSError as e:
        raise SparkUnavailable(f"cannot reach the {what} {url} ({host}:{port}: {e.strerror or e})") from e


def first_line(e: BaseException) -> str:
    """The first line of an exception's message that says something (JVM errors carry pages of trace)."""
    for line in str(e).splitlines():
        if line.strip():
            return line.strip()[:300]
    return type(e).__name__
