# torchtitan/trainer.py at b5bcd76c66d0: Trainer.Config's fields that an export reaches (the others,
# components this stub does not model, are plain placeholders) and the rules its __post_init__ checks.
from dataclasses import dataclass, field

from torchtitan.config import CompileConfig, ParallelismConfig, TrainingConfig
from torchtitan.distributed.activation_checkpoint import MemoryBudgetAC, SelectiveAC


class Trainer:
    @dataclass(kw_only=True, slots=True)
    class Config:
        model_spec: object = None
        hf_assets_path: str = "./tests/assets/tokenizer"
        dump_folder: str = "./outputs"
        profiler: object = None
        metrics: object = None
        tokenizer: object = None
        dataloader: object = None
        optimizer: object = None
        lr_scheduler: object = None
        training: TrainingConfig = field(default_factory=TrainingConfig)
        parallelism: ParallelismConfig = field(default_factory=ParallelismConfig)
        checkpoint: object = None
        activation_checkpoint: object = field(default_factory=SelectiveAC.Config)
        compile: CompileConfig = field(default_factory=CompileConfig)
        comm: object = None
        validator: object = None
        debug: object = None
        override: object = None
        loss: object = None

        def __post_init__(self):
            self.validate()

        # Trainer.Config.__post_init__ and _validate_cuda_graphs (the EP dispatchers this stub models
        # are the standard ones, which synchronize with the host).
        def validate(self):
            if self.parallelism.num_pp_microbatches <= 0:
                raise ValueError("parallelism.num_pp_microbatches must be greater than 0.")
            if not self.training.disable_cuda_graphs:
                if self.parallelism.pipeline_parallel_degree > 1:
                    raise ValueError("CUDA graphs do not support pipeline parallelism yet.")
                if self.parallelism.expert_parallel_degree > 1 and self.model_spec is not None and self.model_spec.moe:
                    raise ValueError("CUDA graphs support only expert parallel token dispatchers without CPU synchronization.")
            if isinstance(self.activation_checkpoint, MemoryBudgetAC.Config) and not (
                self.compile.enable and "model" in self.compile.components
            ):
                raise ValueError("Memory budget activation checkpointing requires the model to be compiled.")
