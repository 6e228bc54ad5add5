from .access import Membership, Role
from .approvals import Approval, ApprovalCondition, ConditionFulfilment
from .audit import AuditChainHead, AuditChainVerified, AuditCheckpoint, AuditLogEntry, SigningKey
from .cosignature import CheckpointCosignature, WitnessState
from .jobs import Job
from .generation import Generation
from .games import BetLimit, Game, GameRules, Paytable, PaytableLine, StatedHouseEdge
from .places import Establishment, Jurisdiction, Table
from .sources import Cited, Source
from .witness import WitnessedLog

__all__ = [
    "Approval",
    "ApprovalCondition",
    "AuditChainHead",
    "AuditChainVerified",
    "AuditCheckpoint",
    "AuditLogEntry",
    "BetLimit",
    "CheckpointCosignature",
    "Cited",
    "ConditionFulfilment",
    "Establishment",
    "Game",
    "GameRules",
    "Generation",
    "Job",
    "Jurisdiction",
    "Membership",
    "Paytable",
    "PaytableLine",
    "Role",
    "SigningKey",
    "Source",
    "StatedHouseEdge",
    "Table",
    "WitnessState",
    "WitnessedLog",
]
