"""urdf_xml.parse: the tree, positions and names as ElementTree gave them, refusals, and no ElementTree import."""

from __future__ import annotations

import subprocess
import sys

from simulo.authoring.urdf_xml import parse

XACRO = "http://www.ros.org/wiki/xacro"


def test_tags_attributes_lines_and_offsets() -> None:
    text = (f'<?xml version="1.0"?>\n<robot name="r" xmlns:xacro="{XACRO}">\n'
            f'  <link name="a" xacro:flag="1"/>\n  <xacro:macro name="m"/>\n</robot>\n')
    root, problem = parse(text)
    assert problem is None and root is not None
    assert (root.tag, root.attrib, root.line, root.offset) == ("robot", {"name": "r"}, 2, 22)
    link, macro = root.children
    assert (link.tag, link.attrib, link.line) == ("link", {"name": "a", f"{{{XACRO}}}flag": "1"}, 3)
    assert text.encode()[link.offset:].startswith(b"<link")
    assert (macro.tag, macro.attrib, macro.line) == ("macro", {"name": "m"}, 4)


def test_refusals_name_the_line() -> None:
    cases = {
        '<?xml version="1.0"?>\n<!DOCTYPE robot>\n<robot/>': "line 2: hostile or unsupported XML refused",
        "<robot>\n<link>": "line 2, column 7: not XML: no element found",
        "<robot>&x;</robot>": "line 1, column 8: not XML: undefined entity",
        "": "line 1, column 1: not XML: no element found",
    }
    for text, start in cases.items():
        root, problem = parse(text)
        assert root is None and problem is not None and problem.startswith(start), (text, problem)


def test_parsing_imports_neither_elementtree_nor_defusedxml() -> None:
    code = ("import sys\nfrom simulo.authoring.urdf_xml import parse\nparse('<robot name=\"r\"/>')\n"
            "print(sorted(m for m in ('xml.etree.ElementTree', 'defusedxml') if m in sys.modules))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert done.stdout == "[]\n"
