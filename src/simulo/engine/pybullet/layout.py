"""Where each environment lives and what was built there: the worlds of one PyBullet engine, every object's bodies
by label, and the collision-filter bits that keep environments sharing a world apart.

Environment ``i`` lives in world ``i // envs_per_world``, in slot ``i % envs_per_world`` of it. In a shared world
each slot gets its own collision-filter bit: an environment's bodies collide with their own slot's bodies and with
the static ground, and its rays, which carry its bit as their mask, pass through the neighbours' bodies.
"""

from __future__ import annotations

from simulo.engine.pybullet.world import Handle, PyBulletWorld

#: Collision group of PyBullet's static objects (planes, height fields; the shared ground plane keeps it): what
#: ``terrain_only`` rays hit.
STATIC_GROUP = 2

#: The collision group of rays (Bullet's default filter): an environment's bodies accept it so that its rays,
#: which carry its own bit as their mask, hit them. No body of a shared world is left in this group.
RAY_GROUP = 1


def env_bit(slot: int) -> int:
    """Collision-filter bit of the environment in slot ``slot`` of its world."""
    return 1 << (2 + slot)


class WorldLayout:
    """The worlds of one engine, which world holds each environment, and the bodies built in them.

    Args:
        num_envs: Number of environments.
        envs_per_world: Largest number of environments sharing one world.
        worlds: The worlds, ``-(-num_envs // envs_per_world)`` of them.
    """

    def __init__(self, num_envs: int, envs_per_world: int, worlds: list[PyBulletWorld]) -> None:
        self.num_envs = num_envs
        self.envs_per_world = envs_per_world
        self.worlds = worlds
        #: the world of each environment
        self.env_world = [worlds[i // envs_per_world] for i in range(num_envs)]
        #: whether environments share worlds (then each one's bodies and rays carry its slot's bit)
        self.shared = envs_per_world > 1 and num_envs > 1
        #: ``(world, body)`` of every object built, in build order (its label is its place, from 1)
        self.objects: list[list[Handle]] = []
        #: each environment's body of every object built once per environment, in build order: the batches' own
        #: handle lists, so a rebuilt body replaces its entry here too
        self.env_objects: list[list[Handle]] = []
        #: labels of the planes and height fields (what terrain-only rays hit)
        self.terrain_labels: set[int] = set()

    def add_terrain(self, bodies: list[Handle]) -> None:
        """Record a plane or height field built in every world (one ``(world, body)`` per world)."""
        self.objects.append(bodies)
        self.terrain_labels.add(len(self.objects))

    def add_env_object(self, handles: list[Handle]) -> None:
        """Record an object built once per environment (``handles``: its ``(world, body)`` in environment order)."""
        self.objects.append(handles)
        self.env_objects.append(handles)

    def isolate(self, env: int, body: int) -> None:
        """Keep an environment's body from touching other environments' bodies in the same world.

        Environment ``k`` of a world gets its own collision-filter bit and collides with its own bodies
        and with the shared static ground. A world holding one environment is left untouched.
        """
        if self.shared:
            bit = env_bit(env % self.envs_per_world)
            self.env_world[env].set_collision_group(body, bit, bit | STATIC_GROUP | RAY_GROUP)

    def neighbours(self, env: int) -> list[Handle]:
        """Bodies of the other environments in ``env``'s world."""
        world, per = self.env_world[env], self.envs_per_world
        first = (env // per) * per
        others = [j for j in range(first, min(first + per, self.num_envs)) if j != env]
        return [handles[j] for handles in self.env_objects for j in others if handles[j][0] is world]

    def labels(self) -> dict[tuple[int, int], int]:
        """``(world client, body id) -> label`` of every object built."""
        out = {}
        for label, obj in enumerate(self.objects, start=1):
            for w, b in obj:
                out[(w.cid, b)] = label
        return out
