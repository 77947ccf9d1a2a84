"""Log signatures (data in matrix/) -> findings, for `envcheck explain` and the doctor's smoke test."""
