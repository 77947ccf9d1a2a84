"""envcheck: will TensorFlow, CUDA, cuDNN, the NVIDIA driver and this GPU work together?

The package never imports TensorFlow and never loads a GPU library into its own process.
"""

from __future__ import annotations

__version__ = "0.1.0"
