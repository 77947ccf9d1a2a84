"""The version matrix data (TOML files); a package only so that it ships inside the wheel."""
