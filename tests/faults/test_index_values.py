"""What an index says about a file is checked before it is written into the wheelhouse
(issue 24, 5).

An index that listed sha256 "ZZZ-not-hex" or size -1 got a `planned` manifest entry that the
next fetch and every `--verify` refused (exit 2) until someone edited `wheelhouse.json` by hand.
Such a file is left out now, as pip leaves out a link it cannot use; when nothing else fits, the
usual "no wheel fits" error (exit 1) says which entry could not be used, the manifest is never
poisoned, and once the index is fixed the next fetch just works.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from envcheck.index.simple_api import parse_html_page, parse_json_page
from tests.index_server import FaultyIndex, ServedFile, faulty_index
from tests.test_fetch import WIN_CP310, fetch_win_cp310, run_cli

EXIT_OK, EXIT_FAILED = 0, 1
PAGE = "http://127.0.0.1:1/simple/tensorflow/"
GOOD = "0123456789abcdef" * 4


@pytest.fixture
def faulty() -> Iterator[FaultyIndex]:
    with faulty_index() as index:
        yield index


def _one_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr and "internal error" not in stderr
    return lines[0]


BAD_LISTINGS = {
    "sha256-not-hex": ({"listed_sha256": "ZZZ-not-hex"}, "sha256 digest is not 64 hexadecimal"),
    "sha256-short": ({"listed_sha256": "abc123"}, "sha256 digest is not 64 hexadecimal"),
    "size-negative": ({"listed_size": -1}, "size -1 is not between 0 and"),
    "size-huge": ({"listed_size": 10**30}, "is not between 0 and"),
    "size-text": ({"listed_size": "300000"}, "size is not a whole number of bytes"),
    "size-float": ({"listed_size": 1.5}, "size is not a whole number of bytes"),
}


@pytest.mark.parametrize("kind", sorted(BAD_LISTINGS))
def test_a_bad_value_from_the_index_never_poisons_the_wheelhouse(
    faulty: FaultyIndex, tmp_path: Path, kind: str
) -> None:
    fault, reason = BAD_LISTINGS[kind]
    served = faulty.add(ServedFile(WIN_CP310, b"w" * 300_000, **fault))  # type: ignore[arg-type]

    first = fetch_win_cp310(tmp_path, faulty.url)
    assert first.exit_code == EXIT_FAILED, first.stderr
    line = _one_line(first.stderr)
    assert "no wheel of tensorflow" in line and WIN_CP310 in line and reason in line
    manifest = tmp_path / "wheelhouse.json"
    if manifest.exists():  # nothing planned from the bad listing, so the manifest stays valid
        assert all(e["file"] != WIN_CP310 for e in json.loads(manifest.read_text())["files"])
    assert not list(tmp_path.glob(".*.part"))

    served.listed_sha256, served.listed_size = None, None  # the index is fixed
    again = fetch_win_cp310(tmp_path, faulty.url)
    assert again.exit_code == EXIT_OK, again.stderr
    assert (tmp_path / WIN_CP310).read_bytes() == served.data
    assert run_cli("--verify", str(tmp_path)).exit_code == EXIT_OK


def _json_page(*files: dict[str, object]) -> bytes:
    return json.dumps({"meta": {"api-version": "1.1"}, "files": list(files)}).encode()


def _file(name: str, **fields: object) -> dict[str, object]:
    return {"filename": name, "url": f"/files/{name}", "hashes": {"sha256": GOOD}, **fields}


def test_the_json_parser_keeps_good_files_and_says_why_it_left_out_the_others() -> None:
    body = _json_page(
        _file("t-1.0-py3-none-any.whl"),
        _file("t-1.1-py3-none-any.whl", hashes={"sha256": "ZZZ-not-hex"}),
        _file("t-1.2-py3-none-any.whl", size=-1),
        _file("t-1.3-py3-none-any.whl", hashes={"sha256": GOOD, "sha512": "00"}),
        _file("t-1.4-py3-none-any.whl", url="file:///etc/passwd"),
        _file("t-1.5-py3-none-any.whl", url="http://h:99999/x.whl"),
        _file("t-1.6-py3-none-any.whl", hashes={"sha256": GOOD.upper(), "blake3": "?"}),
        _file("t-1.7-py3-none-any.whl", size=True),
    )
    page = parse_json_page(body, PAGE, "t")
    assert [f.filename for f in page.files] == ["t-1.0-py3-none-any.whl", "t-1.6-py3-none-any.whl"]
    assert page.files[1].digest("sha256") == GOOD  # lowercased; an unknown algorithm passed over
    assert dict(page.ignored) == {
        "t-1.1-py3-none-any.whl": "its sha256 digest is not 64 hexadecimal digits",
        "t-1.2-py3-none-any.whl": "its size -1 is not between 0 and 20000000000 bytes",
        "t-1.3-py3-none-any.whl": "its sha512 digest is not 128 hexadecimal digits",
        "t-1.4-py3-none-any.whl": "its URL is not an http(s) URL",
        "t-1.5-py3-none-any.whl": "its URL does not parse",
        "t-1.7-py3-none-any.whl": "its size is not a whole number of bytes",
    }


def test_the_html_parser_leaves_out_a_file_whose_digest_is_not_hex() -> None:
    html = (
        f'<a href="/f/t-1.0-py3-none-any.whl#sha256={GOOD}">a</a>'
        '<a href="/f/t-1.1-py3-none-any.whl#sha256=ZZZ-not-hex">b</a>'
        '<a href="http://[::1/f/t-1.2-py3-none-any.whl">c</a>'
    )
    page = parse_html_page(html, PAGE, "t")
    assert [f.filename for f in page.files] == ["t-1.0-py3-none-any.whl"]
    assert page.why_ignored("t-1.1-py3-none-any.whl") == (
        "its sha256 digest is not 64 hexadecimal digits"
    )
