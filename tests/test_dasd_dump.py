"""Reading a planner's /proc/dasd/statistics dump (zmodel.data.read_dasd_statistics) and the CLI on it.

Expected values come from outside the reader: the documents' histograms as shipped in
zmodel/_data/dasd_statistics.csv (with their totals in the .toml), printed here by a writer
written from the driver's print routine (Linux 2.4.21 ``dasd_statistics_open``; 2.6
``dasd_statistics_read`` / ``dasd_stats_proc_show`` in ``drivers/s390/block/dasd_proc.c``:
``"%7d "`` per count, a newline after the 16th; later kernels add ``"Scale Factor is  %d"``
and print ``count / factor``, earlier ones ``count >> shift`` for the smallest shift with
``requests >> shift <= 9999999``); the scale of a large dump is worked out by hand below.
"""
from __future__ import annotations

import pytest

from zmodel.cli import main
from zmodel.data import (DASD_DUMP_HISTOGRAMS, dasd_statistics, data_folder, read_dasd_measurements,
                         read_dasd_statistics)

HEADER = ("   __<4\t   ___8\t   __16\t   __32\t   __64\t   _128\t   _256\t   _512\t   __1k\t   __2k\t   __4k\t"
          "   __8k\t   _16k\t   _32k\t   _64k\t   128k",
          "   _256\t   _512\t   __1M\t   __2M\t   __4M\t   __8M\t   _16M\t   _32M\t   _64M\t   128M\t   256M\t"
          "   512M\t   __1G\t   __2G\t   __4G    _>4G")
TITLES = ("Histogram of sizes (512B secs)", "Histogram of I/O times (microseconds)",
          "Histogram of I/O times per sector", "Histogram of I/O time till ssch",
          "Histogram of I/O time between ssch and irq", "Histogram of I/O time between ssch and irq per sector",
          "Histogram of I/O time between irq and end", "# of req in chanq at enqueuing (1..32) ")
SLUGS = [slug for _, slug, _ in DASD_DUMP_HISTOGRAMS]


def dump_text(requests, sectors, counts, scale_line=None, divide=lambda c: c):
    """A dump as the driver prints it (counts: slug -> 32 driver counts)."""
    lines = [f"{requests} dasd I/O requests", f"with {sectors} sectors(512B each)"]
    if scale_line is not None:
        lines.append(f"Scale Factor is  {scale_line}")
    lines += list(HEADER)
    for title, slug in zip(TITLES, SLUGS):
        lines.append(title)
        lines.append("".join("%7d " % divide(c) for c in counts[slug][:16]))
        lines.append("".join("%7d " % divide(c) for c in counts[slug][16:]))
    return "\n".join(lines) + "\n"


def documents_counts():
    h = dasd_statistics()
    return {slug: [int(c) for c in h[h["histogram"] == slug].sort_values("bucket")["count"]] for slug in SLUGS}


def test_the_documents_histograms_read_back(tmp_path):
    shipped = dasd_statistics()
    meta = shipped.attrs["metadata"]
    path = tmp_path / "statistics.txt"
    path.write_text(dump_text(meta["total_requests"], meta["total_sectors"], documents_counts()))
    got = read_dasd_statistics(path)
    assert got.attrs["requests"] == 56881 and got.attrs["sectors"] == 5270816
    assert got.attrs["scale"] == 1 and got.attrs["layout"] == "2.4"
    key = ["histogram", "bucket"]
    a = shipped.sort_values(key).reset_index(drop=True)
    b = got.sort_values(key).reset_index(drop=True)
    for column in ("histogram", "bucket", "lower", "upper", "unit", "count"):
        assert a[column].tolist() == b[column].tolist(), column
    # the same dump given to the detector, and the shipped CSV given to it, read the same
    assert read_dasd_measurements(path)["count"].tolist() == got["count"].tolist()
    csv_copy = tmp_path / "mine.csv"
    csv_copy.write_text((data_folder() / "dasd_statistics.csv").read_text(encoding="utf-8"), encoding="utf-8")
    assert read_dasd_measurements(csv_copy)["count"].tolist() == shipped["count"].tolist()


def _big_counts(total):
    """Every request in one bucket of each histogram: bucket 10 (times), 2 (sizes), 0 (queue)."""
    out = {}
    for _, slug, unit in DASD_DUMP_HISTOGRAMS:
        c = [0] * 32
        c[{"sectors": 2, "us": 10, "us/sector": 6, "requests": 0}[unit]] = total
        out[slug] = c
    return out


def test_scale_factor_layout(tmp_path):
    # 25,000,000 requests: the loop 'for (factor = 1; reqs / factor > 9999999; factor *= 10)'
    # stops at 10 (2,500,000 <= 9,999,999), printed on the Scale Factor line
    path = tmp_path / "new.txt"
    path.write_text(dump_text(25_000_000, 200_000_000, _big_counts(25_000_000), scale_line=10,
                              divide=lambda c: c // 10))
    got = read_dasd_statistics(path)
    assert got.attrs["scale"] == 10 and got.attrs["layout"] == "scale factor"
    assert got.loc[got["histogram"] == "total_time", "count"].sum() == 2_500_000


def test_shift_layout_without_a_scale_line(tmp_path):
    # 25,000,000 >> 1 = 12,500,000 > 9,999,999; >> 2 = 6,250,000: shift 2, scale 4
    path = tmp_path / "old.txt"
    path.write_text(dump_text(25_000_000, 200_000_000, _big_counts(25_000_000), divide=lambda c: c >> 2))
    got = read_dasd_statistics(path)
    assert got.attrs["scale"] == 4 and got.attrs["layout"] == "2.4"


def _good(tmp_path):
    return dump_text(56881, 5270816, documents_counts())


def _edit(text, line_number, new):
    lines = text.split("\n")
    lines[line_number - 1] = new
    return "\n".join(lines)


@pytest.mark.parametrize("change,words", [
    # the first line of 'between ssch and irq' (line 18) with 17 numbers, as a transcription can have it
    (lambda t: _edit(t, 18, "0 " * 17), "line 18: expected 16 counts (buckets 0-15 of "
                                         "'Histogram of I/O time between ssch and irq'), got 17"),
    (lambda t: _edit(t, 19, "0 " * 15 + "x"), "line 19, column 16: expected a non-negative integer count, got 'x'"),
    (lambda t: _edit(t, 19, "0 " * 15 + "-1"), "line 19, column 16: expected a non-negative integer count"),
    (lambda t: _edit(t, 17, "Histogram of something else"), "line 17: expected the title "
                                                             "'Histogram of I/O time between ssch and irq'"),
    (lambda t: _edit(t, 1, "56881 dasd requests"), "line 1: expected '<N> dasd I/O requests'"),
    (lambda t: _edit(t, 3, "__<4 ___8"), "line 3: expected the bucket header line of 16 labels"),
    (lambda t: _edit(t, 1, "56880 dasd I/O requests"), "line 5: the counts of 'Histogram of sizes (512B secs)' "
                                                       "add up to 56881, but the dump reports 56880 requests"),
    (lambda t: "\n".join(t.split("\n")[:19]) + "\n", "line 20: expected the title "
                                                     "'Histogram of I/O time between ssch and irq per sector', "
                                                     "got '<end of file>'"),
    (lambda t: "\n".join(t.split("\n")[:20]) + "\n", "line 21: expected 16 counts (buckets 0-15 of 'Histogram "
                                                     "of I/O time between ssch and irq per sector'), got the end"),
    (lambda t: t + "trailing words\n", "line 29: expected the end of the dump after the eight histograms"),
    (lambda t: "Statistics are off - they might be switched on using 'echo set on > /proc/dasd/statistics'\n",
     "line 1: the dump says the statistics are off"),
    (lambda t: "", "line 1: file is empty"),
    (lambda t: "0 dasd I/O requests\n", "line 1, column 1: the dump counts no I/O request"),
])
def test_malformed_dumps_name_file_line_and_column(tmp_path, change, words):
    path = tmp_path / "dump.txt"
    path.write_text(change(_good(tmp_path)), encoding="utf-8")
    with pytest.raises(ValueError) as info:
        read_dasd_statistics(path)
    assert str(info.value).startswith("dump.txt: ") and words in str(info.value), str(info.value)


def test_the_detector_refuses_other_files(tmp_path):
    catalog = tmp_path / "catalog.csv"
    catalog.write_text("id,kind,value,unit\nstorage.x,absolute,1,s\n")
    with pytest.raises(ValueError, match=r"catalog.csv: line 1 \(header\): a catalog-schema CSV"):
        read_dasd_measurements(catalog)
    junk = tmp_path / "junk.txt"
    junk.write_text("hello\n")
    with pytest.raises(ValueError, match=r"junk.txt: line 1: expected '<N> dasd I/O requests'"):
        read_dasd_measurements(junk)
    partial = tmp_path / "partial.csv"
    partial.write_text("histogram,bucket,lower,upper,unit,count\nsectors,0,0,4,sectors,x\n")
    with pytest.raises(ValueError, match=r"partial.csv: row 1, column 'count'"):
        read_dasd_measurements(partial)
    with pytest.raises(ValueError, match="must be a regular file"):
        read_dasd_measurements(tmp_path)


def test_a_csv_without_a_needed_histogram_is_refused(tmp_path):
    from zmodel.fits.dasd import sample_from_frame

    h = dasd_statistics()
    h = h[h["histogram"] != "time_till_ssch"]
    h.attrs["source_file"] = "mine.csv"
    with pytest.raises(ValueError, match=r"mine.csv: histogram 'time_till_ssch', column 'histogram': missing"):
        sample_from_frame(h)


@pytest.mark.parametrize("content,words", [
    ("56881 dasd I/O requests\nwith 1 sectors(512B each)\n__<4\n", "dump.txt: line 3: expected the bucket header"),
    ("id,kind,value,unit\nstorage.x,absolute,1,s\n", "dump.txt: line 1 (header): a catalog-schema CSV"),
    ("histogram,bucket,lower,upper,unit,count\nsectors,0,0,4,sectors,1\n",
     "dump.txt: histogram 'sectors', column 'bucket': must have buckets 0..31"),
])
def test_cli_bad_dumps_are_one_line_and_write_nothing(tmp_path, capsys, content, words):
    bad = tmp_path / "dump.txt"
    bad.write_text(content, encoding="utf-8")
    out = tmp_path / "params.toml"
    out.write_text("untouched", encoding="utf-8")
    assert main(["calibrate", "dasd", "--measurements", str(bad), "--save", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("zmodel: error: ") and words in err, err
    assert out.read_text(encoding="utf-8") == "untouched"
