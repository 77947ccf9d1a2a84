"""The package index client: where the index is, what it lists, which wheel fits, downloads.

`config` finds the index URL the way pip does, `http` makes requests (timeouts, retries,
credentials only to the index's origin), `simple_api` reads a project's file list (PEP 691 JSON,
else PEP 503 HTML), `wheels` picks a file by wheel tags for a target platform and Python,
`download` fetches files verified and resumable within the bounds of `limits` (size cap,
per-file deadline), `lock` lets one fetch at a time write a wheelhouse, `wheelhouse` keeps the
manifest, and `errors` says what failed. Nothing here decides which TensorFlow to fetch (that
is `envcheck.acquire`) or prints anything (that is the CLI).
"""
