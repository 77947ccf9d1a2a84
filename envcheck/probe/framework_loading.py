"""What PyTorch and JAX load, and which file the real loader gives them, from the installed files.

TensorFlow dlopen()s each CUDA library by name through its DSO loader (libraries.py follows
that). PyTorch and JAX load theirs otherwise; this module models how, reading the installed
files only (Python sources with `ast`, ELF headers with binary_files.py), never importing a
framework:

* **PyTorch**, as its `torch/__init__.py` does it (read from the installed file; the forms
  read are those of torch 2.1 to 2.14, see read_torch_preloads): `_load_global_deps()` CDLLs
  `torch/lib/libtorch_global_deps.so` by path; its DT_NEEDED `libcudart.so.<major>` resolves
  through its DT_RPATH (searched before LD_LIBRARY_PATH, unlike a DT_RUNPATH). When
  /proc/self/maps then shows the CUDA runtime (torch >= 2.5), `_preload_cuda_deps()` takes, for
  each (folder, glob pattern) of its table in order, the first sys.path entry where any of its
  directory templates (`nvidia/<folder>/lib`, `nvidia/cu<major>/lib`, `<folder>/lib`) has a match,
  and CDLLs the first match by its full path (glob keeps the directory's own listing order). A
  load that fails there ends the preloads (torch catches the exception around the whole loop).
  Then `import torch._C` maps the extension's DT_NEEDED tree breadth first: a name already
  loaded (by soname) is reused, which is how a preloaded CUDA 12 file becomes the copy a CUDA 13
  torch links; else the name is searched from the object that needs it (search.py's
  LinuxSearch: DT_RPATH of it and its loaders and the executable, LD_LIBRARY_PATH, DT_RUNPATH,
  the ld.so cache, the default directories).
* **JAX's CUDA plugin**, as its `jax_plugins/xla_cuda<N>/__init__.py` does it
  (`_load_nvidia_libraries()`, read with ast): each `_load("<module>", [names])` imports
  `nvidia.<module>` (its first directory, as Python's import system finds it on sys.path) and
  CDLLs `<dir>/lib/<name>`, skipping every failure silently. XLA later dlopen()s the libraries of
  its CUDA major by name from `xla_cuda_plugin.so` (when a GPU starts), and gets the preloaded
  copy, or, where none was preloaded, what the search from that object's DT_RPATH finds.

Not modelled (the facts say "unknown" or "not modelled" rather than guess): Windows and macOS;
a torch/__init__.py or plugin __init__.py in a form not listed above; the script's directory
that a program's sys.path starts with; the DT_RPATH of the extension modules between ctypes and
an object it loads; what the frameworks dlopen() lazily later (cuDNN's sub-libraries, the
driver's libcuda.so.1); symbol versions (a library whose dependencies resolve but lack a symbol
version still fails to load).
"""

from __future__ import annotations

import ast
import fnmatch
import os
import posixpath
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from envcheck.framework_names import framework_of
from envcheck.probe import file_system
from envcheck.probe.binary_files import BinaryInfo, expand_origin, read_binary
from envcheck.probe.copy_owners import Claim, copy_owners, library_key, site_claims
from envcheck.probe.facts import (
    FrameworkFacts,
    FrameworkLibraryFacts,
    FrameworkLoadingFacts,
)
from envcheck.probe.search import LinuxSearch
from envcheck.record import record

SOURCE_LIMIT = 8 * 1024 * 1024  # characters of a framework's __init__.py read (torch's: ~110 KB)
TORCH_INIT = "torch/__init__.py"
GLOBAL_DEPS = "torch/lib/libtorch_global_deps.so"
_JAX_PLUGIN = re.compile(r"^jax-cuda(\d+)-plugin$")
_CUDA_DIR = re.compile(r"^cu(\d+)$")  # nvidia/cu13: CUDA 13's one directory of libraries
_DRIVER = "libcuda.so.1"
# `import torch._C`: the extension module's file names.
_TORCH_EXTENSION = re.compile(r"^_C(\.cpython-[\w-]+|\.abi3)?\.so$")
_PACKAGE_INIT = re.compile(r"^__init__(\.py|\.pyc|(\.[\w-]+)?\.so)$")
# Where torch's templates name the folder, the pattern and the CUDA major directory.
FOLDER, MAJOR_DIR = "{folder}", "cu{major}"


# --- reading torch/__init__.py ---------------------------------------------------------------


@record
class TorchPreloads:
    """How the installed torch/__init__.py preloads CUDA libraries, as data."""

    table: tuple[tuple[str, str], ...]  # (folder, glob pattern), in the order torch loads them
    # Directory parts joined to a sys.path entry, in the order torch concatenates their matches:
    # ("nvidia", "{folder}", "lib"), ("nvidia", "cu{major}", "lib"), ("{folder}", "lib").
    templates: tuple[tuple[str, ...], ...]
    # After libtorch_global_deps.so loads: the pairs preloaded then (torch >= 2.5), and the text
    # /proc/self/maps must hold first ("libcudart.so"); () when nothing is preloaded then.
    after: tuple[tuple[str, str], ...]
    condition: str | None
    missing_stops: bool  # a pair without a match ends the preloads (required=True: ValueError)
    on_failure: tuple[tuple[str, str], ...]  # preloaded when libtorch_global_deps.so fails
    source: str  # what was read, for the facts


def _string(node: ast.AST | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _pairs(node: ast.AST | None) -> tuple[tuple[str, str], ...] | None:
    """A `cuda_libs` literal: a list of (folder, pattern) tuples, or a {folder: pattern} dict."""
    pairs: list[tuple[str, str]] = []
    if isinstance(node, ast.Dict):
        for key, value in zip(node.keys, node.values):
            folder, pattern = _string(key), _string(value)
            if folder is None or pattern is None:
                return None
            pairs.append((folder, pattern))
    elif isinstance(node, (ast.List, ast.Tuple)):
        for item in node.elts:
            if not isinstance(item, ast.Tuple) or len(item.elts) != 2:
                return None
            folder, pattern = _string(item.elts[0]), _string(item.elts[1])
            if folder is None or pattern is None:
                return None
            pairs.append((folder, pattern))
    else:
        return None
    return tuple(pairs) or None


# The functions of torch/__init__.py the model reads (read_torch_preloads).
TORCH_FUNCTIONS = ("_load_global_deps", "_preload_cuda_deps", "_get_cuda_dep_paths")


def _functions(tree: ast.Module) -> dict[str, ast.FunctionDef]:
    return {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}


def parsed_functions(text: str, names: Sequence[str]) -> dict[str, ast.FunctionDef]:
    """The module's top-level functions, parsed from the blocks of `names` only when they parse
    and hold them all, else from the whole file.

    torch/__init__.py is ~100 kB: a whole parse was a third of the static model's time, and the
    model reads three of its functions. A block runs from `def NAME(` at column 0 to the next
    line that starts at column 0 (a signature's closing parenthesis aside); a block cut inside a
    string literal does not parse, and then the whole file is parsed as before. (A syntax error
    outside those functions then goes unseen here: the smoke test imports torch and says so.)
    """
    lines = text.splitlines(keepends=True)
    blocks: list[str] = []
    inside = False
    for line in lines:
        if line[:1] not in ("", " ", "\t", "\n", "\r", "#", ")"):
            inside = line.startswith("def ") and line[4:].split("(", 1)[0].strip() in names
        if inside:
            blocks.append(line)
    try:
        functions = _functions(ast.parse("".join(blocks)))
        # None of them found is left to the whole parse: it says whether the file parses at all.
        wanted = [name for name in names if f"\ndef {name}(" in text]
        if wanted and all(name in functions for name in wanted):
            return functions
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        pass
    return _functions(ast.parse(text))


def _table(functions: Mapping[str, ast.FunctionDef]) -> tuple[tuple[str, str], ...] | None:
    """The `cuda_libs` table, then the single preloads `_preload_cuda_deps` adds after its loop
    (libnvToolsExt in torch 2.9+)."""
    for name in ("_preload_cuda_deps", "_load_global_deps"):
        function = functions.get(name)
        if function is None:
            continue
        for node in ast.walk(function):
            value: ast.expr | None
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                target, value = node.targets[0], node.value
            elif isinstance(node, ast.AnnAssign):
                target, value = node.target, node.value
            else:
                continue
            if isinstance(target, ast.Name) and target.id == "cuda_libs":
                table = _pairs(value)
                if table is None:
                    return None
                extra = []
                if name == "_preload_cuda_deps":
                    for statement in function.body:
                        call = statement.value if isinstance(statement, ast.Expr) else None
                        if _called(call) == "_preload_cuda_lib":
                            assert isinstance(call, ast.Call)
                            pair = [_string(a) for a in call.args[:2]]
                            if len(pair) == 2 and pair[0] and pair[1]:
                                extra.append((pair[0], pair[1]))
                return (*table, *extra)
    return None


def _called(node: ast.AST | None) -> str | None:
    if not isinstance(node, ast.Call):
        return None
    function = node.func
    if isinstance(function, ast.Name):
        return function.id
    if isinstance(function, ast.Attribute):
        return function.attr
    return None


def _join_parts(call: ast.AST, names: Mapping[str, tuple[str, ...]], folder: str,
                pattern: str) -> tuple[str, ...] | None:  # fmt: skip
    """The directory parts of `os.path.join(<sys.path entry>, ...)` up to the pattern, with the
    folder and the CUDA major directory as placeholders; None for any other form."""
    if _called(call) != "join" or not isinstance(call, ast.Call) or len(call.args) < 2:
        return None
    first = call.args[0]
    if not isinstance(first, ast.Name) or first.id not in names:
        return None
    parts = list(names[first.id])
    *middle, last = call.args[1:]
    if not (isinstance(last, ast.Name) and last.id == pattern):
        return None
    for argument in middle:
        text = _string(argument)
        if text is not None:
            parts.append(text)
        elif isinstance(argument, ast.Name) and argument.id == folder:
            parts.append(FOLDER)
        elif (
            isinstance(argument, ast.JoinedStr)
            and len(argument.values) == 2
            and _string(argument.values[0]) == "cu"
            and isinstance(argument.values[1], ast.FormattedValue)
        ):
            parts.append(MAJOR_DIR)
        else:
            return None
    return tuple(parts)


def _templates(functions: Mapping[str, ast.FunctionDef]) -> tuple[tuple[str, ...], ...] | None:
    """The directories torch globs in each sys.path entry: `_get_cuda_dep_paths(path, folder,
    name)` (torch >= 2.6), else the `_preload_cuda_deps(folder, name)` loop that joins
    `os.path.join(path, "nvidia")` (torch 2.1-2.5)."""
    function = functions.get("_get_cuda_dep_paths") or functions.get("_preload_cuda_deps")
    if function is None:
        return None
    arguments = [a.arg for a in function.args.args]
    if function.name == "_get_cuda_dep_paths" and len(arguments) == 3:
        path, folder, pattern = arguments
    elif function.name == "_preload_cuda_deps" and len(arguments) == 2:
        (folder, pattern), path = arguments, "path"
    else:
        return None
    names: dict[str, tuple[str, ...]] = {path: ()}
    for node in ast.walk(function):
        # nvidia_path = os.path.join(path, "nvidia"): a name for a directory under the entry.
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and _called(node.value) == "join"
            and isinstance(node.value, ast.Call)
            and node.value.args
            and isinstance(node.value.args[0], ast.Name)
            and node.value.args[0].id == path
            and all(_string(a) for a in node.value.args[1:])
        ):
            names[node.targets[0].id] = tuple(_string(a) or "" for a in node.value.args[1:])
    templates = []
    # The source order is the order torch adds the matches up (`nvidia_lib_paths + lib_paths`).
    for node in sorted(ast.walk(function), key=_source_order):
        if _called(node) == "glob" and isinstance(node, ast.Call) and len(node.args) == 1:
            parts = _join_parts(node.args[0], names, folder, pattern)
            if parts is None:
                return None
            templates.append(parts)
    return tuple(templates) if templates else None


def _source_order(node: ast.AST) -> tuple[int, int]:
    return getattr(node, "lineno", 0), getattr(node, "col_offset", 0)


def _success_path(
    load: ast.FunctionDef, table: tuple[tuple[str, str], ...], preload: ast.FunctionDef | None
) -> tuple[tuple[tuple[str, str], ...], str | None, bool, tuple[tuple[str, str], ...]] | None:
    """(pairs preloaded after libtorch_global_deps.so loads, the /proc/self/maps condition,
    whether a missing one stops them, pairs preloaded when it fails to load)."""
    # The try around `ctypes.CDLL(<libtorch_global_deps.so>, mode=RTLD_GLOBAL)` (torch 2.14 has
    # an earlier one, around its editable-install fallback).
    tries = [
        node
        for node in ast.walk(load)
        if isinstance(node, ast.Try)
        and any(
            _called(n) == "CDLL" for s in node.body if isinstance(s, ast.Expr) for n in [s.value]
        )
    ]
    if not tries:
        return None
    outer = min(tries, key=_source_order)
    after: list[tuple[str, str]] = []
    condition: str | None = None
    stops = True
    for node in sorted((n for s in outer.body for n in ast.walk(s)), key=_source_order):
        if (
            isinstance(node, ast.Compare)
            and len(node.ops) == 1
            and isinstance(node.ops[0], ast.NotIn)
            and _string(node.left)
        ):
            condition = _string(node.left)
        if _called(node) != "_preload_cuda_deps":
            continue
        assert isinstance(node, ast.Call)
        explicit = [_string(a) for a in node.args]
        if len(explicit) == 2 and all(explicit):
            after.append((explicit[0] or "", explicit[1] or ""))
            continue
        if node.args:
            return None
        after.extend(table)
        required = {k.arg: k.value for k in node.keywords}.get("required")
        if required is not None:
            stops = not (isinstance(required, ast.Constant) and required.value is False)
        elif preload is not None:
            stops = _default(preload, "required") is not False
    failure: tuple[tuple[str, str], ...] = ()
    for handler in outer.handlers:
        if any(_called(n) == "_preload_cuda_deps" for n in ast.walk(handler)):
            failure = table
    return tuple(after), condition, stops, failure


def _default(function: ast.FunctionDef, name: str) -> object:
    arguments = function.args.args
    defaults = function.args.defaults
    offset = len(arguments) - len(defaults)
    for index, argument in enumerate(arguments):
        if argument.arg == name and index >= offset:
            value = defaults[index - offset]
            return value.value if isinstance(value, ast.Constant) else None
    return True  # no such parameter: the loader raised for a missing library (torch <= 2.8)


def read_torch_preloads(init: str | os.PathLike[str]) -> TorchPreloads | str:
    """The preload plan of an installed torch/__init__.py, or why it cannot be read ("unknown:
    ..."). Forms read: the `cuda_libs` dict in `_load_global_deps`' OSError handler (torch
    2.1-2.4), explicit `_preload_cuda_deps(folder, pattern)` calls after the /proc/self/maps
    check (2.5-2.7), and the `cuda_libs` list of `_preload_cuda_deps` with `_get_cuda_dep_paths`
    (2.8+, its nvidia/cu<major> directory from 2.9)."""
    text = file_system.read_text_limited(init, SOURCE_LIMIT)
    if text is None:
        return f"unknown: {init} cannot be read"
    try:
        functions = parsed_functions(text, TORCH_FUNCTIONS)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        return f"unknown: {init} does not parse ({type(exc).__name__})"
    load = functions.get("_load_global_deps")
    if load is None:
        return f"unknown: {init} has no _load_global_deps()"
    table = _table(functions)
    templates = _templates(functions)
    if table is None or templates is None:
        return f"unknown: {init} has no preload table in a form this model reads"
    success = _success_path(load, table, functions.get("_preload_cuda_deps"))
    if success is None:
        return f"unknown: {init}'s _load_global_deps() is in a form this model does not read"
    after, condition, stops, failure = success
    shown = ", ".join("/".join(t) for t in templates)
    when = (
        f"after libtorch_global_deps.so loads{f' and maps show {condition!r}' if condition else ''}"
        if after
        else "only when libtorch_global_deps.so fails to load"
    )
    source = f"{TORCH_INIT}: {len(table)} preloads ({when}) from {shown} in each sys.path entry"
    return TorchPreloads(table, templates, after, condition, stops, failure, source)


# --- reading the JAX plugin's __init__.py ----------------------------------------------------


def read_jax_preloads(
    init: str | os.PathLike[str],
) -> tuple[tuple[str, tuple[str, ...]], ...] | str:
    """(nvidia module, library file names) of each `_load(...)` call in the plugin's
    `_load_nvidia_libraries()`, in order, or why they cannot be read ("unknown: ...")."""
    text = file_system.read_text_limited(init, SOURCE_LIMIT)
    if text is None:
        return f"unknown: {init} cannot be read"
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        return f"unknown: {init} does not parse ({type(exc).__name__})"
    functions = _functions(tree)
    loads, loader = functions.get("_load_nvidia_libraries"), functions.get("_load")
    if loads is None or loader is None:
        return f"unknown: {init} has no _load_nvidia_libraries() and _load() to read"
    # _load must CDLL <first directory of nvidia.<module>>/lib/<name>: its __path__[0] and "lib".
    uses = {n.attr for n in ast.walk(loader) if isinstance(n, ast.Attribute)}
    if "__path__" not in uses or "lib" not in {_string(n) for n in ast.walk(loader)}:
        return f"unknown: {init}'s _load() is in a form this model does not read"
    calls = []
    for statement in loads.body:
        call = statement.value if isinstance(statement, ast.Expr) else None
        if _called(call) != "_load":
            continue
        assert isinstance(call, ast.Call)
        module = _string(call.args[0]) if call.args else None
        names = call.args[1] if len(call.args) > 1 else None
        files = [_string(n) for n in names.elts] if isinstance(names, (ast.List, ast.Tuple)) else []
        if module is None or not files or not all(files):
            return f"unknown: a _load() call in {init} names no literal module and libraries"
        calls.append((module, tuple(f or "" for f in files)))
    return tuple(calls) if calls else f"unknown: {init}'s _load_nvidia_libraries() loads nothing"


def package_directory(sys_path: Sequence[str], dotted: str) -> str | None:
    """The first directory of package `dotted` as Python's import system finds it on sys_path
    (`m.__path__[0]`): a regular package (with __init__) in any entry wins over namespace
    portions, which otherwise each entry with the directory adds, in order. None when no entry
    has it. Module files of the same name are not modelled."""
    search = list(sys_path)
    for part in dotted.split("."):
        portions = []
        regular = None
        for entry in search:
            directory = posixpath.join(entry, part)
            if not file_system.is_dir(directory):
                continue
            if any(_PACKAGE_INIT.match(n) for n in file_system.names_in_order(directory)):
                regular = directory
                break
            portions.append(directory)
        if regular is not None:
            search = [regular]
        elif portions:
            search = portions
        else:
            return None
    return search[0]


# --- the loader --------------------------------------------------------------------------------


@dataclass
class _Object:
    """One object in the process's link map."""

    path: str
    real: str
    info: BinaryInfo
    names: set[str]  # the names it answers to: its soname and every name it was asked for by
    how: str
    loader: _Object | None  # the object that loaded it (glibc's l_loader)


@dataclass
class _Loader:
    """glibc's ld.so for the objects of one process, as far as the model needs it."""

    search: LinuxSearch  # LD_LIBRARY_PATH, ld.so cache, defaults; runpath/rpath set per object
    executable_rpath: tuple[tuple[str, tuple[str, ...]], ...]
    follow: Callable[[str, str], bool]  # (name, path): read this object's own DT_NEEDED too
    objects: list[_Object] = field(default_factory=list)
    wanted: dict[str, list[str]] = field(default_factory=dict)  # real path -> who needs it
    missing: dict[str, list[str]] = field(default_factory=dict)  # name -> who needed it

    def loaded(self, name: str) -> _Object | None:
        """ld.so reuses an object already mapped whose name or soname is the one asked for."""
        return next((o for o in self.objects if name in o.names), None)

    def _search_from(self, requester: _Object) -> LinuxSearch:
        info, origin = requester.info, posixpath.dirname(requester.path)
        if info.runpath:
            runpath = ((requester.path, expand_origin(info.runpath, origin)),)
            return replace(self.search, runpath=runpath, rpath=())
        # No DT_RUNPATH: the DT_RPATH of the requester, of the object that loaded it and so on
        # up (those with a DT_RUNPATH give none), then the executable's.
        chain: list[tuple[str, tuple[str, ...]]] = []
        node: _Object | None = requester
        while node is not None:
            if node.info.rpath and not node.info.runpath:
                chain.append(
                    (node.path, expand_origin(node.info.rpath, posixpath.dirname(node.path)))
                )
            node = node.loader
        return replace(self.search, runpath=(), rpath=(*chain, *self.executable_rpath))

    def open_path(self, path: str, how: str) -> tuple[_Object | None, str | None]:
        """dlopen(path): (the object, None) or (None, why it fails). All or nothing, as in glibc:
        what a failing dlopen mapped is unmapped again."""
        real = file_system.real_path(path)
        same = next((o for o in self.objects if o.real == real), None)
        if same is not None:
            return same, None
        if not file_system.is_file(path):
            return None, f"{path}: no such file"
        mark = len(self.objects)
        wanted = {k: list(v) for k, v in self.wanted.items()}
        info = read_binary(path, exports=False)
        if info.format != "elf":
            return None, f"{path}: {'; '.join(info.problems) or 'not an ELF file'}"
        first = _Object(path, real, info, {n for n in (info.soname,) if n}, how, None)
        self.objects.append(first)
        failure = self._map_dependencies(first)
        if failure is not None:
            del self.objects[mark:]
            self.wanted = wanted
            return None, failure
        return first, None

    def _map_dependencies(self, first: _Object) -> str | None:
        """Every DT_NEEDED below `first`, breadth first as ld.so maps them."""
        queue = [first]
        while queue:
            requester = queue.pop(0)
            if not self.follow(posixpath.basename(requester.path), requester.path):
                continue
            search: LinuxSearch | None = None
            for name in requester.info.needed:
                found = self.loaded(name)
                if found is None:
                    search = search or self._search_from(requester)
                    chosen = next((c for c in search.candidates(name) if c.selected), None)
                    if chosen is None:
                        if self.follow(name, ""):
                            self.missing.setdefault(name, []).append(requester.path)
                            who = posixpath.basename(requester.path)
                            return f"{name}, which {who} needs, is not found"
                        continue  # a system library: the running Python has it
                    info = read_binary(chosen.path, exports=False)
                    how = f"DT_NEEDED of {posixpath.basename(requester.path)}: {chosen.found_via}"
                    real = file_system.real_path(chosen.path)
                    found = next((o for o in self.objects if o.real == real), None)
                    if found is None:
                        found = _Object(chosen.path, real, info, {name}, how, requester)
                        self.objects.append(found)
                        queue.append(found)
                    found.names.add(name)
                    if info.soname:
                        found.names.add(info.soname)
                self.wanted.setdefault(found.real, []).append(requester.path)
        return None


def _is_stack(name: str) -> bool:
    return name == _DRIVER or library_key(name) is not None


# --- the frameworks ----------------------------------------------------------------------------


@dataclass
class _Context:
    sys_path: tuple[str, ...]
    search: LinuxSearch
    executable_rpath: tuple[tuple[str, tuple[str, ...]], ...]
    claims: dict[str, dict[str, list[Claim]]] = field(default_factory=dict)
    # site -> file name -> the distributions whose RECORD installs a file of that name
    by_name: dict[str, dict[str, set[str]]] = field(default_factory=dict)

    def providers(self, path: str) -> tuple[str, ...]:
        """The distributions whose RECORD installs a file of this name under the site's nvidia/
        (nvidia-curand-cu12 in nvidia/curand/lib and nvidia-curand in nvidia/cu13/lib)."""
        site, marker, _ = path.rpartition("/nvidia/")
        if not marker:
            return ()
        if site not in self.by_name:
            # Indexed once per site: asked per library, a scan of every RECORD row each time.
            if site not in self.claims:
                self.claims[site] = site_claims(site)
            index: dict[str, set[str]] = {}
            for relative, listed in self.claims[site].items():
                index.setdefault(posixpath.basename(relative), set()).update(c[0] for c in listed)
            self.by_name[site] = index
        return tuple(sorted(self.by_name[site].get(posixpath.basename(path), ())))


def _major(version: object) -> str | None:
    text = str(version or "").split(".", 1)[0]
    return text if text.isdigit() else None


def _loader(context: _Context, own: Sequence[str]) -> _Loader:
    def follow(name: str, path: str) -> bool:
        # The framework's own objects, the wheels' and the CUDA stack are followed; the system's
        # (libc, libstdc++) are the running Python's already and decide nothing here.
        return _is_stack(name) or path.startswith(tuple(own)) or "/nvidia/" in path

    return _Loader(context.search, context.executable_rpath, follow)


def _torch_loading(torch: FrameworkFacts, context: _Context) -> FrameworkLoadingFacts:
    cuda = _major(torch.build.get("cuda_version"))
    site = torch.location or ""
    facts = FrameworkLoadingFacts("torch", torch.version, cuda, "")
    if torch.build.get("is_cuda_build") is False or cuda is None:
        return replace(facts, model="a CPU-only build: it loads no CUDA library")
    plan = read_torch_preloads(posixpath.join(site, TORCH_INIT))
    if isinstance(plan, str):
        return replace(facts, model=plan)
    own = posixpath.join(site, "torch") + "/"
    loader = _loader(context, [own])
    global_deps = posixpath.join(site, GLOBAL_DEPS)
    notes: list[str] = []
    opened, failure = loader.open_path(global_deps, f"ctypes.CDLL by {TORCH_INIT}")
    if opened is not None and plan.after:
        mapped = " ".join(o.real for o in loader.objects)
        if plan.condition is None or plan.condition in mapped:
            notes += _torch_preload(loader, plan, plan.after, cuda, context.sys_path)
    elif opened is None:
        notes.append(f"libtorch_global_deps.so fails to load ({failure})")
        if plan.on_failure:
            notes += _torch_preload(loader, replace(plan, missing_stops=True), plan.on_failure,
                                    cuda, context.sys_path)  # fmt: skip
            opened, failure = loader.open_path(global_deps, f"ctypes.CDLL by {TORCH_INIT}")
            if opened is None:
                notes.append(f"and after the preloads ({failure}): import torch fails")
    extension = next(
        (n for n in file_system.names_in_order(posixpath.join(site, "torch"))
         if _TORCH_EXTENSION.match(n)), None,
    )  # fmt: skip
    if extension is None:
        notes.append("torch/_C*.so is not there: import torch fails")
    elif opened is not None:
        _, failure = loader.open_path(posixpath.join(site, "torch", extension), "import torch._C")
        if failure is not None:
            notes.append(f"import torch._C fails: {failure}")
    model = "; ".join([f"{plan.source}; then the DT_NEEDED of torch/{extension}", *notes])
    libraries = (*_rows(loader, [own], context), *_missing(loader, [own]))
    return replace(facts, model=model, libraries=libraries)


def _torch_preload(
    loader: _Loader,
    plan: TorchPreloads,
    pairs: Iterable[tuple[str, str]],
    cuda: str,
    sys_path: Sequence[str],
) -> list[str]:
    """torch's `_preload_cuda_lib` for each pair in order; what stopped it, if anything."""
    for folder, pattern in pairs:
        chosen: tuple[str, str] | None = None
        for entry in sys_path:
            matches = []
            for template in plan.templates:
                parts = [folder if p == FOLDER else f"cu{cuda}" if p == MAJOR_DIR else p
                         for p in template]  # fmt: skip
                directory = posixpath.join(entry, *parts)
                matches += [
                    posixpath.join(directory, name)
                    for name in file_system.names_in_order(directory)
                    if not name.startswith(".") and fnmatch.fnmatchcase(name, pattern)
                ]
            if matches:
                chosen = entry, matches[0]
                break
        if chosen is None:
            if plan.missing_stops:
                return [f"no {pattern} in any sys.path entry: torch stops preloading there"]
            continue
        entry, path = chosen
        relative = posixpath.relpath(path, entry)
        how = f"preloaded by {TORCH_INIT} from sys.path entry {entry} ({relative}, glob {pattern})"
        _, failure = loader.open_path(path, how)
        if failure is not None:
            return [f"preloading {path} fails ({failure}): torch stops preloading there"]
    return []


def _jax_loading(
    plugin: FrameworkFacts, jax: FrameworkFacts | None, context: _Context
) -> FrameworkLoadingFacts:
    match = _JAX_PLUGIN.match(plugin.name)
    cuda = match.group(1) if match else None
    facts = FrameworkLoadingFacts("jax", (jax or plugin).version, cuda, "")
    site = plugin.location or ""
    package = posixpath.join(site, "jax_plugins", f"xla_cuda{cuda}")
    init = posixpath.join(package, "__init__.py")
    calls = read_jax_preloads(init)
    if isinstance(calls, str):
        return replace(facts, model=calls)
    own = [package + "/", posixpath.join(site, f"jax_cuda{cuda}_plugin") + "/"]
    loader = _loader(context, own)
    relative = posixpath.relpath(init, site)
    notes: list[str] = []
    absent: dict[str, list[str]] = {}  # a package not on sys.path: its files are not preloaded
    for module, files in calls:
        directory = package_directory(context.sys_path, f"nvidia.{module}")
        if directory is None:
            absent.setdefault(f"nvidia.{module}", []).extend(files)
            continue
        for name in files:
            how = f"preloaded by {relative} (_load: nvidia.{module} at {directory})"
            _, failure = loader.open_path(posixpath.join(directory, "lib", name), how)
            if failure is not None:
                notes.append(f"{name} not preloaded ({failure})")
    # XLA asks for its CUDA major's libraries by name from xla_cuda_plugin.so when a GPU starts:
    # each gets the copy loaded under that name, or what the plugin's own search finds.
    plugin_object = posixpath.join(package, "xla_cuda_plugin.so")
    mine = [n for m, files in calls if not _other_major(m, cuda) for n in files]
    requester = _Object(plugin_object, file_system.real_path(plugin_object),
                        read_binary(plugin_object, exports=False), set(), "", None)  # fmt: skip
    for name in dict.fromkeys(mine):
        found = loader.loaded(name)
        if found is None:
            chosen = next(
                (c for c in loader._search_from(requester).candidates(name) if c.selected), None
            )
            if chosen is None:
                loader.missing.setdefault(name, []).append(plugin_object)
                continue
            how = f"dlopen by xla_cuda_plugin.so when a GPU starts: {chosen.found_via}"
            found, failure = loader.open_path(chosen.path, how)
            if found is None:
                notes.append(f"{name} fails to load ({failure})")
                continue
            found.names.add(name)
        loader.wanted.setdefault(found.real, []).append(plugin_object)
    notes += [f"no {m} package: {len(f)} not preloaded" for m, f in absent.items()]
    model = "; ".join(
        [f"{relative}: {sum(len(f) for _, f in calls)} preloads from the nvidia.* packages on "
         f"sys.path, then xla_cuda_plugin.so's dlopen by name", *notes]
    )  # fmt: skip
    libraries = (*_rows(loader, own, context), *_missing(loader, own))
    return replace(facts, model=model, libraries=libraries)


def _other_major(module: str, cuda: str | None) -> bool:
    """`_load("cu13", ...)` in a CUDA 12 plugin: another major's directory, which the plugin
    preloads when it is there but XLA never asks for."""
    match = _CUDA_DIR.match(module)
    return match is not None and match.group(1) != cuda


def _rows(loader: _Loader, own: Sequence[str], context: _Context) -> list[FrameworkLibraryFacts]:
    stack = [o for o in loader.objects if library_key(o.path) is not None]
    owners = copy_owners([o.path for o in stack], context.claims)
    libraries = []
    for obj, owner in zip(stack, owners):
        users = [p for p in loader.wanted.get(obj.real, []) if p.startswith(tuple(own))]
        libraries.append(
            FrameworkLibraryFacts(
                library=obj.info.soname or posixpath.basename(obj.path),
                path=obj.path,
                how=obj.how,
                wanted_by=tuple(dict.fromkeys(posixpath.basename(p) for p in users)),
                owner=owner.distribution,
                cuda=owner.cuda,
                providers=context.providers(obj.path),
            )
        )
    return libraries


def _missing(loader: _Loader, own: Sequence[str]) -> list[FrameworkLibraryFacts]:
    rows = []
    for name, who in loader.missing.items():
        if not _is_stack(name) or loader.loaded(name) is not None:
            continue
        users = tuple(dict.fromkeys(posixpath.basename(p) for p in who if p.startswith(tuple(own))))
        problem = f"not found where the loader searches: loading {posixpath.basename(who[0])} fails"
        rows.append(FrameworkLibraryFacts(name, None, "not found", users, None, None,
                                          problems=(problem,)))  # fmt: skip
    return rows


def framework_loading(
    frameworks: Sequence[FrameworkFacts],
    sys_path: Sequence[str],
    search: LinuxSearch | None,
    executable: str | None,
    claims: Mapping[str, dict[str, list[Claim]]] | None = None,
) -> tuple[FrameworkLoadingFacts, ...]:
    """What each PyTorch and JAX present loads and which file the loader gives it.

    `search` is this host's loader search (host_search, with its file-system callables), None
    on Windows and macOS, where nothing is modelled; `sys_path` the probed interpreter's (its
    first entry, a program's own directory, is not known here); `executable` the interpreter,
    whose DT_RPATH ld.so searches last among the RPATHs; `claims` the sites' site_claims
    already read (by the framework scan's child), each read here only when missing.
    """
    torch = next((f for f in frameworks if f.name == "torch"), None)
    plugins = [f for f in frameworks if _JAX_PLUGIN.match(f.name)]
    jax = next((f for f in frameworks if f.name == "jax"), None)
    found: list[FrameworkLoadingFacts] = []
    if search is None:
        return tuple(
            FrameworkLoadingFacts(key, f.version, None, "not modelled: Linux's loader only")
            for key, f in (("torch", torch), ("jax", plugins[0] if plugins else None))
            if f is not None
        )
    rpath: tuple[tuple[str, tuple[str, ...]], ...] = ()
    if executable:
        real = file_system.real_path(executable)
        info = read_binary(real, exports=False)
        if info.rpath and not info.runpath:
            rpath = ((real, expand_origin(info.rpath, posixpath.dirname(real))),)
    base = replace(search, runpath=(), rpath=(), extra=())
    if torch is not None:
        context = _Context(tuple(sys_path), base, rpath, dict(claims or {}))
        found.append(_torch_loading(torch, context))
    if plugins:
        context = _Context(tuple(sys_path), base, rpath, dict(claims or {}))
        found.append(_jax_loading(plugins[0], jax, context))
    elif jax is not None and any(framework_of(f.name) == "jax" for f in frameworks):
        found.append(
            FrameworkLoadingFacts(
                "jax", jax.version, None, "no CUDA plugin: it loads no CUDA library"
            )
        )
    return tuple(found)
