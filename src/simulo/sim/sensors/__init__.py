"""Sensors added to robots with ``robot.add_sensor``. ``simulo.ContactSensor`` resolves here."""

from simulo.sim.sensors.contact import ContactSensor

__all__ = ["ContactSensor"]
