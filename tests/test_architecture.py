"""The package reads like the architecture: imports point down only.

conventions, units <- queueing <- hardware <- kernel; data, calibration, plotting,
report and cli sit beside the layers and may import any of them, but no layer imports
them. ``zmodel.conventions`` (the one checker, vectorising wrapper and saturation
policy) and ``zmodel.units`` form the bottom layer: every layer imports them, they
import no zmodel module.
"""
import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "zmodel"
LAYERS = {"conventions": -1, "units": -1, "queueing": 0, "hardware": 1, "kernel": 2}
BESIDE = {"data", "calibration", "fits", "plotting", "report", "cli"}


def _zmodel_imports(path: Path):
    """(imported zmodel sub-package, line) pairs of one source file, relative imports resolved."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    parts = path.relative_to(PKG.parent).with_suffix("").parts
    package = parts[:-1] if path.name != "__init__.py" else parts[:-1]
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                names = [".".join(base + ((node.module,) if node.module else ()))]
            else:
                names = [node.module or ""]
        for name in names:
            bits = name.split(".")
            if bits[0] == "zmodel" and len(bits) > 1:
                yield bits[1], node.lineno


def _layer_files():
    for layer in LAYERS:
        if (PKG / f"{layer}.py").is_file():
            yield layer, PKG / f"{layer}.py"
        for path in sorted((PKG / layer).rglob("*.py")):
            yield layer, path


@pytest.mark.parametrize("layer,path", list(_layer_files()), ids=lambda v: str(v).rsplit("zmodel/", 1)[-1])
def test_layer_imports_point_down(layer, path):
    for target, line in _zmodel_imports(path):
        where = f"{path.relative_to(PKG.parent)}:{line} imports zmodel.{target}"
        assert target not in BESIDE, f"{where}: a layer must not import the modules beside the layers"
        assert target in LAYERS, f"{where}: a layer may import only the layers and the bottom modules"
        if LAYERS[layer] < 0:
            assert False, f"{where}: the bottom modules import no zmodel module"
        assert LAYERS[target] <= LAYERS[layer], f"{where}: imports must point down only"


def test_checker_sees_a_violation(tmp_path):
    """The checker itself can fail: an upward import is found."""
    bad = PKG / "queueing" / "_tmp_upward_probe.py"
    try:
        bad.write_text("from zmodel.kernel import something\nfrom ..hardware import x\n")
        assert [t for t, _ in _zmodel_imports(bad)] == ["kernel", "hardware"]
    finally:
        bad.unlink()


def test_import_zmodel_is_light():
    """`import zmodel` and `import zmodel.queueing` load no heavy library (speed is benchmarked)."""
    code = (
        "import sys, zmodel, zmodel.queueing, zmodel.hardware, zmodel.kernel\n"
        "heavy = sorted(m for m in ('pandas','scipy','sympy','altair','numba','simpy') if m in sys.modules)\n"
        "print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


# the private checker and wrapper copies that zmodel.conventions replaced (issue 10 part 4)
_REPLACED = re.compile(r"^\s*def (_count|_positive_int|_positive|_probability|_nonneg|_nonneg_scalar|_fraction|"
                       r"_get_int|_get_float|_get_bool|_integer|_scalar|_sizes|_op|_out|_wrapped|_result)\(",
                       re.M)


@pytest.mark.parametrize("layer,path", list(_layer_files()), ids=lambda v: str(v).rsplit("zmodel/", 1)[-1])
def test_checks_and_wrapping_live_in_conventions(layer, path):
    """One checker and one vectorising wrapper: no layer module grows its own copy back."""
    if layer in ("conventions", "units"):
        return
    text = path.read_text(encoding="utf-8")
    assert not _REPLACED.search(text), f"{path.name}: a private checker/wrapper; use zmodel.conventions"
    assert "series_index(" not in text and not re.search(r"(?<![\w.])wrap\(", text), \
        f"{path.name}: hand-threaded Series index; decorate with zmodel.conventions.vectorized"
