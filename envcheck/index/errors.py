"""The errors of the index layer: a fetch that failed for a reason outside the user's input.

Every `FetchError` ends a command with exit 1; bad input stays `envcheck.errors.InputError`
(exit 2).
Messages never hold credentials: URLs are stripped of them before any request is made.
"""

from __future__ import annotations

from envcheck.errors import EXIT_NEGATIVE, EnvcheckError


class FetchError(EnvcheckError):
    """Getting files from the index failed, or what came back cannot be trusted (exit 1)."""

    exit_code = EXIT_NEGATIVE


class IndexUnavailableError(FetchError):
    """The index did not answer usefully: connection failures, timeouts, 5xx after the retries."""


class IndexResponseError(FetchError):
    """The index answered with a status or a page envcheck cannot use (401, 403, bad JSON)."""


class NotFoundError(FetchError):
    """HTTP 404: the index has no such project, or a listed file is gone."""


class HashMismatchError(FetchError):
    """A downloaded file's digest differs from the index's; the file was discarded."""


class UnsafeFileNameError(FetchError):
    """The index lists a file name that is not a plain name inside the destination directory."""


class NoMatchingWheelError(FetchError):
    """Nothing on the index (or in the matrix) fits the requirement for the target."""


class DownloadsFailedError(FetchError):
    """Some downloads failed; the others were kept. `failures` holds one message per file."""

    def __init__(self, failures: list[str]) -> None:
        self.failures = failures
        count = len(failures)
        super().__init__(f"{count} download(s) failed: " + "; ".join(failures))
