"""Attribute values rewritten into a URDF are quoted exactly as xml.sax.saxutils.quoteattr quotes them."""

from __future__ import annotations

from xml.sax.saxutils import quoteattr

import pytest

from simulo.authoring.urdf_xml import _quote_attribute


@pytest.mark.parametrize("value", ["mesh.stl", 'a"b', "a'b", "a\"b'c", "<&>\n\t\r", "", "/tmp/x y/&z.obj"])
def test_quoting_matches_the_standard_library(value: str) -> None:
    assert _quote_attribute(value) == quoteattr(value)
