"""Imports plots/plot.py for the tests (it is a script, not a package)."""
import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def load_plot():
    pytest.importorskip("matplotlib")
    pytest.importorskip("pandas")
    spec = importlib.util.spec_from_file_location("plot", ROOT / "plots" / "plot.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod
