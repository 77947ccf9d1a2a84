"""The parsed-matrix cache (envcheck.matrix.parsed_cache): a second load reads the JSON entry
instead of parsing TOML, an edited file never meets a stale entry, and nothing about the cache
(corrupt, unwritable, turned off, data JSON cannot hold) changes what a load returns."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from envcheck.bounded_input import nested_deeper_than
from envcheck.matrix import parsed_cache
from envcheck.matrix.load import bundled_matrix_dir
from envcheck.matrix.rows import read_toml, tomllib_module

NAME = "log_signatures.toml"


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("ENVCHECK_CACHE_DIR", str(folder))
    return folder


def _matrix_copy(tmp_path: Path) -> Path:
    folder = tmp_path / "matrix"
    folder.mkdir()
    (folder / NAME).write_bytes((bundled_matrix_dir() / NAME).read_bytes())
    return folder


def test_a_second_load_reads_the_entry_not_the_toml(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _matrix_copy(tmp_path)
    first = read_toml(folder, NAME)
    assert len(list(cache.glob("*.json"))) == 1

    def no_toml(_: str) -> dict[str, object]:
        raise AssertionError("parsed the TOML again")

    monkeypatch.setattr(tomllib_module(), "loads", no_toml)
    assert read_toml(folder, NAME) == first


def test_an_edited_file_is_parsed_again(cache: Path, tmp_path: Path) -> None:
    folder = _matrix_copy(tmp_path)
    before = read_toml(folder, NAME)
    path = folder / NAME
    path.write_text(
        path.read_text(encoding="utf-8").replace("schema = 1", "schema = 1\nextra = 2", 1),
        encoding="utf-8",
    )
    after = read_toml(folder, NAME)
    assert after["extra"] == 2 and "extra" not in before
    assert len(list(cache.glob("*.json"))) == 2


def test_a_corrupt_entry_is_ignored(cache: Path, tmp_path: Path) -> None:
    folder = _matrix_copy(tmp_path)
    expected = read_toml(folder, NAME)
    (entry,) = cache.glob("*.json")
    for junk in (b"{not json", b"[1, 2]", b""):
        entry.write_bytes(junk)
        assert read_toml(folder, NAME) == expected


def test_an_unusable_or_disabled_cache_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _matrix_copy(tmp_path)
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    expected = read_toml(folder, NAME)
    monkeypatch.setenv("ENVCHECK_CACHE_DIR", str(blocker / "cache"))
    assert read_toml(folder, NAME) == expected
    monkeypatch.setenv("ENVCHECK_CACHE_DIR", "off")
    assert parsed_cache.cache_dir() is None
    assert read_toml(folder, NAME) == expected


def test_data_json_cannot_hold_is_not_kept(cache: Path) -> None:
    import datetime  # noqa: PLC0415

    parsed_cache.store(b"when = 2024-01-01", {"when": datetime.date(2024, 1, 1)})
    assert not cache.exists() or not list(cache.glob("*.json"))
    assert parsed_cache.load(b"when = 2024-01-01") is None


def test_the_literals_of_the_signatures_come_from_the_cache_or_are_worked_out(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import re  # noqa: PLC0415

    from envcheck.explain import matcher  # noqa: PLC0415

    patterns = [re.compile(r"Could not load dynamic library '(?P<l>[^']+)'"), re.compile(r"a|b")]
    monkeypatch.setattr(matcher, "_PRIMED", {})
    matcher.prime_literals(patterns)
    worked_out = [matcher.required_literals(p) for p in patterns]
    assert worked_out[0] == {"Could not load dynamic library '"}
    for entry in cache.glob("*.json"):
        entry.write_text('{"x": "not literals"}')
    monkeypatch.setattr(matcher, "_PRIMED", {})
    matcher.prime_literals(patterns)
    assert [matcher.required_literals(p) for p in patterns] == worked_out


# --- what is read back is checked (issue 24) ----------------------------------------------------


def _forge(cache: Path, content: bytes, data: object) -> Path:
    """An entry for `content` holding `data`, with the right digest: what only envcheck, or
    someone who read this module, would write."""
    key = parsed_cache._key(content)
    payload = json.dumps(data).encode()
    cache.mkdir(mode=0o700, exist_ok=True)
    entry = cache / f"{key}.json"
    entry.write_bytes(parsed_cache._digest(key, payload) + b"\n" + payload)
    return entry


def test_an_edited_or_moved_entry_is_no_entry(cache: Path, tmp_path: Path) -> None:
    folder = _matrix_copy(tmp_path)
    content = (folder / NAME).read_bytes()
    expected = read_toml(folder, NAME)
    (entry,) = cache.glob("*.json")
    raw = entry.read_bytes()
    assert parsed_cache.load(content) == expected
    entry.write_bytes(raw.replace(b'"schema": 1', b'"schema": 1, "extra": 2', 1))
    assert parsed_cache.load(content) is None  # the digest no longer matches
    assert read_toml(folder, NAME) == expected  # parsed again, and the entry made anew
    other = b"schema = 1\n"
    _forge(cache, other, {"schema": 1}).write_bytes(raw)  # a valid entry, under another name
    assert parsed_cache.load(other) is None


def test_an_entry_tomllib_could_not_have_made_is_no_entry(cache: Path) -> None:
    deep: object = "x"
    for _ in range(parsed_cache.MAX_DEPTH + 1):
        deep = [deep]
    for content, data in ((b"a", {"a": None}), (b"b", {"b": deep})):
        _forge(cache, content, data)
        assert parsed_cache.load(content) is None
    _forge(cache, b"c", {"c": [1, "two", 3.5, True, {"d": []}]})
    assert parsed_cache.load(b"c") == {"c": [1, "two", 3.5, True, {"d": []}]}


@pytest.mark.parametrize("extra", [-2, -1, 0, 1])
@pytest.mark.parametrize("innermost", ["x", [], {}, ["x"], {"k": 1}])
def test_the_depth_an_entry_may_have_is_the_bound_every_reader_uses(
    cache: Path, extra: int, innermost: object
) -> None:
    # The entry's one shape pass bounds the depth as bounded_input.nested_deeper_than does.
    deep: object = innermost
    for level in range(parsed_cache.MAX_DEPTH - 1 + extra):
        deep = [deep] if level % 2 else {"t": deep}
    data = {"d": deep}
    content = f"depth {extra} {innermost!r}".encode()
    _forge(cache, content, data)
    too_deep = nested_deeper_than(data, parsed_cache.MAX_DEPTH)
    assert (parsed_cache.load(content) is None) is too_deep
    assert too_deep is (extra > 0 or (extra == 0 and innermost in (["x"], {"k": 1})))


def test_rows_that_fail_on_a_cached_parse_are_loaded_from_the_toml(
    cache: Path, tmp_path: Path
) -> None:
    from envcheck.matrix.load import load_tensorflow  # noqa: PLC0415

    folder = tmp_path / "matrix"
    folder.mkdir()
    source = bundled_matrix_dir() / "tensorflow.toml"
    (folder / source.name).write_bytes(source.read_bytes())
    expected = load_tensorflow(folder)
    data = read_toml(folder, source.name)
    data["release"][0]["bogus"] = 1
    _forge(cache, source.read_bytes(), data)
    assert parsed_cache.load(source.read_bytes()) == data  # the entry passes its own checks
    assert load_tensorflow(folder) == expected  # the rows' check sends it to the TOML


def test_parsed_afresh_reads_no_entry(cache: Path, tmp_path: Path) -> None:
    folder = _matrix_copy(tmp_path)
    content = (folder / NAME).read_bytes()
    _forge(cache, content, {"schema": 1, "forged": True})
    assert read_toml(folder, NAME)["forged"] is True
    with parsed_cache.parsed_afresh():
        assert "forged" not in read_toml(folder, NAME)
    assert parsed_cache.load(content) is not None  # stored again from the TOML meanwhile


def test_an_entry_reached_through_a_link_is_not_read(cache: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    target = _forge(elsewhere, b"x", {"x": 1})
    cache.mkdir(mode=0o700)
    (cache / target.name).symlink_to(target)
    assert parsed_cache.load(b"x") is None
