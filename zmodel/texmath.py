r"""TeX math in Markdown to presentation MathML, at build time (no MathJax, nothing fetched).

The report (:mod:`zmodel.report`) turns the ``$...$`` and ``$$...$$`` spans of the
notebooks' Markdown cells into ``<math>`` elements, which browsers render natively. The
converter covers the TeX the notebooks use: letters, numbers and operators; ``_`` and
``^``; groups ``{...}``; ``\frac``, ``\sqrt``, ``\bar``, ``\text``, ``\operatorname``;
Greek letters; ``\sum``, ``\prod``, ``\max``, ``\min``, ``\log``, ``\exp``; ``\dots``,
``\mid``, ``\cdot``, ``\times``, ``\le``, ``\ge``, ``\ne``, ``\approx``, ``\infty``;
``\left``/``\right`` and ``\big`` delimiters; spacing ``\,``, ``\;``, ``\ ``, ``\quad``,
``\qquad``. An unknown command is shown as its name in a ``<merror>`` element (visible,
never silently dropped), and :func:`unknown_commands` lists them for a test.

Code spans and fenced code blocks are left alone, and so is a ``$`` escaped as ``\$``.

Examples
--------
>>> to_mathml(r"D = t_c + B/r")
'<math><mi>D</mi><mo>=</mo><msub><mi>t</mi><mi>c</mi></msub><mo>+</mo><mi>B</mi><mo>/</mo><mi>r</mi></math>'
>>> markdown_math("Demand $D_c = t_c$ per I/O.")
'Demand <math><msub><mi>D</mi><mi>c</mi></msub><mo>=</mo><msub><mi>t</mi><mi>c</mi></msub></math> per I/O.'
"""
from __future__ import annotations

import html
import re

__all__ = ["to_mathml", "markdown_math", "unknown_commands"]

_GREEK = {name: chr(code) for name, code in (
    ("alpha", 0x3B1), ("beta", 0x3B2), ("gamma", 0x3B3), ("delta", 0x3B4), ("epsilon", 0x3F5),
    ("varepsilon", 0x3B5), ("zeta", 0x3B6), ("eta", 0x3B7), ("theta", 0x3B8), ("iota", 0x3B9),
    ("kappa", 0x3BA), ("lambda", 0x3BB), ("mu", 0x3BC), ("nu", 0x3BD), ("xi", 0x3BE), ("pi", 0x3C0),
    ("rho", 0x3C1), ("sigma", 0x3C3), ("tau", 0x3C4), ("upsilon", 0x3C5), ("phi", 0x3D5),
    ("varphi", 0x3C6), ("chi", 0x3C7), ("psi", 0x3C8), ("omega", 0x3C9), ("Gamma", 0x393),
    ("Delta", 0x394), ("Theta", 0x398), ("Lambda", 0x39B), ("Xi", 0x39E), ("Pi", 0x3A0),
    ("Sigma", 0x3A3), ("Phi", 0x3A6), ("Psi", 0x3A8), ("Omega", 0x3A9))}
_OPERATORS = {"dots": "\u2026", "ldots": "\u2026", "cdots": "\u22ef", "mid": "\u2223", "cdot": "\u22c5",
              "times": "\u00d7", "le": "\u2264", "leq": "\u2264", "ge": "\u2265", "geq": "\u2265",
              "ne": "\u2260", "neq": "\u2260", "approx": "\u2248", "pm": "\u00b1", "to": "\u2192",
              "rightarrow": "\u2192", "infty": "\u221e", "sum": "\u2211", "prod": "\u220f",
              "in": "\u2208", "lbrace": "{", "rbrace": "}", "{": "{", "}": "}", "%": "%", "$": "$",
              "langle": "\u27e8", "rangle": "\u27e9", "vert": "|", "|": "\u2016"}
_FUNCTIONS = ("max", "min", "log", "ln", "exp", "sin", "cos", "lim", "sup", "inf", "det", "Pr")
_SPACES = {",": "0.1667em", ";": "0.2778em", ":": "0.2222em", " ": "0.25em", "quad": "1em", "qquad": "2em",
           "!": "0em"}
_DELIMITER_SIZES = ("big", "Big", "bigg", "Bigg", "left", "right", "bigl", "bigr", "Bigl", "Bigr")

_TOKEN = re.compile(r"\\[A-Za-z]+|\\.|[A-Za-z]|\d+(?:\.\d+)?|\s+|.", re.S)


def _escape(text: str) -> str:
    return html.escape(text, quote=False)


class _Parser:
    def __init__(self, tex: str):
        self.tokens = [t for t in _TOKEN.findall(tex)]
        self.i = 0
        self.unknown: list[str] = []

    def peek(self):
        while self.i < len(self.tokens) and self.tokens[self.i].isspace():
            self.i += 1
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def next(self):
        t = self.peek()
        self.i += 1
        return t

    def row(self, stop=None) -> list[str]:
        items = []
        while True:
            t = self.peek()
            if t is None or t == stop:
                return items
            if t in ("_", "^"):
                base = items.pop() if items else "<mrow></mrow>"
                items.append(self.scripts(base))
                continue
            items.append(self.atom())

    def scripts(self, base: str) -> str:
        sub = sup = None
        while self.peek() in ("_", "^"):
            which = self.next()
            arg = self.argument()
            if which == "_":
                sub = arg
            else:
                sup = arg
        if sub is not None and sup is not None:
            return f"<msubsup>{base}{sub}{sup}</msubsup>"
        if sub is not None:
            return f"<msub>{base}{sub}</msub>"
        return f"<msup>{base}{sup}</msup>"

    def argument(self) -> str:
        """One atom or a braced group, as a single MathML element."""
        if self.peek() == "{":
            self.next()
            items = self.row("}")
            self.next()
            return items[0] if len(items) == 1 else f"<mrow>{''.join(items)}</mrow>"
        if self.peek() is None:
            return "<mrow></mrow>"
        return self.atom()

    def raw_group(self) -> str:
        """The text of a braced group, unparsed (for ``\\text``)."""
        if self.peek() != "{":
            return self.next() or ""
        self.next()
        depth, out = 1, []
        while self.i < len(self.tokens):
            t = self.tokens[self.i]
            self.i += 1
            if t == "{":
                depth += 1
            elif t == "}":
                depth -= 1
                if depth == 0:
                    break
            out.append(t[1:] if t.startswith("\\") and len(t) == 2 else t)
        return "".join(out)

    def atom(self) -> str:
        t = self.next()
        if t == "{":
            items = self.row("}")
            self.next()
            return f"<mrow>{''.join(items)}</mrow>"
        if t.startswith("\\"):
            return self.command(t[1:])
        if t[0].isdigit():
            return f"<mn>{t}</mn>"
        if t.isalpha():
            return f"<mi>{_escape(t)}</mi>"
        if t in "()[]|":
            return f'<mo stretchy="false">{_escape(t)}</mo>'
        if t == "'":
            return "<mo>\u2032</mo>"
        if t == "-":
            return "<mo>\u2212</mo>"
        if t == "&":
            return ""
        return f"<mo>{_escape(t)}</mo>"

    def command(self, name: str) -> str:
        if name in _GREEK:
            return f"<mi>{_GREEK[name]}</mi>"
        if name in _SPACES:
            return f'<mspace width="{_SPACES[name]}"></mspace>'
        if name in _OPERATORS:
            return f"<mo>{_escape(_OPERATORS[name])}</mo>"
        if name in _FUNCTIONS:
            return f"<mi>{name}</mi>"  # one element, so that a subscript attaches to it
        if name == "\\":  # a line break in display math: a wide space
            return '<mspace width="1em"></mspace>'
        if name in ("text", "mathrm", "textrm", "operatorname", "mbox"):
            text = self.raw_group()
            tag = "mtext" if name in ("text", "textrm", "mbox") else "mi"
            attr = ' mathvariant="normal"' if tag == "mi" else ""
            return f"<{tag}{attr}>{_escape(text)}</{tag}>"
        if name == "frac":
            num = self.argument()
            den = self.argument()
            return f"<mfrac>{num}{den}</mfrac>"
        if name == "sqrt":
            return f"<msqrt>{self.argument()}</msqrt>"
        if name in ("bar", "overline"):
            return f'<mover accent="true">{self.argument()}<mo>\u00af</mo></mover>'
        if name == "hat":
            return f'<mover accent="true">{self.argument()}<mo>^</mo></mover>'
        if name in _DELIMITER_SIZES:
            d = self.next()
            if d is None or d == ".":
                return ""
            if d.startswith("\\"):
                d = _OPERATORS.get(d[1:], d[1:])
            return f"<mo>{_escape(d)}</mo>"
        self.unknown.append("\\" + name)
        return f"<merror><mtext>\\{_escape(name)}</mtext></merror>"


def _convert(tex: str) -> tuple[str, list[str]]:
    p = _Parser(tex)
    items = []
    while p.peek() is not None:
        items += p.row()
        if p.peek() == "}":  # an unbalanced brace: show it, keep going
            p.next()
            items.append("<mo>}</mo>")
    return "".join(items), p.unknown


def to_mathml(tex: str, display: bool = False) -> str:
    """Presentation MathML of a TeX math string (without the ``$`` delimiters)."""
    body, _ = _convert(tex)
    return f'<math display="block">{body}</math>' if display else f"<math>{body}</math>"


def unknown_commands(tex: str) -> list[str]:
    """The TeX commands of ``tex`` the converter does not know (empty when all are known)."""
    return _convert(tex)[1]


_CODE = re.compile(r"(```.*?```|~~~.*?~~~|`[^`\n]*`)", re.S)
_MATH = re.compile(r"(?<!\\)\$\$(.+?)(?<!\\)\$\$|(?<![\\$])\$(?!\s)((?:[^$\n]|\n(?![ \t]*\n))+?)(?<![\s\\])\$(?!\d)", re.S)


def markdown_math(text: str) -> str:
    """Markdown with every ``$...$`` / ``$$...$$`` span replaced by MathML (code left alone)."""
    parts = _CODE.split(text)
    for k in range(0, len(parts), 2):  # even parts are outside code
        parts[k] = _MATH.sub(lambda m: to_mathml(m.group(1), True) if m.group(1) is not None
                             else to_mathml(m.group(2)), parts[k])
    return "".join(parts)
