"""Recordings of a rollout as the SDK makes them: an MCAP in the VizStream channel layout and an MP4.

* :mod:`~simulo.rl.recordings.config`: ``record=`` (a path or a :class:`simulo.RecordConfig`) resolved to
  a :class:`~simulo.rl.recordings.config.RecordingPlan` (files, environments, ``include_*`` flags, fps).
* :mod:`~simulo.rl.recordings.rollout`: :class:`~simulo.rl.recordings.rollout.RolloutRecorder`, driven by
  the loop that steps the environment (``RLPlayer.play``).
* :mod:`~simulo.rl.recordings.layout`: a simulation's bodies, links, joints and cameras as VizStream messages.
* :mod:`~simulo.rl.recordings.mcap_file`: the MCAP writer (``mcap``), camera images as PNG.
* :mod:`~simulo.rl.recordings.schemas`: the channel table and its protobuf schemas (simulo-viz 0.1.0's).
* :mod:`~simulo.rl.recordings.video`: frames streamed to an MP4 or GIF through imageio-ffmpeg.
"""
