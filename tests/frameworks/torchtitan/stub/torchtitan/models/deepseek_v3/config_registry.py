# torchtitan/models/deepseek_v3/config_registry.py at b5bcd76c66d0: deepseek_v3_671b's parallelism,
# training, activation-checkpoint and compile settings.
from torchtitan.config import CompileConfig, ParallelismConfig, TrainingConfig
from torchtitan.distributed.activation_checkpoint import SelectiveAC
from torchtitan.trainer import Trainer

from . import model_registry


def deepseek_v3_671b() -> Trainer.Config:
    return Trainer.Config(
        model_spec=model_registry("671B", attn_backend="flex"),
        training=TrainingConfig(num_tokens_per_microbatch_per_dp_rank=4 * 4096, max_context_length=4096, steps=10000,
                                disable_cuda_graphs=True),
        parallelism=ParallelismConfig(pipeline_parallel_schedule="Interleaved1F1B", expert_parallel_degree=2),
        activation_checkpoint=SelectiveAC.Config(),
        compile=CompileConfig(enable=True, components=["loss"]),
    )
