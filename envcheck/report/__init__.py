"""Renderers: pure functions from result objects to text or JSON-ready data."""
