"""What the store holds: volumes, coverage and how raters use each scale."""
