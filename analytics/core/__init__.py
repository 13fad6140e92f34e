"""Ground floor: filters, named queries, formatting, CSV writing, statistics helpers, the rubric catalogue."""
