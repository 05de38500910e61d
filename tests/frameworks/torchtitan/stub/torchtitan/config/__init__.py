# torchtitan/config/configs.py at b5bcd76c66d0: TrainingConfig, ParallelismConfig and CompileConfig with
# their fields and defaults (docstrings and the checks that need torch left out).
from dataclasses import dataclass, field


@dataclass(kw_only=True, slots=True)
class TrainingConfig:
    num_tokens_per_microbatch_per_dp_rank: int = 16384
    num_tokens_per_train_step: int = -1
    max_context_length: int = 2048
    max_norm: float = 1.0
    steps: int = 10000
    enable_cpu_offload: bool = False
    disable_cuda_graphs: bool = False
    dtype: str = "float32"
    mixed_precision_param: str = "bfloat16"
    mixed_precision_reduce: str = "float32"
    gc_freq: int = 50
    gc_debug: bool = False

    def __post_init__(self):
        if self.num_tokens_per_microbatch_per_dp_rank <= 0:
            raise ValueError("num_tokens_per_microbatch_per_dp_rank must be greater than 0.")
        if self.num_tokens_per_train_step != -1 and self.num_tokens_per_train_step <= 0:
            raise ValueError("num_tokens_per_train_step must be -1 or greater than 0.")
        if self.max_context_length <= 0:
            raise ValueError("max_context_length must be greater than 0.")


@dataclass(kw_only=True, slots=True)
class ParallelismConfig:
    data_parallel_replicate_degree: int = 1
    data_parallel_shard_degree: int = -1
    fsdp_reshard_after_forward: str = "default"
    enable_fsdp_symm_mem: bool = False
    tensor_parallel_degree: int = 1
    enable_sequence_parallel: bool = True
    spmd_backend: str = "spmd_types"
    pipeline_parallel_degree: int = 1
    module_fqns_per_model_part: list | None = None
    pipeline_parallel_first_stage_less_layers: int = 1
    pipeline_parallel_last_stage_less_layers: int = 1
    pipeline_parallel_layers_per_stage: int | None = None
    pipeline_parallel_schedule: str = "1F1B"
    pipeline_parallel_schedule_csv: str | None = ""
    num_pp_microbatches: int = 1
    context_parallel_degree: int = 1
    context_parallel_load_balancer: str | None = "headtail"
    context_parallel_ptrr_mask_key: str | None = None
    expert_parallel_degree: int = 1

    def __post_init__(self):
        if self.fsdp_reshard_after_forward not in {"default", "always", "never"}:
            raise ValueError("fsdp_reshard_after_forward must be default, always or never")
        if self.context_parallel_load_balancer == "":
            raise ValueError("context_parallel_load_balancer cannot be an empty string.")


@dataclass(kw_only=True, slots=True)
class CompileConfig:
    enable: bool = False
    enable_async_tensor_parallel: bool = False
    components: list = field(default_factory=lambda: ["model", "loss"])
    backend: str = "inductor"
