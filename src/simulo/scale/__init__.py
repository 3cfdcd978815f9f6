"""Scale out on Ray: sharded trial sweeps and sharded rollouts (the optional ``ray`` extra).

* :func:`~simulo.scale.sweep.run_sweep` runs a batch of trials as shards of whole PyBullet worlds on
  Ray workers, gathers the results in order and reruns the shards of a worker that died.
* :class:`~simulo.scale.ray_env.RayLearningEnv` steps one batch of environments spread over Ray actors
  in lock step; the trainer sees one batch.
* :func:`~simulo.scale.settings.current_settings` reads ``--workers``/``--address`` as ``simulo run``
  exports them to the job; the job process then installs :func:`~simulo.scale.ray_env.backend_factory`
  as the backend of every ``simulo.LearningEnv(...)``, so app files run unchanged.

Importing this package (or :mod:`simulo.scale.settings`, :mod:`simulo.scale.sweep`) does not import
Ray; Ray is imported when a sweep or an environment actually uses more than one worker or an address.
See docs/scale-out.md for pointing the same command at a multi-machine cluster.
"""
