"""The experiments behind the ``simulo pick-place`` flags.

* :mod:`.single`: the seed's run in one environment (``--stack``, ``--ik``, ``--speed``, ``--record``).
* :mod:`.trials`: random-start trials batched in one simulation, or sharded over Ray workers
  (``--trials``, ``--noise``, ``--workers``, ``--address``).
* :mod:`.friction`: the friction below which the cube slips during the lift (``--friction-sweep``).
"""
