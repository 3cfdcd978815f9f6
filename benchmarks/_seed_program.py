"""Rebuild the seed's pick-and-place program from the seed text, at run time.

The seed document (``../shared/seeds/000_e63e4e11bcdcc457.txt`` next to the repository) quotes a complete
Python program, but its text lost every leading space. The benchmark and its test rebuild the program from
that text when the file is present, so the seed's code never has to be committed here.

The re-indenter knows just enough Python layout for that program:

- a logical line ending in ``:`` opens a block (one level deeper);
- ``return`` and ``raise`` end the block they are in;
- ``def`` (and ``class``/decorators) at the start of a statement go back to the top level;
- a top-level ``with``/``for`` has a one-line body;
- a line in ``closing_lines`` (``step(60)``, which follows ``move_tcp``'s loop) closes one block first;
- triple-quoted strings are copied untouched, and continuation lines inside brackets are indented one level
  deeper than their statement.
"""

from __future__ import annotations

import re
from pathlib import Path

from simulo.errors import SimuloValueError

INDENT = "    "


def _scan(line: str, depth: int, triple: str | None) -> tuple[int, str | None, int]:
    """Update bracket depth and open triple-quote state across one line.

    Returns:
        ``(depth, triple, code_end)``: the new bracket depth, the open triple quote (or None) and the index
        where a trailing comment starts (``len(line)`` if none).
    """
    i, n = 0, len(line)
    while i < n:
        if triple is not None:
            end = line.find(triple, i)
            if end < 0:
                return depth, triple, n
            i, triple = end + 3, None
            continue
        ch = line[i]
        if ch == "#":
            return depth, None, i
        if ch in "\"'":
            if line.startswith(ch * 3, i):
                triple, i = ch * 3, i + 3
                continue
            i += 1
            while i < n and line[i] != ch:
                i += 2 if line[i] == "\\" else 1
            i += 1
            continue
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        i += 1
    return depth, triple, n


def reindent(lines: list[str], closing_lines: tuple[str, ...] = ("step(60)",)) -> str:
    """Restore the indentation of a flattened Python program (see the module docstring for the rules).

    Args:
        lines: The program's lines with leading whitespace lost.
        closing_lines: Statement prefixes that close the block before them.

    Returns:
        The re-indented source, ending with a newline.
    """
    out: list[str] = []
    level = 0
    single_body = False  # a top-level with/for opener waits for its one-line body
    depth, triple = 0, None
    statement: list[str] = []  # physical lines of the current logical line (stripped)
    code_end = 0
    for raw in lines:
        if triple is not None:  # inside a triple-quoted string: copy untouched
            out.append(raw)
            depth, triple, code_end = _scan(raw, depth, triple)
            statement.append(raw)
        elif statement:  # continuation line inside brackets
            text = raw.strip()
            out.append(INDENT * (level + (1 if single_body else 0) + 1) + text)
            depth, triple, code_end = _scan(text, depth, triple)
            statement.append(text)
        else:
            text = raw.strip()
            if not text:
                out.append("")
                continue
            if text.startswith("#"):
                out.append(INDENT * (level + (1 if single_body else 0)) + text)
                continue
            if text.startswith(("def ", "class ", "@")):
                level = 0
            elif text.startswith(closing_lines):
                level = max(level - 1, 0)
            out.append(INDENT * (level + (1 if single_body else 0)) + text)
            depth, triple, code_end = _scan(text, depth, triple)
            statement = [text]
        if depth > 0 or triple is not None:
            continue
        # The logical line is complete: apply the block rules.
        first, last = statement[0], statement[-1][:code_end].rstrip()
        statement = []
        if single_body:
            single_body = False
        elif last.endswith(":"):
            if level == 0 and first.startswith(("with ", "for ")):
                single_body = True
            else:
                level += 1
        elif re.match(r"(return|raise)\b", first):
            level = max(level - 1, 0)
    return "\n".join(out) + "\n"


def _read_lines(seed_path: str | Path) -> list[str]:
    path = Path(seed_path)
    if not path.is_file():
        raise SimuloValueError(f"seed file {str(path)!r} does not exist")
    return path.read_text(encoding="utf-8").splitlines()


def build_seed_program(
    seed_path: str | Path, first_line: str = "# pick_place.py", last_line: str = "p.disconnect()"
) -> str:
    """Rebuild the runnable pick-and-place program quoted in the seed text.

    Args:
        seed_path: Path of the seed text file.
        first_line: Prefix of the program's first line.
        last_line: The program's last line.

    Returns:
        The program's Python source, re-indented and checked to compile.

    Raises:
        SimuloValueError: The file is missing, the program's first or last line is not found, or the
            rebuilt source does not compile.
    """
    lines = _read_lines(seed_path)
    starts = [i for i, line in enumerate(lines) if line.strip().startswith(first_line)]
    if not starts:
        raise SimuloValueError(f"{seed_path}: no line starts with {first_line!r}; expected the program's header")
    ends = [i for i in range(starts[0], len(lines)) if lines[i].strip() == last_line]
    if not ends:
        raise SimuloValueError(f"{seed_path}: no line {last_line!r} after the program's header")
    source = reindent(lines[starts[0] : ends[0] + 1])
    try:
        compile(source, str(seed_path), "exec")
    except SyntaxError as exc:
        raise SimuloValueError(f"{seed_path}: the rebuilt program does not compile: {exc}") from None
    return source


def seed_expected_lines(
    seed_path: str | Path, after: str = "pybullet build time", before: str = "Line by line:"
) -> list[str]:
    """The output lines the seed quotes for its own run (between the build-time line and the commentary).

    The seed text collapsed runs of spaces, so compare against these with whitespace normalised
    (``" ".join(line.split())``).

    Args:
        seed_path: Path of the seed text file.
        after: Prefix of the line just before the quoted output (PyBullet's build-time line, on stderr).
        before: The line just after the quoted output.

    Returns:
        The quoted stdout lines, stripped.

    Raises:
        SimuloValueError: The file or either marker is missing.
    """
    lines = [line.strip() for line in _read_lines(seed_path)]
    starts = [i for i, line in enumerate(lines) if line.startswith(after)]
    if not starts:
        raise SimuloValueError(f"{seed_path}: no line starts with {after!r}")
    ends = [i for i in range(starts[0], len(lines)) if lines[i] == before]
    if not ends:
        raise SimuloValueError(f"{seed_path}: no line {before!r} after {after!r}")
    return [line for line in lines[starts[0] + 1 : ends[0]] if line]
