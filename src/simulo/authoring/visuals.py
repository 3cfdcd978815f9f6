"""Visual shapes for drawing: copy each link's collision geometry into a visual where it has none.

Models for headless physics carry collision shapes only (visuals cost loading time and PyBullet's DIRECT
mode draws nothing). A recording needs something to draw, so the recorder loads this variant instead;
visual shapes do not change the dynamics.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from defusedxml import ElementTree as SafeET

#: Colours cycled over links without a visual (RGBA).
PALETTE = ("0.85 0.45 0.15 1", "0.55 0.60 0.70 1", "0.25 0.35 0.55 1", "0.80 0.80 0.80 1")


def with_collision_visuals(urdf_text: str) -> str:
    """Return the URDF with a ``<visual>`` copy of each ``<collision>`` on links that have no visual."""
    root = SafeET.fromstring(urdf_text)
    for k, link in enumerate(root.findall("link")):
        if link.find("visual") is not None:
            continue
        for collision in link.findall("collision"):
            visual = ET.SubElement(link, "visual")
            for child in collision:
                if child.tag in ("origin", "geometry"):
                    visual.append(child)
            material = ET.SubElement(visual, "material", {"name": f"simulo_visual_{k}"})
            ET.SubElement(material, "color", {"rgba": PALETTE[k % len(PALETTE)]})
    return ET.tostring(root, encoding="unicode")
