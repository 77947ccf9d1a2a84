"""Diagnosis: facts x matrix -> findings, one small rule per concern, plus the smoke test."""
