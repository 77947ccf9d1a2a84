"""Scripts the probe runs in child processes; standard library only, Python 3.7+."""
