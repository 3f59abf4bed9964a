"""Tests for zmodel.data: the catalog of documented numbers and the DASD statistics table.

Expected values come from outside the loader: the seed documents (read through the
`seeds` fixture, skipped when absent), numbers copied from the fs03 deck with their line
cited, and the bucket rule of the Linux for zSeries DASD driver (Linux 2.4.21,
drivers/s390/block/dasd.c, macro dasd_profile_add_counter) written out here by hand.
"""
import csv
import math
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import zmodel.data as zd

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "zmodel" / "_data"
CATALOG_FILES = sorted((DATA / "catalog").glob("*.csv"))

# fs03 deck (004_0d27ef34b5d760a7.txt), slide "/proc/dasd/statistics – Example":
# "56881 dasd I/O requests" / "with 5270816 sectors(512B each)"
FS03_REQUESTS = 56881
FS03_SECTORS = 5270816
POWER_OF_TWO_HISTOGRAMS = {
    "sectors": "sectors",
    "total_time": "us",
    "total_time_per_sector": "us/sector",
    "time_till_ssch": "us",
    "time_between_ssch_and_irq": "us",
    "time_between_ssch_and_irq_per_sector": "us/sector",
    "time_between_irq_and_end": "us",
}


def normalise(text: str) -> str:
    return " ".join(text.split())


# --------------------------------------------------------------------------------------
# The driver's bucket rule, transcribed from Linux 2.4.21 drivers/s390/block/dasd.c:
#   for (ind = 0, help = value >> 2; ind < 31 && help; help = help >> 1, ind++) {}
# --------------------------------------------------------------------------------------
def driver_index(value: int) -> int:
    ind, help_ = 0, value >> 2
    while ind < 31 and help_:
        help_ >>= 1
        ind += 1
    return ind


# Bucket k holds 2**(k+1) <= value < 2**(k+2); bucket 0 everything below 4; bucket 31 is open.
EXPECTED_BOUNDS = [(0.0, 4.0)] + [(2.0 ** (k + 1), 2.0 ** (k + 2)) for k in range(1, 31)] + [
    (2.0 ** 32, math.inf)
]


def test_expected_bounds_follow_the_driver_loop():
    """The hand-written bounds agree with the transcribed C loop at every edge."""
    for k, (lower, upper) in enumerate(EXPECTED_BOUNDS):
        assert driver_index(int(lower)) == k
        if k > 0:
            assert driver_index(int(lower) - 1) == k - 1
        if k < 31:
            assert driver_index(int(upper) - 1) == k
            assert driver_index(int(upper)) == k + 1
    assert driver_index(2**40) == 31


# --------------------------------------------------------------------------------------
# helpers for malformed copies
# --------------------------------------------------------------------------------------
@pytest.fixture
def tmp_data(tmp_path):
    """A private data folder holding the fs03 catalog and the DASD table."""
    (tmp_path / "catalog").mkdir()
    for name in ("fs03.csv", "fs03.toml"):
        shutil.copy(DATA / "catalog" / name, tmp_path / "catalog" / name)
    for name in ("dasd_statistics.csv", "dasd_statistics.toml"):
        shutil.copy(DATA / name, tmp_path / name)
    return tmp_path


def edit_csv(path: Path, change) -> None:
    with open(path, newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    change(rows)
    with open(path, "w", newline="", encoding="utf-8") as handle:
        csv.writer(handle, lineterminator="\n").writerows(rows)


def set_cell(path: Path, data_row: int, column: str, value: str) -> None:
    def change(rows):
        rows[data_row][rows[0].index(column)] = value

    edit_csv(path, change)


def fs03_row(tmp_data: Path, row_id: str) -> int:
    with open(tmp_data / "catalog" / "fs03.csv", newline="", encoding="utf-8") as handle:
        ids = [r[0] for r in csv.reader(handle)]
    return ids.index(row_id)  # == 1-based data row number


# --------------------------------------------------------------------------------------
# the catalog as it is
# --------------------------------------------------------------------------------------
def test_catalog_loads_typed():
    m = zd.measurements()
    assert list(m.columns) == list(zd.CATALOG_COLUMNS) + ["value_num", "platform"]
    for column in zd.CATALOG_COLUMNS:
        assert m[column].dtype == "string", column
    assert m["value_num"].dtype == "float64"
    assert m["id"].is_unique
    text_value = (m["kind"] == "shape") | m["unit"].isin(["version", "date"])
    assert m.loc[text_value, "value_num"].isna().all()
    assert m.loc[~text_value, "value_num"].notna().all()


def test_catalog_metadata_matches_row_counts():
    meta = zd.catalog_metadata()
    m = zd.measurements()
    for doc, info in meta.items():
        assert info["rows"] == int((m["source"] == zd.DOCUMENTS.get(doc, info["source"])).sum())
    assert meta["fs03"]["source"] == "004_0d27ef34b5d760a7.txt"
    assert meta["fs03"]["extracted_by"] == "manual reading"


def test_fs03_key_rows():
    m = zd.measurements(source="fs03").set_index("id")
    # "performance cost is at least 30%" (Summary slide)
    row = m.loc["fs03.journaling-cost-lower-bound"]
    assert (row["value_num"], row["unit"], row["kind"]) == (30.0, "%", "lower_bound")
    assert m.loc["fs03.dasd-stats-requests", "value_num"] == FS03_REQUESTS
    assert m.loc["fs03.dasd-stats-sectors", "value_num"] == FS03_SECTORS
    # "10.000 RPM" is German notation for ten thousand
    assert m.loc["fs03.shark-disk-rpm", "value_num"] == 10000.0
    assert pd.isna(m.loc["fs03.chart-lpar-vs-vm", "value_num"])


def test_filters():
    everything = zd.measurements()
    by_name = zd.measurements(source="fs03")
    by_file = zd.measurements(source="004_0d27ef34b5d760a7.txt")
    pd.testing.assert_frame_equal(by_name, by_file)
    assert set(by_name["source"]) == {"004_0d27ef34b5d760a7.txt"}
    assert len(by_name) == zd.catalog_metadata()["fs03"]["rows"]
    dasd = zd.measurements(model_area="dasd")
    assert set(dasd["model_area"]) == {"dasd"}
    assert len(dasd) == int((everything["model_area"] == "dasd").sum())
    both = zd.measurements(source=["fs03"], model_area=["dasd", "storage"])
    assert set(both["model_area"]) <= {"dasd", "storage"} and len(both) > 0
    ids = ["fs03.z900-cycle-time", "fs03.shark-nvs"]
    picked = zd.measurements(ids=ids)
    assert sorted(picked["id"]) == sorted(ids)
    assert list(picked.index) == [0, 1]


def test_catalog_order_is_stable():
    a = zd.measurements()["id"].tolist()
    b = zd.measurements()["id"].tolist()
    assert a == b
    docs = [i.split(".", 1)[0] for i in a]
    order = [d for d in zd.DOCUMENTS if d in docs]
    assert sorted(dict.fromkeys(docs), key=order.index) == list(dict.fromkeys(docs))


def test_env_override(tmp_data, monkeypatch):
    monkeypatch.setenv("ZMODEL_DATA", str(tmp_data))
    assert zd.data_folder() == tmp_data
    assert set(zd.measurements()["source"]) == {"004_0d27ef34b5d760a7.txt"}
    assert zd.data_folder(DATA) == DATA
    monkeypatch.delenv("ZMODEL_DATA")
    assert zd.data_folder() == DATA


def test_import_does_not_load_pandas():
    code = "import sys, zmodel.data; print('pandas' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=REPO)
    assert out.stdout.strip() == "False"


# --------------------------------------------------------------------------------------
# provenance: every verbatim phrase is in its seed document
# --------------------------------------------------------------------------------------
@pytest.mark.seeds
@pytest.mark.parametrize("path", CATALOG_FILES, ids=lambda p: p.name)
def test_verbatim_in_seed(path, seeds):
    with open(path, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    missing = []
    texts = {}
    for number, row in enumerate(rows, start=1):
        if row["source"] not in texts:
            seed = seeds / row["source"]
            texts[row["source"]] = normalise(seed.read_text(encoding="utf-8")) if seed.exists() else None
        text = texts[row["source"]]
        if text is None or normalise(row["verbatim"]) not in text:
            missing.append(f"row {number} {row['id']}: {row['verbatim'][:80]!r}")
    assert not missing, f"{path.name}: verbatim not found in the seed:\n" + "\n".join(missing)


@pytest.mark.seeds
def test_dasd_totals_match_seed(seeds):
    text = (seeds / "004_0d27ef34b5d760a7.txt").read_text(encoding="utf-8")
    requests = int(re.search(r"(\d+) dasd I/O requests", text).group(1))
    sectors = int(re.search(r"with (\d+) sectors\(512B each\)", text).group(1))
    assert (requests, sectors) == (FS03_REQUESTS, FS03_SECTORS)
    meta = zd.dasd_statistics().attrs["metadata"]
    assert (meta["total_requests"], meta["total_sectors"]) == (requests, sectors)
    for phrase in meta["verbatim_totals"]:
        assert normalise(phrase) in normalise(text)
    titles = [h["title"] for h in meta["histograms"]]
    for title in titles:
        assert title in text


@pytest.mark.seeds
def test_header_labels_are_upper_bounds(seeds):
    """The printed header names each bucket's upper bound (second line drops the k of 256k/512k)."""
    lines = (seeds / "004_0d27ef34b5d760a7.txt").read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip().startswith("__<4"))
    labels = (lines[start] + " " + lines[start + 1]).split()
    assert len(labels) == 32
    scale = {"": 1, "k": 2**10, "M": 2**20, "G": 2**30}

    def value(label, k):
        label = label.strip("_").lstrip("<>")
        number, suffix = re.fullmatch(r"(\d+)([kMG]?)", label).groups()
        if k in (16, 17):  # printed "_256", "_512" after "128k"
            suffix = "k"
        return int(number) * scale[suffix]

    h = zd.dasd_statistics()
    sectors = h[h["histogram"] == "sectors"].set_index("bucket")
    for k, label in enumerate(labels[:31]):
        assert value(label, k) == 2 ** (k + 2) == sectors.loc[k, "upper"], (k, label)
    assert labels[31].strip("_") == ">4G" and sectors.loc[31, "lower"] == 4 * 2**30


# --------------------------------------------------------------------------------------
# the DASD statistics table
# --------------------------------------------------------------------------------------
def test_dasd_statistics_typed():
    h = zd.dasd_statistics()
    assert list(h.columns) == list(zd.DASD_COLUMNS)
    assert dict(h.dtypes.astype(str)) == {"histogram": "string", "bucket": "int64", "lower": "float64",
                                          "upper": "float64", "unit": "string", "count": "int64"}
    assert set(h["histogram"]) == set(POWER_OF_TWO_HISTOGRAMS) | {"queue_length_at_enqueue"}
    assert (h.groupby("histogram")["bucket"].apply(sorted).apply(lambda b: b == list(range(32)))).all()


def test_request_counts_agree_across_histograms():
    h = zd.dasd_statistics()
    totals = h.groupby("histogram")["count"].sum()
    assert len(totals) == 8
    assert (totals == FS03_REQUESTS).all(), totals.to_dict()


def test_bucket_bounds_follow_driver_rule():
    h = zd.dasd_statistics()
    for name, unit in POWER_OF_TWO_HISTOGRAMS.items():
        part = h[h["histogram"] == name].sort_values("bucket")
        assert list(zip(part["lower"], part["upper"])) == EXPECTED_BOUNDS, name
        assert set(part["unit"]) == {unit}
    queue = h[h["histogram"] == "queue_length_at_enqueue"].sort_values("bucket")
    # dasd_chanq_enq counts the requests already queued: bucket k means k of them
    assert list(zip(queue["lower"], queue["upper"])) == [(float(k), float(k + 1)) for k in range(31)] + [
        (31.0, math.inf)
    ]
    assert set(queue["unit"]) == {"requests"}


@settings(max_examples=100, deadline=None)
@given(st.integers(min_value=0, max_value=2**40))
def test_table_buckets_contain_values_the_driver_puts_there(value):
    h = _sectors_bounds()
    k = driver_index(value)
    lower, upper = h[k]
    assert lower <= value < upper


_CACHE = {}


def _sectors_bounds():
    if "sectors" not in _CACHE:
        h = zd.dasd_statistics()
        part = h[h["histogram"] == "sectors"].sort_values("bucket")
        _CACHE["sectors"] = list(zip(part["lower"], part["upper"]))
    return _CACHE["sectors"]


def test_total_sectors_within_size_histogram_bounds():
    """The printed sector total lies inside what the size histogram allows."""
    h = zd.dasd_statistics()
    s = h[h["histogram"] == "sectors"]
    assert (s["count"] * s["lower"]).sum() <= FS03_SECTORS < (s["count"] * s["upper"]).sum()


def test_component_times_are_consistent_with_total_time():
    """A request's total time is at least each of its parts, so for every bound b
    #(total < b) <= #(part < b). This also pins the reading of the 17-number line."""
    h = zd.dasd_statistics()

    def below(name):
        part = h[h["histogram"] == name].sort_values("bucket")
        return part["count"].cumsum().to_numpy()

    total = below("total_time")
    for name in ("time_till_ssch", "time_between_ssch_and_irq", "time_between_irq_and_end"):
        assert (total <= below(name)).all(), name


def test_dasd_metadata_names_the_driver():
    meta = zd.dasd_statistics().attrs["metadata"]
    assert meta["driver"]["path"] == "drivers/s390/block/dasd.c"
    assert "value >> 2" in meta["driver"]["bucket_line"]
    assert ">> 12" in meta["driver"]["time_lines"][0]
    assert "extra" in meta["reading_notes"] or "17 numbers" in meta["reading_notes"]
    assert {h["slug"] for h in meta["histograms"]} == set(zd.dasd_statistics()["histogram"])


# --------------------------------------------------------------------------------------
# error paths: one per message, each on a malformed private copy
# --------------------------------------------------------------------------------------
def test_error_header(tmp_data):
    def change(rows):
        rows[0][6], rows[0][7] = rows[0][7], rows[0][6]

    edit_csv(tmp_data / "catalog" / "fs03.csv", change)
    with pytest.raises(ValueError, match=r"fs03\.csv: line 1 \(header\), column 'value': header must be exactly"):
        zd.measurements(data_dir=tmp_data)


def test_error_empty_file(tmp_data):
    (tmp_data / "catalog" / "fs03.csv").write_text("", encoding="utf-8")
    with pytest.raises(ValueError, match=r"fs03\.csv: line 1 \(header\): file is empty"):
        zd.measurements(data_dir=tmp_data)


def test_error_not_utf8(tmp_data):
    path = tmp_data / "catalog" / "fs03.csv"
    path.write_bytes(path.read_bytes() + b"fs03.x,\xff\xfe\n")
    with pytest.raises(ValueError, match=r"fs03\.csv: file: is not valid UTF-8"):
        zd.measurements(data_dir=tmp_data)


def test_error_field_count(tmp_data):
    edit_csv(tmp_data / "catalog" / "fs03.csv", lambda rows: rows[3].pop())
    with pytest.raises(ValueError, match=r"fs03\.csv: row 3, column 'notes': has 11 fields, expected 12"):
        zd.measurements(data_dir=tmp_data)


def test_error_id_form(tmp_data):
    set_cell(tmp_data / "catalog" / "fs03.csv", 2, "id", "fs03.Bad_Slug")
    with pytest.raises(ValueError, match=r"fs03\.csv: row 2, column 'id': id must look like"):
        zd.measurements(data_dir=tmp_data)


def test_error_id_document(tmp_data):
    set_cell(tmp_data / "catalog" / "fs03.csv", 4, "id", "osdl.some-number")
    with pytest.raises(ValueError, match=r"fs03\.csv: row 4, column 'id': id must start with the document name 'fs03\.'"):
        zd.measurements(data_dir=tmp_data)


def test_error_duplicate_id(tmp_data):
    set_cell(tmp_data / "catalog" / "fs03.csv", 5, "id", "fs03.ext3-version")
    with pytest.raises(ValueError, match=r"fs03\.csv: row 5, column 'id': duplicate id 'fs03\.ext3-version' \(first at row 1\)"):
        zd.measurements(data_dir=tmp_data)


def test_error_source(tmp_data):
    set_cell(tmp_data / "catalog" / "fs03.csv", 6, "source", "000_bf0694975d199a2d.txt")
    with pytest.raises(ValueError, match=r"fs03\.csv: row 6, column 'source': source must be '004_0d27ef34b5d760a7\.txt'"):
        zd.measurements(data_dir=tmp_data)


def test_error_source_empty_for_unknown_document(tmp_data):
    header = ",".join(zd.CATALOG_COLUMNS)
    (tmp_data / "catalog" / "extra.csv").write_text(
        header + "\nextra.a,,loc,q,,,1,s,absolute,one s,other,\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"extra\.csv: row 1, column 'source': source must name the seed file"):
        zd.measurements(data_dir=tmp_data)


def test_error_kind(tmp_data):
    set_cell(tmp_data / "catalog" / "fs03.csv", 7, "kind", "measured")
    with pytest.raises(ValueError, match=r"fs03\.csv: row 7, column 'kind': kind must be one of .* got 'measured'"):
        zd.measurements(data_dir=tmp_data)


def test_error_model_area(tmp_data):
    set_cell(tmp_data / "catalog" / "fs03.csv", 8, "model_area", "disks")
    with pytest.raises(ValueError, match=r"fs03\.csv: row 8, column 'model_area': model_area must be one of .* got 'disks'"):
        zd.measurements(data_dir=tmp_data)


def test_error_verbatim_empty(tmp_data):
    set_cell(tmp_data / "catalog" / "fs03.csv", 9, "verbatim", "  ")
    with pytest.raises(ValueError, match=r"fs03\.csv: row 9, column 'verbatim': verbatim must quote"):
        zd.measurements(data_dir=tmp_data)


def test_error_shape_with_value(tmp_data):
    row = fs03_row(tmp_data, "fs03.chart-lpar-vs-vm")
    set_cell(tmp_data / "catalog" / "fs03.csv", row, "value", "12")
    with pytest.raises(ValueError, match=rf"fs03\.csv: row {row}, column 'value': value must be empty for kind 'shape'"):
        zd.measurements(data_dir=tmp_data)


def test_error_value_missing(tmp_data):
    row = fs03_row(tmp_data, "fs03.shark-nvs")
    set_cell(tmp_data / "catalog" / "fs03.csv", row, "value", "")
    with pytest.raises(ValueError, match=rf"fs03\.csv: row {row}, column 'value': value must not be empty for kind 'configuration'"):
        zd.measurements(data_dir=tmp_data)


def test_error_value_not_numeric(tmp_data):
    row = fs03_row(tmp_data, "fs03.shark-disk-rpm")
    set_cell(tmp_data / "catalog" / "fs03.csv", row, "value", "10.000 RPM")
    with pytest.raises(ValueError, match=rf"fs03\.csv: row {row}, column 'value': value must be a finite number"):
        zd.measurements(data_dir=tmp_data)


@pytest.mark.parametrize("bad", ["2003-13", "Nov 2003", "2003-02-30"])
def test_error_date(tmp_data, bad):
    path = tmp_data / "catalog" / "fs03.csv"
    set_cell(path, 1, "unit", "date")
    set_cell(path, 1, "value", bad)
    with pytest.raises(ValueError, match=r"fs03\.csv: row 1, column 'value': a date value must be ISO yyyy-mm-dd"):
        zd.measurements(data_dir=tmp_data)


def test_dates_of_reduced_precision_are_accepted(tmp_data):
    path = tmp_data / "catalog" / "fs03.csv"
    for row, value in ((1, "2003-11-10"), (2, "2003-11"), (3, "2003")):
        set_cell(path, row, "unit", "date")
        set_cell(path, row, "value", value)
    m = zd.measurements(data_dir=tmp_data)
    assert m.loc[:2, "value"].tolist() == ["2003-11-10", "2003-11", "2003"]
    assert m.loc[:2, "value_num"].isna().all()


def test_error_no_catalog_folder(tmp_path):
    with pytest.raises(ValueError, match=r"catalog folder not found"):
        zd.measurements(data_dir=tmp_path)


def test_error_filter_source():
    with pytest.raises(ValueError, match=r"source must be among .* got \['nosuchdoc'\]"):
        zd.measurements(source="nosuchdoc")


def test_error_filter_model_area():
    with pytest.raises(ValueError, match=r"model_area must be among .* got \['disk'\]"):
        zd.measurements(model_area="disk")


def test_error_filter_ids():
    with pytest.raises(ValueError, match=r"ids not in the catalog: \['fs03\.no-such-row'\]"):
        zd.measurements(ids=["fs03.z900-cycle-time", "fs03.no-such-row"])


def test_error_metadata_toml(tmp_data):
    path = tmp_data / "catalog" / "fs03.toml"
    path.write_text(path.read_text(encoding="utf-8") + "\nrows = = 3\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"fs03\.toml: file: is not valid TOML"):
        zd.catalog_metadata(data_dir=tmp_data)


def test_error_metadata_missing_key(tmp_data):
    path = tmp_data / "catalog" / "fs03.toml"
    text = re.sub(r"(?m)^title = .*\n", "", path.read_text(encoding="utf-8"))
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=r"fs03\.toml: key 'title': missing"):
        zd.catalog_metadata(data_dir=tmp_data)


def test_error_metadata_source(tmp_data):
    path = tmp_data / "catalog" / "fs03.toml"
    text = path.read_text(encoding="utf-8").replace('source = "004_0d27ef34b5d760a7.txt"',
                                                    'source = "004.txt"')
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=r"fs03\.toml: key 'source': must be '004_0d27ef34b5d760a7\.txt'"):
        zd.catalog_metadata(data_dir=tmp_data)


def test_error_metadata_rows(tmp_data):
    edit_csv(tmp_data / "catalog" / "fs03.csv", lambda rows: rows.pop())
    n = zd.catalog_metadata()["fs03"]["rows"]
    with pytest.raises(ValueError, match=rf"fs03\.toml: key 'rows': rows = {n} but fs03\.csv has {n - 1} data rows"):
        zd.catalog_metadata(data_dir=tmp_data)


DASD = "dasd_statistics.csv"


def test_error_dasd_histogram(tmp_data):
    set_cell(tmp_data / DASD, 3, "histogram", "Sizes")
    with pytest.raises(ValueError, match=r"dasd_statistics\.csv: row 3, column 'histogram': histogram must be a lowercase slug"):
        zd.dasd_statistics(data_dir=tmp_data)


@pytest.mark.parametrize("bad", ["32", "-1", "1.0", "x"])
def test_error_dasd_bucket(tmp_data, bad):
    set_cell(tmp_data / DASD, 4, "bucket", bad)
    with pytest.raises(ValueError, match=r"dasd_statistics\.csv: row 4, column 'bucket': bucket must be an integer 0\.\.31"):
        zd.dasd_statistics(data_dir=tmp_data)


def test_error_dasd_bound_not_number(tmp_data):
    set_cell(tmp_data / DASD, 5, "lower", "4k")
    with pytest.raises(ValueError, match=r"dasd_statistics\.csv: row 5, column 'lower': lower must be a number or inf"):
        zd.dasd_statistics(data_dir=tmp_data)


def test_error_dasd_bound_negative(tmp_data):
    set_cell(tmp_data / DASD, 6, "lower", "-4")
    with pytest.raises(ValueError, match=r"dasd_statistics\.csv: row 6, column 'lower': lower must be >= 0"):
        zd.dasd_statistics(data_dir=tmp_data)


def test_error_dasd_bounds_order(tmp_data):
    set_cell(tmp_data / DASD, 7, "upper", "1")
    with pytest.raises(ValueError, match=r"dasd_statistics\.csv: row 7, column 'upper': upper must exceed lower"):
        zd.dasd_statistics(data_dir=tmp_data)


def test_error_dasd_unit(tmp_data):
    set_cell(tmp_data / DASD, 8, "unit", "")
    with pytest.raises(ValueError, match=r"dasd_statistics\.csv: row 8, column 'unit': unit must not be empty"):
        zd.dasd_statistics(data_dir=tmp_data)


@pytest.mark.parametrize("bad", ["-1", "12.5", "many"])
def test_error_dasd_count(tmp_data, bad):
    set_cell(tmp_data / DASD, 9, "count", bad)
    with pytest.raises(ValueError, match=r"dasd_statistics\.csv: row 9, column 'count': count must be a non-negative integer"):
        zd.dasd_statistics(data_dir=tmp_data)


def test_error_dasd_repeated_bucket(tmp_data):
    set_cell(tmp_data / DASD, 10, "bucket", "8")
    with pytest.raises(ValueError, match=r"dasd_statistics\.csv: row 10, column 'bucket': bucket 8 of 'sectors' repeats row 9"):
        zd.dasd_statistics(data_dir=tmp_data)


def test_error_dasd_missing_bucket(tmp_data):
    edit_csv(tmp_data / DASD, lambda rows: rows.pop())
    with pytest.raises(ValueError, match=r"dasd_statistics\.csv: histogram 'queue_length_at_enqueue', column 'bucket': must have buckets 0\.\.31 once each; missing \[31\]"):
        zd.dasd_statistics(data_dir=tmp_data)


# --------------------------------------------------------------------------- platforms (issue 12 part 3)
#: the machine family of each document's measurements, as the seeds describe them: the IBM
#: Systems Journal paper measures z990 LPARs and z/VM guests (zSeries); the OSDL deck's results
#: are "on x86 4-way and 8-way systems" (Pentium III, OSDL STP); WAVV 2008 uses a z9; the Altix
#: paper SGI Altix (Itanium 2, ia64); the zSeries Expo deck a z900 (zSeries)
SEED_PLATFORMS = {"ibmsj": "zSeries", "osdl": "x86", "wavv08": "zSeries", "altix": "ia64", "fs03": "zSeries"}


def test_every_catalog_row_records_its_platform():
    frame = zd.measurements()
    assert frame["platform"].notna().all()
    doc = frame["id"].str.split(".", n=1).str[0]
    for name, platform in SEED_PLATFORMS.items():
        assert set(frame.loc[doc == name, "platform"]) == {platform}, name


def test_platform_key_is_checked(tmp_path):
    import shutil

    shutil.copytree(zd.data_folder() / "catalog", tmp_path / "catalog")
    path = tmp_path / "catalog" / "osdl.toml"
    path.write_text(path.read_text(encoding="utf-8").replace('platform = "x86"', 'platform = "vax"'), encoding="utf-8")
    with pytest.raises(ValueError, match=r"osdl.toml: key 'platform': must be one of \['x86', 'ia64', 'zSeries'\]"):
        zd.catalog_metadata(data_dir=tmp_path)


# --------------------------------------------------------------------------------------
# readings.csv: verbal statements read as intervals
# --------------------------------------------------------------------------------------
def _readings_copy(tmp_data, line):
    """The fs03 data folder with a one-row readings.csv (fs03.journaling-cost-lower-bound)."""
    (tmp_data / "readings.csv").write_text("id,kind,low,high,reading\n" + line + "\n", encoding="utf-8")
    return tmp_data


def test_reading_intervals_are_read_with_their_ends(tmp_data):
    _readings_copy(tmp_data, "fs03.journaling-cost-lower-bound,interval,30,inf,at least 30 %")
    assert zd.reading_intervals(data_dir=tmp_data) == {"fs03.journaling-cost-lower-bound": (30.0, math.inf)}
    assert zd.readings(data_dir=tmp_data) == {"fs03.journaling-cost-lower-bound": ("interval", "at least 30 %")}


def test_shipped_interval_readings_follow_the_written_conventions():
    # 'about N' -> [0.9 N, 1.1 N]; 'almost N' -> [0.9 N, N] (readings.toml); N from the catalog row
    ends = zd.reading_intervals()
    values = zd.measurements().set_index("id")["value_num"]
    for id_ in ("altix.timer-global-noprogress-cpus", "altix.fig1-knee-cpus", "wavv08.sw-encryption-cpu",
                "ibmsj.best-io-scheduler-double"):
        assert ends[id_] == pytest.approx((0.9 * values[id_], 1.1 * values[id_]), rel=1e-12), id_
    assert ends["wavv08.cex2a-cpu-saving"] == pytest.approx((-55.0, -45.0))       # about 50 % saved
    assert ends["altix.gettimeofday-4-concurrent-slowdown"] == pytest.approx((9.0, 10.0))   # almost 10x
    assert ends["wavv08.multipath-cost-low"] == pytest.approx((9.0, math.inf))   # about 10-15 %
    assert ends["wavv08.multipath-cost-high"] == pytest.approx((-math.inf, 16.5))
    assert ends["ibmsj.dbench-24-drop-above-20cpu"] == (20.0, 24.0)


@pytest.mark.parametrize("line, match", [
    ("fs03.journaling-cost-lower-bound,interval,,40,x", r"row 1, column 'low': low must be a number"),
    ("fs03.journaling-cost-lower-bound,interval,30,,x", r"row 1, column 'high': high must be a number"),
    ("fs03.journaling-cost-lower-bound,interval,40,30,x", r"row 1, column 'low': low \(40\) must not exceed high \(30\)"),
    ("fs03.journaling-cost-lower-bound,interval,-inf,inf,x", r"at least one end of an interval must be finite"),
    ("fs03.journaling-cost-lower-bound,interval,nan,30,x", r"row 1, column 'low': low must be a number, got 'nan'"),
    ("fs03.journaling-cost-lower-bound,lower_bound,30,,x", r"row 1, column 'low': low is only for kind 'interval'"),
])
def test_malformed_interval_readings_name_row_and_column(tmp_data, line, match):
    _readings_copy(tmp_data, line)
    with pytest.raises(ValueError, match=match):
        zd.readings(data_dir=tmp_data)


def test_a_fit_reading_a_row_as_interval_needs_its_ends(tmp_data):
    from zmodel.fits import catalog_rows

    _readings_copy(tmp_data, "fs03.journaling-cost-lower-bound,lower_bound,,,at least 30 %")
    with pytest.raises(ValueError, match=r"rows read as 'interval' need their ends in readings.csv; "
                                         r"missing for: fs03.journaling-cost-lower-bound"):
        catalog_rows(["fs03.journaling-cost-lower-bound"], {"fs03.journaling-cost-lower-bound": "interval"},
                     data_dir=tmp_data)
