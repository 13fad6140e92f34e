"""Tables kept beside the ratings at ingest, one module each, and their one refresh."""
