"""TeX math of the notebooks' Markdown to MathML (zmodel/texmath.py), converted at build time.

Expected MathML is written by hand from the MathML 3 presentation-markup rules
(W3C MathML 3.0, chapter 3: mi/mn/mo tokens, msub/msup/msubsup, mfrac, msqrt, mover).
"""
import pytest

from zmodel import texmath


@pytest.mark.parametrize("tex, mathml", [
    ("x", "<mi>x</mi>"),
    ("12.5", "<mn>12.5</mn>"),
    ("D_c", "<msub><mi>D</mi><mi>c</mi></msub>"),
    ("D_{in}", "<msub><mi>D</mi><mrow><mi>i</mi><mi>n</mi></mrow></msub>"),
    ("W_q^{k}", "<msubsup><mi>W</mi><mi>q</mi><mi>k</mi></msubsup>"),
    (r"\frac{a}{1-b}", "<mfrac><mi>a</mi><mrow><mn>1</mn><mo>\u2212</mo><mi>b</mi></mrow></mfrac>"),
    (r"\sqrt d", "<msqrt><mi>d</mi></msqrt>"),
    (r"\bar t", '<mover accent="true"><mi>t</mi><mo>\u00af</mo></mover>'),
    (r"\lambda\,\phi", '<mi>\u03bb</mi><mspace width="0.1667em"></mspace><mi>\u03d5</mi>'),
    (r"\text{size}/r", "<mtext>size</mtext><mo>/</mo><mi>r</mi>"),
    (r"\max_k D_k", "<msub><mi>max</mi><mi>k</mi></msub><msub><mi>D</mi><mi>k</mi></msub>"),
    (r"\left(1 - x\right)", "<mo>(</mo><mn>1</mn><mo>\u2212</mo><mi>x</mi><mo>)</mo>"),
    (r"W \mid k", "<mi>W</mi><mo>\u2223</mo><mi>k</mi>"),
])
def test_constructs(tex, mathml):
    assert texmath.to_mathml(tex) == f"<math>{mathml}</math>"
    assert texmath.unknown_commands(tex) == []


def test_display_math_and_unknown_commands_are_visible():
    assert texmath.to_mathml("x", display=True) == '<math display="block"><mi>x</mi></math>'
    assert texmath.unknown_commands(r"\foo x") == [r"\foo"]
    assert "<merror><mtext>\\foo</mtext></merror>" in texmath.to_mathml(r"\foo x")


def test_markdown_spans_code_and_escapes():
    md = "Cost $a_1$ and\n$$b = \\frac{1}{2}$$\nbut `$HOME` and \\$5 stay; ```\n$x$\n```"
    out = texmath.markdown_math(md)
    assert "<math><msub><mi>a</mi><mn>1</mn></msub></math>" in out
    assert '<math display="block"><mi>b</mi><mo>=</mo><mfrac><mn>1</mn><mn>2</mn></mfrac></math>' in out
    assert "`$HOME`" in out and "\\$5" in out and "```\n$x$\n```" in out
    # a span may wrap a line but not a paragraph
    assert texmath.markdown_math("$a +\n b$") == "<math><mi>a</mi><mo>+</mo><mi>b</mi></math>"
    assert texmath.markdown_math("$a\n\nb$") == "$a\n\nb$"


def test_every_notebook_formula_converts_without_unknown_commands():
    import re

    import nbformat

    from zmodel import report

    for path in report.notebooks():
        nb = nbformat.read(path, as_version=4)
        for cell in nb.cells:
            if cell.cell_type != "markdown":
                continue
            for tex in re.findall(r"\$\$(.+?)\$\$|\$([^$]+)\$", cell.source, flags=re.S):
                assert texmath.unknown_commands(tex[0] or tex[1]) == [], (path.name, tex)
            assert "$" not in re.sub(r"`[^`]*`", "", texmath.markdown_math(cell.source)), path.name
