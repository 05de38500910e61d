# torchtitan/models/llama3/config_registry.py at b5bcd76c66d0: the base configs' parallelism, training,
# activation-checkpoint and compile settings (the data, optimizer and logging parts are left out).
from torchtitan.components.quantization import Float8LinearConverter
from torchtitan.config import CompileConfig, ParallelismConfig, TrainingConfig
from torchtitan.distributed.activation_checkpoint import FullAC, SelectiveAC
from torchtitan.trainer import Trainer

from . import model_registry


def llama3_8b() -> Trainer.Config:
    return Trainer.Config(
        model_spec=model_registry("8B"),
        training=TrainingConfig(num_tokens_per_microbatch_per_dp_rank=1 * 8192, max_context_length=8192, steps=1000),
        activation_checkpoint=SelectiveAC.Config(),
    )


def llama3_70b() -> Trainer.Config:
    return Trainer.Config(
        model_spec=model_registry("70B"),
        training=TrainingConfig(num_tokens_per_microbatch_per_dp_rank=8 * 8192, max_context_length=8192, steps=1000),
        parallelism=ParallelismConfig(tensor_parallel_degree=8),
        activation_checkpoint=FullAC.Config(),
    )


def llama3_405b() -> Trainer.Config:
    compile_config = CompileConfig(enable=True, enable_async_tensor_parallel=True)
    return Trainer.Config(
        model_spec=model_registry(
            "405B",
            converters=[Float8LinearConverter.Config(filter_fqns=["lm_head"], model_compile_enabled=True)],
        ),
        training=TrainingConfig(num_tokens_per_microbatch_per_dp_rank=2 * 8192, max_context_length=8192, steps=3000),
        parallelism=ParallelismConfig(tensor_parallel_degree=8),
        activation_checkpoint=FullAC.Config(),
        compile=compile_config,
    )
