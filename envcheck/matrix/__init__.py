"""The version matrix: data files loaded into frozen records, derived lookups, pure rules."""
