"""The simulation layer: Scene, Simulation, Robot, Prop, sensors and actuators, over one engine interface."""
