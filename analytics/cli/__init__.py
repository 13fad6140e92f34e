"""The command line (python -m analytics ...), the dashboard's first run and the hand-over of loads."""
