"""The command line: python -m analytics {ingest,demo,agreement,...}, a module per command and main.py to dispatch
(contract in ../shared/DESIGN.md). Its modules import the engine inside their functions to keep the start fast."""
