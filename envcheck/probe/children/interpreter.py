"""Child: the probed interpreter's version, bitness, platform and prefixes; prints one JSON line.

Standard library only, Python 3.7+: it runs inside another environment's interpreter.
Argument: null, or {"distributions": true} to list the installed distributions too (name and
version, in sys.path order: the first of a name is the one that imports), which `install` needs
to say what it would replace; null when importlib.metadata is missing (Python 3.7).
"""

import json
import os
import platform
import struct
import sys


def distributions():
    try:
        from importlib import metadata
    except ImportError:
        return None
    found = []
    for dist in metadata.distributions():
        name = dist.metadata["Name"]
        if name:
            found.append([name, dist.version])
    return found


def main(argv):
    try:
        argument = json.loads(argv[1]) if len(argv) > 1 else None
    except ValueError:
        argument = None
    out = {
        "python": platform.python_version(),
        "bits": struct.calcsize("P") * 8,
        "executable": sys.executable,
        "machine": platform.machine(),
        "prefix": sys.prefix,
        "base_prefix": getattr(sys, "base_prefix", getattr(sys, "real_prefix", sys.prefix)),
        "conda": os.path.isdir(os.path.join(sys.prefix, "conda-meta")),  # noqa: PTH112, PTH118
    }
    if isinstance(argument, dict) and argument.get("distributions"):
        out["distributions"] = distributions()
    return out


if __name__ == "__main__":
    print(json.dumps(main(sys.argv)))
