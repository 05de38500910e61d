# torchtitan/distributed/activation_checkpoint.py at b5bcd76c66d0: the policies' configs (Trainer.Config's
# activation_checkpoint is one of these, or None for none).
from dataclasses import dataclass, field


class ActivationCheckpointing:
    @dataclass(kw_only=True, slots=True)
    class Config:
        preserve_rng_state: bool = True
        determinism_check: str = "default"
        debug: bool = False


class FullAC(ActivationCheckpointing):
    @dataclass(kw_only=True, slots=True)
    class Config(ActivationCheckpointing.Config):
        pass


class SelectiveAC(ActivationCheckpointing):
    @dataclass(kw_only=True, slots=True)
    class Config(ActivationCheckpointing.Config):
        force_recompute_mm_shapes_by_fqns: list = field(default_factory=lambda: ["moe.router.gate"])


class MemoryBudgetAC(ActivationCheckpointing):
    @dataclass(kw_only=True, slots=True)
    class Config(ActivationCheckpointing.Config):
        memory_budget: float = 0.5
