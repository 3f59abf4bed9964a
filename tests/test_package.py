"""zmodel as a planner installs it: a wheel in a fresh virtual environment, used from a folder
outside the repository.

The module fixture builds the sdist from a copy of the checkout (``setuptools.build_meta``,
the backend pip would call), the wheel from that sdist (``pip wheel --no-deps
--no-build-isolation --no-index``, as ``python -m build`` does) and installs the wheel with
``--no-deps --no-index`` into a new virtual environment made ``--without-pip``. Nothing is
downloaded: the environment borrows the locked dependencies of the running interpreter through
a ``.pth`` file written after the install. A ``.pth`` line only puts that folder on
``sys.path``; the ``.pth`` files inside it (among them the editable install of the checkout)
are not run, so the checkout is not importable there, and every run asserts that
``zmodel.__file__`` lies inside the new environment.

Expected values come from outside the installed code: the file lists of the source tree, the
version in pyproject.toml, the rows of the catalog CSVs counted with the csv module, a link's
printed values converted by hand, and for the calibration and ``zmodel plan`` the same
computation run by the checkout (the numbers themselves are tested in test_fit_usl.py and
test_cli.py; here the installed package must give the same ones). Building, installing and
the first runs in the new environment (Numba compiles its kernels there afresh) take about a
minute: those tests are marked slow.
"""
from __future__ import annotations

import csv
import json
import math
import os
import shutil
import site
import subprocess
import sys
import tarfile
import textwrap
import tomllib
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGE_DATA = REPO / "zmodel" / "_data"
SCENARIO = REPO / "examples" / "oltp_z990_ds8300.toml"
VERSION = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
# Generated or local folders of a checkout (.gitignore); never part of a build.
IGNORE = shutil.ignore_patterns(".git", ".venv", "__pycache__", "*.py[cod]", "*.egg-info", "build",
                                "dist", "report", ".pytest_cache", ".hypothesis", "_build",
                                ".ipynb_checkpoints", ".report-build-*")
# What an sdist may hold besides the package: metadata written by setuptools, and the files
# pyproject.toml's readme and MANIFEST.in name.
SDIST_EXTRAS = {"PKG-INFO", "setup.cfg", "pyproject.toml", "README.md", "MANIFEST.in"}
BIN = "Scripts" if os.name == "nt" else "bin"


def clean_env() -> dict[str, str]:
    """The caller's environment without what would put the checkout or other data in reach."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "ZMODEL_DATA")}
    env["PYTHONNOUSERSITE"] = "1"
    return env


def run(args, cwd) -> subprocess.CompletedProcess:
    out = subprocess.run([str(a) for a in args], cwd=cwd, env=clean_env(), capture_output=True, text=True)
    assert out.returncode == 0, f"{' '.join(map(str, args))} failed ({out.returncode}):\n{out.stderr[-3000:]}"
    return out


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """(source copy, sdist, wheel): the sdist built from a copy of the checkout, the wheel from the sdist."""
    root = tmp_path_factory.mktemp("build")
    src = root / "src"
    shutil.copytree(REPO, src, ignore=IGNORE)
    run([sys.executable, "-c", "import sys; from setuptools import build_meta as b; "
         "print(b.build_sdist(sys.argv[1]))", root / "sdist"], cwd=src)
    (sdist,) = (root / "sdist").glob("*.tar.gz")
    with tarfile.open(sdist) as tar:  # extraction filters exist from Python 3.11.4
        tar.extractall(root / "unpacked", **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
    (unpacked,) = (root / "unpacked").iterdir()
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
         "--no-cache-dir", "--disable-pip-version-check", "-w", root / "wheels", unpacked], cwd=root)
    (wheel,) = (root / "wheels").glob("*.whl")
    return src, sdist, wheel


@pytest.fixture(scope="module")
def venv(built, tmp_path_factory):
    """A fresh virtual environment with the wheel installed and the running interpreter's
    site-packages (the locked dependencies) visible through a .pth file."""
    env_dir = tmp_path_factory.mktemp("venv") / "env"
    run([sys.executable, "-m", "venv", "--without-pip", env_dir], cwd=env_dir.parent)
    python = env_dir / BIN / ("python.exe" if os.name == "nt" else "python")
    # pip of the running interpreter installs into the new one (pip --python, pip >= 22.3),
    # before the .pth exists: pip sees an environment without zmodel.
    run([sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "--no-index",
         "--no-cache-dir", "--disable-pip-version-check", "--no-warn-script-location", built[2]],
        cwd=env_dir.parent)
    purelib = run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                  cwd=env_dir.parent).stdout.strip()
    borrowed = list(dict.fromkeys(site.getsitepackages()))
    (Path(purelib) / "_zmodel_test_dependencies.pth").write_text("\n".join(borrowed) + "\n", encoding="utf-8")
    return env_dir, python


@pytest.fixture()
def elsewhere(tmp_path):
    """A working folder outside the repository, holding a copy of an example scenario."""
    assert not tmp_path.resolve().is_relative_to(REPO)
    shutil.copy(SCENARIO, tmp_path / SCENARIO.name)
    return tmp_path


def package_files(src: Path) -> set[str]:
    """Every file of the package in the source tree, as archive paths (zmodel/...)."""
    return {p.relative_to(src).as_posix() for p in (src / "zmodel").rglob("*") if p.is_file()}


# ------------------------------------------------------------------ what ships
def test_wheel_holds_the_package_and_its_data_and_nothing_else(built):
    src, _, wheel = built
    assert wheel.name == f"zmodel-{VERSION}-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        entry_points = archive.read(f"zmodel-{VERSION}.dist-info/entry_points.txt").decode()
    info = {n for n in names if n.startswith(f"zmodel-{VERSION}.dist-info/")}
    data = {p.relative_to(REPO).as_posix() for p in PACKAGE_DATA.rglob("*") if p.is_file()}
    assert data, "no data files found under zmodel/_data"
    assert sorted(data - names) == [], "data files missing from the wheel (pyproject package-data)"
    assert "zmodel/py.typed" in names and "zmodel/__main__.py" in names
    assert names - info == package_files(src)
    assert "zmodel = zmodel.cli:main" in entry_points


def test_sdist_holds_the_package_its_data_and_the_build_files_only(built):
    src, sdist, _ = built
    prefix = f"zmodel-{VERSION}/"
    with tarfile.open(sdist) as tar:
        names = {m.name.removeprefix(prefix) for m in tar.getmembers() if m.isfile()}
    inside = {n for n in names if n.startswith("zmodel/")}
    assert inside == package_files(src)
    others = {n for n in names - inside if not n.startswith("zmodel.egg-info/")}
    assert others <= SDIST_EXTRAS, f"unexpected files in the sdist: {sorted(others - SDIST_EXTRAS)}"


# ------------------------------------------------------------------ what it does, installed
INSTALLED_SCRIPT = textwrap.dedent("""
    import json, sys
    from pathlib import Path
    import zmodel
    import zmodel.data
    from zmodel.hardware.channels import ChannelLink
    from zmodel.fits.registry import load, select

    link = ChannelLink.from_catalog("FICON-1G")
    fit = load(select(["usl"])[0])()
    print(json.dumps({
        "file": zmodel.__file__,
        "version": zmodel.__version__,
        "data_folder": str(zmodel.data.data_folder()),
        "py_typed": (Path(zmodel.__file__).parent / "py.typed").is_file(),
        "measurements": len(zmodel.data.measurements()),
        "link": [link.data_rate, link.command_time, link.link_rate],
        "fit": {name: p.value for name, p in fit.params.items()},
    }))
""")


def catalog_rows() -> int:
    total = 0
    for path in sorted((PACKAGE_DATA / "catalog").glob("*.csv")):
        with open(path, newline="", encoding="utf-8") as fh:
            total += sum(1 for _ in csv.DictReader(fh))
    return total


def link_row(name: str) -> dict[str, tuple[float, str]]:
    with open(PACKAGE_DATA / "hardware" / "links.csv", newline="", encoding="utf-8") as fh:
        return {r["parameter"]: (float(r["value"]), r["unit"]) for r in csv.DictReader(fh) if r["name"] == name}


def test_installed_wheel_loads_data_builds_components_and_calibrates(venv, elsewhere):
    env_dir, python = venv
    got = json.loads(run([python, "-c", INSTALLED_SCRIPT], cwd=elsewhere).stdout)
    assert Path(got["file"]).resolve().is_relative_to(env_dir.resolve()), got["file"]
    assert Path(got["data_folder"]).resolve().is_relative_to(env_dir.resolve()), got["data_folder"]
    assert got["version"] == VERSION and got["py_typed"]
    assert got["measurements"] == catalog_rows()
    row = link_row("FICON-1G")
    assert row["data_rate"][1] == "MB/s" and row["max_io_rate"][1] == "IO/s" and row["link_rate"][1] == "Gbit/s"
    # by hand: MB/s is 1e6 B/s, the command time is one over the maximum I/O rate, Gbit/s is 1e9 bit/s
    expected = [row["data_rate"][0] * 1e6, 1.0 / row["max_io_rate"][0], row["link_rate"][0] * 1e9]
    assert got["link"] == pytest.approx(expected, rel=1e-15)
    from zmodel.fits.registry import load, select

    here = load(select(["usl"])[0])()
    assert set(got["fit"]) == set(here.params)
    for name, value in got["fit"].items():
        assert math.isclose(value, here.params[name].value, rel_tol=1e-9, abs_tol=1e-12), name


def test_installed_command_plans_an_example(venv, elsewhere, capsys):
    env_dir, python = venv
    version = run([python, "-m", "zmodel", "--version"], cwd=elsewhere).stdout.strip()
    assert version == f"zmodel {VERSION}"
    point = ["--samples", "0"]   # point values: the draws' cost is not what this checks
    as_module = run([python, "-m", "zmodel", "plan", SCENARIO.name, "--format", "csv", *point], cwd=elsewhere).stdout
    script = env_dir / BIN / ("zmodel.exe" if os.name == "nt" else "zmodel")
    as_command = run([script, "plan", SCENARIO.name, "--format", "csv", *point], cwd=elsewhere).stdout
    assert as_module == as_command
    from zmodel import cli

    assert cli.main(["plan", str(elsewhere / SCENARIO.name), "--format", "csv", *point]) == 0
    assert as_module == capsys.readouterr().out


# ------------------------------------------------------------------ data of a zipped package
def test_packaged_data_read_from_a_zip_archive(tmp_path):
    """importlib.resources gives no file-system path inside a zip: the data is extracted once
    per process, read from there, and removed at exit."""
    archive = tmp_path / "zmodel.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for path in sorted((REPO / "zmodel").rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                z.write(path, path.relative_to(REPO).as_posix())
    code = textwrap.dedent("""
        import json, sys
        sys.path.insert(0, sys.argv[1])
        import zmodel
        from zmodel.hardware.catalog import component, data_folder
        folder = data_folder()
        print(json.dumps({"file": zmodel.__file__, "folder": str(folder), "same": data_folder() == folder,
                          "files": sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()),
                          "data_rate": component("links", "FICON-1G")["data_rate"]}))
    """)
    got = json.loads(run([sys.executable, "-c", code, archive], cwd=tmp_path).stdout)
    assert got["file"].startswith(str(archive)), got["file"]
    assert got["same"]
    assert got["files"] == sorted(p.relative_to(PACKAGE_DATA).as_posix() for p in PACKAGE_DATA.rglob("*") if p.is_file())
    value, unit = link_row("FICON-1G")["data_rate"]
    assert unit == "MB/s" and got["data_rate"] == value * 1e6
    assert not Path(got["folder"]).exists(), "the extracted copy is removed when the process exits"


# ------------------------------------------------------------------ version and python -m, in the checkout
def test_version_is_the_distributions_and_has_a_fallback(monkeypatch):
    import importlib.metadata

    import zmodel

    assert zmodel._version() == importlib.metadata.version("zmodel")

    def not_installed(name):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", not_installed)
    assert zmodel._version() == "0+unknown"


def test_python_m_zmodel_is_the_command(tmp_path):
    env = {**os.environ, "CI": "1"}
    as_module = subprocess.run([sys.executable, "-m", "zmodel", "calibrate", "--list"], cwd=tmp_path, env=env,
                               capture_output=True, text=True)
    as_cli = subprocess.run([sys.executable, "-m", "zmodel.cli", "calibrate", "--list"], cwd=tmp_path, env=env,
                            capture_output=True, text=True)
    assert as_module.returncode == 0 and as_module.stdout.startswith("usl ")
    assert (as_module.stdout, as_module.stderr) == (as_cli.stdout, as_cli.stderr)
    bad = subprocess.run([sys.executable, "-m", "zmodel", "plan"], cwd=tmp_path, env=env,
                         capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stderr.startswith("zmodel: error: ")
