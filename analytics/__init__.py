"""Concord's engine: store, rubric catalogue, loaders and agreement statistics (no UI code)."""
