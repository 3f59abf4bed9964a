"""The package reads like the architecture: imports point down only.

conventions, units <- queueing <- hardware <- kernel; data, calibration, plotting, validation,
report and cli sit beside the layers and may import any of them, but no layer imports
them. ``zmodel.conventions`` (the one checker, vectorising wrapper and saturation
policy) and ``zmodel.units`` form the bottom layer: every layer imports them, they
import no zmodel module.
"""
import ast
import re
import math
import subprocess
import sys
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "zmodel"
LAYERS = {"conventions": -1, "units": -1, "queueing": 0, "hardware": 1, "store": 1.5, "kernel": 2}
BESIDE = {"data", "calibration", "fits", "plotting", "report", "cli", "validation"}


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
# --------------------------------------------------------------------------- calibrations
def _calibrations():
    from zmodel.fits import registry

    return registry.calibrations()


def test_every_registered_calibration_has_the_same_entry_points():
    import inspect

    from zmodel.fits import LAYERS, Calibration

    cals = _calibrations()
    assert cals, "no calibration registered"
    for cal in cals:
        assert isinstance(cal, Calibration), cal
        assert cal.layer in LAYERS and cal.area and cal.title
        # one run() and one cross_validate() for every area, catalog fits and the others alike
        for name in ("run", "cross_validate", "measurements", "__call__"):
            assert callable(getattr(cal, name)), (cal.area, name)
        assert list(inspect.signature(cal.cross_validate).parameters) == ["progress", "options"]
        if cal.model is None:
            assert cal.fit is not None and cal.validate is not None, cal.area
        else:
            assert set(cal.kinds) <= set(cal.rows) and set(cal.exclude) <= set(cal.rows), cal.area


def test_fit_modules_keep_only_their_predictors():
    """No fit module defines its own calibrate/cross-validate function: CALIBRATION.run serves."""
    for path in sorted((PKG / "fits").glob("*.py")):
        if path.name in ("__init__.py", "registry.py"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = [n.name for n in tree.body if isinstance(n, ast.FunctionDef)]
        own = [n for n in names if n.startswith(("calibrate_", "cross_validate_"))]
        assert not own, f"{path.name} defines {own}; declare CALIBRATION instead"
        assert any(isinstance(n, ast.Assign) and any(getattr(t, "id", "") == "CALIBRATION" for t in n.targets)
                   for n in tree.body), f"{path.name} exports no CALIBRATION"


def test_every_fit_parameter_has_unit_range_and_provenance():
    for cal in _calibrations():
        if cal.model is None:
            continue
        for p in cal.model().parameters().values():
            where = f"{cal.area}: parameter {p.name!r}"
            assert p.unit.strip(), f"{where} has no unit"
            assert p.source.strip(), f"{where} has no provenance (source)"
            assert p.min <= p.value <= p.max, where
            if p.vary:
                assert math.isfinite(p.min) and math.isfinite(p.max), f"{where} varies without a plausible range"


def _parameter_classes():
    import dataclasses
    import importlib

    from zmodel.queueing._params import is_parameter_class

    found = []
    for layer in ("hardware", "kernel"):
        for path in sorted((PKG / layer).glob("*.py")):
            module = importlib.import_module(f"zmodel.{layer}.{path.stem}")
            for obj in vars(module).values():
                if isinstance(obj, type) and dataclasses.is_dataclass(obj) and obj.__module__ == module.__name__ \
                        and is_parameter_class(obj):
                    found.append(obj)
    return found


def test_model_parameter_classes_declare_every_field():
    import dataclasses

    from zmodel.kernel.memory import InstructionCosts
    from zmodel.kernel.versions import KernelCosts
    from zmodel.queueing._params import is_parameter_class, parameter_info

    classes = _parameter_classes()
    assert {KernelCosts, InstructionCosts} <= set(classes)
    for cls in classes:
        info = parameter_info(cls)
        for f in dataclasses.fields(cls):
            nested = f.default_factory if f.default_factory is not dataclasses.MISSING else None
            if isinstance(nested, type) and is_parameter_class(nested):
                continue
            assert f.name in info, f"{cls.__name__}.{f.name} is not declared with param()"
        for name, i in info.items():
            lo, hi = i.range
            assert i.unit and i.source.strip() and lo <= i.default <= hi, f"{cls.__name__}.{name}"
            assert math.isfinite(lo) and math.isfinite(hi), f"{cls.__name__}.{name}: plausible range must be finite"


def test_a_new_kernel_cost_is_written_once():
    """Every declared kernel cost reaches the kernel-versions fit without a hand mapping, and back."""
    from zmodel.fits.kernel_versions import KernelVersionsModel
    from zmodel.kernel.versions import KernelCosts
    from zmodel.queueing._params import parameter_info

    ps = KernelVersionsModel().parameters()
    declared = set(parameter_info(KernelCosts)) - {"ipte", "ipte_per_cpu"}   # derived from the purge here
    assert declared <= set(ps)
    # to_dataclass maps every value back: move each within its range and read it from the instance
    values = {n: 0.5 * (ps[n].value + ps[n].max) if ps[n].value != ps[n].max else 0.5 * (ps[n].min + ps[n].max)
              for n in declared}
    costs = KernelVersionsModel.costs({**ps.valuesdict(), **values})
    info = parameter_info(KernelCosts)
    for n in declared:
        obj = costs
        for part in info[n].path.split("."):
            obj = getattr(obj, part)
        assert obj == values[n], n
