"""Tests of the hardware catalog loader (zmodel/hardware/catalog.py) and its tables.

Expected values come from the unit conventions of the hardware layer (binary sizes,
decimal rates) written out here by hand, from the seed documents themselves (verbatim
phrases) and from the independently extracted measurement catalog (zmodel/_data/catalog/*.csv).
"""
from __future__ import annotations

import csv
import re

import pytest

from zmodel.hardware import catalog
from zmodel.hardware.catalog import COLUMNS, component, names, table, to_si

HEADER = ",".join(COLUMNS)
GOOD = 'X1,x-one;X 1,cache_size,2,GB,"IBM Redbook SG24-0000, §1",§1,,false,\n'


def write(tmp_path, family, body, header=HEADER):
    folder = tmp_path / "hardware"
    folder.mkdir(exist_ok=True)
    (folder / f"{family}.csv").write_text(header + "\n" + body, encoding="utf-8")
    return tmp_path


# ------------------------------------------------------------------ units
@pytest.mark.parametrize("value,unit,expected,si", [
    (2, "GB", 2 * 2 ** 30, "B"), (32, "MB", 32 * 2 ** 20, "B"), (8, "KB", 8192, "B"),
    (17, "MB/s", 17_000_000, "B/s"), (4, "Gbit/s", 4_000_000_000, "bit/s"),
    (200, "Mbit/s", 200_000_000, "bit/s"), (15000, "rpm", 250, "1/s"),
    (1.2, "GHz", 1.2e9, "1/s"), (5, "ms", 0.005, "s"), (50, "%", 0.5, "1"), (6, "count", 6, "1"),
])
def test_to_si_conventions(value, unit, expected, si):
    got, got_si = to_si(value, unit)
    assert got == pytest.approx(expected, rel=1e-15) and got_si == si


def test_to_si_cycle_time():
    got, si = to_si(0.58, "ns")
    assert got == pytest.approx(0.58e-9, rel=1e-15) and si == "s"


def test_unknown_unit():
    with pytest.raises(ValueError, match=r"unit must be one of .* got 'furlongs'"):
        to_si(1, "furlongs")


# ------------------------------------------------------------------ lookups
def test_alias_case_insensitive():
    assert component("processors", "2094-s18") == component("processors", "Z9-109")
    assert component("links", "fcp (4 gbps)") == component("links", "FCP-4G")


def test_processor_values_in_si():
    z990 = component("processors", "z990")
    assert z990["l2_cache_size"] == 32 * 2 ** 20
    assert z990["memory_size"] == 80 * 2 ** 30
    assert z990["cpus"] == 16 and z990["books"] == 2
    assert z990["cycle_time"] == pytest.approx(0.83e-9, rel=1e-12)


def test_link_values_in_si():
    escon = component("links", "ESCON")
    assert escon["data_rate"] == 17e6 and escon["link_rate"] == 200e6
    assert escon["directions"] == 1 and escon["concurrent_ios"] == 1
    for gbit in (1, 2, 4):
        ficon = component("links", f"FICON-{gbit}G")
        assert ficon["link_rate"] == gbit * 1e9
        assert ficon["data_rate"] == gbit * 100e6      # FC: 100 MB/s per Gbit/s class
    assert component("links", "FICON-1G")["max_io_rate"] == 7200


def test_names_order():
    assert names("links") == ["ESCON", "FICON-1G", "FICON-2G", "FICON-4G", "FCP-2G", "FCP-4G", "FICON-8G",
                              "FICON-16G", "FCP-8G", "FCP-16G"]
    assert names("processors") == ["z900", "z990", "z9-109", "z10"]


def test_unknown_component():
    with pytest.raises(ValueError, match=r"unknown processor 'z99'; known: z900, z990, z9-109, z10"):
        component("processors", "z99")


def test_unknown_family():
    with pytest.raises(ValueError, match=r"family must be one of .* got 'disks'"):
        names("disks")


def test_table_has_provenance():
    t = table("processors")
    assert list(t.columns) == [*COLUMNS, "value_num", "value_si", "unit_si"]
    assert t["in_documents"].dtype == bool
    row = t[(t["name"] == "z9-109") & (t["parameter"] == "memory_size")].iloc[0]
    assert row["value_si"] == 128 * 2 ** 30 and row["unit_si"] == "B"
    assert row["source"] == "002_3ef25dc9d706703e.txt"


def test_env_var_and_data_dir(tmp_path, monkeypatch):
    write(tmp_path, "crypto", GOOD)
    assert names("crypto", data_dir=tmp_path) == ["X1"]
    monkeypatch.setenv("ZMODEL_DATA", str(tmp_path))
    assert component("crypto", "x 1") == {"cache_size": 2 * 2 ** 30}


def test_missing_file(tmp_path):
    (tmp_path / "hardware").mkdir()
    with pytest.raises(ValueError, match=r"hardware table not found: .*adapters\.csv"):
        names("adapters", data_dir=tmp_path)


# ------------------------------------------------------------------ schema errors
def test_bad_header(tmp_path):
    write(tmp_path, "crypto", GOOD, header=HEADER.replace("aliases", "alias"))
    with pytest.raises(ValueError, match=r"crypto\.csv: line 1 \(header\), column 'aliases': header must be"):
        names("crypto", data_dir=tmp_path)


def test_field_count(tmp_path):
    write(tmp_path, "crypto", GOOD + "X2,,cpus,1,count\n")
    with pytest.raises(ValueError, match=r"crypto\.csv: row 2, column 'source': has 5 fields, expected 10"):
        names("crypto", data_dir=tmp_path)


@pytest.mark.parametrize("row,column,message", [
    (',,cpus,1,count,spec,s,,false,\n', "name", "name must not be empty"),
    ('X2,,CPUs,1,count,spec,s,,false,\n', "parameter", "parameter must be snake_case"),
    ('X2,,cpus,many,count,spec,s,,false,\n', "value", "value must be a finite number, got 'many'"),
    ('X2,,cpus,1,furlong,spec,s,,false,\n', "unit", "unit must be one of"),
    ('X2,,cpus,1,count,,s,,false,\n', "source", "source must name a seed file"),
    ('X2,,cpus,1,count,spec,s,,yes,\n', "in_documents", "in_documents must be 'true' or 'false'"),
    ('X2,,cpus,1,count,spec,s,1 CPU,true,\n', "source", "a value from the documents must name its seed file"),
    ('X2,,cpus,1,count,002_3ef25dc9d706703e.txt,s,,true,\n', "verbatim", "verbatim must quote"),
    ('X2,,cpus,1,count,spec,s,1 CPU,false,\n', "verbatim", "verbatim must be '' for a value outside"),
    ('X1,,cache_size,3,GB,spec,s,,false,\n', "parameter", "duplicate parameter 'cache_size' of 'X1'"),
])
def test_bad_rows(tmp_path, row, column, message):
    write(tmp_path, "crypto", GOOD + row)
    with pytest.raises(ValueError, match=rf"crypto\.csv: row 2, column '{column}': {re.escape(message)}"):
        names("crypto", data_dir=tmp_path)


def test_alias_clash(tmp_path):
    write(tmp_path, "crypto", GOOD + 'X2,X 1,cpus,1,count,spec,s,,false,\n')
    with pytest.raises(ValueError, match=r"name or alias 'X 1' is used by both 'X1' and 'X2'"):
        names("crypto", data_dir=tmp_path)


# ------------------------------------------------------------------ provenance
def _rows(family):
    path = catalog.data_folder() / "hardware" / f"{family}.csv"
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


@pytest.mark.parametrize("family", ["processors", "links"])
def test_verbatim_occurs_in_seed(seeds, family):
    """Every in-document row quotes its seed (whitespace-normalised)."""
    norm = lambda s: " ".join(s.split())  # noqa: E731
    for row in _rows(family):
        if row["in_documents"] == "true":
            text = norm((seeds / row["source"]).read_text(encoding="utf-8"))
            assert norm(row["verbatim"]) in text, (row["name"], row["parameter"], row["verbatim"])


@pytest.mark.parametrize("family", ["processors", "links"])
def test_every_row_is_sourced(family):
    for row in _rows(family):
        assert row["source"].strip() and row["location"].strip()
        if row["in_documents"] == "false":
            assert row["verbatim"] == ""


@pytest.mark.parametrize("name,parameter,catalog_id", [
    ("z900", "cycle_time", "fs03.z900-cycle-time"),
    ("z900", "clock_frequency", "fs03.z900-clock-frequency"),
    ("z900", "memory_size", "fs03.z900-memory"),
    ("z990", "cycle_time", "wavv08.z990-cycle-time"),
    ("z990", "cpus", "wavv08.z990-cpus"),
    ("z990", "l2_cache_size", "wavv08.z990-l2-per-book"),
    ("z9-109", "clock_frequency", "wavv08.z9-clock"),
    ("z9-109", "memory_size", "wavv08.z9-memory"),
    ("z9-109", "books", "wavv08.z9-books"),
])
def test_processors_agree_with_measurement_catalog(name, parameter, catalog_id):
    """The printed value equals the independently extracted catalog row, unit for unit."""
    from zmodel.data import measurements

    m = measurements(ids=[catalog_id]).iloc[0]
    t = table("processors")
    row = t[(t["name"] == name) & (t["parameter"] == parameter)].iloc[0]
    assert row["value_num"] == m["value_num"]
    assert row["unit"].replace("RPM", "rpm") == m["unit"].replace("cpus", "count")


@pytest.mark.parametrize("name,catalog_id", [
    ("FICON-1G", "fs03.ficon-link-speed"), ("FICON-2G", "wavv08.ess-ficon-link"),
    ("FCP-2G", "wavv08.ess-fcp-link"), ("FICON-4G", "wavv08.ds8300-ficon-link"),
    ("FCP-4G", "wavv08.ds8300-fcp-link"),
])
def test_links_agree_with_measurement_catalog(name, catalog_id):
    from zmodel.data import measurements

    m = measurements(ids=[catalog_id]).iloc[0]
    assert m["unit"] == "Gbit/s"
    assert component("links", name)["link_rate"] == m["value_num"] * 1e9
