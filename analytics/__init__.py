"""Concord's engine: store, rubric catalogue, loaders and agreement statistics (no UI code)."""

__version__ = "0.2.0"
