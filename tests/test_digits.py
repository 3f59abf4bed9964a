"""The notebooks' display policy: checked numbers print the same digits on every machine.

Expected values are hand computations written here: decimal expansions of the values
and the digits Python's format mini-language prints for them.
"""
import glob
import json
import math
from pathlib import Path

import pytest

from zmodel import digits
from zmodel.digits import CHECK_MARKER, DisplayTie, Shown, is_tie, robust

NOTEBOOKS = sorted(Path(__file__).resolve().parent.parent.glob("notebooks/*.ipynb"))


# --- robust: 12 significant digits -------------------------------------------------------

@pytest.mark.parametrize("raw, rounded", [
    (0.1 + 0.2, 0.3),                      # 0.30000000000000004 -> 0.3
    (108.24999999999999, 108.25),          # one ulp below the tie -> the tie itself
    (108.25000000000001, 108.25),          # one ulp above
    (400 * 1.0825e-3 / 4 * 1e3, 108.25),   # the notebook 09 case of issue 9
    (1 / 3, 0.333333333333),               # 12 threes
    (-2 / 3, -0.666666666667),
    (6.02214076e23, 6.02214076e23),
    (1e-300 / 3, 3.33333333333e-301),
])
def test_robust_keeps_twelve_significant_digits(raw, rounded):
    assert robust(raw) == rounded
    assert isinstance(robust(raw), Shown)


def test_robust_leaves_non_floats_alone():
    import numpy as np

    assert robust(7) == 7 and type(robust(7)) is int
    assert robust(True) is True
    assert robust("1.5") == "1.5"
    assert type(robust(np.int64(3))) is np.int64
    assert math.isnan(robust(float("nan")))
    assert robust(float("inf")) == math.inf
    assert robust(np.float64(0.1) + np.float64(0.2)) == 0.3


# --- is_tie: on the decimal expansion -----------------------------------------------------

@pytest.mark.parametrize("value, spec, tie", [
    (108.25, ".1f", True),     # halfway between 108.2 and 108.3
    (108.26, ".1f", False),
    (108.25, ".2f", False),    # all digits shown
    (0.125, ".2f", True),      # 0.12 | 0.13
    (0.125, ".3f", False),
    (2.5, ".0f", True),
    (0.0125, ".2g", True),     # 2 significant digits: 0.012 | 0.013
    (12345.0, ".4g", True),    # 1234e1 | 1235e1
    (12345.0, ".5g", False),
    (0.0015, ".1%", True),     # 0.15 % -> 0.1 % | 0.2 %
    (0.3, ".1%", False),
    (1.5e-7, ".0e", True),     # 1e-07 | 2e-07
    (-0.5, ".0f", True),
    (108.25, "", False),       # no precision: the shortest repr, nothing rounded
    (108.25, ">10", False),
    (float("nan"), ".1f", False),
    (0.0, ".1f", False),
])
def test_is_tie(value, spec, tie):
    assert is_tie(value, spec) is tie


@pytest.mark.parametrize("value, spec, rtol, tie", [
    (108.2500001, ".1f", 1e-8, True),    # 1e-7 from the tie, 1e-8 * 108 = 1.08e-6 allowed
    (108.2500001, ".1f", 1e-10, False),
    (108.2501, ".1f", 1e-8, False),       # 1e-4 from the tie
    (0.30000001, ".1f", 1e-8, False),     # far from 0.25 and 0.35
    (2.499999999, ".0f", 1e-8, True),     # 1e-9 below 2.5
    (50.032, ".6f", 1e-8, False),         # window 5e-7 not below half the unit: exact ties only
    (50.0320005, ".6f", 1e-8, True),      # ... and this one is exact
])
def test_is_near_tie(value, spec, rtol, tie):
    assert is_tie(value, spec, rtol) is tie


# --- Shown.__format__ ----------------------------------------------------------------------

def test_shown_drops_the_sign_of_a_printed_zero():
    assert f"{Shown(-0.04):.1f}" == "0.0"
    assert f"{Shown(-0.04):>6.1f}" == "   0.0"
    assert f"{Shown(-0.06):.1f}" == "-0.1"
    assert f"{Shown(-1e-9):.2e}" == "-1.00e-09"  # not a zero: the sign stays


def test_shown_refuses_ties_only_while_checking():
    try:
        digits.checking(False)
        assert f"{robust(108.24999999999999):.1f}" == "108.2"  # ties-to-even on the exact 108.25
        digits.checking(True)
        with pytest.raises(DisplayTie, match=r"108.25 printed with format '\.1f' sits on a rounding tie"):
            f"{robust(108.24999999999999):.1f}"
        assert f"{robust(108.24999999999999):.2f}" == "108.25"
    finally:
        digits.checking(False)


# --- install(): a real IPython shell ---------------------------------------------------------

@pytest.fixture
def shell():
    IPython = pytest.importorskip("IPython")
    from IPython.core.interactiveshell import InteractiveShell

    ip = InteractiveShell.instance()
    digits.install(ip)
    digits.install(ip)  # idempotent
    yield ip
    digits.checking(False)


def run(ip, source, capsys):
    capsys.readouterr()
    result = ip.run_cell(source, store_history=False)
    return result, capsys.readouterr().out


def test_install_routes_fstrings_through_robust(shell, capsys):
    assert sum(isinstance(t, digits._RobustFields) for t in shell.ast_transformers) == 1
    # 0.1 + 0.2 = 0.30000000000000004: with 17 digits the last bit would show
    _, out = run(shell, 'print(f"{0.1 + 0.2:.17f}")', capsys)
    assert out.strip() == f"{0.3:.17f}"


def test_checked_cell_with_a_tie_fails_and_names_it(shell, capsys):
    result, _ = run(shell, f'# {CHECK_MARKER}\nx = 400 * 1.0825e-3 / 4 * 1e3\nprint(f"{{x:.1f}} ms")', capsys)
    assert isinstance(result.error_in_exec, DisplayTie)
    assert "108.25" in str(result.error_in_exec)
    result, out = run(shell, f'# {CHECK_MARKER}\nx = 400 * 1.0825e-3 / 4 * 1e3\nprint(f"{{x:.2f}} ms")', capsys)
    assert result.error_in_exec is None and out.strip() == "108.25 ms"


def test_unchecked_cell_prints_ties_without_complaint(shell, capsys):
    result, out = run(shell, 'x = 400 * 1.0825e-3 / 4 * 1e3\nprint(f"{x:.1f}")', capsys)
    assert result.error_in_exec is None and out.strip() == "108.2"


def test_floats_and_frames_print_rounded(shell, capsys):
    _, out = run(shell, "0.1 + 0.2", capsys)
    assert out.strip().endswith("0.3")
    _, out = run(shell, "import pandas as pd\npd.DataFrame({'x': [0.1 + 0.2, 1 / 3]})", capsys)
    assert "0.300000" in out and "0.333333" in out


def test_checked_frame_with_a_tie_is_flagged(shell, capsys):
    # 1.2345675 sits halfway at pandas' 6 decimals: 1.234567 | 1.234568
    result, out = run(shell, f"# {CHECK_MARKER}\nimport pandas as pd\npd.DataFrame({{'x': [1.2345675]}})", capsys)
    assert "DisplayTie" in out or isinstance(result.error_in_exec, DisplayTie)


# --- every notebook with checked cells applies the policy --------------------------------------

@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebooks_install_the_display_policy(path):
    nb = json.loads(path.read_text())
    code = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]
    if not any(CHECK_MARKER in src for src in code):
        pytest.skip(f"{path.name} has no checked cell")
    assert "digits.install()" in code[0], f"{path.name}: the first code cell must call digits.install()"
    for src in code:
        # numpy/pandas rounding before the display policy would bring the last bit back
        assert ".round(1) + 0.0" not in src and "unique=False" not in src, path.name
        if CHECK_MARKER in src:
            # str.format and %-formatting bypass the policy (only f-string fields are routed)
            assert ".format(" not in src and ".format)" not in src, path.name


def test_notebooks_were_found():
    assert len(NOTEBOOKS) >= 12, glob.glob("notebooks/*")
