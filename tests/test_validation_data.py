"""Tests for the validation set (zmodel/_data/validation/, issue 12 part 1) and its loader.

The validation figures come from published sources outside the five seed documents and are
never used for fitting. These tests check the schema (with errors naming file, row and
column), the size and spread the issue asks for (at least 30 figures over at least 8 areas),
full provenance on every row, that no row or source is one of the seed documents, and that
no calibration can read a validation row: neither through the catalog (every fit gets its
rows from ``zmodel.data.measurements``, which does not know validation ids) nor through the
files (no module under zmodel/fits or zmodel/calibration.py mentions the validation data).
"""
import csv
import importlib
import re
import shutil
from pathlib import Path

import pytest

import zmodel.data as zd
from zmodel.fits.registry import CALIBRATIONS

REPO = Path(__file__).resolve().parents[1]
FIGURES = zd.data_folder() / "validation" / "figures.csv"

# Issue 12, part 1: "at least 30 published figures ... spread over at least eight areas".
MIN_ROWS = 30
MIN_AREAS = 8
# "a short verbatim phrase (a few words to one sentence)": one long sentence fits in 200.
MAX_VERBATIM = 200


def normalise(text: str) -> str:
    return " ".join(text.split()).casefold()


@pytest.fixture(scope="module")
def figures():
    return zd.validation_figures()


# --------------------------------------------------------------------------------------
# Schema, size, spread
# --------------------------------------------------------------------------------------
def test_schema_columns_and_types(figures):
    assert list(figures.columns) == list(zd.VALIDATION_COLUMNS) + ["value_num"]
    assert str(figures["year"].dtype) == "int64"
    assert str(figures["value_num"].dtype) == "float64"
    assert figures["id"].is_unique
    assert set(figures["kind"]) <= zd.VALIDATION_KINDS
    assert set(figures["expressible"]) <= {"yes", "no"}
    assert figures.attrs["metadata"]["rule"] == "never used for fitting"


def test_at_least_thirty_figures_over_eight_areas(figures):
    assert len(figures) >= MIN_ROWS
    assert figures["area"].nunique() >= MIN_AREAS
    assert set(figures["area"]) <= zd.VALIDATION_AREAS


def test_every_row_has_full_provenance(figures):
    for column in ("title", "publisher", "document", "page", "location", "verbatim",
                   "quantity", "platform", "conditions", "unit"):
        empty = figures.loc[figures[column].str.strip() == "", "id"].tolist()
        assert not empty, f"{column} empty in {empty}"
    assert figures["year"].between(1990, 2026).all()
    long_quotes = figures.loc[figures["verbatim"].str.len() > MAX_VERBATIM, "id"].tolist()
    assert not long_quotes, f"verbatim longer than one sentence: {long_quotes}"


def test_expressible_rows_and_missing_mechanisms(figures):
    no = figures[figures["expressible"] == "no"]
    yes = figures[figures["expressible"] == "yes"]
    assert (no["missing"].str.strip() != "").all()
    assert (yes["missing"].str.strip() == "").all()


def test_area_filter(figures):
    pav = zd.validation_figures(area="pav")
    assert len(pav) == int((figures["area"] == "pav").sum()) > 0
    with pytest.raises(ValueError, match="area must be among"):
        zd.validation_figures(area="nonsense")


def test_rotational_latency_row_is_half_a_revolution(figures):
    # Hitachi Travelstar 5K320 spec, Table 8: 5400 rpm -> 11.1 ms per revolution, 5.5 ms
    # average latency; half a revolution is 60 / 5400 / 2 s = 5.556 ms (printed truncated).
    row = figures.set_index("id").loc["val.disks.travelstar-5k320-avg-latency"]
    assert row["unit"] == "ms"
    assert abs(row["value_num"] - 60 / 5400 / 2 * 1e3) < 0.1


# --------------------------------------------------------------------------------------
# Outside the seed documents
# --------------------------------------------------------------------------------------
def test_no_row_or_source_is_a_seed_document(figures):
    seeds = set(zd.DOCUMENTS) | set(zd.DOCUMENTS.values())
    assert not figures["id"].str.split(".").str[0].isin(seeds).any()
    assert figures["id"].str.startswith("val.").all()
    for column in ("document", "title"):
        for value in figures[column]:
            assert not any(s in value for s in zd.DOCUMENTS.values()), value
    seed_titles = {normalise(m["title"]) for m in zd.catalog_metadata().values()}
    for title in figures["title"]:
        assert normalise(title) not in seed_titles, title
        assert not any(t in normalise(title) for t in seed_titles), title


def test_verbatims_are_not_quoted_from_the_seeds(figures, seeds):
    texts = [normalise(p.read_text(encoding="utf-8", errors="replace")) for p in sorted(seeds.glob("*.txt"))]
    copied = [rid for rid, verbatim in zip(figures["id"], figures["verbatim"])
              if any(normalise(verbatim) in text for text in texts)]
    assert not copied, f"verbatim found in a seed document: {copied}"


# --------------------------------------------------------------------------------------
# Never used by a calibration
# --------------------------------------------------------------------------------------
def _strings(value, depth=0):
    if isinstance(value, str):
        yield value
    elif depth < 4 and isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(k, depth + 1)
            yield from _strings(v, depth + 1)
    elif depth < 4 and isinstance(value, (list, tuple, set, frozenset)):
        for item in value:
            yield from _strings(item, depth + 1)


def test_no_validation_id_is_a_catalog_row(figures):
    catalog_ids = set()
    for path in sorted((zd.data_folder() / "catalog").glob("*.csv")):
        with open(path, newline="", encoding="utf-8") as handle:
            catalog_ids |= {row["id"] for row in csv.DictReader(handle)}
    assert catalog_ids, "catalog is empty"
    assert not (set(figures["id"]) & catalog_ids)
    # Every fit takes its rows through zmodel.fits.catalog_rows -> measurements(ids=...),
    # which rejects an id outside the catalog: a validation id cannot reach a fit that way.
    for rid in figures["id"]:
        with pytest.raises(ValueError, match="not in the catalog"):
            zd.measurements(ids=[rid])


@pytest.mark.parametrize("entry", CALIBRATIONS, ids=[e.area for e in CALIBRATIONS])
def test_no_calibration_module_names_a_validation_row(entry, figures):
    module_name = entry.target.partition(":")[0]
    module = importlib.import_module(module_name)
    validation_ids = set(figures["id"])
    named = {s for value in vars(module).values() for s in _strings(value)}
    assert not (named & validation_ids)
    source = Path(module.__file__).read_text(encoding="utf-8")
    assert not any(rid in source for rid in validation_ids)


def test_no_fit_or_calibration_source_reads_the_validation_data():
    sources = sorted((REPO / "zmodel" / "fits").glob("*.py")) + [REPO / "zmodel" / "calibration.py"]
    assert len(sources) > 2
    pattern = re.compile(r"validation_figures|validation/|figures\.csv|['\"]validation['\"]|\bval\.[a-z_]+\.")
    hits = [f"{p.relative_to(REPO)}:{n}" for p in sources
            for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), start=1)
            if pattern.search(line)]
    assert not hits, f"calibration code refers to the validation set: {hits}"


# --------------------------------------------------------------------------------------
# Malformed files: one clear message naming file, row and column
# --------------------------------------------------------------------------------------
def _copy_with(tmp_path, edit):
    root = tmp_path / "data"
    (root / "validation").mkdir(parents=True)
    shutil.copy(FIGURES.with_suffix(".toml"), root / "validation" / "figures.toml")
    with open(FIGURES, newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    edit(rows)
    with open(root / "validation" / "figures.csv", "w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows(rows)
    return root


COL = {name: i for i, name in enumerate(zd.VALIDATION_COLUMNS)}


def _set(row_number, column, value):
    def edit(rows):
        rows[row_number][COL[column]] = value
    return edit


@pytest.mark.parametrize("edit, message", [
    (_set(1, "area", "disk"), r"figures\.csv: row 1, column 'area': area must be one of"),
    (_set(2, "id", "val.pav.zhpf-x"), r"figures\.csv: row 2, column 'id': id must start with 'val\.channels\.'"),
    (_set(3, "id", "wavv08.some-row"), r"row 3, column 'id': id must look like 'val\.<area>\.<slug>'"),
    (_set(1, "verbatim", " "), r"row 1, column 'verbatim': verbatim must not be empty"),
    (_set(1, "title", ""), r"row 1, column 'title': title must not be empty"),
    (_set(1, "year", "08"), r"row 1, column 'year': year must be four digits"),
    (_set(1, "value", "31k"), r"row 1, column 'value': value must be a finite number"),
    (_set(1, "kind", "shape"), r"row 1, column 'kind': kind must be one of"),
    (_set(1, "conditions", "FICON Express4"), r"row 1, column 'conditions': conditions must be 'key=value'"),
    (_set(1, "document", "002_3ef25dc9d706703e.txt"), r"row 1, column 'document': document must not be a seed"),
    (_set(6, "missing", ""), r"row 6, column 'missing': missing must say what the library lacks"),
    (_set(1, "expressible", "maybe"), r"row 1, column 'expressible': expressible must be 'yes' or 'no'"),
    (lambda rows: rows.append(list(rows[1])), r"column 'id': duplicate id 'val\.channels\.zhpf-fex4-max-iops'"),
    (lambda rows: rows[0].__setitem__(1, "areas"), r"figures\.csv: line 1 \(header\), column 'area'"),
    (lambda rows: rows[2].pop(), r"figures\.csv: row 2, column 'catalog_check': has 18 fields, expected 19"),
])
def test_malformed_file_names_file_row_and_column(tmp_path, edit, message):
    root = _copy_with(tmp_path, edit)
    with pytest.raises(ValueError, match=message):
        zd.validation_figures(data_dir=root)


def test_expressible_yes_with_missing_is_rejected(tmp_path, figures):
    number = int(figures.index[figures["expressible"] == "yes"][0]) + 1
    root = _copy_with(tmp_path, _set(number, "missing", "something"))
    with pytest.raises(ValueError, match=rf"row {number}, column 'missing': missing must be empty"):
        zd.validation_figures(data_dir=root)


def test_missing_file_is_a_clear_error(tmp_path):
    (tmp_path / "validation").mkdir()
    with pytest.raises(ValueError, match="validation figures not found"):
        zd.validation_figures(data_dir=tmp_path)
