"""Log signatures (data in matrix/) -> findings: `envcheck explain` and the smoke test's log."""
