"""Generated sources match their generators (edit the generator, not the output)."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_bridge_functions_are_up_to_date():
    r = subprocess.run([sys.executable, ROOT / "embedder/gen/gen_bridge.py", "--check"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr + r.stdout


def test_generated_check_notices_a_hand_edit(tmp_path):
    f = ROOT / "embedder/src/mpi/generated/p2p.rs"
    original = f.read_text()
    try:
        f.write_text(original + "// edited\n")
        r = subprocess.run([sys.executable, ROOT / "embedder/gen/gen_bridge.py", "--check"], capture_output=True, text=True)
        assert r.returncode != 0 and "p2p.rs" in r.stderr
    finally:
        f.write_text(original)
