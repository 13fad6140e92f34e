"""Ad hoc read-only SQL over the store, run in a worker process within limits."""
