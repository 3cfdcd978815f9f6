"""SDK names whose one definition is simulo-interfaces' own, re-exported unchanged.

These are the contract's identifiers and ``parse_*`` helpers (pure functions that work here), its cloud
error types, and the authoring value types that simulo-local has no engine-specific version of (entities,
visual markers, worlds, recording configuration, policy inputs). Importing
this module imports ``simulo.interfaces`` (about 100 ms), so ``simulo`` resolves these names only on first use.

The value types that the PyBullet runtime consumes (``Pose``, the primitives, ``RigidPhysics``, the robot
configurations, ...) are simulo-local's own, validated and frozen, and proven field-for-field identical to these
by ``tests/authoring/test_value_types_match_sdk.py``.
"""

from __future__ import annotations

from simulo.interfaces import (
    CheckpointId,
    CheckpointRefIsJobError,
    ContractViolationError,
    Digest,
    ImportResolutionError,
    JobFailedError,
    JobId,
    JobPublicId,
    OrganizationId,
    OutputPublicId,
    PackageId,
    PolicyNetworkProtocol,
    PolicyPublicId,
    ProjectId,
    RecordingPublicId,
    ResourceId,
    ResourceNotFoundError,
    ResourceUri,
    ResumeIncompatibleError,
    TagId,
    checkpoint_ref_is_job_hint,
    parse_checkpoint_ref,
    parse_job_public_id,
    parse_output_public_id,
    parse_recording_public_id,
    policy_id_for_job,
)
from simulo.interfaces.authoring import (
    ActionChannel,
    ArrowMarker,
    AssetEntity,
    AssetSource,
    AxesMarker,
    DeformableMaterial,
    DeformablePhysics,
    Entity,
    LineMarker,
    PointMarker,
    PolicyInput,
    PolicyInputSchema,
    RecordConfig,
    SphereMarker,
    URDFAsset,
    USDAsset,
    USDWorld,
    Visual,
    VisualMarkerBase,
    World,
)
from simulo.interfaces.platform import Output, OutputKind

__all__ = [
    "ActionChannel", "ArrowMarker", "AssetEntity", "AssetSource", "AxesMarker", "CheckpointId",
    "CheckpointRefIsJobError", "ContractViolationError", "DeformableMaterial", "DeformablePhysics", "Digest",
    "Entity", "ImportResolutionError", "JobFailedError", "JobId", "JobPublicId", "LineMarker", "OrganizationId",
    "Output", "OutputKind", "OutputPublicId", "PackageId", "PointMarker", "PolicyInput", "PolicyInputSchema",
    "PolicyNetworkProtocol", "PolicyPublicId", "ProjectId", "RecordConfig", "RecordingPublicId", "ResourceId",
    "ResourceNotFoundError", "ResourceUri", "ResumeIncompatibleError", "SphereMarker", "TagId", "URDFAsset",
    "USDAsset", "USDWorld", "Visual", "VisualMarkerBase", "World", "checkpoint_ref_is_job_hint",
    "parse_checkpoint_ref", "parse_job_public_id", "parse_output_public_id", "parse_recording_public_id",
    "policy_id_for_job",
]
