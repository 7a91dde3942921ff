#pragma once
// The parallel layout: degrees of every mesh axis, micro-batch, pipeline stage split.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/result.hpp"
#include "core/model/model.hpp"
#include "core/workload/workload.hpp"

namespace meshscope {

struct Layout {
  int64_t dp = 1;                     // data-parallel replicas (all of them, including FSDP shards)
  int64_t fsdp = 0;                   // ZeRO/FSDP shard-group size (HSDP); 0: the whole DP group
  int64_t tp = 1;                     // tensor parallel
  int64_t pp = 1;                     // pipeline stages
  int64_t vpp = 1;                    // virtual stages (model chunks) per pipeline rank, interleaved 1F1B
  int64_t cp = 1;                     // context parallel
  int64_t ep = 1;                     // expert parallel
  int64_t etp = 1;                    // expert tensor parallel
  bool sp = false;                    // sequence parallel (Korthikanti et al. §4.2.2)
  int64_t micro_batch = 1;            // sequences per micro-batch
  std::vector<int64_t> stage_layers;  // layers per pipeline stage (pp entries); empty: even split
  // Megatron-Core's --pipeline-model-parallel-layout ("Et*3|(tt|)*29,m|L"; parse_pipeline_layout):
  // what every model chunk holds, chunks in virtual-stage order; empty: stage_layers or even.
  std::string pipeline_layout;

  [[nodiscard]] int64_t world_size() const { return dp * tp * pp * cp; }
  [[nodiscard]] int64_t shard_group() const { return fsdp > 0 ? fsdp : dp; }
  // Megatron-Core's expert mesh: tp·cp·dp ranks of a stage = etp · ep · expert-dp.
  [[nodiscard]] int64_t expert_dp() const { return (tp * cp * dp) / (etp * ep); }
  bool operator==(const Layout&) const = default;
};

// One serving instance (engine) and how many copies of it run. An instance spans tp × pp × dp
// GPUs: attention and dense layers tensor-parallel over tp, layers pipelined over pp stages, and
// for MoE models attention data-parallel over dp (each dp rank has its own sequences; DeepSeek-V3
// report §3.4, vLLM --data-parallel-size with --enable-expert-parallel) with the experts spread
// over ep of the tp × dp ranks (the remaining factor tensor-splits each expert).
struct ServingLayout {
  int64_t tp = 1;
  int64_t pp = 1;
  int64_t dp = 1;  // attention data parallelism inside one instance
  int64_t ep = 1;
  int64_t replicas = 1;  // independent instances
  [[nodiscard]] int64_t instance_gpus() const { return tp * pp * dp; }
  [[nodiscard]] int64_t gpus() const { return instance_gpus() * replicas; }
  [[nodiscard]] int64_t expert_tp() const { return ep > 0 && (tp * dp) % ep == 0 ? tp * dp / ep : 1; }
  // The mesh of one instance in training-layout terms (memory, placement): dp = attention DP,
  // and for MoE models etp = tp·dp/ep.
  [[nodiscard]] Layout mesh(const ModelSpec& model) const;
  bool operator==(const ServingLayout&) const = default;
};

struct LayoutProblem {
  std::string field;    // the layout or workload key at fault ("tp", "pp", "global_batch", ...)
  std::string message;  // a sentence a user understands
};

// One model chunk (virtual stage) of a pipeline layout: its transformer layers, its multi-token-
// prediction layers (DeepSeek-V3 §2.2) and whether it holds the embedding or the loss.
struct ModelChunk {
  int64_t layers = 0;      // 't'
  int64_t mtp = 0;         // 'm'
  bool embedding = false;  // 'E'
  bool loss = false;       // 'L'
  bool operator==(const ModelChunk&) const = default;
};

// Megatron-Core's layout string (megatron/core/transformer/pipeline_parallel_layer_layout.py,
// parse_str_to_list): '|' ends a chunk, 'E' embedding, 't' transformer layer, 'm' MTP layer, 'L'
// loss; "x*n" repeats one symbol and "(...)*n" a group (not nested); commas are cosmetic. The
// chunks come in virtual-stage order, chunk c of pipeline rank r at c·pp + r. Only the syntax is
// checked here; validate_training_layout checks it against the model and the degrees.
[[nodiscard]] Result<std::vector<ModelChunk>> parse_pipeline_layout(std::string_view text);

// Every violated constraint, not just the first. world_size <= 0: not checked.
[[nodiscard]] std::vector<LayoutProblem> validate_training_layout(const ModelSpec& model,
                                                                  const TrainingWorkload& workload,
                                                                  const Layout& layout, int64_t world_size = 0);
[[nodiscard]] std::vector<LayoutProblem> validate_serving_layout(const ModelSpec& model, const Layout& layout,
                                                                 int64_t world_size = 0);

// Layers of each pipeline stage (explicit split, or the even split L / pp).
[[nodiscard]] std::vector<int64_t> layers_per_stage(const ModelSpec& model, const Layout& layout);
// Index of the first layer of each stage.
[[nodiscard]] std::vector<int64_t> first_layer_of_stage(const ModelSpec& model, const Layout& layout);
// Layers of each virtual stage u = chunk·pp + rank (the interleaved schedule's path through the
// model, SC21 §2.2.2), pp·vpp entries; with vpp = 1 the same as layers_per_stage. A rank's layers
// are spread over its chunks as evenly as possible; where they do not divide, the first rank's
// first chunk (with the embedding) and the other ranks' last chunks (the last one with the LM
// head) hold one fewer, as Llama 3 took a layer from the first and the last stage (Dubey et al.
// 2024 §3.3.2; Megatron-Core's --pipeline-model-parallel-layout expresses any such split).
[[nodiscard]] std::vector<int64_t> layers_per_virtual_stage(const ModelSpec& model, const Layout& layout);
// Index of the first layer of each virtual stage (layers run in virtual-stage order).
[[nodiscard]] std::vector<int64_t> first_layer_of_virtual_stage(const ModelSpec& model, const Layout& layout);
// MTP layers of each virtual stage (pp·vpp entries): those of the pipeline layout, else none.
[[nodiscard]] std::vector<int64_t> mtp_layers_per_virtual_stage(const Layout& layout);

[[nodiscard]] int64_t num_micro_batches(const TrainingWorkload& workload, const Layout& layout);

}  // namespace meshscope
