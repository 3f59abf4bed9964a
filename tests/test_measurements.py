"""Calibrating against a planner's own numbers: `zmodel calibrate AREA --measurements FILE`.

Expected values: the documents' own fit (a file holding the documents' numbers must give
it back exactly), the direction a changed number must move a fitted parameter (written
out in the test), and the one-line messages naming file, row and column.
"""
from __future__ import annotations

import csv
import os

import pytest

from zmodel import store
from zmodel.cli import main
from zmodel.data import read_measurements
from zmodel.fits import storage

HEADER = ["id", "kind", "value", "unit"]


def _write(path, rows, header=HEADER):
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        w.writerows(rows)
    return path


def _own_rows():
    """The storage calibration's documented value rows, as a planner's file would state them."""
    rows = storage.CALIBRATION.measurements()
    rows = rows[rows["kind"].isin(["absolute", "ratio", "percent", "percent_change"])]
    return [[r["id"], r["kind"], r["value"], r["unit"]] for _, r in rows.iterrows()]


def test_the_documents_numbers_give_the_documents_fit(tmp_path):
    own = read_measurements(_write(tmp_path / "same.csv", _own_rows()))
    a = storage.CALIBRATION.run()
    b = storage.CALIBRATION.run(measurements=own)
    assert a.params.valuesdict() == b.params.valuesdict()


def test_the_documents_numbers_give_the_documents_out_of_sample_error(tmp_path):
    # the shipped store's storage error is the documents' leave-one-out: a file holding the same
    # numbers must give it back
    from zmodel.fits import registry

    own = read_measurements(_write(tmp_path / "same.csv", _own_rows()))
    mine = registry.model_error(storage.CALIBRATION, own)
    shipped = store.default().areas["storage"].model_error
    assert mine.method == shipped.method == "leave-one-out" and mine.ids == shipped.ids
    assert mine.log_errors == pytest.approx(shipped.log_errors, abs=1e-9)


def test_a_planners_out_of_sample_error_is_their_rows_left_out(tmp_path):
    # each row of a changed file predicted by a fit without it, started from the declared defaults
    # (calibrate with that row excluded, run directly): ln(prediction / the planner's number)
    import math

    from zmodel.fits import registry

    rows = _own_rows()
    rows[0][2] = str(1.5 * float(rows[0][2]))
    own = read_measurements(_write(tmp_path / "changed.csv", rows))
    mine = registry.model_error(storage.CALIBRATION, own)
    assert mine.log_errors != pytest.approx(store.default().areas["storage"].model_error.log_errors, abs=1e-6)
    for rid, e in zip(mine.ids, mine.log_errors):
        fit = storage.CALIBRATION.run(measurements=own, exclude=[*storage.CALIBRATION.exclude, rid])
        res = fit.residuals.set_index("id").loc[rid]
        kind = res["kind"]
        ratio = ((1 + res["predicted"] / 100) / (1 + res["measured"] / 100) if kind == "percent_change"
                 else res["predicted"] / res["measured"])
        assert e == pytest.approx(math.log(ratio), abs=1e-6), rid   # two fits: the optimizer's tolerance


def test_a_changed_number_moves_the_fit(tmp_path):
    rows = _own_rows()
    fitted = storage.CALIBRATION.run()
    res = fitted.residuals.set_index("id")
    # pick a row whose prediction depends on a free parameter, and double it
    informative = [r for r in rows if bool(res.loc[r[0], "informative"])]
    assert informative
    row = informative[0]
    row[2] = str(2 * float(row[2]))
    own = read_measurements(_write(tmp_path / "changed.csv", rows))
    moved = storage.CALIBRATION.run(measurements=own)
    assert moved.params.valuesdict() != fitted.params.valuesdict()
    assert moved.residuals.set_index("id").loc[row[0], "measured"] == float(row[2])


@pytest.mark.parametrize("content,words", [
    ("id,kind,unit\nx,absolute,s\n", "line 1 (header), column 'value': missing"),
    ("id,kind,value,unit,colour\nx,absolute,1,s,red\n", "column 'colour': not a catalog column"),
    ("id,kind,value,unit\nstorage.x,absolute,abc,s\n", "row 1, column 'value': must be a finite number, got 'abc'"),
    ("id,kind,value,unit\nstorage.x,absolute,nan,s\n", "row 1, column 'value': must be a finite number"),
    ("id,kind,value,unit\nstorage.x,exact,1,s\n", "row 1, column 'kind': must be one of"),
    ("id,kind,value,unit\nstorage.x,absolute,1,\n", "row 1, column 'unit': must not be empty"),
    ("id,kind,value,unit\n,absolute,1,s\n", "row 1, column 'id': must not be empty"),
    ("id,kind,value,unit\na,absolute,1,s\na,absolute,2,s\n", "row 2, column 'id': duplicate id 'a' (first at row 1)"),
    ("id,kind,value,unit\na,absolute,1\n", "row 1, column 'unit': has 3 fields, expected 4"),
    ("", "line 1 (header): file is empty"),
    ("id,kind,value,unit\n", "no measurements after the header"),
])
def test_malformed_files_name_file_row_and_column(tmp_path, content, words):
    path = tmp_path / "mine.csv"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ValueError) as info:
        read_measurements(path)
    assert str(info.value).startswith("mine.csv: ") and words in str(info.value)


def test_files_that_are_not_regular_or_too_big(tmp_path, monkeypatch):
    with pytest.raises(ValueError, match="must be a regular file"):
        read_measurements(tmp_path)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match="must be a regular file"):
        read_measurements(fifo)
    with pytest.raises(ValueError, match="cannot read"):
        read_measurements(tmp_path / "missing.csv")
    latin = tmp_path / "latin.csv"
    latin.write_bytes("id,kind,value,unit\nx,absolute,1,\xb5s\n".encode("latin-1"))
    with pytest.raises(ValueError, match="latin.csv: file: is not valid UTF-8"):
        read_measurements(latin)
    import zmodel.data as zd

    monkeypatch.setattr(zd, "MAX_MEASUREMENT_BYTES", 10)
    big = _write(tmp_path / "big.csv", [["x", "absolute", "1", "s"]])
    with pytest.raises(ValueError, match="larger than 10 bytes"):
        read_measurements(big)


def test_an_id_outside_the_area_is_refused(tmp_path):
    own = read_measurements(_write(tmp_path / "other.csv", [["wavv08.fcp-random-gain", "percent_change", "40", "%"]]))
    with pytest.raises(ValueError, match=r"other.csv: row 1, column 'id': 'wavv08.fcp-random-gain' is not a row of "
                                         r"calibration 'storage'"):
        storage.CALIBRATION.run(measurements=own)


def test_cli_calibrate_and_save_then_plan(tmp_path, capsys):
    mine = _write(tmp_path / "mine.csv", _own_rows())
    out = tmp_path / "params.toml"
    assert main(["calibrate", "storage", "--measurements", str(mine), "--save", str(out)]) == 0
    saved = store.load(out)
    assert saved.areas["storage"].origin == "measurements: mine.csv"
    # the saved area carries the planner's own out-of-sample error (here the documents' numbers: theirs)
    assert saved.areas["storage"].model_error.log_errors == pytest.approx(
        store.default().areas["storage"].model_error.log_errors, abs=1e-9)
    scenario = tmp_path / "s.toml"
    scenario.write_text('[hardware]\nprocessor = "z990"\ncpus = 1\n[kernel]\nversion = "2.6.10"\n'
                        '[workload]\nkind = "specjbb"\n')
    capsys.readouterr()
    assert main(["plan", str(scenario), "--parameters", str(out), "--format", "csv"]) == 0


@pytest.mark.parametrize("argv,words", [
    (["calibrate", "storage", "--measurements", "{bad}", "--save", "{out}"], "bad.csv: row 1, column 'value'"),
    (["calibrate", "storage", "channels", "--measurements", "{bad}"], "needs exactly one AREA"),
    (["calibrate", "kernel", "--measurements", "{bad}"], "not a catalog fit"),
    (["calibrate", "dasd", "--measurements", "{bad}", "--save", "{out}"],
     "bad.csv: line 1 (header): a catalog-schema CSV (id, kind, value, unit) holds no DASD histogram"),
    (["calibrate", "storage", "--measurements", "{tmp}"], "must be a regular file"),
])
def test_cli_bad_measurements_are_one_line_and_write_nothing(tmp_path, capsys, argv, words):
    bad = _write(tmp_path / "bad.csv", [["storage.x", "absolute", "abc", "s"]])
    out = tmp_path / "params.toml"
    out.write_text("untouched", encoding="utf-8")
    args = [a.format(bad=bad, out=out, tmp=tmp_path) for a in argv]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("zmodel: error: ") and words in err
    assert out.read_text(encoding="utf-8") == "untouched"
