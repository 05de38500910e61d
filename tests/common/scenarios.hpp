#pragma once
// Scenarios several suites share (core, widgets, app), so each is written and explained once.

#include "core/model/hardware.hpp"
#include "core/scenario/scenario.hpp"

namespace shardscope::test {

// A small dense model on two nodes of 8 GPUs, plain data parallel: the planner's whole search over it
// takes a moment. 8 blocks of hidden 1024 (8 heads), MLP 4096, vocab 32000, 2K-token sequences.
inline Scenario small_dense() {
    Scenario s = default_scenario();
    s.model.name = "small";
    s.model.layers = 8;
    s.model.hidden = 1024;
    s.model.ffn_hidden = 4096;
    s.model.heads = 8;
    s.model.kv_heads = 8;
    s.model.vocab = 32000;
    s.model.seq_len = 2048;
    s.cluster.nodes = 2;
    s.cluster.gpus_per_node = 8;
    s.parallel = ParallelSpec{};
    s.parallel.dp_replicate = 16;
    s.parallel.sequence_parallel = true;
    s.training.global_batch = 16;
    s.training.micro_batch = 1;
    return s;
}

// Llama 3 70B (80 blocks of hidden 8192, SwiGLU 28672, 64 heads / 8 KV heads, vocab 128256, seq 8192)
// as plain data parallel over `nodes` nodes of 8 H100 80 GB: ZeRO 0, every GPU a replica.
// Parameters by hand: a block is q,o 2 * 8192^2 = 134,217,728 + k,v 2 * 8192 * 1024 = 16,777,216
// + MLP 3 * 8192 * 28672 = 704,643,072 + two norms 16,384 = 855,654,400; 80 blocks = 68,452,352,000;
// embedding + output 2 * 128256 * 8192 = 2,101,346,304; final norm 8,192: 70,553,706,496 in all.
// Every GPU holds 70.55B x 16 B = 1.13 TB of model state, far over 80 GB.
inline Scenario llama70b_ddp(int64_t nodes) {
    Scenario s = default_scenario();
    s.model.name = "Llama 3 70B";
    s.model.layers = 80;
    s.model.hidden = 8192;
    s.model.ffn_hidden = 28672;
    s.model.heads = 64;
    s.model.kv_heads = 8;
    s.model.vocab = 128256;
    s.model.seq_len = 8192;
    s.cluster.nodes = nodes;
    s.parallel = ParallelSpec{};
    s.parallel.dp_replicate = nodes * 8;
    s.parallel.zero = 0;
    s.training.global_batch = 512;
    s.training.recompute = Recompute::none;
    return s;
}

// A tiny hand-countable model: 4 blocks of hidden 8, gelu FFN of 32, 2 heads, vocab 16, seq 4.
// Per block: attention 4*8*8 = 256, two norms 2*8 = 16, FFN 2*8*32 = 512 -> 784.
// Embedding 16*8 = 128; output 16*8 + final norm 8 = 136: 3400 in all. One GPU, no parallelism,
// global batch 4 in micro-batches of 1, mixed bf16.
inline Scenario tiny_gelu() {
    Scenario s;
    s.model.name = "tiny";
    s.model.layers = 4;
    s.model.hidden = 8;
    s.model.ffn_hidden = 32;
    s.model.heads = 2;
    s.model.kv_heads = 2;
    s.model.vocab = 16;
    s.model.seq_len = 4;
    s.model.ffn = Ffn::gelu;
    s.cluster.nodes = 1;
    s.cluster.gpus_per_node = 1;
    s.parallel = ParallelSpec{};
    s.training.global_batch = 4;
    s.training.micro_batch = 1;
    s.training.precision = Precision::mixed_bf16;
    return s;
}

// A round model on a one-SM GPU: every GEMM fills 256 x 128 tiles exactly, so each runs at
// peak x ceiling and pays the 3 us floor once. Hidden 256 in 2 heads of 128, gelu FFN of 1024,
// vocab 256, one sequence of 256 tokens, 2 blocks; 1 TFLOP/s at a 0.5 ceiling, 10 GB/s of HBM (the
// GEMMs stay compute-bound: QKV moves 917,504 B, 0.10 ms, against 0.20 ms of FLOPs).
inline Scenario round_model() {
    Scenario s;
    s.model.name = "round";
    s.model.layers = 2;
    s.model.hidden = 256;
    s.model.ffn_hidden = 1024;
    s.model.heads = 2;
    s.model.kv_heads = 2;
    s.model.vocab = 256;
    s.model.seq_len = 256;
    s.model.ffn = Ffn::gelu;
    s.cluster.nodes = 1;
    s.cluster.gpus_per_node = 1;
    s.cluster.gpu = GpuSpec{"A100 test", 80, 1, 10, 0.5};
    s.cluster.gpu.sm_count = 1;
    s.parallel = ParallelSpec{};
    s.training.global_batch = 1;
    s.training.micro_batch = 1;
    return s;
}

// The round model's figures with tiles at no fixed cost, so that each of its GEMMs runs at exactly
// peak x ceiling and hand-worked figures stay round (the depth factor, [DEEPGEMM] in
// core/model/hardware.hpp, is tested on its own).
inline HardwareFigures round_figures(const GpuSpec& gpu) {
    HardwareFigures hw = hardware_figures(gpu);
    hw.gemm_fixed_k = 0;
    hw.fp8_gemm_fixed_k = 0;
    return hw;
}

}  // namespace shardscope::test
