"""What state members hand out for buffers the runtime owns: objects a stray write cannot corrupt.

numpy: a read-only view of the buffer (the same object on every read; writing into it raises numpy's
``ValueError: assignment destination is read-only``). torch has no read-only tensors, so a torch caller gets
the same tensor on every read, sharing a mirror of the buffer that the runtime rewrites from its own buffer
on every read and after every step or teleport: a stray in-place write shows in that tensor until then, but
never reaches the runtime's buffer, the engine or the drives.

A view that a caller still holds, or a slice of it (CPython's reference counts of the view and of the buffer
say so), is kept current after every step and teleport, as a live buffer; one nobody holds costs nothing until
it is read again. A torch tensor, once handed out, is kept current after every step (a slice of it shares its
memory without the runtime seeing it).
"""

from __future__ import annotations

import sys
from collections.abc import Collection, Iterable
from typing import Any

import numpy as np

from simulo.sim.tensors import Tensors, readonly

#: references to a handed-out view that the runtime itself holds, plus ``sys.getrefcount``'s argument
_OWN_REFERENCES = 2


class PublishedBuffers:
    """The objects state members return for some named buffers.

    Args:
        tensors: The simulation's tensor converter.
        buffers: The runtime's buffers by name; they are updated in place, never replaced.
    """

    def __init__(self, tensors: Tensors, buffers: dict[str, np.ndarray]) -> None:
        self._tensors = tensors
        self._buffers = buffers
        self._views = {name: readonly(buffer) for name, buffer in buffers.items()}
        self._torch: dict[str, tuple[Any, np.ndarray]] = {}
        #: each buffer's reference count with only the runtime's own references (its owner, this object, the view)
        self._own = {name: sys.getrefcount(self._buffers[name]) for name in self._buffers}
        #: the names whose object has been handed out at least once (only those can be held)
        self.given: set[str] = set()

    def get(self, name: str) -> Any:
        """The object to hand out for buffer ``name`` (which the caller has just made current)."""
        self.given.add(name)
        if not self._tensors.uses_torch:
            return self._views[name]
        buffer = self._buffers[name]
        entry = self._torch.get(name)
        if entry is None:
            mirror = buffer.copy()
            entry = (self._tensors.out(mirror), mirror)
            self._torch[name] = entry
        else:
            np.copyto(entry[1], buffer)
        return entry[0]

    def held(self, names: Collection[str]) -> list[str]:
        """Those of ``names`` whose handed-out object someone outside the runtime still references."""
        out: list[str] = []
        for name in self.given:  # only what was handed out can be held
            if name not in names:
                continue
            if (name in self._torch or sys.getrefcount(self._views[name]) > _OWN_REFERENCES
                    or sys.getrefcount(self._buffers[name]) > self._own[name]):  # a slice of the view
                out.append(name)
        return out

    def sync(self, names: Iterable[str]) -> None:
        """Copy the current buffers into the torch mirrors of ``names`` (numpy views need nothing)."""
        if not self._torch:
            return
        for name in names:
            entry = self._torch.get(name)
            if entry is not None:
                np.copyto(entry[1], self._buffers[name])
