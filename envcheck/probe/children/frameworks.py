"""Child: the ML frameworks and pip nvidia-* wheels of an environment, read without importing.

Runs as `python -I -c SOURCE JSON_ARG` in the probed interpreter (any Python 3.7+: standard
library and 3.7 syntax only). Argument: {"paths": [...] or null (this sys.path), "pythonpath":
[...] (the user's PYTHONPATH, which -I drops), "import_tensorflow": bool}. It reads
*.dist-info/METADATA and *.egg-info/PKG-INFO (by hand, not importlib.metadata, so every Python
behaves alike) and parses the frameworks' build files with ast; it imports a framework only
when "import_tensorflow" asks. In a site with an nvidia/ folder it reads every RECORD listing
files there: the files two distributions install, those whose size (or, where sizes cannot
tell, hash) is not their RECORD's, and the rows the doctor would read for who wrote a file.
It also answers children/interpreter.py's question. Bad metadata or rows become error strings,
never a crash. Prints one JSON line last. Keep it small: the source travels on the command
line (Windows allows 32767 characters).
"""

import ast
import base64
import csv
import hashlib
import json
import os
import re
import stat
import sys
from pathlib import Path

TENSORFLOW = (
    "tensorflow",
    "tensorflow-cpu",
    "tensorflow-gpu",
    "tensorflow-intel",
    "tensorflow-macos",
    "tensorflow-aarch64",
    "tensorflow-cpu-aws",
    "tensorflow-rocm",
    "intel-tensorflow",
    "tf-nightly",
    "tf-nightly-cpu",
    "tf-nightly-gpu",
)
OTHER_FRAMEWORKS = ("torch", "jax", "jaxlib", "keras", "tf-keras")
JAX_PLUGIN = re.compile(r"^jax-(cuda|rocm)\d+-(plugin|pjrt)$")
REQUIREMENT_WORDS = ("nvidia", "cuda", "cudnn", "tensorrt")
# TF 1.15-2.1 wheels keep the real package in tensorflow_core/ (tensorflow/ is a shim).
BUILD_INFO = (
    "tensorflow/python/platform/build_info.py",
    "tensorflow_core/python/platform/build_info.py",
)
VERSION_PY = {"torch": "torch/version.py", "jaxlib": "jaxlib/version.py"}
LITERAL_ERRORS = (ValueError, TypeError, SyntaxError, RecursionError, MemoryError)


def normalize(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def framework_name(dist):
    if dist in TENSORFLOW:
        return "tensorflow"
    if dist in OTHER_FRAMEWORKS or JAX_PLUGIN.match(dist):
        return dist
    return None


def is_wheel(dist):
    # cuda-toolkit: torch 2.10+ pins its CUDA wheels through cuda-toolkit[cublas,...]==13.0.3
    return dist.startswith(("nvidia-", "tensorrt")) or dist == "cuda-toolkit"


def jsonable(value):
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [jsonable(v) for v in value]
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    return repr(value)


def read_text(path):
    return Path(path).read_text(encoding="utf-8", errors="replace")


def user_site():
    """The user site-packages a normal (not -I) start of this Python would put on sys.path."""
    if os.environ.get("PYTHONNOUSERSITE"):
        return None
    if hasattr(os, "getuid") and os.getuid() != os.geteuid():
        return None
    if getattr(sys, "base_prefix", sys.prefix) != sys.prefix:
        # In a venv the user site counts only with include-system-site-packages = true.
        try:
            cfg = read_text(Path(sys.prefix) / "pyvenv.cfg").lower()
        except OSError:
            return None
        if not re.search(r"include-system-site-packages\s*=\s*true", cfg):
            return None
    try:
        import site

        path = site.getusersitepackages()
    except Exception:
        return None
    return path if Path(path).is_dir() else None


def pth_entries(directory):
    """Directories named by *.pth files (as site.addsitedir adds them), for explicit paths."""
    found = []
    try:
        pth_files = sorted(p for p in Path(directory).iterdir() if p.name.endswith(".pth"))
    except OSError:
        return found
    for pth in pth_files:
        try:
            lines = read_text(pth).splitlines()
        except OSError:
            continue
        for line in lines:
            line = line.strip()  # noqa: PLW2901
            if not line or line.startswith(("#", "import ", "import\t")):
                continue
            entry = Path(directory) / line
            if entry.is_dir():
                found.append(str(entry))
    return found


def search_paths(paths, errors):
    if paths is None:
        entries = [p for p in sys.path if p]
        extra = user_site()
        if extra and extra not in entries:
            at = [
                i for i, p in enumerate(entries) if p.endswith(("site-packages", "dist-packages"))
            ]
            entries.insert(at[0] if at else len(entries), extra)
    else:
        entries = []
        for path in paths:
            if not Path(path).is_dir():
                errors.append("search path %s is not a directory" % path)
                continue
            entries.append(path)
            entries.extend(pth_entries(path))
    seen, result = set(), []
    for entry in entries:
        key = os.path.normcase(os.path.abspath(entry))  # noqa: PTH100 - normcase needs a str
        if key not in seen and Path(entry).is_dir():
            seen.add(key)
            result.append(os.path.abspath(entry))  # noqa: PTH100
    return result


def parse_headers(text):
    """RFC 822 style headers of METADATA / PKG-INFO up to the first blank line: {key: [values]}."""
    headers, last = {}, None
    for number, line in enumerate(text.split("\n"), 1):
        line = line.rstrip("\r")  # noqa: PLW2901
        if not line.strip():
            break
        if line[0] in " \t" and last is not None:
            headers[last][-1] += "\n" + line.strip()
            continue
        key, colon, value = line.partition(":")
        if not colon or not key.strip() or " " in key.strip():
            raise ValueError("line %d is not a 'Key: value' header: %r" % (number, line[:80]))
        last = key.strip().lower()
        headers.setdefault(last, []).append(value.strip())
    return headers


def egg_requires(egg_info):
    """requires.txt of an egg-info directory as Requires-Dist style lines with markers."""
    try:
        text = read_text(Path(egg_info) / "requires.txt")
    except OSError:
        return []
    lines, marker = [], ""
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            extra, _, condition = line[1:-1].partition(":")
            parts = ['extra == "%s"' % extra] if extra else []
            parts += ["(%s)" % condition] if condition else []
            marker = " and ".join(parts)
            continue
        lines.append(line + ("; " + marker if marker else ""))
    return lines


def candidates(search, errors):
    """(path_index, site dir, metadata dir, metadata file, name guess, version guess, kind)."""
    for index, site in enumerate(search):
        if site.endswith(".egg") and (Path(site) / "EGG-INFO" / "PKG-INFO").is_file():
            stem = Path(site).name[:-4]
            egg = str(Path(site) / "EGG-INFO")
            yield index, site, egg, str(Path(egg) / "PKG-INFO"), stem, "egg"
        try:
            names = sorted(os.listdir(site))  # noqa: PTH208
        except OSError as exc:
            errors.append("cannot list %s: %s" % (site, exc))
            continue
        for name in names:  # a Path only for metadata: a site may hold 100,000 files
            if name.endswith(".dist-info"):
                full = os.path.join(site, name)  # noqa: PTH118
                yield index, site, full, os.path.join(full, "METADATA"), name[:-10], "dist"  # noqa: PTH118
            elif name.endswith(".egg-info"):
                full = os.path.join(site, name)  # noqa: PTH118
                meta = os.path.join(full, "PKG-INFO") if os.path.isdir(full) else full  # noqa: PTH112,PTH118
                yield index, site, full, meta, name[:-9], "egg"


def read_distribution(candidate, errors):
    index, site, meta_dir, meta_file, stem, kind = candidate
    guess, _, rest = stem.partition("-")
    guess_version = rest.split("-")[0] or None
    if framework_name(normalize(guess)) is None and not is_wheel(normalize(guess)):
        return None
    problems, headers = [], {}
    try:
        headers = parse_headers(read_text(meta_file))
    except (OSError, ValueError) as exc:
        errors.append("cannot read %s: %s" % (meta_file, exc))
        problems.append("its metadata is unreadable; name and version come from the directory name")
    name = (headers.get("name") or [guess])[0]
    version = (headers.get("version") or [guess_version])[0]
    if not name or not version:
        errors.append("%s names no distribution and version; skipped" % meta_file)
        return None
    requires = headers.get("requires-dist", [])
    if kind == "egg" and Path(meta_dir).is_dir():
        requires = requires or egg_requires(meta_dir)
    wanted = [r for r in requires if any(w in r.lower() for w in REQUIREMENT_WORDS)]
    return {
        "distribution": normalize(name),
        "version": version,
        "location": site,
        "metadata": meta_dir,
        "path_index": index,
        "requires": wanted,
        "problems": problems,
        "kind": kind,
    }


def is_dict_call(node):
    func = node.func
    if isinstance(func, ast.Name):
        return func.id in ("dict", "OrderedDict")
    return isinstance(func, ast.Attribute) and func.attr == "OrderedDict"


def literal(node):
    """ast.literal_eval, plus dict(...) / collections.OrderedDict([...]) calls (TF >= 2.4)."""
    if isinstance(node, ast.Call) and is_dict_call(node):
        if len(node.args) > 1:
            raise ValueError("more than one positional argument")
        result = {}
        for pair in ast.literal_eval(node.args[0]) if node.args else ():
            key, value = pair
            result[key] = value
        for keyword in node.keywords:
            if keyword.arg is None:
                raise ValueError("**kwargs")
            result[keyword.arg] = ast.literal_eval(keyword.value)
        return result
    return ast.literal_eval(node)


def module_literals(path):
    """Module-level `name = <literal>` assignments of a Python file, read, never imported."""
    tree = ast.parse(Path(path).read_bytes(), filename=str(path))
    values = {}
    for node in tree.body:
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets = [node.target]
        else:
            continue
        for target in targets:
            if isinstance(target, ast.Name):
                try:
                    values[target.id] = literal(node.value)
                except LITERAL_ERRORS:
                    pass  # computed values (e.g. jaxlib's __version__) are not facts we can read
    return values


def read_build_file(path, errors, problems):
    try:
        values = module_literals(path)
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        detail = "%s: %s" % (type(exc).__name__, exc)
        errors.append("cannot parse %s: %s" % (path, detail))
        problems.append("build info not read: %s could not be parsed (%s)" % (path, detail))
        return None
    if not values:
        problems.append("build info not read: %s assigns no literal values" % path)
        return None
    nested = values.pop("build_info", None)
    if isinstance(nested, dict):
        values.update(nested)  # TF >= 2.3 keeps the facts in a `build_info` dict
    return jsonable(values)


def read_record(meta_dir, keep=False):
    """A RECORD's bytes; None when it is no regular file. Only TensorFlow's (~3 MB, read by
    record_check and shared_files) is kept, in RECORDS (`keep`): a site may hold 10,000."""
    path = os.path.join(meta_dir, "RECORD")  # noqa: PTH118
    if path in RECORDS:
        return RECORDS[path] if keep else RECORDS.pop(path)
    try:
        with open_nofollow(path) as stream:
            data = read_up_to(stream, RECORD_BYTES + 1)
    except OSError:
        data = None
    if keep:
        RECORDS[path] = data
    return data


def read_up_to(stream, limit):
    """stream.read(limit) in pieces of about the file's size: one read of `limit` allocates
    `limit` bytes first (16 MiB for each of ~100 RECORDs of ~10 KB). file_system's twin."""
    piece = max(os.fstat(stream.fileno()).st_size + 1, 1 << 16)
    chunks, left = [], limit
    while left > 0:
        chunk = stream.read(min(left, piece))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def lines_containing(text, needle):
    """The lines of `text` (as splitlines cuts them) holding `needle`, found by searching, not
    by splitting a ~30,000-line RECORD."""
    found, at = [], text.find(needle)
    while at >= 0:
        start = max(text.rfind("\n", 0, at), text.rfind("\r", 0, at)) + 1
        ends = [end for end in (text.find("\n", at), text.find("\r", at)) if end >= 0]
        end = min(ends) if ends else len(text)
        line = text[start:end]
        if any(mark in line for mark in RARE_LINE_BREAKS):
            return [line for line in text.splitlines() if needle in line]
        found.append(line)
        at = text.find(needle, end)
    return found


def record_check(meta_dir, relative, path):
    """Whether `path` is the file this distribution installed, by the hash in its RECORD."""
    data = read_record(meta_dir, keep=True)
    try:
        if data is not None and len(data) <= RECORD_BYTES:
            text = data.decode("utf-8", "replace")
        else:
            text = read_text(Path(meta_dir) / "RECORD")
    except OSError:
        return "no-record"
    for row in csv.reader(lines_containing(text, relative)):
        if not row or row[0].replace("\\", "/") != relative:
            continue
        algorithm, _, expected = (row[1] if len(row) > 1 else "").partition("=")
        if not expected:
            return "listed"
        try:
            digest = hashlib.new(algorithm, Path(path).read_bytes()).digest()
        except (ValueError, OSError):
            return "listed"
        actual = base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")
        return "match" if actual == expected.rstrip("=") else "mismatch"
    return "not-listed"


def add_build(framework, errors):
    name, site = framework["name"], framework["location"]
    framework["build"] = framework["build_file"] = None
    if name == "tensorflow":
        relatives = BUILD_INFO
    elif name in VERSION_PY:
        relatives = (VERSION_PY[name],)
    else:
        return
    for relative in relatives:
        path = Path(site) / relative
        if path.is_file():
            framework["build_file"] = str(path)
            framework["build"] = read_build_file(path, errors, framework["problems"])
            if name == "tensorflow" and framework["kind"] == "dist":
                framework["record"] = record_check(framework["metadata"], relative, path)
            return
    looked = ", ".join(str(Path(site) / r) for r in relatives)
    framework["problems"].append("build info not read: no file at %s" % looked)


def scan(search, errors):
    frameworks, wheels = [], []
    for candidate in candidates(search, errors):
        try:
            dist = read_distribution(candidate, errors)
            if dist is None:
                continue
            name = framework_name(dist["distribution"])
            if name is not None:
                dist["name"] = name
                add_build(dist, errors)
                frameworks.append(dist)
            elif is_wheel(dist["distribution"]):
                keys = ("distribution", "version", "location", "path_index", "requires")
                wheels.append({k: dist[k] for k in keys})
        except Exception as exc:  # one broken distribution must not hide the others
            errors.append("unexpected %s reading %s: %s" % (type(exc).__name__, candidate[2], exc))
    return frameworks, wheels


# --- files under nvidia/ that several distributions install

RECORD_BYTES = 16 << 20  # far above any real RECORD (torch's: 1.5 MB)
HASH_BYTES = 64 << 20  # hashed per run at most: only same-size copies need a hash
MAX_SHARED = 1000
MAX_ROW_ERRORS = 3  # per RECORD, then a count
HASHES = ("sha256", "sha384", "sha512", "sha224", "sha1", "md5")  # hashlib's, fixed-length
RECORDS = {}  # RECORD path -> its bytes, kept by record_check for shared_files (read_record)
# What str.splitlines breaks lines at besides \n and \r.
RARE_LINE_BREAKS = "\v\f\x1c\x1d\x1e\x85\u2028\u2029"
NVIDIA_ROW = re.compile(r"^nvidia/[^\r\n]*", re.MULTILINE)  # copy_owners.site_claims'


def open_nofollow(path):
    """A regular file's bytes stream; the last name is never a symlink (O_NOFOLLOW)."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    return os.fdopen(os.open(str(path), flags), "rb")


def record_rows(text, where, errors):
    """(path, algorithm, digest, size) of each RECORD row under nvidia/; bad rows -> errors."""
    rows, bad = [], []
    for line in text.splitlines():
        if not line.startswith("nvidia/"):
            continue
        if '"' in line or "\0" in line or len(line) > csv.field_size_limit():  # csv's turn
            try:
                row = next(csv.reader([line]))
            except (csv.Error, StopIteration) as exc:
                bad.append("%r (%s)" % (line[:80], exc))
                continue
        else:  # what csv makes of a line without quotes, at a fraction of the cost per row
            row = line.split(",")
        path, hashed, size = [*row, "", ""][:3]
        algorithm, _, digest = hashed.partition("=")
        parts = path.split("/")
        if (
            len(row) != 3
            or set(parts) & {"", ".", ".."}
            or "\\" in path
            or "\0" in path
            or not (size == "" or (size.isdigit() and size.isascii()))
            or (hashed and (not digest or algorithm not in HASHES))
        ):
            bad.append(repr(line[:80]))
            continue
        rows.append((path, algorithm, digest.rstrip("="), int(size) if size else None))
    for shown in bad[:MAX_ROW_ERRORS]:
        errors.append("%s: row %s is not 'path,algorithm=digest,size'" % (where, shown))
    if len(bad) > MAX_ROW_ERRORS:
        errors.append("%s: %d more bad rows" % (where, len(bad) - MAX_ROW_ERRORS))
    return rows


def digests(path, algorithms, size):
    """{algorithm: urlsafe base64 digest} of the file's bytes (read once, in chunks)."""
    hashers = {a: hashlib.new(a) for a in algorithms}
    with open_nofollow(path) as stream:
        left = size
        while left > 0:
            chunk = stream.read(min(left, 1 << 20))
            if not chunk:
                break
            left -= len(chunk)
            for hasher in hashers.values():
                hasher.update(chunk)
    return {
        a: base64.urlsafe_b64encode(h.digest()).rstrip(b"=").decode("ascii")
        for a, h in hashers.items()
    }


def check_file(path, owners, budget):
    """What the file on disk is, next to each owner's RECORD row; None for an intact file of
    one owner (not hashed: gigabytes), and for one no row gives a size of."""
    try:
        info = os.lstat(str(path))
    except OSError:
        info = None
    regular = info is not None and stat.S_ISREG(info.st_mode)
    size = info.st_size if regular else None
    if len(owners) == 1 and (owners[0][5] is None or owners[0][5] == size):
        return None
    compared = "size" if regular else ("missing" if info is None else "not a regular file")
    # A size that differs settles it; the same size (or none recorded) needs the hash.
    matches = [False if o[5] is not None and o[5] != size else None for o in owners]
    open_ = [i for i, m in enumerate(matches) if m is None] if regular else []
    algorithms = {owners[i][3] for i in open_ if owners[i][3]}
    if len(open_) == 1 and owners[open_[0]][5] is not None:
        matches[open_[0]] = True
    elif algorithms and size <= budget[0]:
        budget[0] -= size
        compared = "hash"
        try:
            found = digests(path, algorithms, size)
        except (OSError, ValueError):
            found, compared = {}, "unknown: the file could not be read"
        for i in open_:
            if owners[i][3] in found:
                matches[i] = found[owners[i][3]] == owners[i][4]
    elif algorithms:
        compared = "unknown: over the %d MiB hash budget" % (HASH_BYTES >> 20)
    return {
        "size": size,
        "compared": compared,
        "owners": [
            {"distribution": o[0], "version": o[1], "size": o[5], "matches": m}
            for o, m in zip(owners, matches)
        ],
    }


def shared_files(site, budget, errors, claims_out):
    """The files under site/nvidia/ that two distributions' RECORDs list, or that one lists
    and whose bytes are not the ones recorded (see check_file). claims_out[site]: the rows
    copy_owners.site_claims reads, by dist-info, where it reads these RECORDs."""
    # Strings, not Paths: a Path per file was half of this child's time.
    if not os.path.isdir(os.path.join(site, "nvidia")):  # noqa: PTH112, PTH118
        return []
    try:
        names = sorted(os.listdir(site))  # noqa: PTH208
        metas = [n for n in names if n.endswith(".dist-info") and not n.startswith(".")]
    except OSError:
        return []
    listed, claims = {}, {}
    if [n for n in names if os.path.normcase(n).endswith(".dist-info")] != metas:
        claims = None  # site_claims lists by fnmatch: hidden ones too
    for meta_name in metas:
        record = os.path.join(site, meta_name, "RECORD")  # noqa: PTH118
        data = read_record(os.path.join(site, meta_name))  # noqa: PTH118
        if data is None:
            if os.path.lexists(record):
                claims = None  # a link, a FIFO: site_claims reads it
            continue
        head = data[: 4 << 20]  # copy_owners.RECORD_LIMIT
        if claims is not None and (head.startswith(b"nvidia/") or b"\nnvidia/" in head):
            claims[meta_name] = NVIDIA_ROW.findall(head.decode("utf-8", "replace"))
        if len(data) > RECORD_BYTES:
            errors.append("%s is over %d bytes; not read" % (record, RECORD_BYTES))
            continue
        # On the bytes: TensorFlow's and torch's RECORDs (MBs, no nvidia/ row) need no decoding.
        if not data.startswith(b"nvidia/") and b"\nnvidia/" not in data:
            continue
        text = data.decode("utf-8", "replace")
        name, _, version = meta_name[:-10].partition("-")
        name = normalize(name)
        for path, algorithm, digest, size in record_rows(text, str(record), errors):
            owners = listed.setdefault(path, [])
            if not any(o[0] == name for o in owners):
                owners.append((name, version, path, algorithm, digest, size))
    if claims is not None:
        claims_out[site] = claims
    found = []
    for path in sorted(listed):
        entry = check_file(os.path.join(site, path), listed[path], budget)  # noqa: PTH118
        if entry is not None:
            entry.update(location=site, path=path)
            found.append(entry)
    if len(found) > MAX_SHARED:
        errors.append("%d more shared files in %s not listed" % (len(found) - MAX_SHARED, site))
    return found[:MAX_SHARED]


def simple_attributes(module):
    return {
        k: jsonable(v)
        for k, v in vars(module).items()
        if not k.startswith("_") and isinstance(v, (str, bool, int, float, list, tuple, dict))
    }


def import_tensorflow(paths):
    """`import tensorflow` and its build info; exceptions become data, crashes end the child."""
    if paths is not None:
        sys.path[0:0] = paths
    result = {"ok": False}
    try:
        import tensorflow as tf

        result["file"] = getattr(tf, "__file__", None)
        result["version"] = getattr(tf, "__version__", None)
        get_build_info = getattr(getattr(tf, "sysconfig", None), "get_build_info", None)
        if get_build_info is not None:
            result["build_info"] = jsonable(dict(get_build_info()))
            result["via"] = "tf.sysconfig.get_build_info()"
        else:  # TF < 2.3 has no get_build_info; its module-level variables say the same
            from tensorflow.python.platform import build_info

            result["build_info"] = simple_attributes(build_info)
            result["via"] = "tensorflow.python.platform.build_info (imported)"
        result["ok"] = True
    except BaseException as exc:  # SystemExit and KeyboardInterrupt too: report, do not die
        result["error"] = "%s: %s" % (type(exc).__name__, exc)
    return result


def interpreter():  # children/interpreter.py's answer: one interpreter start fewer
    import platform
    import struct

    return {
        "python": platform.python_version(),
        "bits": struct.calcsize("P") * 8,
        "executable": sys.executable,
        "machine": platform.machine(),
        "prefix": sys.prefix,
        "base_prefix": sys.base_prefix,
        "conda": os.path.isdir(os.path.join(sys.prefix, "conda-meta")),  # noqa: PTH112, PTH118
    }


def main(argv):
    errors = []
    try:
        argument = json.loads(argv[1]) if len(argv) > 1 else {}
    except ValueError as exc:
        argument = None
        errors.append("bad argument %r: %s" % (argv[1][:200], exc))
    if not isinstance(argument, dict):
        argument = {}
    paths = argument.get("paths")
    if paths is not None and not (
        isinstance(paths, list) and all(isinstance(p, str) for p in paths)
    ):
        errors.append("bad argument: paths must be a list of strings or null, not %r" % (paths,))
        paths = None
    pythonpath = argument.get("pythonpath") or []
    if isinstance(pythonpath, list) and all(isinstance(p, str) for p in pythonpath):
        # The user's PYTHONPATH, which -I dropped, where Python puts it: before the stdlib.
        sys.path[0:0] = [p for p in pythonpath if p not in sys.path]
    else:
        errors.append("bad argument: pythonpath must be a list of strings, not %r" % (pythonpath,))
    search = search_paths(paths, errors)
    frameworks, wheels = scan(search, errors)
    shared, budget, claims = [], [HASH_BYTES], {}
    for site in search:
        try:
            shared.extend(shared_files(site, budget, errors, claims))
        except Exception as exc:  # one odd site directory must not cost the scan
            errors.append(
                "unexpected %s reading RECORDs in %s: %r" % (type(exc).__name__, site, exc)
            )
    out = {
        "python": "%d.%d.%d" % tuple(sys.version_info[:3]),
        "executable": sys.executable,
        "paths": search,
        "frameworks": frameworks,
        "wheels": wheels,
        "shared_files": shared,
        "nvidia_claims": claims,
        "interpreter": interpreter(),
        "errors": errors,
    }
    if argument.get("import_tensorflow"):
        out["tensorflow_import"] = import_tensorflow(None if paths is None else search)
    return out


if __name__ == "__main__":
    try:
        output = main(sys.argv)
    except Exception as exc:
        output = {"frameworks": [], "wheels": [], "errors": ["frameworks child: %r" % (exc,)]}
    sys.stdout.write(json.dumps(output) + "\n")
    sys.stdout.flush()
    sys.stderr.flush()
    # Skip interpreter shutdown: an imported TensorFlow can crash in its atexit handlers after
    # the answer is written, and that would turn a good answer into a "crashed" child.
    os._exit(0)
