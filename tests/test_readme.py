"""The README's quick start runs as written."""
import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_python_blocks_run():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)
    assert blocks, "README.md has no python block"
    for block in blocks:
        exec(compile(block, str(README), "exec"), {})


def test_readme_first_screen_shows_the_two_commands():
    first_screen = "\n".join(README.read_text(encoding="utf-8").splitlines()[:25])
    assert "make report" in first_screen and "make test" in first_screen


def test_readme_counts_the_validation_figures_there_are():
    # the README names the size of the validation set; it had stayed at 66 while the set grew to 72
    import zmodel.data as zd

    said = re.search(r"zmodel/_data/validation/`: (\d+) published figures", README.read_text(encoding="utf-8"))
    assert said is not None
    assert int(said.group(1)) == len(zd.validation_figures())
