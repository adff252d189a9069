"""The int8 form of a stored vector (numpy, the ``semantic`` extra).

Owns: ``quantise`` (float vector -> one scale and int8 bytes) and its inverse
``dequantise``. The embedding worker writes vectors in this form and the
hybrid ranker's index reads them back; both import it from here, so neither
imports the other.

Invariants: one scale per vector (``vectors.scale_of``), components clipped to
-127..127; 4x smaller than float32 with a cosine error near 1e-3.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from memoryd.daemon.semantic import vectors

Vector = npt.NDArray[np.float32]


def quantise(vec: Any) -> tuple[float, bytes]:
    """int8 with one scale per vector: 4x smaller, cosine error ~1e-3."""
    arr = np.asarray(vec, dtype=np.float32)
    scale = vectors.scale_of(float(np.max(np.abs(arr))) if arr.size else 0.0)
    q = np.clip(np.rint(arr / scale), -127, 127).astype(np.int8)
    return scale, q.tobytes()


def dequantise(scale: float, blob: bytes) -> Vector:
    return (np.frombuffer(blob, dtype=np.int8).astype(np.float32) * np.float32(scale))
