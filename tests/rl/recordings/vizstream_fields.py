"""Facts: the messages and fields of simulo-viz 0.1.0's VizStream descriptor set (``vizstream.binpb``).

One entry per message (nested ones by their full name; map entries left out): its fields as
``name=number:type``, the type prefixed with ``*`` when repeated and ``?`` when proto3 ``optional``.
Read from simulo-viz 0.1.0 (``pip download --no-deps simulo-viz==0.1.0``) and written down here so that the
test needs no download.
"""

#: The SHA-256 of simulo-viz 0.1.0's ``simulo_viz/scene/vizstream.binpb``.
SIMULO_VIZ_SHA256 = "f4f96e1be3d266569f68b57a2581e713014ba33be2025d9aee3cbcc1013cd39d"

FIELDS: dict[str, str] = {
    "foxglove.Color": "r=1:double g=2:double b=3:double a=4:double",
    "foxglove.Quaternion": "x=1:double y=2:double z=3:double w=4:double",
    "foxglove.Vector3": "x=1:double y=2:double z=3:double",
    "foxglove.Pose": "position=1:foxglove.Vector3 orientation=2:foxglove.Quaternion",
    "foxglove.ArrowPrimitive": (
        "pose=1:foxglove.Pose shaft_length=2:double shaft_diameter=3:double head_length=4:double "
        "head_diameter=5:double color=6:foxglove.Color"
    ),
    "foxglove.CubePrimitive": "pose=1:foxglove.Pose size=2:foxglove.Vector3 color=3:foxglove.Color",
    "foxglove.CylinderPrimitive": (
        "pose=1:foxglove.Pose size=2:foxglove.Vector3 bottom_scale=3:double top_scale=4:double "
        "color=5:foxglove.Color"
    ),
    "foxglove.FrameTransform": (
        "timestamp=1:google.protobuf.Timestamp parent_frame_id=2:string child_frame_id=3:string "
        "translation=4:foxglove.Vector3 rotation=5:foxglove.Quaternion"
    ),
    "foxglove.FrameTransforms": "transforms=1:*foxglove.FrameTransform",
    "foxglove.KeyValuePair": "key=1:string value=2:string",
    "foxglove.Point3": "x=1:double y=2:double z=3:double",
    "foxglove.LinePrimitive": (
        "type=1:foxglove.LinePrimitive.Type pose=2:foxglove.Pose thickness=3:double scale_invariant=4:bool "
        "points=5:*foxglove.Point3 color=6:foxglove.Color colors=7:*foxglove.Color indices=8:*fixed32"
    ),
    "foxglove.ModelPrimitive": (
        "pose=1:foxglove.Pose scale=2:foxglove.Vector3 color=3:foxglove.Color override_color=4:bool "
        "url=5:string media_type=6:string data=7:bytes"
    ),
    "foxglove.SpherePrimitive": "pose=1:foxglove.Pose size=2:foxglove.Vector3 color=3:foxglove.Color",
    "foxglove.TextPrimitive": (
        "pose=1:foxglove.Pose billboard=2:bool font_size=3:double scale_invariant=4:bool "
        "color=5:foxglove.Color text=6:string"
    ),
    "foxglove.TriangleListPrimitive": (
        "pose=1:foxglove.Pose points=2:*foxglove.Point3 color=3:foxglove.Color colors=4:*foxglove.Color "
        "indices=5:*fixed32"
    ),
    "foxglove.SceneEntity": (
        "timestamp=1:google.protobuf.Timestamp frame_id=2:string id=3:string "
        "lifetime=4:google.protobuf.Duration frame_locked=5:bool metadata=6:*foxglove.KeyValuePair "
        "arrows=7:*foxglove.ArrowPrimitive cubes=8:*foxglove.CubePrimitive "
        "spheres=9:*foxglove.SpherePrimitive cylinders=10:*foxglove.CylinderPrimitive "
        "lines=11:*foxglove.LinePrimitive triangles=12:*foxglove.TriangleListPrimitive "
        "texts=13:*foxglove.TextPrimitive models=14:*foxglove.ModelPrimitive"
    ),
    "foxglove.SceneEntityDeletion": (
        "timestamp=1:google.protobuf.Timestamp type=2:foxglove.SceneEntityDeletion.Type id=3:string"
    ),
    "foxglove.SceneUpdate": "deletions=1:*foxglove.SceneEntityDeletion entities=2:*foxglove.SceneEntity",
    "simulo.vizstream.v1.Vec3": "x=1:double y=2:double z=3:double",
    "simulo.vizstream.v1.Quat": "w=1:double x=2:double y=3:double z=4:double",
    "simulo.vizstream.v1.Pose": "position=1:simulo.vizstream.v1.Vec3 orientation=2:simulo.vizstream.v1.Quat",
    "simulo.vizstream.v1.Color": "r=1:float g=2:float b=3:float a=4:float",
    "simulo.vizstream.v1.NamedValue": "name=1:string value=2:double",
    "simulo.vizstream.v1.NamedFlag": "name=1:string value=2:bool",
    "simulo.vizstream.v1.DeformFrame": (
        "sequence=1:uint64 sim_time_s=2:double scene_epoch=3:uint32 global_step=4:uint64 "
        "bodies=5:*simulo.vizstream.v1.SoftBodyVertices"
    ),
    "simulo.vizstream.v1.SoftBodyVertices": (
        "path=1:string shared=2:bool copy_id=3:uint32 source_rank=4:uint32 vertex_positions=5:*float"
    ),
    "simulo.vizstream.v1.Event": (
        "sequence=1:uint64 sim_time_s=2:double scene_epoch=3:uint32 global_step=4:uint64 copy_id=5:uint32 "
        "source_rank=6:uint32 episode_start=10:simulo.vizstream.v1.EpisodeStart "
        "episode_end=11:simulo.vizstream.v1.EpisodeEnd epoch_change=12:simulo.vizstream.v1.EpochChange "
        "gap=13:simulo.vizstream.v1.EventGap"
    ),
    "simulo.vizstream.v1.EpisodeStart": "episode_index=1:uint64 domain_randomization=2:google.protobuf.Struct",
    "simulo.vizstream.v1.EpisodeEnd": (
        "episode_index=1:uint64 terminated=2:bool truncated=3:bool episode_length_pre_reset=4:?uint64 "
        "length_steps=5:?uint64 termination_cause=6:?string "
        "termination_breakdown=7:*simulo.vizstream.v1.NamedFlag final_reward=8:?double total_return=9:?double "
        "peak_reward=10:?double mean_reward_breakdown=11:*simulo.vizstream.v1.NamedValue ended_by=12:?string "
        "success=13:?bool checks=14:*simulo.vizstream.v1.NamedFlag "
        "check_first_failures=15:*simulo.vizstream.v1.CheckFirstFailure"
    ),
    "simulo.vizstream.v1.CheckFirstFailure": "name=1:string episode_step=2:?uint64 sim_time_s=3:?double",
    "simulo.vizstream.v1.EpochChange": (
        "previous_epoch=1:uint32 new_epoch=2:uint32 reason=3:simulo.vizstream.v1.EpochChange.Reason"
    ),
    "simulo.vizstream.v1.EventGap": "first_missing_sequence=1:uint64 last_missing_sequence=2:uint64",
    "simulo.vizstream.v1.MarkerFrame": (
        "sequence=1:uint64 sim_time_s=2:double scene_epoch=3:uint32 global_step=4:uint64 "
        "copies=5:*simulo.vizstream.v1.CopyMarkers"
    ),
    "simulo.vizstream.v1.CopyMarkers": (
        "copy_id=1:uint32 source_rank=2:uint32 markers=3:*simulo.vizstream.v1.Marker"
    ),
    "simulo.vizstream.v1.Marker": (
        "name=1:string kind=2:simulo.vizstream.v1.Marker.Kind color=3:simulo.vizstream.v1.Color "
        "scale=4:simulo.vizstream.v1.Vec3 pose=5:simulo.vizstream.v1.Pose points=6:*float hidden=7:bool"
    ),
    "simulo.vizstream.v1.OverlayFrame": (
        "sequence=1:uint64 sim_time_s=2:double scene_epoch=3:uint32 global_step=4:uint64 "
        "copies=5:*simulo.vizstream.v1.CopyOverlays"
    ),
    "simulo.vizstream.v1.CopyOverlays": (
        "copy_id=1:uint32 source_rank=2:uint32 contacts=3:*simulo.vizstream.v1.ContactPoint "
        "labels=4:*simulo.vizstream.v1.Label"
    ),
    "simulo.vizstream.v1.ContactPoint": (
        "position=1:simulo.vizstream.v1.Vec3 normal=2:simulo.vizstream.v1.Vec3 force_n=3:double "
        "body_a=4:string body_b=5:string"
    ),
    "simulo.vizstream.v1.Label": (
        "text=1:string position=2:simulo.vizstream.v1.Vec3 attached_path=3:string "
        "color=4:simulo.vizstream.v1.Color"
    ),
    "simulo.vizstream.v1.PoseFrame": (
        "sequence=1:uint64 sim_time_s=2:double scene_epoch=3:uint32 global_step=4:uint64 "
        "focused=5:*simulo.vizstream.v1.CopyPoses overview=6:simulo.vizstream.v1.OverviewPoses"
    ),
    "simulo.vizstream.v1.CopyPoses": (
        "copy_id=1:uint32 source_rank=2:uint32 episode_index=3:uint64 link_poses=4:*float body_poses=5:*float"
    ),
    "simulo.vizstream.v1.OverviewPoses": (
        "copy_ids=1:*uint32 source_ranks=2:*uint32 root_poses=3:*float link_poses=4:*float "
        "episode_indices=5:*uint64"
    ),
    "simulo.vizstream.v1.Scene": (
        "scene_id=1:string scene_epoch=2:uint32 world_size=3:uint32 copies_per_rank=4:uint32 "
        "copy_origins=5:*float step_dt_s=6:double assets=7:*simulo.vizstream.v1.MeshAsset "
        "materials=8:*simulo.vizstream.v1.Material lights=9:*simulo.vizstream.v1.Light "
        "cameras=10:*simulo.vizstream.v1.Camera bodies=11:*simulo.vizstream.v1.Body "
        "soft_bodies=12:*simulo.vizstream.v1.SoftBody pose_layout=13:simulo.vizstream.v1.PoseLayout "
        "action_channels=14:*simulo.vizstream.v1.ActionChannel"
    ),
    "simulo.vizstream.v1.ActionChannel": (
        "index=1:uint32 name=2:string joint_name=3:string kind=4:simulo.vizstream.v1.ActionChannel.Kind"
    ),
    "simulo.vizstream.v1.MeshAsset": (
        "id=1:string uri=2:string media_type=3:string data=4:bytes asset_version_id=5:string"
    ),
    "simulo.vizstream.v1.Material": (
        "id=1:string base_color=2:simulo.vizstream.v1.Color metallic=3:float roughness=4:float "
        "emissive=5:simulo.vizstream.v1.Color base_color_texture=6:string metallic_roughness_texture=7:string "
        "normal_texture=8:string double_sided=9:bool"
    ),
    "simulo.vizstream.v1.Light": (
        "name=1:string kind=2:simulo.vizstream.v1.Light.Kind color=3:simulo.vizstream.v1.Color "
        "intensity=4:float pose=5:simulo.vizstream.v1.Pose range_m=6:float inner_cone_angle_rad=7:float "
        "outer_cone_angle_rad=8:float environment_map=9:string"
    ),
    "simulo.vizstream.v1.Camera": (
        "name=1:string purpose=2:simulo.vizstream.v1.Camera.Purpose width=3:uint32 height=4:uint32 "
        "fx=5:double fy=6:double cx=7:double cy=8:double near_m=9:double far_m=10:double "
        "parent_path=11:string local_pose=12:simulo.vizstream.v1.Pose"
    ),
    "simulo.vizstream.v1.Body": (
        "name=1:string path=2:string kind=3:simulo.vizstream.v1.Body.Kind fixed_base=4:bool "
        "links=5:*simulo.vizstream.v1.Link joint_names=6:*string joints=7:*simulo.vizstream.v1.Joint"
    ),
    "simulo.vizstream.v1.Joint": (
        "name=1:string kind=2:simulo.vizstream.v1.Joint.Kind parent_link_path=3:string "
        "child_link_path=4:string axis=5:simulo.vizstream.v1.Vec3 anchor=6:simulo.vizstream.v1.Vec3 "
        "lower=7:?double upper=8:?double soft_lower=9:?double soft_upper=10:?double"
    ),
    "simulo.vizstream.v1.Link": (
        "name=1:string path=2:string parent_path=3:string pose=4:simulo.vizstream.v1.Pose "
        "visuals=5:*simulo.vizstream.v1.Visual"
    ),
    "simulo.vizstream.v1.Visual": (
        "name=1:string local_pose=2:simulo.vizstream.v1.Pose scale=3:simulo.vizstream.v1.Vec3 "
        "mesh_asset_id=4:string box=5:simulo.vizstream.v1.Box sphere=6:simulo.vizstream.v1.Sphere "
        "cylinder=7:simulo.vizstream.v1.Cylinder capsule=8:simulo.vizstream.v1.Capsule "
        "plane=9:simulo.vizstream.v1.Plane material_id=10:string"
    ),
    "simulo.vizstream.v1.Box": "size=1:simulo.vizstream.v1.Vec3",
    "simulo.vizstream.v1.Sphere": "radius=1:double",
    "simulo.vizstream.v1.Cylinder": "radius=1:double length=2:double",
    "simulo.vizstream.v1.Capsule": "radius=1:double length=2:double",
    "simulo.vizstream.v1.Plane": "size_x=1:double size_y=2:double",
    "simulo.vizstream.v1.SoftBody": (
        "name=1:string path=2:string vertex_count=3:uint32 triangle_indices=4:*uint32 rest_positions=5:*float "
        "material_id=6:string shared=7:bool"
    ),
    "simulo.vizstream.v1.PoseLayout": "link_paths=1:*string body_paths=2:*string root_paths=3:*string",
    "simulo.vizstream.v1.StepFrame": (
        "sequence=1:uint64 sim_time_s=2:double scene_epoch=3:uint32 global_step=4:uint64 "
        "copies=5:*simulo.vizstream.v1.CopyStep episode_totals=6:*simulo.vizstream.v1.EpisodeTotals"
    ),
    "simulo.vizstream.v1.EpisodeTotals": (
        "source_rank=1:uint32 episodes=2:uint64 ended_early=3:uint64 failed=4:uint64"
    ),
    "simulo.vizstream.v1.CopyStep": (
        "copy_id=1:uint32 source_rank=2:uint32 episode_index=3:uint64 episode_step=4:uint64 "
        "joints=5:*simulo.vizstream.v1.JointValue actions=6:*simulo.vizstream.v1.NamedValue reward=7:?double "
        "reward_terms=8:*simulo.vizstream.v1.NamedValue"
    ),
    "simulo.vizstream.v1.JointValue": "body_path=1:string name=2:string position=3:?double velocity=4:?double",
}
