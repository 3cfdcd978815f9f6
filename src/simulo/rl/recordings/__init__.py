"""Recordings of a rollout as the SDK makes them: an MCAP in the VizStream channel layout and an MP4.

* :mod:`~simulo.rl.recordings.schemas`: the channel table and its protobuf schemas (simulo-viz 0.1.0's).
* :mod:`~simulo.rl.recordings.video`: frames streamed to an MP4 or GIF through imageio-ffmpeg.
"""
