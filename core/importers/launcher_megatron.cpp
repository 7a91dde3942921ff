// Megatron-LM launch scripts and argument lists → plain values (launcher_config.hpp). Each flag's
// meaning and default is megatron/training/arguments.py's (NVIDIA/Megatron-LM, _add_network_size_args,
// _add_training_args, _add_mixed_precision_args, _add_distributed_args, validate_args); docs/launchers.md
// lists the mapping.
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "core/importers/launcher_args.hpp"
#include "core/importers/launcher_bash.hpp"
#include "core/importers/launcher_config.hpp"
#include "core/keys/options.hpp"

namespace meshscope {
namespace launcher_detail {

ArgList::ArgList(const std::vector<ScriptWord>& words, std::string origin) : origin_(std::move(origin)) {
  for (const ScriptWord& word : words) {
    const std::string& w = word.text;
    if (w.starts_with("--") && w.size() > 2) {
      ArgFlag flag;
      const size_t eq = w.find('=');
      flag.name = w.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
      if (eq != std::string::npos) flag.values.push_back(w.substr(eq + 1));
      flag.line = word.line;
      flags_.push_back(std::move(flag));
    } else if (!flags_.empty()) {
      flags_.back().values.push_back(w);
    }
  }
}

const ArgFlag* ArgList::find(const std::string& name) {
  const ArgFlag* found = nullptr;
  for (const ArgFlag& flag : flags_) {
    std::string normalized = flag.name;
    std::replace(normalized.begin(), normalized.end(), '_', '-');
    if (normalized == name) found = &flag;
  }
  if (found) used_.insert(found->name);
  return found;
}

std::string ArgList::where(const ArgFlag& flag) const {
  return origin_ + ": line " + std::to_string(flag.line) + ": --" + flag.name;
}

Result<std::optional<std::string>> ArgList::text(const std::string& name) {
  const ArgFlag* flag = find(name);
  if (!flag) return std::optional<std::string>{};
  if (flag->values.empty())
    return make_error(ErrorCode::invalid_argument, "--" + flag->name + " needs a value", where(*flag));
  return std::optional<std::string>(flag->values.front());
}

Result<std::optional<int64_t>> ArgList::integer(const std::string& name) {
  MS_TRY(value, text(name));
  if (!value) return std::optional<int64_t>{};
  int64_t v = 0;
  const char* end = value->data() + value->size();
  const auto [ptr, ec] = std::from_chars(value->data(), end, v);
  if (ec != std::errc() || ptr != end || v > kMaxConfigInteger || v < -kMaxConfigInteger) {
    const bool placeholder = value->starts_with("<");
    return make_error(ErrorCode::invalid_argument,
                      "--" + name + " must be an integer up to 2^31, got \"" + *value + "\"" +
                          (placeholder ? " (a value the script does not define)" : ""),
                      where(*find(name)));
  }
  return std::optional<int64_t>(v);
}

Result<std::optional<double>> ArgList::number(const std::string& name) {
  MS_TRY(value, text(name));
  if (!value) return std::optional<double>{};
  double v = 0;
  const char* begin = value->data();
  const char* end = begin + value->size();
  if (!value->empty() && *begin == '.') {  // ".001": from_chars wants the leading 0
    const std::string with_zero = "0" + *value;
    const auto [ptr, ec] = std::from_chars(with_zero.data(), with_zero.data() + with_zero.size(), v);
    if (ec == std::errc() && ptr == with_zero.data() + with_zero.size()) return std::optional<double>(v);
  } else {
    const auto [ptr, ec] = std::from_chars(begin, end, v);
    if (ec == std::errc() && ptr == end && std::isfinite(v)) return std::optional<double>(v);
  }
  return make_error(ErrorCode::invalid_argument, "--" + name + " must be a number, got \"" + *value + "\"",
                    where(*find(name)));
}

}  // namespace launcher_detail

namespace {

using launcher_detail::ArgList;
using launcher_detail::kMaxConfigInteger;

// Flags that change what a run costs but that meshscope does not model, with why (the rest of the
// flags not read are listed as ignored: learning rate, logging, data, checkpointing, ...).
struct UnmodelledFlag {
  std::string_view name;
  std::string_view why;
};
constexpr std::array<UnmodelledFlag, 14> kMegatronUnmodelled{{
    {"rampup-batch-size", "a batch-size ramp: the estimate is of the final --global-batch-size"},
    {"step-batch-size-schedule", "a batch-size schedule: the estimate is of the final --global-batch-size"},
    {"fp8-param-gather", "FP8 weights gathered (the distributed optimizer's all-gather in FP8): modelled as 16-bit"},
    {"cross-entropy-loss-fusion", "the fused cross-entropy's smaller logits buffers: not modelled"},
    {"empty-unused-memory-level", "the allocator cache emptied each step: not modelled"},
    {"manual-gc", "Python garbage collection at fixed steps: host time not modelled"},
    {"moe-grouped-gemm", "grouped expert GEMMs: the expert GEMM efficiency is not changed"},
    {"optimizer-cpu-offload", "the optimizer on the CPU: not modelled"},
    {"cpu-offloading",
     "activations (or weights) of the first --cpu-offloading-num-layers layers kept on the CPU between forward and "
     "backward: not modelled — the memory budget keeps them on the GPU, the step has no host-link transfers"},
    {"cpu-offloading-num-layers", "the layers --cpu-offloading moves to the CPU: not modelled"},
    {"use-torch-fsdp2", "Megatron-LM with FSDP2: modelled as the distributed optimizer"},
    {"use-custom-fsdp", "Megatron-FSDP: modelled as the distributed optimizer"},
    {"defer-embedding-wgrad-compute", "the embedding's weight gradient deferred: not modelled"},
    {"num-distributed-optimizer-instances", "a partial distributed optimizer: modelled as sharded over all of DP"},
}};

// Megatron pads the vocabulary to a multiple of --make-vocab-size-divisible-by (default 128) times TP
// (megatron/training/tokenizer/tokenizer.py, _vocab_size_with_padding).
Result<int64_t> padded_vocab(int64_t vocab, int64_t divisible_by, int64_t tp, const std::string& origin) {
  MS_TRY(multiple, launcher_detail::checked_product(divisible_by, tp, origin + ": --make-vocab-size-divisible-by"));
  MS_TRY(padded,
         launcher_detail::checked_product((vocab + multiple - 1) / multiple, multiple, origin + ": --vocab-size"));
  return padded;
}

// Megatron-Core's uneven pipeline splits, written as a pipeline layout (PipelineParallelLayerLayout's
// language, chunks listed virtual stage by virtual stage with the pipeline ranks within):
// --account-for-embedding/loss-in-pipeline-split count the embedding and the loss as a layer each
// (validate_args adds them to num_layers), so every chunk holds (L + e + l) / (PP·VP) and the first
// and the last chunk build one transformer layer fewer; --decoder-first/last-pipeline-num-layers
// give the first and the last stage's layers, the rest even over the stages between, each stage's
// layers even over its VP chunks (megatron/core/transformer/transformer_block.py
// get_num_layers_to_build, TransformerConfig's checks). An empty string: no uneven split.
Result<std::string> uneven_pipeline_layout(int64_t layers, int64_t pp, int64_t vpp, int64_t embedding, int64_t loss,
                                           std::optional<int64_t> first, std::optional<int64_t> last) {
  if (pp < 2 || (embedding + loss == 0 && !first && !last)) return std::string();
  const int64_t chunks = pp * vpp;
  std::vector<int64_t> per_chunk(static_cast<size_t>(chunks));
  if (embedding + loss > 0) {
    const int64_t total = layers + embedding + loss;
    if (total % chunks != 0)
      return make_error(ErrorCode::invalid_layout,
                        std::to_string(layers) + " layers with the embedding and loss counted (" +
                            std::to_string(total) + ") do not divide over " + std::to_string(chunks) + " model chunks");
    std::fill(per_chunk.begin(), per_chunk.end(), total / chunks);
    per_chunk.front() -= embedding;
    per_chunk.back() -= loss;
  } else {
    const int64_t ends = (first ? 1 : 0) + (last ? 1 : 0);
    const int64_t rest = layers - first.value_or(0) - last.value_or(0);
    const int64_t middle_stages = pp - ends;
    if (rest < 0 || (middle_stages == 0 && rest != 0) || (middle_stages > 0 && rest % middle_stages != 0))
      return make_error(ErrorCode::invalid_layout, "the " + std::to_string(rest) +
                                                       " layers between the first and the last stage do not divide "
                                                       "over the " +
                                                       std::to_string(middle_stages) + " stages between");
    for (int64_t rank = 0; rank < pp; ++rank) {
      int64_t stage = middle_stages > 0 ? rest / middle_stages : 0;
      if (rank == 0 && first) stage = *first;
      if (rank == pp - 1 && last) stage = *last;
      if (stage % vpp != 0)
        return make_error(ErrorCode::invalid_layout, "stage " + std::to_string(rank) + "'s " + std::to_string(stage) +
                                                         " layers do not divide over its " + std::to_string(vpp) +
                                                         " virtual stages");
      for (int64_t v = 0; v < vpp; ++v) per_chunk[static_cast<size_t>(v * pp + rank)] = stage / vpp;
    }
  }
  std::string text;
  for (size_t i = 0; i < per_chunk.size(); ++i) {
    if (per_chunk[i] < 0)
      return make_error(ErrorCode::invalid_layout,
                        "a model chunk would hold " + std::to_string(per_chunk[i]) + " layers");
    if (i > 0) text += "|";
    if (i == 0) text += "E";
    if (per_chunk[i] > 0) text += per_chunk[i] == 1 ? "t" : "t*" + std::to_string(per_chunk[i]);
    if (i + 1 == per_chunk.size()) text += "L";
  }
  return text;
}

std::string describe(const std::vector<std::string>& values) {
  std::string out;
  for (const auto& v : values) out += " " + v;
  return out;
}

// A flag pretrain_gpt.py requires, positive.
Result<int64_t> required_positive(ArgList& args, const std::string& name) {
  MS_TRY(value, args.integer(name));
  if (!value)
    return make_error(ErrorCode::missing_field, "--" + name + " is missing (pretrain_gpt.py requires it)",
                      args.origin() + ": --" + name);
  if (*value < 1)
    return make_error(ErrorCode::invalid_argument, "--" + name + " must be positive, got " + std::to_string(*value),
                      args.where(*args.find(name)));
  return *value;
}

// A positive flag, `fallback` when it is not given.
Result<int64_t> positive_or(ArgList& args, const std::string& name, int64_t fallback) {
  MS_TRY(value, args.integer(name));
  if (value && *value < 1)
    return make_error(ErrorCode::invalid_argument, "--" + name + " must be positive, got " + std::to_string(*value),
                      args.where(*args.find(name)));
  return value.value_or(fallback);
}

// The model the arguments describe, before its vocabulary, and the sequence length.
struct MegatronModel {
  ModelSpec spec;
  int64_t seq = 0;
};

// The transformer's shape, attention, MLP, norms, position embedding, biases and dropout
// (_add_network_size_args).
Result<MegatronModel> read_model_shape(ArgList& args, ImportedLaunch& out) {
  MegatronModel result;
  ModelSpec& model = result.spec;
  MS_TRY(layers, required_positive(args, "num-layers"));
  MS_TRY(hidden, required_positive(args, "hidden-size"));
  MS_TRY(heads, required_positive(args, "num-attention-heads"));
  MS_TRY(seq, required_positive(args, "seq-length"));
  result.seq = seq;
  model.num_layers = layers;
  model.hidden_size = hidden;
  model.num_heads = heads;
  model.num_kv_heads = heads;
  if (args.has("group-query-attention")) {
    MS_TRY(groups, positive_or(args, "num-query-groups", 1));  // default 1 (arguments.py)
    model.num_kv_heads = groups;
  } else if (args.has("num-query-groups")) {
    out.warnings.emplace_back("--num-query-groups without --group-query-attention has no effect (arguments.py)");
  }
  MS_TRY(kv_channels, positive_or(args, "kv-channels", hidden / heads));  // hidden / heads when not given
  model.head_dim = kv_channels;
  const bool swiglu = args.has("swiglu");
  model.mlp = swiglu ? MlpKind::gated : MlpKind::plain;
  // --ffn-hidden-size defaults to 4·hidden, and with --swiglu to int(4·hidden·2/3 / 64)·64 (validate_args).
  const int64_t ffn_default =
      swiglu ? static_cast<int64_t>(4.0 * static_cast<double>(hidden) * 2.0 / 3.0 / 64.0) * 64 : 4 * hidden;
  MS_TRY(ffn, positive_or(args, "ffn-hidden-size", ffn_default));
  model.ffn_hidden_size = ffn;
  MS_TRY(normalization, args.text("normalization"));  // default LayerNorm
  if (normalization && *normalization == "RMSNorm")
    model.norm = NormKind::rmsnorm;
  else if (!normalization || *normalization == "LayerNorm")
    model.norm = NormKind::layernorm;
  else
    return make_error(ErrorCode::unsupported, "--normalization must be LayerNorm or RMSNorm, got " + *normalization,
                      args.where(*args.find("normalization")));
  MS_TRY(position, args.text("position-embedding-type"));  // default learned_absolute
  if (args.has("use-rotary-position-embeddings") || (position && *position == "rope")) {
    model.position = PositionKind::rotary;
  } else if (!position || *position == "learned_absolute") {
    model.position = PositionKind::learned;
  } else {
    model.position = PositionKind::rotary;
    out.unmodelled.push_back("--position-embedding-type " + *position + ": modelled as rotary (no parameters)");
  }
  MS_TRY(max_positions, positive_or(args, "max-position-embeddings", seq));
  model.max_position_embeddings = max_positions;
  model.tied_embeddings = !args.has("untie-embeddings-and-output-weights");
  // Biases: --add-bias-linear is the default, --disable-bias-linear turns it off; --add-qkv-bias adds q/k/v biases.
  const bool bias = !args.has("disable-bias-linear");
  (void)args.has("add-bias-linear");
  model.qkv_bias = bias || args.has("add-qkv-bias");
  model.attn_out_bias = bias;
  model.mlp_bias = bias;
  model.qk_norm = args.has("qk-layernorm");
  MS_TRY(attention_dropout, args.number("attention-dropout"));  // default 0.1
  MS_TRY(hidden_dropout, args.number("hidden-dropout"));        // default 0.1
  model.dropout = attention_dropout.value_or(0.1) > 0 || hidden_dropout.value_or(0.1) > 0;
  return result;
}

// The experts, when --num-experts is above 0 (_add_moe_args).
Result<MoeSpec> read_moe(ArgList& args, const ModelSpec& model) {
  MoeSpec moe = model.moe;
  MS_TRY(experts, args.integer("num-experts"));
  if (!experts || *experts <= 0) return moe;
  moe.num_experts = *experts;
  MS_TRY(top_k, positive_or(args, "moe-router-topk", 2));
  moe.top_k = top_k;
  MS_TRY(expert_ffn, positive_or(args, "moe-ffn-hidden-size", model.ffn_hidden_size));
  moe.expert_ffn_hidden_size = expert_ffn;
  MS_TRY(shared, args.integer("moe-shared-expert-intermediate-size"));
  if (shared && *shared > 0) {
    moe.num_shared_experts = 1;
    moe.shared_expert_ffn_hidden_size = *shared;
  }
  MS_TRY(frequency, args.integer("moe-layer-freq"));
  if (frequency) moe.layer_frequency = *frequency;
  return moe;
}

struct ParallelSizes {
  int64_t tp = 1;
  int64_t pp = 1;
  int64_t cp = 1;
  int64_t ep = 1;
  int64_t etp = 1;
};

// The parallel sizes (_add_distributed_args), each 1 by default.
Result<ParallelSizes> read_parallel_sizes(ArgList& args, const ModelSpec& model) {
  ParallelSizes sizes;
  MS_TRY(tp, positive_or(args, "tensor-model-parallel-size", 1));
  MS_TRY(pp, positive_or(args, "pipeline-model-parallel-size", 1));
  MS_TRY(cp, positive_or(args, "context-parallel-size", 1));
  MS_TRY(ep, positive_or(args, "expert-model-parallel-size", 1));
  // --expert-tensor-parallel-size defaults to the tensor-parallel size (arguments.py).
  MS_TRY(etp, positive_or(args, "expert-tensor-parallel-size", model.moe.num_experts > 0 ? tp : 1));
  sizes.tp = tp;
  sizes.pp = pp;
  sizes.cp = cp;
  sizes.ep = ep;
  sizes.etp = etp;
  return sizes;
}

// The vocabulary: --vocab-size, else the tokenizer's, padded as Megatron pads it.
Result<int64_t> read_vocabulary(ArgList& args, int64_t tp, ImportedLaunch& out) {
  MS_TRY(divisible_by, positive_or(args, "make-vocab-size-divisible-by", 128));
  MS_TRY(vocab_size, args.integer("vocab-size"));
  MS_TRY(tokenizer, args.text("tokenizer-type"));
  (void)args.has("tokenizer-model");
  int64_t vocab = 0;
  if (vocab_size) {
    vocab = *vocab_size;
  } else if ((!tokenizer || *tokenizer == "GPT2BPETokenizer") && args.has("vocab-file")) {
    // GPT-2's BPE vocabulary (gpt2-vocab.json) has 50,257 tokens.
    vocab = 50257;
    (void)args.has("merge-file");
    out.warnings.push_back("the vocabulary is GPT-2 BPE's 50257 tokens (--vocab-file with " +
                           std::string(tokenizer ? "GPT2BPETokenizer" : "no --tokenizer-type") + ")");
  } else {
    vocab = 50257;
    out.warnings.push_back("no --vocab-size and no tokenizer meshscope knows the size of" +
                           (tokenizer ? " (" + *tokenizer + ")" : std::string()) +
                           ": 50257 tokens (GPT-2) assumed; add --vocab-size N");
  }
  return padded_vocab(vocab, divisible_by, tp, args.origin());
}

// torchrun's --nnodes, 1 when not given; MIN:MAX is accepted and the maximum is the size run.
Result<int64_t> torchrun_nodes(ArgList& launcher) {
  MS_TRY(nnodes_value, launcher.text("nnodes"));
  if (!nnodes_value) return int64_t{1};
  const std::string max_part =
      nnodes_value->substr(nnodes_value->find(':') == std::string::npos ? 0 : nnodes_value->find(':') + 1);
  int64_t v = 0;
  const auto [ptr, ec] = std::from_chars(max_part.data(), max_part.data() + max_part.size(), v);
  if (ec != std::errc() || ptr != max_part.data() + max_part.size() || v < 1 || v > kMaxConfigInteger)
    return make_error(ErrorCode::invalid_argument, "--nnodes must be a positive integer, got \"" + *nnodes_value + "\"",
                      launcher.where(*launcher.find("nnodes")));
  return v;
}

struct GpuCount {
  int64_t gpus = 0;
  int64_t dp = 0;
};

// GPUs: --gpus, else torchrun's --nproc_per_node × --nnodes, else TP × PP × CP; DP is what is left.
Result<GpuCount> read_gpu_count(ArgList& launcher, const ParallelSizes& sizes, std::optional<int64_t> gpus_option,
                                ImportedLaunch& out) {
  const std::string& origin = launcher.origin();
  MS_TRY(nproc, launcher.integer("nproc-per-node"));
  MS_TRY(nodes, torchrun_nodes(launcher));
  MS_TRY(tp_pp, launcher_detail::checked_product(sizes.tp, sizes.pp, origin + ": --pipeline-model-parallel-size"));
  MS_TRY(model_parallel, launcher_detail::checked_product(tp_pp, sizes.cp, origin + ": --context-parallel-size"));
  int64_t gpus = 0;
  if (gpus_option) {
    gpus = *gpus_option;
  } else if (nproc) {
    MS_TRY(world, launcher_detail::checked_product(*nproc, nodes, origin + ": --nnodes"));
    gpus = world;
    if (gpus % model_parallel != 0) {
      out.warnings.push_back("torchrun's " + std::to_string(gpus) +
                             " GPUs (--nproc_per_node × --nnodes) are not a "
                             "multiple of TP × PP × CP = " +
                             std::to_string(model_parallel) + ": " + std::to_string(model_parallel) +
                             " GPUs (DP = 1) used; pass --gpus N");
      gpus = model_parallel;
    }
  } else {
    gpus = model_parallel;
    out.warnings.push_back("the GPU count is not in the file (no torchrun --nproc_per_node): " + std::to_string(gpus) +
                           " GPUs (TP × PP × CP, DP = 1) used; pass --gpus N");
  }
  if (gpus < 1 || gpus % model_parallel != 0)
    return make_error(
        ErrorCode::invalid_layout,
        std::to_string(gpus) + " GPUs are not a multiple of TP × PP × CP = " + std::to_string(model_parallel),
        origin + ": --gpus");
  return GpuCount{gpus, gpus / model_parallel};
}

// The flags that split the layers over the pipeline unevenly or into virtual stages.
struct PipelineSplitFlags {
  std::optional<int64_t> layers_per_virtual;  // --num-layers-per-virtual-pipeline-stage
  std::optional<int64_t> virtual_stages;      // --num-virtual-stages-per-pipeline-rank
  int64_t embedding_layer = 0;                // --account-for-embedding-in-pipeline-split: 1
  int64_t loss_layer = 0;                     // --account-for-loss-in-pipeline-split: 1
  std::optional<int64_t> first_stage_layers;  // --decoder-first-pipeline-num-layers
  std::optional<int64_t> last_stage_layers;   // --decoder-last-pipeline-num-layers
  std::string first_flag;                     // the first of the two that is given
};

Result<PipelineSplitFlags> read_pipeline_split_flags(ArgList& args) {
  PipelineSplitFlags split;
  MS_TRY(layers_per_virtual, args.integer("num-layers-per-virtual-pipeline-stage"));
  MS_TRY(virtual_stages, args.integer("num-virtual-stages-per-pipeline-rank"));
  split.layers_per_virtual = layers_per_virtual;
  split.virtual_stages = virtual_stages;
  split.embedding_layer = args.has("account-for-embedding-in-pipeline-split") ? 1 : 0;
  split.loss_layer = args.has("account-for-loss-in-pipeline-split") ? 1 : 0;
  MS_TRY(first_stage_layers, args.integer("decoder-first-pipeline-num-layers"));
  MS_TRY(last_stage_layers, args.integer("decoder-last-pipeline-num-layers"));
  split.first_stage_layers = first_stage_layers;
  split.last_stage_layers = last_stage_layers;
  split.first_flag = first_stage_layers ? "decoder-first-pipeline-num-layers" : "decoder-last-pipeline-num-layers";
  return split;
}

// Virtual stages: --num-layers-per-virtual-pipeline-stage n gives L / (PP · n) chunks per rank;
// --num-virtual-stages-per-pipeline-rank gives them directly.
Result<int64_t> virtual_stages_per_rank(ArgList& args, const PipelineSplitFlags& split, int64_t layers, int64_t pp) {
  if (split.layers_per_virtual) {
    // validate_args: the embedding and the loss count as layers here too; uneven first/last stages
    // need --num-virtual-stages-per-pipeline-rank.
    if (split.first_stage_layers || split.last_stage_layers)
      return make_error(ErrorCode::invalid_layout,
                        "uneven first/last stages take --num-virtual-stages-per-pipeline-rank, not "
                        "--num-layers-per-virtual-pipeline-stage (Megatron-LM's validate_args)",
                        args.where(*args.find(split.first_flag)));
    const int64_t per_virtual = *split.layers_per_virtual;
    const int64_t total = layers + split.embedding_layer + split.loss_layer;
    if (per_virtual < 1 || per_virtual > total || total % (pp * per_virtual) != 0)
      return make_error(ErrorCode::invalid_layout,
                        "--num-layers-per-virtual-pipeline-stage " + std::to_string(per_virtual) +
                            " does not divide the " + std::to_string(total) + " layers over " + std::to_string(pp) +
                            " stages",
                        args.where(*args.find("num-layers-per-virtual-pipeline-stage")));
    return total / (pp * per_virtual);
  }
  if (split.virtual_stages) return *split.virtual_stages;
  return int64_t{1};
}

// The pipeline's virtual stages per rank and, where the layers are not split evenly, its pipeline
// layout (the pp_layout key, added to `layout_keys`).
Result<int64_t> read_pipeline_layout(ArgList& args, int64_t layers, int64_t pp, KeyValues& layout_keys) {
  MS_TRY(split, read_pipeline_split_flags(args));
  MS_TRY(vpp, virtual_stages_per_rank(args, split, layers, pp));
  // --pipeline-model-parallel-layout: what each model chunk holds; its chunks ÷ PP are the virtual
  // stages (PipelineParallelLayerLayout.__init__).
  MS_TRY(pipeline_layout, args.text("pipeline-model-parallel-layout"));
  if (pipeline_layout) {
    const auto chunks = parse_pipeline_layout(*pipeline_layout);
    if (!chunks)
      return make_error(ErrorCode::invalid_layout, chunks.error().message,
                        args.where(*args.find("pipeline-model-parallel-layout")));
    vpp = std::max<int64_t>(1, static_cast<int64_t>(chunks->size()) / pp);
    layout_keys.push_back({"pp_layout", *pipeline_layout});
  }
  const bool counted = split.embedding_layer + split.loss_layer > 0;
  const bool uneven_ends = split.first_stage_layers || split.last_stage_layers;
  if (counted || uneven_ends) {
    const std::string flag = split.embedding_layer > 0 ? "account-for-embedding-in-pipeline-split"
                             : split.loss_layer > 0    ? "account-for-loss-in-pipeline-split"
                                                       : split.first_flag;
    if (pipeline_layout || (counted && uneven_ends))
      return make_error(ErrorCode::invalid_layout,
                        "--" + flag + " with " +
                            (pipeline_layout ? "--pipeline-model-parallel-layout" : "uneven first/last stages") +
                            ": Megatron-LM takes one way of splitting the layers",
                        args.where(*args.find(flag)));
    auto uneven = uneven_pipeline_layout(layers, pp, vpp, split.embedding_layer, split.loss_layer,
                                         split.first_stage_layers, split.last_stage_layers);
    if (!uneven)
      return make_error(ErrorCode::invalid_layout, "--" + flag + ": " + uneven.error().message,
                        args.where(*args.find(flag)));
    if (!uneven->empty()) layout_keys.push_back({"pp_layout", *uneven});
  }
  return vpp;
}

struct MegatronLayout {
  Layout layout;
  int64_t vpp = 1;
  int64_t micro = 1;
};

// The layout: the parallel sizes, the pipeline's split, sequence parallelism and the micro-batch.
Result<MegatronLayout> read_layout(ArgList& args, const ParallelSizes& sizes, int64_t dp, int64_t layers,
                                   ImportedLaunch& out) {
  MegatronLayout result;
  KeyValues layout_keys{{"dp", std::to_string(dp)},       {"tp", std::to_string(sizes.tp)},
                        {"pp", std::to_string(sizes.pp)}, {"cp", std::to_string(sizes.cp)},
                        {"ep", std::to_string(sizes.ep)}, {"etp", std::to_string(sizes.etp)}};
  MS_TRY(vpp, read_pipeline_layout(args, layers, sizes.pp, layout_keys));
  result.vpp = vpp;
  layout_keys.push_back({"vpp", std::to_string(vpp)});
  bool sp = args.has("sequence-parallel");
  if (sp && sizes.tp == 1) {
    // validate_args: "Disabling sequence parallelism because tensor model parallelism is disabled".
    out.warnings.emplace_back("--sequence-parallel with TP = 1 is turned off, as Megatron-LM does (validate_args)");
    sp = false;
  }
  layout_keys.push_back({"sp", sp ? "true" : "false"});
  MS_TRY(micro, positive_or(args, "micro-batch-size", 1));
  result.micro = micro;
  layout_keys.push_back({"micro_batch", std::to_string(micro)});
  auto layout = layout_from_keys(layout_keys);
  if (!layout) return tl::unexpected(layout.error());
  result.layout = *layout;
  return result;
}

// What a group of workload flags reads and where it writes: the workload keys, and the lists.
struct WorkloadFlags {
  ArgList& args;
  KeyValues& keys;
  ImportedLaunch& out;
  const ModelSpec& model;
  int64_t vpp = 1;
  bool distributed_optimizer = false;
};

// Precision (_add_mixed_precision_args): FP8 or NVFP4 GEMMs over 16-bit weights, and the FP8 recipe.
Result<void> precision_flags(WorkloadFlags& w) {
  ArgList& args = w.args;
  const bool fp8 = args.has("fp8-format");
  if (fp8) {
    (void)args.has("fp8-amax-history-len");
    (void)args.has("fp8-amax-compute-algo");
    (void)args.has("fp8-margin");
  }
  // NVFP4 (--fp4-format e2m1, whose only recipe is --fp4-recipe nvfp4: Transformer Engine's
  // NVFP4BlockScaling); Megatron-LM takes FP8 or FP4, not both.
  const bool fp4 = args.has("fp4-format");
  if (fp4 && fp8)
    return make_error(ErrorCode::invalid_argument, "--fp8-format and --fp4-format together: Megatron-LM takes one",
                      args.where(*args.find("fp4-format")));
  MS_TRY(fp4_recipe, args.text("fp4-recipe"));
  if (fp4 && fp4_recipe && *fp4_recipe != "nvfp4")
    w.out.unmodelled.push_back("--fp4-recipe " + *fp4_recipe + ": modelled as nvfp4");
  const std::string low = fp8 ? "fp8" : "nvfp4";
  if (args.has("fp16")) {
    w.keys.push_back({"precision", fp8 || fp4 ? low : "fp16"});
    if (fp8 || fp4) w.keys.push_back({"param_dtype", "fp16"});
  } else {
    w.keys.push_back({"precision", fp8 || fp4 ? low : "bf16"});
    if (!args.has("bf16"))
      w.out.unmodelled.emplace_back("no --bf16 or --fp16: fp32 training is not modelled (bf16 assumed)");
  }
  // The FP8 scaling recipe (--fp8-recipe: delayed, the default, tensorwise, mxfp8, blockwise, custom).
  MS_TRY(fp8_recipe, args.text("fp8-recipe"));
  if (fp8 && fp8_recipe) {
    if (*fp8_recipe == "tensorwise")
      w.keys.push_back({"fp8_recipe", "current"});
    else if (*fp8_recipe == "delayed" || *fp8_recipe == "mxfp8" || *fp8_recipe == "blockwise")
      w.keys.push_back({"fp8_recipe", *fp8_recipe});
    else
      w.out.unmodelled.push_back("--fp8-recipe " + *fp8_recipe + ": modelled as delayed scaling");
  }
  return {};
}

// The optimizer: the distributed optimizer shards its state (ZeRO-1), and the gradients' dtype.
Result<void> optimizer_flags(WorkloadFlags& w) {
  w.keys.push_back({"zero", w.distributed_optimizer ? "1" : "0"});
  if (w.args.has("grad-reduce-in-bf16")) w.keys.push_back({"grad_dtype", "bf16"});
  if (w.args.has("accumulate-allreduce-grads-in-fp32")) w.keys.push_back({"grad_dtype", "fp32"});
  return {};
}

// Recomputation (_add_training_args): granularity full with method block and N layers → N layers per
// stage; full otherwise → full; selective (or the old --recompute-activations) → selective; none given → none.
Result<void> recompute_flags(WorkloadFlags& w) {
  ArgList& args = w.args;
  MS_TRY(granularity, args.text("recompute-granularity"));
  MS_TRY(method, args.text("recompute-method"));
  MS_TRY(recompute_layers, args.integer("recompute-num-layers"));
  std::string recompute = "none";
  if (args.has("recompute-activations") || (granularity && *granularity == "selective")) {
    recompute = "selective";
  } else if (granularity && *granularity == "full") {
    recompute = method && *method == "block" && recompute_layers ? std::to_string(*recompute_layers) : "full";
  } else if (granularity) {
    return make_error(ErrorCode::invalid_argument,
                      "--recompute-granularity must be full or selective, got " + *granularity,
                      args.where(*args.find("recompute-granularity")));
  }
  w.keys.push_back({"recompute", recompute});
  // --recompute-modules (nargs='*'; megatron/training/arguments.py): the selective recompute's
  // submodules. Names meshscope does not model (a fork's, or the EP-overlap segments
  // a2a_overlap_*) are listed as unmodelled; the others are the key's.
  if (const auto* modules = args.find("recompute-modules"); modules != nullptr) {
    std::string known;
    for (const std::string& name : modules->values) {
      if (name == "none" || !parse_recompute_modules(name)) {
        w.out.unmodelled.push_back("--recompute-modules " + name + ": a submodule meshscope does not model");
        continue;
      }
      known += (known.empty() ? "" : "+") + name;
    }
    w.keys.push_back({"recompute_modules", known.empty() ? "none" : known});
  }
  return {};
}

// The pipeline schedule and the communication overlapped with compute (TP, DP, EP, PP and CP).
Result<void> overlap_flags(WorkloadFlags& w) {
  ArgList& args = w.args;
  if (w.vpp > 1) w.keys.push_back({"schedule", "interleaved"});
  if (args.has("tp-comm-overlap")) w.keys.push_back({"tp_comm_overlap", "true"});
  if (args.has("overlap-grad-reduce")) w.keys.push_back({"overlap_grad_reduce", "true"});
  if (args.has("overlap-param-gather")) w.keys.push_back({"overlap_param_gather", "true"});
  if (args.has("overlap-moe-expert-parallel-comm")) w.keys.push_back({"ep_comm_overlap", "true"});
  // Megatron-LM of 2023 had the opposite flag, --overlap-p2p-communication, off unless given.
  if (args.has("overlap-p2p-communication")) w.keys.push_back({"overlap_p2p_comm", "true"});
  if (args.has("no-overlap-p2p-communication")) w.keys.push_back({"overlap_p2p_comm", "false"});
  if (args.has("overlap-p2p-communication-warmup-flush")) w.keys.push_back({"overlap_p2p_comm_warmup_flush", "true"});
  MS_TRY(cp_comm, args.text("cp-comm-type"));
  if (cp_comm) {
    if (*cp_comm == "a2a")
      w.keys.push_back({"cp_comm", "a2a"});
    else if (*cp_comm != "p2p")
      w.out.unmodelled.push_back("--cp-comm-type " + *cp_comm + ": modelled as p2p");
  }
  return {};
}

// CUDA graphs (--enable-cuda-graph, --external-cuda-graph, --cuda-graph-impl) and what they capture.
Result<void> cuda_graph_flags(WorkloadFlags& w) {
  ArgList& args = w.args;
  MS_TRY(cuda_graph_impl, args.text("cuda-graph-impl"));
  if (args.has("enable-cuda-graph") || args.has("external-cuda-graph") ||
      (cuda_graph_impl && *cuda_graph_impl != "none"))
    w.keys.push_back({"cuda_graphs", "true"});
  // --cuda-graph-scope takes several scopes (nargs='+'); the router's and the dispatcher's
  // preprocessing are the ones the model counts beyond the layers' attention.
  if (const auto* scope = args.find("cuda-graph-scope");
      scope != nullptr && std::find(scope->values.begin(), scope->values.end(), "moe_router") != scope->values.end())
    w.keys.push_back({"cuda_graph_moe_router", "true"});
  return {};
}

// The MoE token dispatcher and token dropping (_add_moe_args).
Result<void> moe_flags(WorkloadFlags& w) {
  ArgList& args = w.args;
  // The MoE token dispatcher (--moe-token-dispatcher-type: allgather, the default, alltoall, flex).
  MS_TRY(dispatcher, args.text("moe-token-dispatcher-type"));
  if (dispatcher && (*dispatcher == "alltoall" || *dispatcher == "flex")) {
    w.keys.push_back({"moe_dispatcher", *dispatcher});
  } else if (w.model.is_moe()) {
    w.out.unmodelled.push_back("--moe-token-dispatcher-type " + dispatcher.value_or("allgather (the default)") +
                               ": modelled as alltoall");
  }
  // Token dropping (--moe-expert-capacity-factor): with --moe-pad-expert-input-to-capacity every
  // expert computes its padded capacity (the key); without it, balanced routing fills no expert
  // past its capacity, which is dropless work.
  MS_TRY(capacity, args.text("moe-expert-capacity-factor"));
  if (capacity && args.has("moe-pad-expert-input-to-capacity"))
    w.keys.push_back({"moe_capacity_factor", *capacity});
  else if (capacity)
    w.out.unmodelled.push_back("--moe-expert-capacity-factor " + *capacity +
                               " without --moe-pad-expert-input-to-capacity: modelled as dropless (balanced routing "
                               "drops no token)");
  return {};
}

// The attention kernel (--attention-backend, default auto: flash or fused).
Result<void> attention_flags(WorkloadFlags& w) {
  MS_TRY(attention_backend, w.args.text("attention-backend"));
  if (attention_backend && (*attention_backend == "unfused" || *attention_backend == "local"))
    w.keys.push_back({"flash", "false"});
  return {};
}

// The workload's flag groups, in the order they are read (each adds its workload keys; a later key wins).
using WorkloadFlagGroup = Result<void> (*)(WorkloadFlags&);
constexpr std::array<WorkloadFlagGroup, 7> kWorkloadFlagGroups{
    {precision_flags, optimizer_flags, recompute_flags, overlap_flags, cuda_graph_flags, moe_flags, attention_flags}};

// The workload (_add_training_args, _add_mixed_precision_args): Megatron-LM's memory conventions, the
// batch, and the flag groups.
Result<TrainingWorkload> read_workload(ArgList& args, const MegatronModel& model, const MegatronLayout& layout,
                                       int64_t dp, ImportedLaunch& out) {
  const bool distributed_optimizer = args.has("use-distributed-optimizer");
  KeyValues keys{{"convention", distributed_optimizer ? "megatron-distopt" : "megatron"},
                 {"memory_framework", "megatron"},
                 {"framework", "megatron-lm"},
                 {"seq", std::to_string(model.seq)}};
  MS_TRY(micro_dp, launcher_detail::checked_product(layout.micro, dp, args.origin() + ": --micro-batch-size"));
  MS_TRY(global_batch, positive_or(args, "global-batch-size", micro_dp));  // default micro × DP
  keys.push_back({"global_batch", std::to_string(global_batch)});
  WorkloadFlags flags{args, keys, out, model.spec, layout.vpp, distributed_optimizer};
  for (const WorkloadFlagGroup group : kWorkloadFlagGroups)
    if (auto read = group(flags); !read) return tl::unexpected(read.error());
  auto training = training_from_keys(keys);
  if (!training) return tl::unexpected(training.error());
  return *training;
}

// What was not read: unmodelled when it matters, ignored otherwise; then torchrun's flags, ignored.
void list_unread(ArgList& args, const ArgList& launcher, ImportedLaunch& out) {
  for (const auto& flag : args.flags()) {
    if (args.used(flag.name)) continue;
    args.mark(flag.name);
    std::string normalized = flag.name;
    std::replace(normalized.begin(), normalized.end(), '_', '-');
    const auto* unmodelled = std::find_if(kMegatronUnmodelled.begin(), kMegatronUnmodelled.end(),
                                          [&](const UnmodelledFlag& u) { return u.name == normalized; });
    if (unmodelled != kMegatronUnmodelled.end())
      out.unmodelled.push_back("--" + flag.name + describe(flag.values) + ": " + std::string(unmodelled->why));
    else
      out.ignored.push_back("--" + flag.name);
  }
  for (const auto& flag : launcher.flags())
    if (!launcher.used(flag.name)) out.ignored.push_back("--" + flag.name + " (launcher)");
}

}  // namespace

Result<ImportedLaunch> read_megatron_args(std::string_view text, const std::string& origin,
                                          const LaunchReadOptions& options) {
  // The launch command's words (launcher_bash.hpp), and the training script's flags.
  MS_TRY(command, launcher_detail::parse_launch_script(text, origin));
  if (command.args.empty())
    return make_error(ErrorCode::missing_field,
                      "no Megatron-LM arguments found: neither a launch command (torchrun ... pretrain_gpt.py ...) nor "
                      "an argument list (--num-layers ...)",
                      origin);
  ImportedLaunch out;
  out.format = LauncherFormat::megatron;
  out.warnings = std::move(command.warnings);
  ArgList args(command.args, origin);

  MS_TRY(model, read_model_shape(args, out));
  MS_TRY(moe, read_moe(args, model.spec));
  model.spec.moe = moe;
  MS_TRY(sizes, read_parallel_sizes(args, model.spec));
  MS_TRY(vocab, read_vocabulary(args, sizes.tp, out));
  ModelSpec& spec = model.spec;
  spec.vocab_size = vocab;
  spec.name = "Megatron-LM GPT: " + std::to_string(spec.num_layers) + " layers, hidden " +
              std::to_string(spec.hidden_size) + ", " + std::to_string(spec.num_heads) + " heads";
  spec.source = "Megatron-LM arguments";
  out.model = spec;
  out.model_ref.clear();
  out.name = spec.name;

  ArgList launcher(command.launcher_args, origin);
  MS_TRY(count, read_gpu_count(launcher, sizes, options.gpus, out));
  launcher_detail::set_gpu_count(out, options.base, count.gpus);
  MS_TRY(layout, read_layout(args, sizes, count.dp, spec.num_layers, out));
  out.layout = layout.layout;
  MS_TRY(training, read_workload(args, model, layout, count.dp, out));
  out.training = training;
  list_unread(args, launcher, out);
  return out;
}

}  // namespace meshscope
