"""Loads a `shardscope export --to torchtitan` module against stub/ (TorchTitan's config system at a
pinned commit, see README.md) and checks what TorchTitan checks before training. Exit 0 and the
config as JSON on stdout, or exit 1 with the rule broken on stderr.

    python3 check_export.py EXPORT.py --world N [--config FUNCTION]
"""
import argparse
import dataclasses
import importlib.util
import json
import math
import os
import sys

sys.dont_write_bytecode = True  # the stub stays as committed (no __pycache__ beside it)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "stub"))

from torchtitan.config import ParallelismConfig  # noqa: E402
from torchtitan.trainer import Trainer  # noqa: E402

# torch.distributed.pipelining.schedules: the schedules that run one stage per rank (the others loop).
SINGLE_STAGE = {"GPipe", "1F1B"}
MULTI_STAGE = {"Interleaved1F1B", "LoopedBFS", "InterleavedZeroBubble", "ZBVZeroBubble", "DualPipeV"}


def fail(message):
    print(message, file=sys.stderr)
    sys.exit(1)


def load(path, function):
    spec = importlib.util.spec_from_file_location("shardscope_job", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if function:
        return getattr(module, function)()
    # No model of TorchTitan's registry: the layout applied to a default config of one.
    from torchtitan.models.llama3.config_registry import llama3_8b

    return module.apply_layout(llama3_8b())


def check_dims(p: ParallelismConfig, world):
    # torchtitan/distributed/parallel_dims.py, ParallelDims._validate.
    dims = [p.data_parallel_replicate_degree, p.context_parallel_degree, p.tensor_parallel_degree,
            p.pipeline_parallel_degree, p.expert_parallel_degree]
    if any(d < 1 for d in dims):
        fail("Parallelism degree should be >= 1, except for dp_shard")
    shard = p.data_parallel_shard_degree
    rest = p.data_parallel_replicate_degree * p.context_parallel_degree * p.tensor_parallel_degree * p.pipeline_parallel_degree
    if shard < 0:
        shard = world // rest
    if shard * rest != world:
        fail(f"Invalid parallel dims: product {shard * rest} != WORLD_SIZE({world})")
    if (shard * p.context_parallel_degree * p.tensor_parallel_degree) % p.expert_parallel_degree != 0:
        fail("expert_parallel_degree must divide dp_shard * cp * tp")
    return shard


def check_tokens(c: Trainer.Config, shard):
    # torchtitan/trainer.py, Trainer.__init__: token evenness, then the accumulation steps.
    p, t = c.parallelism, c.training
    divisor = (p.tensor_parallel_degree if p.enable_sequence_parallel else 1) * (
        2 * p.context_parallel_degree if p.context_parallel_degree > 1 else 1)
    if t.num_tokens_per_microbatch_per_dp_rank % divisor != 0:
        fail(f"tokens per pipeline microbatch ({t.num_tokens_per_microbatch_per_dp_rank}) not divisible by {divisor}")
    microbatches = p.num_pp_microbatches if p.pipeline_parallel_degree > 1 else 1
    dp = shard * p.data_parallel_replicate_degree
    per_iteration = t.num_tokens_per_microbatch_per_dp_rank * microbatches * dp
    step = t.num_tokens_per_train_step if t.num_tokens_per_train_step > 0 else per_iteration
    if step % per_iteration != 0:
        fail(f"training.num_tokens_per_train_step ({step}) must be divisible by {per_iteration}")
    return step // per_iteration


def check_pipeline(c: Trainer.Config):
    # torchtitan/distributed/pipeline_parallel.py, _get_pipeline_metadata and _generate_llm_fqn_per_model_part.
    p = c.parallelism
    if p.pipeline_parallel_degree == 1:
        return 1
    schedule = p.pipeline_parallel_schedule
    if schedule not in SINGLE_STAGE | MULTI_STAGE:
        fail(f"unknown pipeline schedule {schedule}")
    single = schedule in SINGLE_STAGE
    layers = c.model_spec.layers
    first, last = p.pipeline_parallel_first_stage_less_layers, p.pipeline_parallel_last_stage_less_layers
    if p.pipeline_parallel_layers_per_stage is not None:
        stages = math.ceil((layers + first + last) / p.pipeline_parallel_layers_per_stage)
        if stages % p.pipeline_parallel_degree != 0:
            fail(f"Number of virtual stages ({stages}) must be divisible by pipeline parallel size")
        per_rank = stages // p.pipeline_parallel_degree
        if single and per_rank != 1:
            fail("Single stage schedule requires exactly 1 stage per rank")
        if not single and per_rank < 2:
            fail("Multi-stage schedule requires at least 2 stages per rank")
    else:
        per_rank = 1 if single else 2
        stages = p.pipeline_parallel_degree * per_rank
    fqns = p.module_fqns_per_model_part
    if fqns is not None:
        # Each module once, in the model's order, a list per virtual stage (_pipeline_module_split).
        if len(fqns) != stages:
            fail(f"module_fqns_per_model_part has {len(fqns)} stages, the schedule makes {stages}")
        whole = ["tok_embeddings"] + [f"layers.{i}" for i in range(layers)] + ["norm", "lm_head"]
        if [name for part in fqns for name in part] != whole:
            fail("module_fqns_per_model_part does not name every module once, in order")
        if any(not part for part in fqns):
            fail("module_fqns_per_model_part has an empty stage")
        return per_rank
    per_stage = (layers + first + last) // stages
    if per_stage == 0:
        fail(f"{layers} layers cannot fill {stages} stages")
    if first > per_stage or last > per_stage:
        fail("input_weight or output_weight exceeds minimum layers per stage")
    return per_rank


def as_json(value):
    if dataclasses.is_dataclass(value):
        return {"type": type(value).__qualname__,
                **{f.name: as_json(getattr(value, f.name)) for f in dataclasses.fields(value)}}
    if isinstance(value, list):
        return [as_json(v) for v in value]
    return value


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("export")
    parser.add_argument("--world", type=int, required=True)
    parser.add_argument("--config", default="")
    args = parser.parse_args()
    config = load(args.export, args.config)
    if not isinstance(config, Trainer.Config):
        fail("the job function must return a Trainer.Config")
    config.validate()
    shard = check_dims(config.parallelism, args.world)
    accumulation = check_tokens(config, shard)
    stages_per_rank = check_pipeline(config)
    out = as_json(config)
    out["derived"] = {"data_parallel_shard_degree": shard, "gradient_accumulation_steps": accumulation,
                      "stages_per_rank": stages_per_rank}
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
