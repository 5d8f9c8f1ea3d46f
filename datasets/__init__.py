"""Small data sets that ship with fluidc, so the demo and examples need no download."""
from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np

_HERE = Path(__file__).parent


def load_digits() -> tuple[np.ndarray, np.ndarray]:
    """UCI optical handwritten digits (test set, 1797 8x8 images): pixels in [0, 1], labels 0-9."""
    with gzip.open(_HERE / "digits.csv.gz", "rt") as f:
        table = np.loadtxt(f, delimiter=",", dtype=np.float32)
    return table[:, :64] / 16.0, table[:, 64].astype(np.int64)
