"""Install the recommended TensorFlow, PyTorch or JAX into one Python environment through that
environment's own installer (pip, or uv when asked), never by resolving dependencies here.

plan.py works out what to install (pure, plus a read-only look at the target interpreter);
constraints.py turns a plan into a pip constraints file; run.py calls the installer. Nothing in
this package writes outside the target environment, a temporary directory and the constraints
file the user named, and nothing here needs root.
"""

from __future__ import annotations

from envcheck.errors import EXIT_NEGATIVE, EnvcheckError


class InstallError(EnvcheckError):
    """Base of the errors of `envcheck install` that are not the user's input (exit 1)."""

    exit_code = EXIT_NEGATIVE


class NoPlanError(InstallError):
    """No TensorFlow release can be installed as asked on the target (e.g. TF 2.11+ with a GPU
    on native Windows, or a Python no release supports); the message says what would work."""


class InstallerError(InstallError):
    """The installer itself failed or could not be run; the message quotes its error."""
