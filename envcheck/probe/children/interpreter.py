"""Child: the probed interpreter's version, bitness and platform; prints one JSON line.

Standard library only, Python 3.7+: it runs inside another environment's interpreter.
"""

import json
import platform
import struct
import sys

print(
    json.dumps(
        {
            "python": platform.python_version(),
            "bits": struct.calcsize("P") * 8,
            "executable": sys.executable,
            "machine": platform.machine(),
            "prefix": sys.prefix,
        }
    )
)
