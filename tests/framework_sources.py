"""Sources written in the shapes of frameworks' own loading code, shared by the tests that read
them (tests/test_framework_loading.py) and the tests that run them against the real loader
(tests/test_layout_snapshots.py). Written here, not copied.
"""

from __future__ import annotations

# The JAX CUDA plugin's `_load` (jax_plugins/xla_cuda12/__init__.py of jax-cuda12-plugin 0.10.2):
# CDLL <first directory of nvidia.<module>>/lib/<name>, failures passed over. A module using it
# follows with its own `def _load_nvidia_libraries():` and the calls.
JAX_LOAD = """
import ctypes, importlib, pathlib

def _load(module, libraries):
    try:
        m = importlib.import_module(f"nvidia.{module}")
    except ImportError:
        m = None
    for lib in libraries:
        if m is not None:
            try:
                ctypes.cdll.LoadLibrary(pathlib.Path(m.__path__[0]) / "lib" / lib)
            except OSError:
                pass
"""
