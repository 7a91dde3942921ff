#pragma once
// Importer for the text logs of training runs: per-iteration step time, throughput and memory, and, where the
// log holds the framework's argument dump, the model and the parallel layout that ran. docs/logs.md describes
// every line read, with examples.
//
// Formats read:
//  - Megatron-LM and Megatron-DeepSpeed (megatron/training/training.py training_log): " iteration N/ M | ... |
//    elapsed time per iteration (ms): X | throughput per GPU (TFLOP/s/GPU): X | ... | lm loss: X |", Megatron-
//    DeepSpeed's "samples per second: X | TFLOPs: X |" and "tokens per gpu per second (tgs): X"; the memory
//    report "[Rank N] (after K iterations) memory (MB) | allocated: A | max allocated: B | reserved: C |
//    max reserved: D" (torch.cuda.memory_allocated / max_memory_allocated / memory_reserved /
//    max_memory_reserved, in MiB); the "--- arguments ---" ... "--- end of arguments ---" block of
//    "name ....... value" lines; DeepSpeedExamples' Megatron "Effective Tera Flops per GPU: X" line after
//    an iteration.
//  - DeepSpeed: the engine's "global_step=N, RunningAvgSamplesPerSec=X, CurrSamplesPerSec=Y,
//    MemAllocated=AGB, MaxMemAllocated=BGB" lines, see_memory_usage's "MA x GB Max_MA y GB CA z GB Max_CA w GB"
//    (before training: kept as memory records, not as the peak), the config print "[config.py:N:print]
//    name ..... value"; accelerate/HF loops' "Step: N, LR: x, Loss: y" lines, timed by their ISO timestamps.
//  - torchtitan (torchtitan/components/metrics.py MetricsProcessor.log): "step: N  loss: x  memory: G GiB(P%)
//    tps: T  tflops: F  mfu: M%" where memory is device_mem_stats.max_reserved_gib (torch.cuda
//    max_memory_reserved, GiB) and tps is tokens per second per device; "Building N-D device mesh with
//    [names], [sizes]", "Training starts at step 1, with local batch size B, global batch size G, sequence
//    length S", "ModelArgs(dim=..., n_layers=..., ...)".
//  - NeMo: NeMo 2's ProgressPrinter "Training epoch E, iteration N/M | lr: x | global_batch_size: G | global_step: S |
//    ... | reduced_train_loss: L | train_step_timing in s: T | ..." (with, where the run logs them,
//    max_memory_reserved / max_memory_allocated in bytes, memory/peak_reserved_mem / memory/peak_allocated_mem in
//    units of 1e9 bytes, TFLOPS_per_GPU, tokens_per_sec_per_gpu), and NeMo 1's tqdm progress bar "Epoch E: : P%|...|
//    n/M [..., reduced_train_loss=L, global_step=S, consumed_samples=C, train_step_timing in s=T]", whose drawings
//    one physical line holds between carriage returns (the last drawing of a step is kept).
// Each line is first cleaned: ANSI colour codes (and "[31m" remnants whose ESC was lost) are removed, then
// launcher prefixes: ISO 8601 timestamps, "[2025-11-14 10:13:12]", pdsh "host: ", srun "0: ", "[rank0]:".
//
// Interleaved ranks: where iteration lines carry a rank prefix, the lowest rank's are taken; an iteration
// printed more than once keeps its first record (a warning says when the copies differ).
// Warm-up rule: the first iteration record with a step time is excluded from the statistics (it holds
// compilation, allocator growth, NCCL setup and, with Megatron's log_interval > 1, the average of the first
// interval); with a single record nothing is excluded and a warning says the figure includes warm-up.
// Odd but readable input gives warnings (data, never printed); a log without any iteration line, or a file that
// cannot be read, gives an Error with the file (and line where one is at fault).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/result.hpp"

namespace meshscope {

enum class TrainingFramework { megatron, megatron_deepspeed, deepspeed, torchtitan, nemo };
[[nodiscard]] const char* training_framework_name(TrainingFramework framework);

// One training iteration as the log reports it (one report line, with what later lines add to it).
struct LogIteration {
  int64_t iteration = 0;
  int64_t line = 0;                            // 1-based line of the report
  std::optional<double> step_time_s;           // the iteration's wall time (see MeasuredRun::step_time_source)
  std::optional<double> tflops_per_gpu;        // as printed (Megatron: model FLOPs incl. recompute per GPU)
  std::optional<double> tokens_per_s_per_gpu;  // printed (torchtitan tps, tgs) or derived (see the run's note)
  std::optional<double> samples_per_s;         // whole job
  std::optional<double> loss;                  // lm loss
  std::optional<double> mfu;                   // fraction (torchtitan prints a percentage)
  std::optional<double> max_reserved_bytes;    // torchtitan's step memory
  std::optional<double> max_allocated_bytes;   // DeepSpeed's MaxMemAllocated
  std::optional<int64_t> global_batch;         // Megatron's "global batch size"
};

// One memory report. Fields the line does not give are nullopt.
struct LogMemory {
  int64_t line = 0;
  std::optional<int64_t> rank;              // "[Rank N]"
  std::optional<int64_t> after_iterations;  // "(after K iterations)"; nullopt before training
  std::string label;                        // see_memory_usage's message ("After initializing ZeRO optimizer")
  std::optional<double> allocated_bytes, max_allocated_bytes, reserved_bytes, max_reserved_bytes;
};

// The model as the argument dump (or torchtitan's ModelArgs) gives it.
struct LogModelDims {
  std::optional<int64_t> num_layers, hidden_size, ffn_hidden_size, num_attention_heads, num_query_groups, seq_length,
      vocab_size, num_experts;
  // The rest of the architecture where the log says (Megatron: swiglu, normalization, position_embedding_type,
  // untie_embeddings_and_output_weights, add_bias_linear, kv_channels, max_position_embeddings, dropouts; torchtitan:
  // its Llama definition). vocab_size is the padded size ("padded vocab (size: V) with N dummy tokens (new size: P)").
  std::optional<int64_t> head_dim, max_position_embeddings;
  std::optional<bool> gated_mlp, rmsnorm, rotary, tied_embeddings, linear_bias, dropout;
};

// The parallel layout and training settings that ran.
struct LogLayout {
  std::optional<int64_t> world_size, tp, pp, cp, ep, vpp, dp, micro_batch, global_batch;
  std::optional<bool> sequence_parallel;
  std::optional<std::string> recompute;  // "none", "selective", "full"
  // torchtitan: "fused" where it logged compiling its blocks, "eager" where it logged applying its parallelisms
  // without compiling them (torchtitan's parallelize logs "Compiling each TransformerBlock with torch.compile").
  std::optional<std::string> kernels;
  std::optional<std::string> precision;  // "bf16", "fp16", "fp32"
  std::optional<bool> distributed_optimizer;
  std::optional<int64_t> zero_stage;  // DeepSpeed ZeRO stage; 1 for Megatron's distributed optimizer; 3 for FSDP
  // What meshscope's --layout and --train keys would say (only the keys the log gives): "tp=4,pp=2,dp=1,...".
  [[nodiscard]] std::string layout_keys() const;
  [[nodiscard]] std::string train_keys() const;
};

struct TrainingLogWarning {
  int64_t line = 0;  // 1-based; 0 for the log as a whole
  std::string message;
};

struct SpreadStats {
  int64_t count = 0;
  double median = 0, min = 0, max = 0;
  double relative_spread = 0;  // (max − min) / median
};

struct MeasuredRun {
  std::string origin;
  TrainingFramework framework = TrainingFramework::megatron;
  std::vector<LogIteration> iterations;      // one per iteration number, in log order
  std::vector<int64_t> excluded_iterations;  // the warm-up rule's (header comment)
  std::optional<SpreadStats> step_time_s;    // over the iterations after warm-up
  std::string step_time_source;              // "elapsed time per iteration (ms)", "tokens per step / tps", ...
  std::optional<SpreadStats> tflops_per_gpu, tokens_per_s_per_gpu, samples_per_s;
  std::string tokens_per_s_source;  // "printed" or how it was derived
  // The largest in-training memory figure and which quantity it is: "max allocated" (Megatron's memory report,
  // DeepSpeed's MaxMemAllocated) or "max reserved" (torchtitan). nullopt when the log has none.
  std::optional<double> peak_memory_bytes;
  std::string peak_memory_quantity;
  std::optional<double> max_reserved_bytes;  // the largest max reserved, where logged
  std::vector<LogMemory> memory;
  std::map<std::string, std::string> arguments;  // the argument dump (and DeepSpeed's config print)
  LogModelDims model;
  LogLayout layout;
  std::vector<TrainingLogWarning> warnings;
};

// text: the whole log; origin: the name used in messages. Errors (parse_error): no iteration line at all.
[[nodiscard]] Result<MeasuredRun> parse_training_log(std::string_view text, const std::string& origin);
// Reads a file (plain or gzip, recognised by its magic bytes) and parses it. Errors: io_error, parse_error.
[[nodiscard]] Result<MeasuredRun> load_training_log(const std::string& path);

// The median, range and relative spread of `values` (empty: nullopt).
[[nodiscard]] std::optional<SpreadStats> spread_stats(std::vector<double> values);

}  // namespace meshscope
