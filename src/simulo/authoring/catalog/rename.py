"""Catalog models whose SDK version names links and joints without the file's prefix.

The SDK's ``simulo/robot/franka-panda:v2`` is the Panda converted to USD: its joints are ``joint1`` to
``joint7`` and ``finger_joint1``/``finger_joint2``, its hand link ``hand``. The local catalog loads the same
model from pybullet_data's ``panda.urdf``, whose names carry a ``panda_`` prefix; :func:`drop_name_prefix`
gives the document the SDK's names and changes nothing else in it.
"""

from __future__ import annotations

from simulo.authoring.urdf_xml import edit_attributes, parse

#: The attributes that name a link or a joint, by element.
_NAMING = {"link": "name", "joint": "name", "parent": "link", "child": "link", "mimic": "joint"}


def drop_name_prefix(text: str, prefix: str) -> str:
    """``text`` with ``prefix`` removed from every link and joint name that starts with it (and where they are named).

    Args:
        text: A checked URDF document.
        prefix: The prefix to drop, e.g. ``"panda_"``.

    Returns:
        The document, byte for byte as written apart from those names.
    """
    root, _ = parse(text)
    edits: dict[tuple[int, str], str] = {}
    for node in root.iter() if root is not None else []:
        attr = _NAMING.get(node.tag)
        value = node.attrib.get(attr, "") if attr is not None else ""
        if attr is not None and value.startswith(prefix) and len(value) > len(prefix):
            edits[(node.offset, attr)] = value[len(prefix):]
    return edit_attributes(text, edits)
