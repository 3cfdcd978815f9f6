"""Safe XML parsing for URDF: a small element tree that remembers where each start tag is.

:func:`parse` reads with expat (``pyexpat``) directly, with ``defusedxml``'s protections set on the parser:
a DTD, an entity declaration or an external reference is refused, never expanded (no ElementTree layer: the
handlers build the :class:`Node` tree themselves). Each :class:`Node` keeps its line (for messages) and the
byte offset of its start tag in the UTF-8 text (so :func:`edit_attributes` can rewrite one attribute and leave
the rest of the document as written).

Pure Python; imports neither ``pybullet`` nor ``numpy``, and ``pyexpat`` only on the first :func:`parse`.
"""

from __future__ import annotations

import math
import re
from typing import Any

from simulo.authoring.limits import MAX_XML_DEPTH

#: A start tag and its attributes (quoted values may hold ``>``); group 1 is the attribute list. Compiled on first
#: use (``re`` keeps the compiled patterns), not at import: only :func:`edit_attributes` needs them.
_START_TAG = rb"<[A-Za-z_][\w:.-]*((?:\s+[\w:.-]+\s*=\s*(?:\"[^\"]*\"|'[^']*'))*)\s*/?>"
_ATTRIBUTE = rb"([\w:.-]+)(\s*=\s*)(\"[^\"]*\"|'[^']*')"


def _quote_attribute(value: str) -> str:
    """``value`` as a quoted XML attribute value, as ``xml.sax.saxutils.quoteattr`` writes it.

    Written here because importing ``xml.sax.saxutils`` pulls in ``urllib`` and ``http`` (about 25 ms).
    """
    value = value.replace("&", "&amp;").replace(">", "&gt;").replace("<", "&lt;")
    value = value.replace("\n", "&#10;").replace("\r", "&#13;").replace("\t", "&#9;")
    if '"' not in value:
        return f'"{value}"'
    if "'" not in value:
        return f"'{value}'"
    return '"{}"'.format(value.replace('"', "&quot;"))


class Node:
    """An XML element with the line and byte offset of its start tag.

    A plain class (made for every element of every parse): no dataclass to build at import.

    Attributes:
        tag: The element name (without a namespace).
        attrib: Its attributes as written.
        line: The line of its start tag (from 1).
        offset: The byte offset of its start tag in the UTF-8 document.
        children: Its child elements in document order.
    """

    __slots__ = ("attrib", "children", "line", "offset", "tag")

    def __init__(self, tag: str, attrib: dict[str, str], line: int, offset: int,
                 children: list[Node] | None = None) -> None:
        self.tag = tag
        self.attrib = attrib
        self.line = line
        self.offset = offset
        self.children = [] if children is None else children

    def __repr__(self) -> str:
        return f"Node(tag={self.tag!r}, attrib={self.attrib!r}, line={self.line}, offset={self.offset}, " \
               f"children=[{len(self.children)} nodes])"

    def find(self, tag: str) -> Node | None:
        """The first child element named ``tag``, or None."""
        return next((c for c in self.children if c.tag == tag), None)

    def findall(self, tag: str) -> list[Node]:
        """The child elements named ``tag``, in document order."""
        return [c for c in self.children if c.tag == tag]

    def iter(self) -> list[Node]:
        """This element and every element below it, in document order."""
        out: list[Node] = []
        todo = [self]
        while todo:
            node = todo.pop()
            out.append(node)
            todo.extend(reversed(node.children))
        return out


class _TooDeep(Exception):
    """Raised inside the parser when elements nest deeper than :data:`MAX_XML_DEPTH`."""

    def __init__(self, line: int) -> None:
        super().__init__(line)
        self.line = line


class _Refused(Exception):
    """Raised inside the parser at a document type declaration, an entity declaration or an external reference."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def _refuse_doctype(name: str, sysid: str | None, pubid: str | None, has_internal_subset: bool) -> None:
    raise _Refused("hostile or unsupported XML refused: a document type declaration (<!DOCTYPE ...>) is not "
                   "allowed in a URDF, because it can declare entities (entity expansion, external files); "
                   "nothing was expanded")


def _refuse_entity(name: str, *rest: object) -> None:
    raise _Refused(f"hostile XML refused: entity declaration {name!r} is not allowed; nothing was expanded")


def _refuse_external(context: str | None, base: str | None, sysid: str | None, pubid: str | None) -> int:
    raise _Refused(f"hostile XML refused: external reference {sysid!r} is not allowed; nothing was loaded")


class _LineTreeBuilder:
    """Expat handlers that build :class:`Node` trees, reading positions from the expat parser."""

    def __init__(self, parser: Any) -> None:
        self.expat = parser
        self._stack: list[Node] = []
        self._root: Node | None = None

    def start(self, tag: str, attrib: dict[str, str]) -> None:
        if any("}" in key for key in attrib):  # a namespaced name, as ElementTree writes it: {uri}name
            attrib = {("{" + key if "}" in key else key): value for key, value in attrib.items()}
        node = Node(tag.rpartition("}")[2], attrib, int(self.expat.CurrentLineNumber),
                    int(self.expat.CurrentByteIndex))
        if len(self._stack) >= MAX_XML_DEPTH:
            raise _TooDeep(node.line)
        if self._stack:
            self._stack[-1].children.append(node)
        else:
            self._root = node
        self._stack.append(node)

    def end(self, tag: str) -> None:
        self._stack.pop()

    def close(self) -> Node | None:
        return self._root


def parse(text: str) -> tuple[Node | None, str | None]:
    """Parse a document safely.

    Trailing NUL characters (a C string terminator that some exporters write after ``</robot>``, and that
    PyBullet's parser stops at) are ignored; anywhere else a NUL is not XML.

    Returns:
        The root node and None, or None and a problem (``"line N: ..."``) saying why the text was refused.
    """
    from xml.parsers import expat  # noqa: PLC0415 (pyexpat only: no ElementTree, loaded on the first parse)

    parser = expat.ParserCreate(None, "}")  # namespaced names as uri}name, as ElementTree's parser has them
    builder = _LineTreeBuilder(parser)
    parser.StartElementHandler = builder.start
    parser.EndElementHandler = builder.end
    # defusedxml's protections, set on the parser itself: refused at the declaration, before any expansion
    parser.StartDoctypeDeclHandler = _refuse_doctype
    parser.EntityDeclHandler = _refuse_entity
    parser.UnparsedEntityDeclHandler = _refuse_entity
    parser.ExternalEntityRefHandler = _refuse_external
    try:
        parser.Parse(text.rstrip("\0"), True)
    except _TooDeep as exc:
        return None, (f"line {exc.line}: elements nest more than {MAX_XML_DEPTH} deep; a URDF needs 5 levels "
                      "(robot, link, collision, geometry, mesh)")
    except _Refused as exc:
        return None, f"line {parser.CurrentLineNumber}: {exc.message}"
    except expat.ExpatError as exc:
        # expat counts columns from 0
        return None, f"line {exc.lineno}, column {exc.offset + 1}: not XML: {expat.ErrorString(exc.code)}"
    root = builder.close()
    if root is None:
        return None, "line 1: not XML: no element found"
    return root, None


def number(value: str) -> float | None:
    """A finite number, or None for anything else (text, NaN, infinity)."""
    try:
        out = float(value)
    except ValueError:
        return None
    return out if math.isfinite(out) else None


def numbers(raw: str, count: int) -> tuple[float, ...] | None:
    """``count`` space-separated finite numbers, or None."""
    values = [number(part) for part in raw.split()]
    if len(values) != count or any(v is None for v in values):
        return None
    return tuple(float(v) for v in values if v is not None)


def edit_attributes(text: str, edits: dict[tuple[int, str], str]) -> str:
    """Rewrite attribute values in place, leaving every other byte of the document as written.

    Args:
        text: The document that was parsed.
        edits: New values keyed by (start-tag offset from :attr:`Node.offset`, attribute name).

    Returns:
        The edited document.

    Raises:
        ValueError: An offset is not the start of a tag holding that attribute (a programming error).
    """
    data = text.encode("utf-8")
    start_tag, attribute = re.compile(_START_TAG), re.compile(_ATTRIBUTE)
    spans: list[tuple[int, int, str]] = []
    for (offset, name), value in edits.items():
        tag = start_tag.match(data, offset)
        attr = None if tag is None else next(
            (m for m in attribute.finditer(data, tag.start(1), tag.end(1)) if m.group(1) == name.encode()), None)
        if attr is None:
            raise ValueError(f"no attribute {name!r} in a start tag at byte {offset}")
        spans.append((attr.start(3), attr.end(3), value))
    out: list[bytes] = []
    done = 0
    for start, end, value in sorted(spans):
        out += [data[done:start], _quote_attribute(value).encode("utf-8")]
        done = end
    out.append(data[done:])
    return b"".join(out).decode("utf-8")
