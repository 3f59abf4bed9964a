"""The ``zmodel`` command (zmodel/cli.py) and the calibration registry (zmodel/fits/registry.py).

Two ways in: ``main(argv)`` in-process (fast; a tiny stub scenario module stands in for
``zmodel.kernel.scenario`` where the test is about the CLI itself) and the real command
in a subprocess (``python -m zmodel.cli``, cwd = the repository, ``CI=1``) for the
end-to-end checks against the real scenario module and the example files.

Error contract checked for every class of user error: exit status 2, exactly one line on
stderr starting ``zmodel: error:``, no ``Traceback``, nothing on stdout, no output file.
"""
import csv
import importlib.machinery
import io
import json
import math
import os
import re
import subprocess
import sys
import types
from pathlib import Path

import pandas as pd
import pytest

from zmodel import cli
from zmodel.fits import registry

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"
CONTRACT_COLUMNS = ["throughput", "response_time", "cpu_utilization", "channel_utilization",
                    "disk_utilization", "steal", "memory_overhead", "features", "parameters", "saturated", "model",
                    "assumed"]


def csv_headers(throughput_unit):
    """The contract columns as CSV headers: each numeric column states its unit."""
    units = {"throughput": throughput_unit, "response_time": "s", "cpu_utilization": "1",
             "channel_utilization": "1", "disk_utilization": "1", "steal": "1", "memory_overhead": "bytes"}
    return [f"{c} [{units[c]}]" if c in units else c for c in CONTRACT_COLUMNS]
EXAMPLE_FILES = ["ficon_sizing.toml", "kernel_upgrade.toml", "oltp_z990_ds8300.toml", "zvm_guests.toml",
                 "pav_volumes.toml"]


# --------------------------------------------------------------------------- a stub scenario
def _make_stub():
    """A minimal module with the contract's Scenario.from_dict / predict (for CLI tests only).

    Schema: hardware.processor in {z990}, hardware.cpus positive int; kernel.version in
    {2.4.21, 2.6.10}; workload.clients positive int. Predictions: throughput = clients x cpus,
    response_time = 1 / cpus (exact numbers chosen so the rendering can be checked).
    """
    mod = types.ModuleType("zmodel.kernel.scenario")
    schema = {"hardware": {"processor": str, "cpus": int}, "kernel": {"version": str},
              "workload": {"clients": int}}

    class Scenario:
        def __init__(self, data):
            self.data = data

        @classmethod
        def from_dict(cls, data, parameters=None):
            for section, value in data.items():
                if section not in schema:
                    raise ValueError(f"unknown section '{section}'; known: {', '.join(schema)}")
                for key, v in value.items():
                    if key not in schema[section]:
                        raise ValueError(f"{section}: unknown key '{key}'")
                    if not isinstance(v, schema[section][key]):
                        raise ValueError(f"{section}.{key}: must be a {schema[section][key].__name__}, got {v!r}")
            hw = data.get("hardware", {})
            if hw.get("processor", "z990") != "z990":
                raise ValueError(f"hardware.processor: unknown processor {hw['processor']!r}; known: z990")
            for path, v in (("hardware.cpus", hw.get("cpus", 1)),
                            ("workload.clients", data.get("workload", {}).get("clients", 1))):
                if v <= 0:
                    raise ValueError(f"{path}: must be a positive integer, got {v}")
            version = data.get("kernel", {}).get("version", "2.6.10")
            if version not in ("2.4.21", "2.6.10"):
                raise ValueError(f"kernel.version: unknown kernel version {version!r}; known: 2.4.21, 2.6.10")
            return cls(data)

        def predict(self, sweep=None, samples=0, seed=0, progress=None, vary_assumed=True):
            """With ``samples`` draws each interval column is exact: [value / 2, value x 2]."""
            frame = self._points(sweep)
            if samples:
                for c in ("throughput", "response_time", "cpu_utilization", "channel_utilization",
                          "disk_utilization", "steal", "memory_overhead"):
                    frame[f"{c}_lo"], frame[f"{c}_hi"] = frame[c] / 2, frame[c] * 2
                frame.attrs.update(samples=samples, seed=seed)
                mod.calls.append(("samples", samples, seed, vary_assumed))
            return frame

        def _points(self, sweep=None):
            import itertools

            sweep = dict(sweep or {})
            rows = []
            for point in itertools.product(*sweep.values()):
                d = {s: dict(v) for s, v in self.data.items()}
                for key, value in zip(sweep, point):
                    section, name = key.split(".")
                    d.setdefault(section, {})[name] = value
                cpus = d.get("hardware", {}).get("cpus", 1)
                clients = d.get("workload", {}).get("clients", 1)
                version = d.get("kernel", {}).get("version", "2.6.10")
                rows.append({**dict(zip(sweep, point)), "throughput": float(clients * cpus),
                             "response_time": 1.0 / cpus if cpus < 1000 else math.inf,
                             "cpu_utilization": 0.5, "channel_utilization": 0.25, "disk_utilization": 0.125,
                             "steal": 0.0, "memory_overhead": 1024.0,
                             "features": "rmap,o1_scheduler" if version == "2.6.10" else "global_io_request_lock",
                             "parameters": f"cpus={cpus}", "saturated": "", "model": "closed: stub model", "assumed": ""})
            return pd.DataFrame(rows)

    mod.Scenario = Scenario
    mod.calls = []
    return mod


STUB_TOML = """
[hardware]
processor = "z990"
cpus = 2
[kernel]
version = "2.6.10"
[workload]
clients = 10
"""


@pytest.fixture
def stub(monkeypatch, tmp_path):
    mod = _make_stub()
    monkeypatch.setitem(sys.modules, "zmodel.kernel.scenario", mod)
    path = tmp_path / "stub.toml"
    path.write_text(STUB_TOML, encoding="utf-8")
    return path


def run_main(argv, capsys):
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line_error(code, out, err, *needles):
    assert code == 2, (code, err)
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("zmodel: error:"), err
    assert "Traceback" not in err
    assert out == ""
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])


# --------------------------------------------------------------------------- help
def test_help_exits_zero(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    for command in ("plan", "calibrate", "report"):
        assert command in out


def test_help_subprocess():
    r = subprocess.run([sys.executable, "-m", "zmodel.cli", "--help"], cwd=REPO, capture_output=True,
                       text=True, timeout=60, env={**os.environ, "CI": "1"})
    assert r.returncode == 0
    assert "usage: zmodel" in r.stdout and "plan" in r.stdout


def test_no_command_is_a_usage_error(capsys):
    code, out, err = run_main([], capsys)
    assert_one_line_error(code, out, err, "COMMAND")


# --------------------------------------------------------------------------- sweep parsing
def test_sweep_values_are_numbers_or_plain_strings():
    assert cli.parse_sweep_value("16") == 16 and isinstance(cli.parse_sweep_value("16"), int)
    assert cli.parse_sweep_value("0.25") == 0.25
    assert cli.parse_sweep_value("-3") == -3
    assert cli.parse_sweep_value("2.5e-3") == 0.0025
    # never evaluated: expressions, names and special floats stay strings
    for text in ("__import__('os').system('true')", "1+1", "inf", "nan", "2**10", "2.6.10", "x"):
        assert cli.parse_sweep_value(text) == text


def test_sweep_reads_toml_booleans_so_a_flag_can_be_swept(capsys):
    # TOML's literals, as a scenario file writes them; other spellings stay strings (and are refused)
    assert cli.parse_sweep_value("true") is True and cli.parse_sweep_value("false") is False
    assert cli.parse_sweep_value("True") == "True" and cli.parse_sweep_value("1") == 1
    path = str(REPO / "examples" / "pav_volumes.toml")
    code = cli.main(["plan", path, "--sweep", "hardware.zhpf=true,false", "--sweep", "hardware.pav_aliases=0",
                     "--sweep", "hardware.volumes=4", "--format", "csv", "--samples", "0"])
    out, err = capsys.readouterr()
    assert code == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["hardware.zhpf"] for r in rows] == ["True", "False"]
    # zHPF's shorter per-I/O channel time never lowers the throughput (same load otherwise)
    assert float(rows[0]["throughput [transactions/s]"]) >= float(rows[1]["throughput [transactions/s]"])


def test_sweep_option_keeps_strings_where_the_scenario_has_a_string():
    base = {"kernel": {"version": "2.6.10"}, "hardware": {"cpus": 2}}
    assert cli.parse_sweep_option("kernel.version=2.6,2.4.21", base) == ("kernel.version", ["2.6", "2.4.21"])
    assert cli.parse_sweep_option("hardware.cpus=1, 2,4", base) == ("hardware.cpus", [1, 2, 4])


@pytest.mark.parametrize("option, needle", [
    ("hardware.cpus", "expected KEY=V1,V2"),
    ("cpus=1,2", "dotted scenario path"),
    ("hardware.cpus=1,,2", "empty value"),
    ("hardware.cpus=", "empty value"),
])
def test_bad_sweep_option(stub, capsys, tmp_path, option, needle):
    out_file = tmp_path / "out.csv"
    code, out, err = run_main(["plan", str(stub), "--sweep", option, "--output", str(out_file)], capsys)
    assert_one_line_error(code, out, err, needle)
    assert not out_file.exists()


# --------------------------------------------------------------------------- plan with the stub
def test_plan_text_with_stub(stub, capsys):
    code, out, err = run_main(["plan", str(stub), "--sweep", "hardware.cpus=1,2,4"], capsys)
    assert code == 0, err
    assert "hardware.cpus" in out and "throughput [transactions/s]" in out and "response_time [s]" in out
    assert "model: closed: stub model" in out
    assert "features: rmap,o1_scheduler" in out  # one value for all rows: printed once
    lines = out.splitlines()
    # header line, the column header, the rule, three rows
    assert [ln.split()[:2] for ln in lines[3:6]] == [["0", "1"], ["1", "2"], ["2", "4"]]


def test_plan_draws_a_hundred_parameter_sets_by_default(stub, capsys):
    # every number a plan prints carries its interval unless --samples 0 asks for point values only
    code, out, err = run_main(["plan", str(stub), "--sweep", "hardware.cpus=1,2"], capsys)
    assert code == 0, err
    assert cli.DEFAULT_SAMPLES == 100 and sys.modules["zmodel.kernel.scenario"].calls == [("samples", 100, 0, True)]
    lines = out.splitlines()
    assert lines[3].split(None, 2)[:2] == ["0", "1"] and "10 [5, 20]" in lines[3]     # the stub's [v / 2, 2 v]
    assert any(ln.startswith("[lo, hi]: the 90 % interval over the 100 parameter draws (seed 0)") for ln in lines)
    assert not any("no intervals" in ln for ln in lines)
    code, out, err = run_main(["plan", str(stub), "--format", "csv", "--seed", "7", "--fixed-assumed"], capsys)
    assert code == 0, err
    assert "throughput_lo [transactions/s]" in out.splitlines()[0]
    assert sys.modules["zmodel.kernel.scenario"].calls[-1] == ("samples", 100, 7, False)
    code, out, err = run_main(["plan", str(stub), "--format", "json", "--seed", "3"], capsys)
    assert code == 0, err
    assert json.loads(out)["intervals"] == {"level": 0.9, "samples": 100, "seed": 3, "model_error": None}
    code, out, err = run_main(["plan", str(stub), "--format", "json", "--samples", "0"], capsys)
    assert code == 0, err
    assert json.loads(out)["intervals"] is None
    code, out, err = run_main(["plan", str(stub), "--samples", "0"], capsys)
    assert code == 0, err
    assert "[" not in out.splitlines()[3] and len(sys.modules["zmodel.kernel.scenario"].calls) == 3
    assert any(ln.startswith("no intervals (--samples 0): point values") and "--samples 100" in ln
               for ln in out.splitlines())


@pytest.mark.parametrize("argv, needles", [
    (["--samples", "0", "--fixed-assumed"], ["--fixed-assumed", "--samples N > 0"]),
    (["--sensitivity", "--samples", "5"], ["--sensitivity", "draws no samples"]),
    (["--samples", "-1"], ["--samples must be an integer from 0"]),
])
def test_plan_sample_options_that_contradict_are_refused(stub, capsys, argv, needles):
    code, out, err = run_main(["plan", str(stub), *argv], capsys)
    assert_one_line_error(code, out, err, *needles)


def test_text_table_shows_an_interval_in_its_value_cell_and_the_assumed_parameters_below():
    frame = pd.DataFrame({"throughput": [100.0, 250.5], "throughput_lo": [90.0, 200.0],
                          "throughput_hi": [110.0, 260.0], "model": "closed: stub", "assumed": ["a, b", "a, b"]})
    lines = cli.render(frame, "text").splitlines()
    assert lines[0].split() == ["row", "throughput", "[transactions/s]"]
    assert [ln.split(None, 1) for ln in lines[2:4]] == [["0", "100 [90, 110]"], ["1", "250.5 [200, 260]"]]
    assert lines[4].startswith("[lo, hi]: the 90 % interval")
    assert "not what the model lacks: 'zmodel validate' shows" in lines[5]     # what the interval leaves out
    assert "assumed: a, b" in lines and not any("throughput_lo" in ln for ln in lines[:4])
    # CSV keeps every column as it is
    assert cli.render(frame, "csv").splitlines()[0].startswith("throughput [transactions/s],throughput_lo")


def test_text_table_shows_the_prediction_interval_after_the_parameters_one():
    frame = pd.DataFrame({"throughput": [100.0], "throughput_lo": [90.0], "throughput_hi": [110.0],
                          "throughput_prediction_lo": [60.0], "throughput_prediction_hi": [170.0]})
    frame.attrs.update(samples=200, seed=0, model_error="kernel_versions: leave-one-benchmark-out, 15 rows")
    lines = cli.render(frame, "text").splitlines()
    assert lines[2].split(None, 1) == ["0", "100 [90, 110] (60 to 170)"]
    assert any(ln.startswith("(lo to hi): the 90 % prediction interval of throughput") and
               "kernel_versions: leave-one-benchmark-out, 15 rows" in ln for ln in lines)
    assert cli.render(frame, "csv").splitlines()[0].endswith(
        "throughput_prediction_lo [1/s],throughput_prediction_hi [1/s]")     # the throughput's unit


def test_text_table_shows_the_fraction_of_saturated_draws_only_where_a_draw_saturates():
    frame = pd.DataFrame({"response_time": [0.004, math.inf], "response_time_lo": [0.0039, math.inf],
                          "response_time_hi": [math.inf, math.inf], "response_time_prediction_lo": [0.003, math.inf],
                          "response_time_prediction_hi": [math.inf, math.inf], "p_saturated": [0.25, 1.0],
                          "p_saturated_prediction": [0.5, 1.0]})
    frame.attrs.update(samples=200, seed=0, model_error="channels: leave-one-out, 4 rows")
    lines = cli.render(frame, "text").splitlines()
    assert lines[0].split()[-1] == "p_saturated" and "p_saturated_prediction" not in lines[0]
    assert lines[2].endswith("0.25 (0.5)") and lines[3].endswith("1 (1)")   # the prediction's in parentheses
    assert any(ln.startswith("p_saturated: the fraction of the draws in which the point does not carry its load")
               and "(in parentheses) over the draws with the fits' out-of-sample errors" in ln for ln in lines)
    # no draw saturates: no column, one line saying so
    calm = frame.iloc[:1].assign(response_time_hi=0.0041, response_time_prediction_hi=0.005, p_saturated=0.0,
                                 p_saturated_prediction=0.0)
    calm.attrs.update(frame.attrs)
    lines = cli.render(calm, "text").splitlines()
    assert "p_saturated" not in lines[0]
    assert "p_saturated: no draw saturates any point (column p_saturated in CSV and JSON)" in lines
    assert cli.render(calm, "csv").splitlines()[0].endswith(",p_saturated [1],p_saturated_prediction [1]")
    assert json.loads(cli.render(calm, "json"))["units"]["p_saturated"] == "1"


def test_text_table_says_how_many_draws_and_warns_below_a_hundred():
    # the 5 % end of n draws is about their 0.05 n-th smallest: fewer than 100 draws put it on fewer than five
    frame = pd.DataFrame({"throughput": [100.0], "throughput_lo": [90.0], "throughput_hi": [110.0]})
    for n, warned in ((20, True), (99, True), (100, False), (200, False)):
        frame.attrs.update(samples=n, seed=3)
        lines = cli.render(frame, "text").splitlines()
        assert lines[3].startswith(f"[lo, hi]: the 90 % interval over the {n} parameter draws (seed 3)")
        assert any("fewer than 100 draws the ends move with the seed" in ln for ln in lines) == warned


def test_plan_csv_with_stub_and_sweep_product(stub, capsys):
    code, out, err = run_main(["plan", str(stub), "--format", "csv", "--sweep", "hardware.cpus=1,2",
                               "--sweep", "kernel.version=2.4.21,2.6.10", "--samples", "0"], capsys)
    assert code == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == 4
    assert list(rows[0]) == ["hardware.cpus", "kernel.version"] + csv_headers("transactions/s")
    assert {(r["hardware.cpus"], r["kernel.version"]) for r in rows} == {
        ("1", "2.4.21"), ("1", "2.6.10"), ("2", "2.4.21"), ("2", "2.6.10")}
    # the stub's throughput is clients x cpus = 10 x cpus
    assert all(float(r["throughput [transactions/s]"]) == 10 * int(r["hardware.cpus"]) for r in rows)


def test_plan_json_with_stub_nonfinite_is_null(stub, capsys, tmp_path):
    toml = tmp_path / "big.toml"
    toml.write_text(STUB_TOML.replace("cpus = 2", "cpus = 2000"), encoding="utf-8")
    code, out, err = run_main(["plan", str(toml), "--format", "json"], capsys)
    assert code == 0, err
    doc = json.loads(out)
    assert doc["units"]["response_time"] == "s" and doc["units"]["throughput"] == "transactions/s"
    (row,) = doc["predictions"]
    assert row["response_time"] is None  # inf in the model, null in strict JSON
    assert row["throughput"] == 20000.0


def test_plan_toml_sweep_table_and_cli_override(stub, capsys, tmp_path):
    toml = tmp_path / "sweep.toml"
    toml.write_text(STUB_TOML + '\n[sweep]\n"hardware.cpus" = [1, 2, 3]\nworkload.clients = [5]\n',
                    encoding="utf-8")
    code, out, err = run_main(["plan", str(toml), "--format", "json"], capsys)
    assert code == 0, err
    doc = json.loads(out)
    assert doc["sweep"] == {"hardware.cpus": [1, 2, 3], "workload.clients": [5]}
    assert [r["throughput"] for r in doc["predictions"]] == [5.0, 10.0, 15.0]
    code, out, err = run_main(["plan", str(toml), "--format", "json", "--sweep", "hardware.cpus=8"], capsys)
    assert code == 0, err
    assert [r["throughput"] for r in json.loads(out)["predictions"]] == [40.0]


def test_plan_output_file_written_atomically(stub, capsys, tmp_path):
    target = tmp_path / "plan.csv"
    target.write_text("old content\n")
    code, out, err = run_main(["plan", str(stub), "--format", "csv", "--output", str(target)], capsys)
    assert code == 0 and out == "", err
    assert target.read_text().startswith("throughput [transactions/s],response_time [s]")
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".plan.csv")] == []  # no temp left
    # a failing run leaves the previous file as it was
    code, out, err = run_main(["plan", str(stub), "--sweep", "hardware.cpus=-1", "--output", str(target)], capsys)
    assert code == 2
    assert target.read_text().startswith("throughput [transactions/s],response_time [s]")


def test_large_sweep_runs_in_chunks_with_the_same_rows(stub, capsys, monkeypatch):
    n = cli.LARGE_SWEEP
    code, out, err = run_main(["plan", str(stub), "--format", "csv", "--sweep", f"hardware.cpus=1,2",
                               "--sweep", "workload.clients=" + ",".join(str(i) for i in range(1, n + 1)),
                               "--samples", "0"], capsys)
    assert code == 0, err
    frame = pd.read_csv(io.StringIO(out))
    assert len(frame) == 2 * n
    expected = [c * k for c in (1, 2) for k in range(1, n + 1)]  # first key slowest
    assert frame["throughput [transactions/s]"].tolist() == expected


# --------------------------------------------------------------------------- plan errors (stub)
@pytest.mark.parametrize("content, argv_extra, needles", [
    ("[hardware\ncpus = 2", [], ["malformed TOML", "line"]),
    (STUB_TOML + "\n[hypervisor]\nweigth = 0.5\n", [], ["hypervisor"]),
    (STUB_TOML.replace("clients = 10", "clients = 10\nthinktime = 1"), [], ["workload", "thinktime"]),
    (STUB_TOML.replace('"z990"', '"z999"'), [], ["hardware.processor", "z999"]),
    (STUB_TOML.replace("cpus = 2", "cpus = -4"), [], ["hardware.cpus", "-4"]),
    (STUB_TOML, ["--sweep", "workload.clients=4,-1"], ["workload.clients", "-1"]),
    (STUB_TOML, ["--sweep", "kernel.version=2.7"], ["kernel.version", "2.7"]),
    (STUB_TOML, ["--sweep", "hardware.cpuz=1"], ["cpuz"]),
    (STUB_TOML + '\n[sweep]\n"hardware.cpus" = []\n', [], ["sweep.hardware.cpus"]),
    (STUB_TOML, ["--format", "xml"], ["--format", "xml"]),
    (STUB_TOML, ["--bogus"], ["unrecognized arguments", "--bogus"]),
])
def test_plan_input_errors_with_stub(stub, capsys, tmp_path, content, argv_extra, needles):
    toml = tmp_path / "bad.toml"
    toml.write_text(content, encoding="utf-8")
    out_file = tmp_path / "out.json"
    code, out, err = run_main(["plan", str(toml), "--output", str(out_file), *argv_extra], capsys)
    assert_one_line_error(code, out, err, *needles)
    assert not out_file.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.toml", "stub.toml"]  # no temp file left


def test_missing_file_and_folder(capsys, tmp_path):
    code, out, err = run_main(["plan", str(tmp_path / "nope.toml")], capsys)
    assert_one_line_error(code, out, err, "not found", "nope.toml")
    code, out, err = run_main(["plan", str(tmp_path)], capsys)
    assert_one_line_error(code, out, err, "folder")


def test_not_utf8(capsys, tmp_path):
    bad = tmp_path / "latin1.toml"
    bad.write_bytes(b"[hardware]\nprocessor = \"z\xe99\"\n")
    code, out, err = run_main(["plan", str(bad)], capsys)
    assert_one_line_error(code, out, err, "UTF-8")


def test_output_folder_missing(stub, capsys, tmp_path):
    code, out, err = run_main(["plan", str(stub), "--output", str(tmp_path / "no" / "x.csv")], capsys)
    assert_one_line_error(code, out, err, "--output")


# --------------------------------------------------------------------------- calibrate
def test_calibrate_list(capsys):
    code, out, err = run_main(["calibrate", "--list"], capsys)
    assert code == 0, err
    lines = out.splitlines()
    assert [ln.split()[0] for ln in lines] == registry.areas()
    for ln in lines:
        assert ln.split()[1] in ("available", "not")


def test_calibrate_list_subprocess():
    r = subprocess.run([sys.executable, "-m", "zmodel.cli", "calibrate", "--list"], cwd=REPO,
                       capture_output=True, text=True, timeout=60, env={**os.environ, "CI": "1"})
    assert r.returncode == 0, r.stderr
    assert r.stdout.split()[0] == "usl"


def test_unknown_area(capsys):
    code, out, err = run_main(["calibrate", "usl", "nonsense"], capsys)
    assert_one_line_error(code, out, err, "unknown calibration area 'nonsense'", "known: usl")


class _FakeResult:
    def report(self):
        return "fake report: chi-square 0"


def _fake_module(name):
    mod = types.ModuleType(name)
    mod.__spec__ = importlib.machinery.ModuleSpec(name, loader=None)
    mod.good = lambda: _FakeResult()

    def bad():
        raise RuntimeError("solver diverged\nsecond line")

    def noisy():
        import warnings

        for _ in range(3):
            warnings.warn("station saturated", RuntimeWarning)
        return _FakeResult()

    mod.bad, mod.noisy = bad, noisy
    return mod


def test_calibrate_runs_skips_and_reports_failures(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "zmodel_fake_fits", _fake_module("zmodel_fake_fits"))
    monkeypatch.setattr(registry, "CALIBRATIONS", [
        registry.Calibration("good", "A good fit", "zmodel_fake_fits:good"),
        registry.Calibration("absent", "Not written yet", "zmodel_no_such_module_xyz:calibrate"),
        registry.Calibration("nofunc", "Function missing", "zmodel_fake_fits:not_there"),
        registry.Calibration("bad", "A failing fit", "zmodel_fake_fits:bad"),
        registry.Calibration("noisy", "A fit that warns", "zmodel_fake_fits:noisy"),
    ])
    code, out, err = run_main(["calibrate"], capsys)
    assert code == 1  # one calibration raised
    assert out.count("fake report: chi-square 0") == 2 and "A good fit" in out and "A fit that warns" in out
    lines = err.splitlines()
    assert "zmodel: note: skipping calibration 'absent': zmodel_no_such_module_xyz is not available yet" in lines
    assert any(ln.startswith("zmodel: note: skipping calibration 'nofunc'") for ln in lines)
    assert "zmodel: error: calibration 'bad' failed: RuntimeError: solver diverged second line" in lines
    assert lines.count("zmodel: warning: noisy: RuntimeWarning: station saturated") == 1  # deduplicated
    assert "Traceback" not in err
    # only the unavailable one, asked for by name: a note, not a crash
    code, out, err = run_main(["calibrate", "absent"], capsys)
    assert code == 0 and out == "" and "skipping calibration 'absent'" in err


def test_calibrate_one_real_area(capsys):
    code, out, err = run_main(["calibrate", "storage"], capsys)
    assert code == 0, err
    title = dict((e.area, e.title) for e in registry.CALIBRATIONS)["storage"]
    assert title in out
    assert "wavv08.tsm-entry-cpu" in out  # a residual row of the storage fit
    assert "Traceback" not in err


def test_calibrate_profile_interval(capsys):
    # one area, one free parameter: the report gains its profile-likelihood interval (the interval's
    # values are tested in tests/test_calibration.py); the fit is the storage one above
    code, out, err = run_main(["calibrate", "storage", "--profile", "scsi_cpu_cost_ratio"], capsys)
    assert code == 0, err
    section = out.split("[[Profile intervals]]", 1)[1]
    assert "scsi_cpu_cost_ratio:" in section and "refits" in section


@pytest.mark.parametrize("argv, needle", [
    (["calibrate", "--profile", "x"], "--profile needs exactly one AREA"),
    (["calibrate", "storage", "kernel_versions", "--profile", "x"], "--profile needs exactly one AREA"),
    (["calibrate", "storage", "--profile", "nope"], "profile names 'nope', which is not a free parameter"),
    (["calibrate", "storage", "--profile", "x", "--save", "out.toml"], "cannot be combined with"),
])
def test_calibrate_profile_bad_input(capsys, tmp_path, monkeypatch, argv, needle):
    monkeypatch.chdir(tmp_path)
    assert_one_line_error(*run_main(argv, capsys), needle)
    assert not (tmp_path / "out.toml").exists()


# --------------------------------------------------------------------------- registry
def _fit_modules():
    """Every module of zmodel/fits/ except the package and the registry."""
    return sorted(f"zmodel.fits.{p.stem}" for p in (REPO / "zmodel" / "fits").glob("*.py")
                  if p.name not in ("__init__.py", "registry.py"))


def test_registry_covers_every_fit_module():
    # each fit module declares one calibration, and the registry lists it under that module
    targets = {e.target for e in registry.CALIBRATIONS}
    assert targets == {f"{m}:CALIBRATION" for m in _fit_modules()}


def test_registry_entries_are_unique_and_well_formed():
    assert len(set(registry.areas())) == len(registry.CALIBRATIONS)
    for e in registry.CALIBRATIONS:
        module, _, func = e.target.partition(":")
        assert module.startswith("zmodel.fits.") and func and e.title
        if registry.is_available(e):
            assert callable(registry.load(e))
        else:
            with pytest.raises(registry.CalibrationUnavailable, match="not available yet"):
                registry.load(e)


# --------------------------------------------------------------------------- report
def test_report_calls_report_main(monkeypatch, capsys):
    import zmodel.report

    seen = []
    monkeypatch.setattr(zmodel.report, "main", lambda argv=None, prog=None: seen.append(argv) or 0)
    assert cli.main(["report", "--text-only"]) == 0
    assert seen == [["--text-only"]]


def test_report_failure_is_one_line(monkeypatch, capsys):
    import zmodel.report

    def boom(argv=None, prog=None):
        raise RuntimeError("notebook 10 failed\nlong cell output")

    monkeypatch.setattr(zmodel.report, "main", boom)
    code, out, err = run_main(["report"], capsys)
    assert code == 1
    assert err.splitlines() == ["zmodel: error: report failed: RuntimeError: notebook 10 failed "
                                "(set ZMODEL_DEBUG=1 for the traceback)"]


# --------------------------------------------------------------------------- the real scenario
def _run(*args, cwd=REPO):
    return subprocess.run([sys.executable, "-m", "zmodel.cli", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120, env={**os.environ, "CI": "1"})


def _examples():
    return [EXAMPLES / name for name in EXAMPLE_FILES]   # a missing one fails where it is read


@pytest.mark.parametrize("name", EXAMPLE_FILES)
def test_plan_examples_all_formats(name, tmp_path, capsys):
    path = EXAMPLES / name
    assert path.exists(), f"examples/{name} is missing"
    r = _run("plan", str(path), "--format", "json", "--samples", "0")  # the real command, once per example
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    doc = json.loads(r.stdout)
    rows = doc["predictions"]
    assert rows
    for row in rows:
        assert list(row)[-len(CONTRACT_COLUMNS):] == CONTRACT_COLUMNS
        for col in ("throughput", "cpu_utilization", "channel_utilization", "disk_utilization", "steal"):
            assert row[col] is None or row[col] >= 0, (col, row[col])
    swept = list(doc["sweep"])
    assert len(rows) == math.prod(len(v) for v in doc["sweep"].values())
    out = tmp_path / "plan.csv"
    code, stdout, err = run_main(["plan", str(path), "--format", "csv", "--output", str(out), "--samples", "0"],
                                 capsys)
    assert code == 0 and stdout == "", err
    with out.open(newline="") as fh:
        reader = csv.DictReader(fh)
        unit = "I/O/s" if "io_rate" in path.read_text() else "transactions/s"
        assert reader.fieldnames == swept + csv_headers(unit)
        assert len(list(reader)) == len(rows)
    code, stdout, err = run_main(["plan", str(path), "--samples", "0"], capsys)
    assert code == 0, err
    assert "throughput [" in stdout and "features" in stdout and "parameters" in stdout and "model:" in stdout
    assert "no intervals (--samples 0)" in stdout
    assert len([ln for ln in stdout.splitlines() if re.match(r"\s*\d+\s", ln)]) == len(rows)


REAL_TOML = """
[hardware]
processor = "z990"
cpus = 2
storage_server = "DS8300"
channel = "FICON-4G"
channels = 2
[kernel]
version = "2.6.10"
[hypervisor]
type = "lpar"
weight = 0.5
[workload]
kind = "oltp"
clients = 8
"""


@pytest.mark.parametrize("content, argv_extra, needles", [
    (REAL_TOML.replace("weight", "weigth"), [], ["hypervisor", "weigth"]),
    (REAL_TOML.replace('"z990"', '"z999"'), [], ["hardware.processor", "z999"]),
    (REAL_TOML.replace('"DS8300"', '"DS9999"'), [], ["hardware.storage_server", "DS9999"]),
    (REAL_TOML.replace("clients = 8", "clients = -4"), [], ["workload.clients", "-4"]),
    (REAL_TOML.replace("weight = 0.5", "weight = -0.5"), [], ["hypervisor.weight"]),
    (REAL_TOML, ["--sweep", "kernel.version=2.7"], ["kernel.version", "2.7"]),
    (REAL_TOML, ["--sweep", "hardware.cpus=2,-1"], ["hardware.cpus", "-1"]),
    (REAL_TOML, ["--sweep", "hardware.cpuz=1"], ["cpuz"]),
    (REAL_TOML + '\n[sweep]\n"workload.think_time" = [0.1, -0.2]\n', [], ["workload.think_time"]),
])
def test_plan_input_errors_with_the_real_scenario(capsys, tmp_path, content, argv_extra, needles):
    toml = tmp_path / "bad.toml"
    toml.write_text(content, encoding="utf-8")
    out_file = tmp_path / "out.csv"
    code, out, err = run_main(["plan", str(toml), "--format", "csv", "--output", str(out_file), *argv_extra],
                              capsys)
    assert_one_line_error(code, out, err, *needles)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.toml"]


def test_plan_errors_subprocess(tmp_path):
    toml = tmp_path / "bad.toml"
    toml.write_text(REAL_TOML.replace("clients = 8", "clients = -4"), encoding="utf-8")
    out_file = tmp_path / "out.json"
    for args in (["plan", str(toml), "--output", str(out_file)],
                 ["plan", str(tmp_path / "missing.toml")],
                 ["calibrate", "nonsense"]):
        r = _run(*args)
        assert r.returncode == 2, (args, r.stderr)
        assert r.stdout == ""
        assert len(r.stderr.splitlines()) == 1 and r.stderr.startswith("zmodel: error:"), r.stderr
        assert "Traceback" not in r.stderr
    assert not out_file.exists()


# --------------------------------------------------------------------------- safe input and output
def test_output_refuses_a_device_and_leaves_it_alone(stub, capsys):
    before = os.stat("/dev/null")
    code, out, err = run_main(["plan", str(stub), "--output", "/dev/null"], capsys)
    assert_one_line_error(code, out, err, "--output '/dev/null'", "character device", "regular files only")
    after = os.stat("/dev/null")
    assert (after.st_mode, after.st_rdev) == (before.st_mode, before.st_rdev)


def test_output_refuses_a_fifo_and_a_folder(stub, capsys, tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    code, out, err = run_main(["plan", str(stub), "--output", str(fifo)], capsys)
    assert_one_line_error(code, out, err, "FIFO")
    assert stat_kind(fifo) == "fifo"
    code, out, err = run_main(["plan", str(stub), "--output", str(tmp_path)], capsys)
    assert_one_line_error(code, out, err, "folder")


def stat_kind(path):
    import stat

    mode = os.lstat(path).st_mode
    return {stat.S_ISFIFO(mode): "fifo", stat.S_ISLNK(mode): "link", stat.S_ISREG(mode): "file"}.get(True)


def test_output_refuses_the_scenario_itself_also_through_a_link(stub, capsys, tmp_path):
    original = stub.read_bytes()
    code, out, err = run_main(["plan", str(stub), "--output", str(stub)], capsys)
    assert_one_line_error(code, out, err, "scenario file itself")
    link = tmp_path / "link.csv"
    link.symlink_to(stub)
    code, out, err = run_main(["plan", str(stub), "--output", str(link)], capsys)
    assert_one_line_error(code, out, err, "scenario file itself")
    assert stub.read_bytes() == original and stat_kind(link) == "link"


def test_output_writes_through_a_symlink_to_its_target(stub, capsys, tmp_path):
    target = tmp_path / "real.csv"
    target.write_text("old\n")
    link = tmp_path / "link.csv"
    link.symlink_to(target)
    code, out, err = run_main(["plan", str(stub), "--format", "csv", "--output", str(link)], capsys)
    assert code == 0, err
    assert stat_kind(link) == "link" and os.readlink(link) == str(target)  # the link is kept
    assert target.read_text().startswith("throughput [transactions/s]")


def test_output_os_error_is_one_line(stub, capsys, tmp_path, monkeypatch):
    # a read-only folder (simulated: root may write anywhere): the OS refuses the temporary file
    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(cli.tempfile, "mkstemp", refuse)
    code, out, err = run_main(["plan", str(stub), "--output", str(tmp_path / "x.csv")], capsys)
    assert_one_line_error(code, out, err, "--output", "Permission denied")
    assert not (tmp_path / "x.csv").exists()


def test_scenario_must_be_a_regular_file(capsys, tmp_path):
    fifo = tmp_path / "scenario.toml"
    os.mkfifo(fifo)  # no writer: reading it would block forever
    code, out, err = run_main(["plan", str(fifo)], capsys)
    assert_one_line_error(code, out, err, "FIFO", "regular file")
    code, out, err = run_main(["plan", "/dev/zero"], capsys)  # endless: never read
    assert_one_line_error(code, out, err, "character device")


def test_scenario_size_limit(capsys, tmp_path):
    big = tmp_path / "big.toml"
    big.write_bytes(b"# padding\n" * (cli.MAX_SCENARIO_BYTES // 10 + 1))
    code, out, err = run_main(["plan", str(big)], capsys)
    assert_one_line_error(code, out, err, f"limit is {cli.MAX_SCENARIO_BYTES} bytes")


def test_scenario_with_a_utf8_bom_is_accepted(stub, capsys, tmp_path):
    bom = tmp_path / "bom.toml"
    bom.write_bytes(b"\xef\xbb\xbf" + STUB_TOML.encode())
    code, out, err = run_main(["plan", str(bom), "--format", "json"], capsys)
    assert code == 0, err
    assert json.loads(out)["predictions"][0]["throughput"] == 20.0  # clients x cpus of the stub


def test_unreadable_scenario_is_one_line(capsys, tmp_path, monkeypatch):
    path = tmp_path / "s.toml"
    path.write_text(STUB_TOML)
    real_open = os.open

    def refuse(p, *args, **kwargs):
        if str(p) == str(path):
            raise PermissionError(13, "Permission denied", str(p))
        return real_open(p, *args, **kwargs)

    monkeypatch.setattr(cli.os, "open", refuse)
    code, out, err = run_main(["plan", str(path)], capsys)
    assert_one_line_error(code, out, err, "Permission denied", "s.toml")


def test_any_os_error_is_a_one_line_usage_error(stub, capsys, monkeypatch):
    def fail(args):
        raise IsADirectoryError(21, "Is a directory", "/some/where")

    monkeypatch.setattr(cli, "cmd_plan", fail)
    code, out, err = run_main(["plan", str(stub)], capsys)
    assert_one_line_error(code, out, err, "Is a directory", "/some/where")


# --------------------------------------------------------------------------- report options
def test_report_unknown_area_is_one_line(capsys):
    code, out, err = run_main(["report", "--areas", "nosuch"], capsys)
    assert code == 2 and out == ""
    assert err.splitlines() == [err.strip()] and err.startswith("zmodel report: error: --areas: unknown "
                                                                "calibration area 'nosuch'; known: usl")


def test_report_missing_notebook_folder_is_an_error(capsys, tmp_path):
    code, out, err = run_main(["report", "--areas", "usl", "--notebooks", str(tmp_path / "none"),
                               "--output", str(tmp_path / "r")], capsys)
    assert code == 2 and out == "" and len(err.splitlines()) == 1
    assert "--notebooks: no such folder" in err and not (tmp_path / "r").exists()
    (tmp_path / "empty").mkdir()
    code, out, err = run_main(["report", "--areas", "usl", "--notebooks", str(tmp_path / "empty"),
                               "--output", str(tmp_path / "r")], capsys)
    assert code == 2 and "no notebook" in err and not (tmp_path / "r").exists()


def test_report_output_that_cannot_be_a_folder_is_refused_before_any_work(capsys, tmp_path):
    # the build runs minutes before it writes: an output that cannot be written is refused first
    afile = tmp_path / "afile"
    afile.write_text("keep")
    for output, rule in ((afile, "exists and is not a folder"), (afile / "sub", "is not a folder")):
        code, out, err = run_main(["report", "--areas", "usl", "--output", str(output)], capsys)
        assert code == 2 and out == "" and len(err.splitlines()) == 1
        assert err.startswith("zmodel report: error: --output: ") and rule in err
        assert "calibrating" not in err
    assert afile.read_text() == "keep" and sorted(p.name for p in tmp_path.iterdir()) == ["afile"]


# --------------------------------------------------------------------------- bounded work
def test_plan_cost_limit_names_the_option(capsys, tmp_path):
    toml = tmp_path / "many.toml"
    toml.write_text(REAL_TOML.replace("clients = 8", "clients = 5000"))
    # cost: one point (POINT_COST units) + one MVA pass over populations 1..5000 (cli.estimate_cost)
    cost = cli.POINT_COST + 5000
    code, out, err = run_main(["plan", str(toml), "--max-cost", str(cost - 1), "--samples", "0"], capsys)
    assert_one_line_error(code, out, err, f"--max-cost {cost} ")
    code, out, err = run_main(["plan", str(toml), "--max-cost", str(cost), "--format", "json", "--samples", "0"],
                              capsys)
    assert code == 0, err
    # by default every point is predicted again for each of the 100 parameter draws: 101 times the cost
    code, out, err = run_main(["plan", str(toml), "--max-cost", str(101 * cost - 1)], capsys)
    assert_one_line_error(code, out, err, f"--max-cost {101 * cost} ", "with 100 parameter draws",
                          f"--samples 0 (about {cost} units)")


def test_plan_refuses_ten_million_clients_by_default(capsys, tmp_path):
    toml = tmp_path / "big.toml"
    toml.write_text(REAL_TOML.replace("clients = 8", "clients = 10000000"))
    code, out, err = run_main(["plan", str(toml), "--samples", "0"], capsys)
    assert_one_line_error(code, out, err, f"--max-cost {10_000_000 + cli.POINT_COST} ")
    code, out, err = run_main(["plan", str(toml)], capsys)     # and so with the default 100 draws
    assert_one_line_error(code, out, err, f"--max-cost {101 * (10_000_000 + cli.POINT_COST)} ")


def test_plan_refuses_a_million_point_sweep_by_default(stub, capsys):
    values = ",".join(str(i) for i in range(1, 1001))
    code, out, err = run_main(["plan", str(stub), "--sweep", f"hardware.cpus={values}",
                               "--sweep", f"workload.clients={values}"], capsys)
    assert_one_line_error(code, out, err, "1000000 sweep points", "--max-cost")


def test_large_sweep_progress_is_lines_off_a_terminal(stub, capsys):
    n = cli.LARGE_SWEEP
    code, out, err = run_main(["plan", str(stub), "--format", "csv", "--sweep", "hardware.cpus=1,2,3,4",
                               "--sweep", "workload.clients=" + ",".join(str(i) for i in range(1, n + 1)),
                               "--samples", "0"], capsys)
    assert code == 0, err
    lines = err.splitlines()
    # one line per chunk of the first key (4 chunks, each more than a tenth of the way)
    assert lines == [f"zmodel: plan: {k * n}/{4 * n} points ({25 * k} %)" for k in (1, 2, 3, 4)]


# --------------------------------------------------------------------------- every bad input named
@pytest.mark.parametrize("old, new, needles", [
    ("cpus = 2", "cpus = 9223372036854775807", ["hardware.cpus", "2**53"]),
    ("clients = 8", "clients = 9223372036854775807", ["workload.clients", "2**53"]),
    ("clients = 8", "clients = 8\nblock_size = 1e300", ["workload.block_size", "at most"]),
    ("cpus = 2", "cpus = 1000000", ["hardware.cpus", "at most 16", "z990"]),
    ('type = "lpar"', 'type = "zvm"\nguests = 2\nactive_guests = 3', ["hypervisor.active_guests",
                                                                      "must not exceed hypervisor.guests"]),
    ("cpus = 2", "cpus = true", ["hardware.cpus", "positive integer", "True"]),
    ("clients = 8", 'clients = "5"', ["workload.clients", "positive integer", "'5'"]),
    ("weight = 0.5", "weight = 0.5\nphysical_cpus = 64", ["hypervisor.physical_cpus", "at most 16"]),
])
def test_values_beyond_the_models_are_named(capsys, tmp_path, old, new, needles):
    toml = tmp_path / "bad.toml"
    assert old in REAL_TOML
    toml.write_text(REAL_TOML.replace(old, new, 1))
    code, out, err = run_main(["plan", str(toml)], capsys)
    assert_one_line_error(code, out, err, *needles)


def test_lpar_cpus_beyond_its_physical_cpus(capsys, tmp_path):
    toml = tmp_path / "lpar.toml"
    toml.write_text(REAL_TOML.replace("weight = 0.5", "weight = 0.5\nphysical_cpus = 4").replace(
        "cpus = 2", "cpus = 8", 1))
    code, out, err = run_main(["plan", str(toml)], capsys)
    assert_one_line_error(code, out, err, "hardware.cpus", "physical_cpus (4)", "got 8")


def test_saturated_resources_are_named_not_absurd_numbers(capsys):
    # zvm_guests.toml: 1999 idle 2.4.21 guests tick 100 times a second each; their ticks need more
    # than the 4 physical CPUs, so the busy guest gets nothing (IBM Systems Journal, "Timer tick")
    code, out, err = run_main(["plan", str(EXAMPLES / "zvm_guests.toml"), "--format", "json", "--samples", "0"],
                              capsys)
    assert code == 0, err
    rows = {(r["hypervisor.guests"], r["kernel.version"]): r for r in json.loads(out)["predictions"]}
    worst = rows[(2000, "2.4.21")]
    assert worst["saturated"].startswith("physical CPUs") and "1999 idle guests" in worst["saturated"]
    assert worst["throughput"] == 0 and worst["response_time"] is None  # infinite: null in JSON
    assert rows[(2000, "2.6.6")]["saturated"] == ""  # the idle-tick patch: no ticks, nothing saturated


def test_open_load_is_carried_and_reported_in_its_own_unit(capsys, tmp_path):
    # ficon_sizing.toml offers 15000 I/O/s; with the declared defaults (--defaults) one FICON
    # path completes at most 7200 I/O/s (the FICON-1G maximum I/O rate of
    # zmodel/_data/hardware/links.csv)
    path = EXAMPLES / "ficon_sizing.toml"
    code, out, err = run_main(["plan", str(path), "--defaults", "--format", "csv", "--sweep", "hardware.channels=1",
                               "--sweep", "kernel.version=2.6.10", "--samples", "0"], capsys)
    assert code == 0, err
    (row,) = list(csv.DictReader(io.StringIO(out)))
    assert float(row["throughput [I/O/s]"]) == pytest.approx(7200.0, rel=1e-9)
    assert row["saturated"] == "channel processor" and float(row["response_time [s]"]) == math.inf
    assert row["model"].startswith("open")
    # utilizations at the carried load: the same as when exactly 7200 I/O/s are offered
    code, out, err = run_main(["plan", str(path), "--defaults", "--format", "csv", "--sweep", "hardware.channels=1",
                               "--sweep", "kernel.version=2.6.10", "--sweep", "workload.io_rate=7200",
                               "--samples", "0"], capsys)
    (carried,) = list(csv.DictReader(io.StringIO(out)))
    assert float(row["cpu_utilization [1]"]) == pytest.approx(float(carried["cpu_utilization [1]"]), rel=1e-12)
    assert float(row["disk_utilization [1]"]) == pytest.approx(float(carried["disk_utilization [1]"]), rel=1e-12)


# --------------------------------------------------------------------------- zmodel parameters
def _shipped_store_file():
    """The shipped store read as plain TOML (not through zmodel.store): what the command must list."""
    import tomllib

    from zmodel import store

    with open(store.default_path(), "rb") as fh:
        return tomllib.load(fh)


def test_parameters_lists_each_stored_parameter_with_its_interval_and_method(capsys):
    doc = _shipped_store_file()["areas"]["kernel_versions"]["parameters"]
    code, out, err = run_main(["parameters", "kernel_versions", "--calibrated"], capsys)
    assert code == 0 and err == ""
    calibrated = {n: p for n, p in doc.items() if p.get("calibrated")}
    body = [line.split() for line in out.splitlines() if line.startswith("kernel_versions ")]
    assert sorted(row[1] for row in body) == sorted(calibrated)
    for row in body:
        p = calibrated[row[1]]
        assert row[4] == "calibrated" and row[-1] == p["method"].split()[0]
        if "interval" in p:
            lo, hi = p["interval"]
            assert " ".join(row[5:7]) == f"[{lo:.5g}, {hi:.5g}]"
    assert f"{len(calibrated)} parameters in 1 area: {len(calibrated)} calibrated, 0 assumed" in out


def test_parameters_show_each_fits_out_of_sample_error(capsys):
    from scipy import stats

    e = _shipped_store_file()["areas"]["kernel_versions"]["model_error"]       # the TOML, read directly
    n = len(e["log_errors"])
    rms = math.sqrt(sum(v * v for v in e["log_errors"]) / n)
    factor = math.exp(stats.t.ppf(0.95, n) * rms)                             # Student's t, n degrees of freedom
    code, out, _ = run_main(["parameters", "kernel_versions"], capsys)
    assert code == 0
    assert (f"  kernel_versions: leave-one-benchmark-out, {n} rows, root mean square {rms:.3g} in the logarithm: "
            f"90 % within a factor {factor:.3g}") in out.splitlines()
    code, out, _ = run_main(["parameters", "kernel_versions", "--format", "json"], capsys)
    (doc,) = json.loads(out)["model_errors"]
    assert doc["ids"] == e["ids"] and doc["factor_90"] == pytest.approx(factor, rel=1e-12)


def test_parameters_csv_and_json_hold_every_row_of_the_store(capsys):
    areas = _shipped_store_file()["areas"]
    total = sum(len(a["parameters"]) for a in areas.values())
    code, out, _ = run_main(["parameters", "--format", "csv"], capsys)
    rows = list(csv.DictReader(io.StringIO(out)))
    assert code == 0 and len(rows) == total
    assert list(rows[0]) == list(cli.PARAMETER_COLUMNS) + ["source"]
    code, out, _ = run_main(["parameters", "usl", "--format", "json"], capsys)
    doc = json.loads(out)
    assert code == 0 and len(doc["parameters"]) == len(areas["usl"]["parameters"])
    assumed = [r for r in doc["parameters"] if not r["calibrated"]]
    assert assumed and all(r["lo90"] is None and r["hi90"] is None for r in assumed)   # no interval: null


@pytest.mark.parametrize("argv, needle", [
    (["parameters", "nonsense"], "unknown area 'nonsense' in the parameter store"),
    (["parameters", "--parameters", "/nonexistent/store.toml"], "--parameters: /nonexistent/store.toml: parameter "
                                                                "store not found"),
])
def test_parameters_usage_errors_are_one_line(capsys, argv, needle):
    assert_one_line_error(*run_main(argv, capsys), needle)
