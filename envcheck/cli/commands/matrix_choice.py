"""Which matrix a command reads: the bundled one, or the --matrix directory.

Its own module so that `explain` imports nothing else of the shared flags (flags.py pulls in
the machine description and the interpreter probe, a tenth of a second explain never needs).
"""

from __future__ import annotations

from envcheck.matrix.load import bundled_matrix_dir, matrix_dir
from envcheck.matrix.model import Matrix, load_matrix


def load(matrix_option: str | None) -> Matrix:
    """The bundled matrix, or the one in the --matrix directory (read whole: see load_matrix)."""
    directory = matrix_dir(matrix_option)
    return load_matrix(directory, gpus_when_needed=directory == bundled_matrix_dir())
