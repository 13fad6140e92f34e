"""The alarm layer: every flag a lead acts on (drift, rule, rater effects) decided under one false-alarm budget
per review (budget.py), listed in one place with its power and acknowledgements (listing.py, power.py, acks.py).
docs/alarms.md says how."""
