#include "core/options.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <optional>

namespace meshscope {
namespace {

tl::unexpected<Error> bad_value(const std::string& option, const std::string& key, const std::string& value,
                                const std::string& expected) {
  return make_error(ErrorCode::invalid_argument, "\"" + value + "\" is not valid for " + key + ": expected " + expected,
                    option + " " + key);
}

std::string fmt_double(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", value);
  return buffer;
}

std::string fmt_bool(bool value) {
  return value ? "true" : "false";
}

std::string dtype_text(DType type) {
  return std::string(dtype_name(type));
}

template <class E>
std::vector<std::string> names_of() {
  std::vector<std::string> names;
  names.reserve(EnumNames<E>::table.size());
  for (const auto& [value, name] : EnumNames<E>::table) names.emplace_back(name);
  return names;
}

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr double kMiB = 1024.0 * 1024.0;

// One value of a key, checked against its type (Row::min/max, the choices) before a row applies it.
struct Parsed {
  const std::string& option;
  const std::string& key;
  const std::string& text;
  int64_t integer = 0;
  double number = 0;
  bool boolean = false;
  DType dtype = DType::bf16;
  [[nodiscard]] tl::unexpected<Error> bad(const std::string& expected) const {
    return bad_value(option, key, text, expected);
  }
};

// One key of one scope: what the docs and forms show (info), how a value is checked and applied,
// and how it is written back. A new key is one row.
template <class T>
struct Row {
  KeyInfo info;
  double min = 0, max = 0;    // integer: ≥ min (and ≤ max when max > min); number: [min, max]
  std::string_view expected;  // the error's "expected …"; empty: from the type and choices
  Result<bool> (*apply)(T&, const Parsed&) = nullptr;
  std::optional<std::string> (*get)(const T&) = nullptr;  // nullopt: not set (nothing to write)
  bool shown = true;                                      // always written; else only when it differs from the default
};

std::string expected_of(const KeyInfo& info, double min, double max, std::string_view expected) {
  if (!expected.empty()) return std::string(expected);
  switch (info.type) {
    case KeyType::integer:
      return "an integer ≥ " + std::to_string(static_cast<int64_t>(min));
    case KeyType::number: {
      char range[96];
      std::snprintf(range, sizeof range, "a number in [%g, %g]", min, max);
      return range;
    }
    case KeyType::boolean:
      return "true or false";
    case KeyType::dtype:
      return "fp32, bf16, fp16, fp8, int8 or int4";
    case KeyType::choice:
    case KeyType::text: {
      std::string out;
      for (size_t i = 0; i < info.choices.size(); ++i) {
        if (i > 0) out += i + 1 == info.choices.size() ? " or " : ", ";
        out += info.choices[i];
      }
      return out;
    }
  }
  return {};
}

template <class T>
Result<bool> apply_row(const Row<T>& row, T& target, const std::string& option, const std::string& key,
                       const std::string& value) {
  Parsed p{option, key, value};
  const auto fail = [&] { return p.bad(expected_of(row.info, row.min, row.max, row.expected)); };
  switch (row.info.type) {
    case KeyType::integer: {
      const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), p.integer);
      if (ec != std::errc() || end != value.data() + value.size() || p.integer < static_cast<int64_t>(row.min))
        return fail();
      if (row.max > row.min && p.integer > static_cast<int64_t>(row.max)) return fail();
      break;
    }
    case KeyType::number: {
      char* end = nullptr;
      p.number = std::strtod(value.c_str(), &end);
      if (value.empty() || end != value.c_str() + value.size() || !(p.number >= row.min) || !(p.number <= row.max))
        return fail();
      break;
    }
    case KeyType::boolean:
      if (value == "true" || value == "1" || value == "on" || value == "yes") {
        p.boolean = true;
      } else if (value == "false" || value == "0" || value == "off" || value == "no") {
        p.boolean = false;
      } else {
        return fail();
      }
      break;
    case KeyType::dtype: {
      const auto type = parse_dtype(value);
      if (!type) return fail();
      p.dtype = *type;
      break;
    }
    case KeyType::choice:
      if (std::find(row.info.choices.begin(), row.info.choices.end(), value) == row.info.choices.end()) return fail();
      break;
    case KeyType::text:
      break;
  }
  return row.apply(target, p);
}

template <class T>
const Row<T>* find_row(const std::vector<Row<T>>& rows, std::string_view key) {
  for (const Row<T>& row : rows)
    if (row.info.name == key || (!row.info.alias.empty() && row.info.alias == key)) return &row;
  return nullptr;
}

template <class T>
tl::unexpected<Error> unknown_key(const std::vector<Row<T>>& rows, const std::string& option, const std::string& key) {
  std::string known;
  for (const Row<T>& row : rows) {
    if (!known.empty()) known += ", ";
    known += row.info.name;
    if (!row.info.alias.empty()) known += " (" + std::string(row.info.alias) + ")";
  }
  return make_error(ErrorCode::invalid_argument, "unknown key \"" + key + "\"; known keys: " + known, option);
}

template <class T>
KeyValues keys_of(const std::vector<Row<T>>& rows, const T& value, const T& defaults) {
  KeyValues keys;
  for (const Row<T>& row : rows) {
    std::optional<std::string> text = row.get(value);
    if (!text) continue;
    if (!row.shown && text == row.get(defaults)) continue;
    keys.emplace_back(std::string(row.info.name), std::move(*text));
  }
  return keys;
}

Result<bool> ok() {
  return true;
}

// The runtime assumptions both workloads carry (RuntimeAssumptions in core/workload.hpp).
template <class T>
void add_runtime_rows(std::vector<Row<T>>& rows, bool training) {
  rows.push_back({{"runtime_gib",
                   "",
                   KeyType::number,
                   {},
                   "",
                   "GiB",
                   "1",
                   "CUDA context + library workspaces per process (an assumption, not a measurement)",
                   "meshscope's assumption; set it from `nvidia-smi` on your stack"},
                  0,
                  1024,
                  "",
                  [](T& w, const Parsed& p) {
                    w.runtime.runtime_bytes = p.number * kGiB;
                    return ok();
                  },
                  [](const T& w) -> std::optional<std::string> { return fmt_double(w.runtime.runtime_bytes / kGiB); },
                  training});
  rows.push_back({{"allocator_fraction",
                   "",
                   KeyType::number,
                   {},
                   "0–1",
                   "",
                   "0.05",
                   "caching-allocator headroom over activations + temporary + communication",
                   "meshscope's assumption (PyTorch caching allocator fragmentation)"},
                  0,
                  1,
                  "",
                  [](T& w, const Parsed& p) {
                    w.runtime.allocator_fraction = p.number;
                    return ok();
                  },
                  [](const T& w) -> std::optional<std::string> { return fmt_double(w.runtime.allocator_fraction); },
                  training});
  rows.push_back(
      {{"nccl_buffer_mib",
        "",
        KeyType::number,
        {},
        "",
        "MiB",
        "4",
        "NCCL staging buffer per channel and peer (`NCCL_BUFFSIZE`)",
        "NCCL environment-variable documentation: NCCL_BUFFSIZE defaults to 4 MiB"},
       0,
       4096,
       "",
       [](T& w, const Parsed& p) {
         w.runtime.nccl_buffer_bytes = p.number * kMiB;
         return ok();
       },
       [](const T& w) -> std::optional<std::string> { return fmt_double(w.runtime.nccl_buffer_bytes / kMiB); },
       false});
  rows.push_back({{"nccl_channels",
                   "",
                   KeyType::integer,
                   {},
                   "",
                   "channels",
                   "16",
                   "NCCL channels whose buffers are held, and whose SMs a hidden collective takes from the GEMMs",
                   "NCCL: up to 16 channels on NVLink (src/graph/search.cc); meshscope's assumption"},
                  0,
                  0,
                  "",
                  [](T& w, const Parsed& p) {
                    w.runtime.nccl_channels = p.integer;
                    return ok();
                  },
                  [](const T& w) -> std::optional<std::string> { return std::to_string(w.runtime.nccl_channels); },
                  false});
}

using TrainingRow = Row<TrainingWorkload>;
using Get = std::optional<std::string>;

// A boolean field of the training workload.
template <bool TrainingWorkload::*Field>
TrainingRow training_bool(KeyInfo info, bool shown = true) {
  info.type = KeyType::boolean;
  return {std::move(info),
          0,
          0,
          "",
          [](TrainingWorkload& w, const Parsed& p) {
            w.*Field = p.boolean;
            return ok();
          },
          [](const TrainingWorkload& w) -> Get { return fmt_bool(w.*Field); },
          shown};
}

// A dtype field of the training workload.
template <DType TrainingWorkload::*Field>
TrainingRow training_dtype(KeyInfo info, bool shown = true) {
  info.type = KeyType::dtype;
  info.choices = {"fp32", "bf16", "fp16", "fp8"};  // what training stores; parse_dtype reads int8/int4 too
  return {std::move(info),
          0,
          0,
          "",
          [](TrainingWorkload& w, const Parsed& p) {
            w.*Field = p.dtype;
            return ok();
          },
          [](const TrainingWorkload& w) -> Get { return dtype_text(w.*Field); },
          shown};
}

std::vector<TrainingRow> make_training_rows() {
  std::vector<TrainingRow> rows;
  rows.push_back({{"convention",
                   "",
                   KeyType::choice,
                   {"zero", "megatron", "megatron-distopt", "playbook-fp32", "playbook-bf16"},
                   "",
                   "",
                   "`megatron-distopt`",
                   "sets the dtypes below (see [conventions](conventions.md)); applied before every other key",
                   "ZeRO (Rajbhandari et al. SC20 §3.1), Megatron-LM's fp32 main grads and distributed optimizer, the "
                   "Ultra-Scale Playbook"},
                  0,
                  0,
                  "",
                  [](TrainingWorkload& w, const Parsed& p) -> Result<bool> {
                    if (!apply_training_convention(w, p.text))
                      return p.bad("zero, megatron, megatron-distopt, playbook-fp32 or playbook-bf16");
                    return ok();
                  },
                  [](const TrainingWorkload& w) -> Get { return w.convention; }});
  rows.push_back({{"seq", "seq_len", KeyType::integer, {}, "", "tokens", "4096", "sequence length", ""},
                  1,
                  0,
                  "",
                  [](TrainingWorkload& w, const Parsed& p) {
                    w.seq_len = p.integer;
                    return ok();
                  },
                  [](const TrainingWorkload& w) -> Get { return std::to_string(w.seq_len); }});
  rows.push_back({{"global_batch",
                   "gbs",
                   KeyType::integer,
                   {},
                   "",
                   "sequences",
                   "512",
                   "sequences per optimizer step",
                   "Megatron-LM `--global-batch-size`"},
                  1,
                  0,
                  "",
                  [](TrainingWorkload& w, const Parsed& p) {
                    w.global_batch = p.integer;
                    return ok();
                  },
                  [](const TrainingWorkload& w) -> Get { return std::to_string(w.global_batch); }});
  rows.push_back({{"precision",
                   "",
                   KeyType::choice,
                   {"bf16", "fp16", "fp8"},
                   "",
                   "",
                   "`bf16`",
                   "GEMM precision (fp8: mixed, weights stay 16-bit); sets the parameter dtype (and a 16-bit gradient "
                   "dtype) to match",
                   "Transformer Engine FP8 recipes (Micikevicius et al. 2022)"},
                  0,
                  0,
                  "bf16, fp16 or fp8 (mixed precision)",
                  [](TrainingWorkload& w, const Parsed& p) {
                    const DType v = *parse_dtype(p.text);
                    w.compute_dtype = v;
                    w.param_dtype = v == DType::fp16 ? DType::fp16 : DType::bf16;
                    if (w.grad_dtype != DType::fp32) w.grad_dtype = w.param_dtype;
                    return ok();
                  },
                  [](const TrainingWorkload& w) -> Get { return dtype_text(w.compute_dtype); }});
  rows.push_back(training_dtype<&TrainingWorkload::param_dtype>(
      {"param_dtype", "", {}, {}, "", "", "from the convention", "storage of the weights", "docs/conventions.md"}));
  rows.push_back(training_dtype<&TrainingWorkload::grad_dtype>(
      {"grad_dtype",
       "",
       {},
       {},
       "",
       "",
       "from the convention",
       "storage of the gradient buffer (Megatron-LM's fp32 main grads: fp32)",
       "docs/conventions.md"}));
  rows.push_back({{"master",
                   "",
                   KeyType::text,
                   {"fp32", "none"},
                   "a dtype, or `none`",
                   "",
                   "from the convention",
                   "the optimizer's master copy of the weights (`none`: the optimizer updates the weights in place)",
                   "docs/conventions.md"},
                  0,
                  0,
                  "",
                  [](TrainingWorkload& w, const Parsed& p) -> Result<bool> {
                    if (p.text == "none") {
                      w.master_dtype = std::nullopt;
                      return ok();
                    }
                    const auto type = parse_dtype(p.text);
                    if (!type) return p.bad("fp32, bf16, fp16, fp8, int8 or int4");
                    w.master_dtype = *type;
                    return ok();
                  },
                  [](const TrainingWorkload& w) -> Get {
                    return w.master_dtype ? dtype_text(*w.master_dtype) : std::string("none");
                  }});
  rows.push_back({{"optimizer",
                   "",
                   KeyType::choice,
                   {"adam", "adamw", "sgd"},
                   "",
                   "",
                   "`adam`",
                   "Adam keeps 2 moments per parameter, SGD with momentum 1",
                   "Kingma & Ba 2015"},
                  0,
                  0,
                  "adam, adamw or sgd (with momentum)",
                  [](TrainingWorkload& w, const Parsed& p) {
                    w.optimizer = p.text == "sgd" ? Optimizer::sgd_momentum : Optimizer::adam;
                    return ok();
                  },
                  [](const TrainingWorkload& w) -> Get { return std::string(optimizer_name(w.optimizer)); }});
  rows.push_back({{"zero",
                   "",
                   KeyType::integer,
                   {"0", "1", "2", "3"},
                   "0–3",
                   "",
                   "1",
                   "ZeRO stage: 1 shards optimizer state, 2 also gradients, 3 also parameters (FSDP)",
                   "Rajbhandari et al. SC20 §5"},
                  0,
                  3,
                  "0, 1, 2 or 3",
                  [](TrainingWorkload& w, const Parsed& p) {
                    w.zero_stage = static_cast<int>(p.integer);
                    return ok();
                  },
                  [](const TrainingWorkload& w) -> Get { return std::to_string(w.zero_stage); }});
  rows.push_back(
      {{"recompute",
        "",
        KeyType::text,
        {"none", "selective", "full", "op"},
        "`none`, `selective`, `full`, `op`, or a number *n*",
        "",
        "`selective`",
        "activation recomputation. `selective`: Korthikanti et al.'s (the attention core; Megatron "
        "`--recompute-granularity selective`); `op`: torchtitan's op-level selective AC (`selective_ac_option = "
        "\"op\"`: every second matmul of a block — wk, wo, w3 — and the element-wise ops recomputed, the other "
        "matmuls and the attention output saved); *n*: the first *n* layers of each stage chunk fully recomputed",
        "Korthikanti et al. 2022 §5; torchtitan/distributed/activation_checkpoint.py"},
       0,
       0,
       "",
       [](TrainingWorkload& w, const Parsed& p) -> Result<bool> {
         // A name (none, selective, full, op), or n: the first n layers of each chunk ("layers").
         if (const auto mode = parse_enum<RecomputeMode>(p.text); mode && *mode != RecomputeMode::layers) {
           w.recompute = *mode;
           return ok();
         }
         int64_t layers = 0;
         const auto [end, ec] = std::from_chars(p.text.data(), p.text.data() + p.text.size(), layers);
         if (ec != std::errc() || end != p.text.data() + p.text.size() || layers < 0) return p.bad("an integer ≥ 0");
         w.recompute = RecomputeMode::layers;
         w.recompute_layers = layers;
         return ok();
       },
       [](const TrainingWorkload& w) -> Get {
         return w.recompute == RecomputeMode::layers ? std::to_string(w.recompute_layers)
                                                     : std::string(recompute_name(w.recompute));
       }});
  rows.push_back(training_bool<&TrainingWorkload::flash_attention>(
      {"flash", "", {}, {}, "", "", "true", "FlashAttention (no s×s scores stored)", "Dao et al. 2022"}));
  rows.push_back(
      {{"schedule", "", KeyType::choice, names_of<PipelineSchedule>(), "", "", "`1f1b`",
        "pipeline schedule: the activations in flight (ZB-H2 2(p − s) − 1, DualPipe p + 1 chunks and both ends' "
        "parameters) and, in `estimate`, the simulated timeline (one field: `1f1b` with `vpp > 1` is interleaved, "
        "`interleaved` with `vpp = 1` is 1F1B, any other schedule with `vpp > 1` is an error; `estimate --schedule "
        "S` is `--train schedule=S`; the app's schedule boxes set this key, and project files of version 2 that "
        "kept a top-level `\"schedule\"` still set it)",
        "docs/schedules.md (Narayanan et al. SC21, Qi et al. 2024, DeepSeek-V3 §3.2.1)"},
       0,
       0,
       "",
       [](TrainingWorkload& w, const Parsed& p) {
         w.schedule = *parse_enum<PipelineSchedule>(p.text);
         return ok();
       },
       [](const TrainingWorkload& w) -> Get { return std::string(enum_name(w.schedule)); }});
  rows.push_back({{"cp_comm",
                   "",
                   KeyType::choice,
                   {"p2p", "a2a"},
                   "",
                   "",
                   "`p2p`",
                   "context parallelism's exchange: `p2p` ring attention (K/V passed around the CP ring), `a2a` "
                   "Ulysses (all-to-alls of the heads)",
                   "Megatron-LM `--cp-comm-type p2p|a2a`; Jacobs et al. 2023 (DeepSpeed-Ulysses)"},
                  0,
                  0,
                  "p2p (ring attention) or a2a (Ulysses)",
                  [](TrainingWorkload& w, const Parsed& p) {
                    w.cp_all_to_all = p.text == "a2a";
                    return ok();
                  },
                  [](const TrainingWorkload& w) -> Get { return std::string(w.cp_all_to_all ? "a2a" : "p2p"); }});
  rows.push_back(training_bool<&TrainingWorkload::tp_comm_overlap>(
      {"tp_comm_overlap",
       "",
       {},
       {},
       "",
       "",
       "false (Megatron-LM: off unless `--tp-comm-overlap`)",
       "Megatron `--tp-comm-overlap`, Transformer Engine userbuffers: each sequence-parallel all-gather and "
       "reduce-scatter runs in chunks under its GEMM (ring-exchange all-gathers in TP steps, reduce-scatters "
       "pipelined over 4 GEMM chunks, bulk ones beside the weight-gradient GEMMs — TE `initialize_ub` defaults); "
       "hidden up to the GEMM time, and the GEMMs under the pipelined and bulk kernels run on the SMs those 16 do not "
       "take (`num_sm`, `set_sm_margin`), which is charged to TP. Needs `sp=true` (Megatron asserts it): without SP "
       "it is not applied and `assumptions` says so. MoE experts' collectives stay exposed",
       "transformer_engine/pytorch/module/base.py initialize_ub; megatron/training/arguments.py"}));
  rows.push_back(training_bool<&TrainingWorkload::overlap_grad_reduce>(
      {"overlap_grad_reduce",
       "",
       {},
       {},
       "",
       "",
       "false (Megatron-LM: off unless `--overlap-grad-reduce`)",
       "Megatron `--overlap-grad-reduce`: the bucketed (max(40 M, 1 M × DP) parameters) gradient all-reduce or "
       "reduce-scatter starts bucket by bucket under the last micro-batch's backward; exposed: what that backward "
       "cannot hide, and at least the last bucket. Off: all of it after the backward. Not applied under FSDP "
       "(`zero=3`), whose reduce-scatters always overlap",
       "megatron/core/distributed/distributed_data_parallel.py (bucket_size)"}));
  rows.push_back(training_bool<&TrainingWorkload::overlap_param_gather>(
      {"overlap_param_gather",
       "",
       {},
       {},
       "",
       "",
       "false (Megatron-LM: off unless `--overlap-param-gather`)",
       "Megatron `--overlap-param-gather`: the distributed optimizer's parameter all-gather, dispatched after the "
       "optimizer step and waited for bucket by bucket in the next step's forward; exposed: what the first "
       "micro-batch's forward cannot hide, and at least the first bucket. Off: all of it after the optimizer step. "
       "Refused without `overlap_grad_reduce` (as Megatron refuses it); with `zero=0` (no distributed optimizer) or "
       "`zero=3` not applied, and `assumptions` says so",
       "megatron/core/optimizer/distrib_optimizer.py; megatron/training/arguments.py validate_args"}));
  rows.push_back(training_bool<&TrainingWorkload::fsdp_prefetch>(
      {"fsdp_prefetch",
       "",
       {},
       {},
       "",
       "",
       "true (PyTorch FSDP2: one block ahead)",
       "FSDP (`zero=3`): the next block's all-gather issued under this block's compute (FSDP2's implicit forward "
       "and default backward prefetch); per block only the communication beyond its compute is exposed, plus the "
       "step's first all-gather and last reduce-scatter. false: every all-gather waits",
       "torch/distributed/fsdp/_fully_shard (FSDP2 prefetching)"}));
  rows.push_back(
      {{"reshard_after_forward", "", KeyType::text, names_of<ReshardAfterForward>(),
        "`default`, `always` (`true`), `never` (`false`)", "", "`default` (torchtitan's `fsdp_reshard_after_forward`)",
        "FSDP (`zero=3`): whether a block's gathered parameters are freed after its forward and gathered again for "
        "its backward. `default` is torchtitan's: every block but the last without PP, none with PP. Ignored unless "
        "`zero=3`. Time only: the memory budget still holds one gathered block, not the blocks kept unsharded "
        "between forward and backward",
        "torchtitan/models/llama3/infra/parallelize.py apply_fsdp"},
       0,
       0,
       "",
       [](TrainingWorkload& w, const Parsed& p) -> Result<bool> {
         // torchtitan's policy names, and FSDP2's booleans for always/never.
         if (const auto policy = parse_enum<ReshardAfterForward>(p.text)) {
           w.reshard_after_forward = *policy;
           return ok();
         }
         const bool yes = p.text == "true" || p.text == "1" || p.text == "on" || p.text == "yes";
         const bool no = p.text == "false" || p.text == "0" || p.text == "off" || p.text == "no";
         if (!yes && !no) return p.bad("default, always (true) or never (false)");
         w.reshard_after_forward = yes ? ReshardAfterForward::always : ReshardAfterForward::never;
         return ok();
       },
       [](const TrainingWorkload& w) -> Get {
         return std::string(reshard_after_forward_name(w.reshard_after_forward));
       }});
  rows.push_back(training_bool<&TrainingWorkload::cuda_graphs>(
      {"cuda_graphs",
       "",
       {},
       {},
       "",
       "",
       "false (eager PyTorch)",
       "Megatron-LM `--cuda-graph-impl` / `--external-cuda-graph`, TE `make_graphed_callables`, torch.compile "
       "`mode=\"reduce-overhead\"`: captured kernels replay without host dispatch — whole dense layers, and of a "
       "dropless MoE layer the attention part only. Off: every pass over a layer takes the longer of its GPU time "
       "and its host dispatch ([host dispatch](estimate.md#fixed-costs-that-dominate-small-models))",
       "CUDA programming guide, CUDA graphs; megatron/core/token_dispatcher.py (the host sync)"}));
  rows.push_back(
      {{"kernels",
        "",
        KeyType::choice,
        {"fused", "eager"},
        "",
        "",
        "`fused`",
        "the element-wise kernels: `fused` as Megatron-LM/Transformer Engine (fused RMSNorm, RoPE, activations) or "
        "torch.compile run them; `eager`: PyTorch's composites as torchtitan runs them without compile — RMSNorm's "
        "upcast, pow, mean and products (28 + 4e bytes per element forward, 56 + 8e backward, against 2e and 3e "
        "fused), RoPE through fp32 complex numbers, SwiGLU's backward in two kernels, and their host dispatch "
        "([estimate.md](estimate.md#1-work-per-layer-and-micro-batch))",
        "torchtitan/models/llama3/model (RMSNorm, apply_rotary_emb); Transformer Engine fused kernels"},
       0,
       0,
       "fused (Transformer Engine, torch.compile) or eager (PyTorch composites)",
       [](TrainingWorkload& w, const Parsed& p) {
         w.eager_kernels = p.text == "eager";
         return ok();
       },
       [](const TrainingWorkload& w) -> Get { return std::string(w.eager_kernels ? "eager" : "fused"); }});
  rows.push_back(
      {{"memory_framework", "", KeyType::choice, names_of<MemoryFramework>(), "", "",
        "`auto` (FSDP2 for `zero=3`, Megatron-LM otherwise)",
        "whose allocations the memory budget follows beyond the model states and saved activations: the loss "
        "kernel's buffers, FSDP2's unsharded root and kept blocks and its side-stream pools, Megatron's main-grad "
        "buffer and Transformer Engine's FP8 weight caches; `generic`: the framework-neutral budget ([estimate.md "
        "§6](estimate.md#6-peak-memory-against-what-frameworks-allocate))",
        "torch/distributed/fsdp/_fully_shard; megatron/core/distributed/param_and_grad_buffer.py"},
       0,
       0,
       "",
       [](TrainingWorkload& w, const Parsed& p) {
         w.memory_framework = *parse_enum<MemoryFramework>(p.text);
         return ok();
       },
       [](const TrainingWorkload& w) -> Get { return std::string(memory_framework_name(w.memory_framework)); }});
  add_runtime_rows(rows, true);
  // Keys written only when they differ from their default.
  rows.push_back(training_dtype<&TrainingWorkload::optimizer_state_dtype>(
      {"optimizer_dtype", "", {}, {}, "", "", "`fp32`", "storage of the optimizer's moments", "docs/conventions.md"},
      false));
  rows.push_back(
      training_dtype<&TrainingWorkload::activation_dtype>({"activation_dtype",
                                                           "",
                                                           {},
                                                           {},
                                                           "",
                                                           "",
                                                           "`bf16`",
                                                           "storage of the saved activations (16-bit also under FP8)",
                                                           "Korthikanti et al. 2022 §4"},
                                                          false));
  rows.push_back({{"dropout",
                   "",
                   KeyType::boolean,
                   {},
                   "",
                   "",
                   "the model's",
                   "1-byte dropout masks",
                   "Korthikanti et al. 2022 §4.1"},
                  0,
                  0,
                  "",
                  [](TrainingWorkload& w, const Parsed& p) {
                    w.dropout = p.boolean;
                    return ok();
                  },
                  [](const TrainingWorkload& w) -> Get {
                    return w.dropout ? std::optional<std::string>(fmt_bool(*w.dropout)) : std::nullopt;
                  },
                  false});
  rows.push_back(training_bool<&TrainingWorkload::output_layer_activations>(
      {"output_activations",
       "",
       {},
       {},
       "",
       "",
       "true",
       "count final-norm input, head input and logits on the last stage",
       "Korthikanti et al. 2022 §4.3"},
      false));
  rows.push_back(training_bool<&TrainingWorkload::fp32_logits>({"fp32_logits",
                                                                "",
                                                                {},
                                                                {},
                                                                "",
                                                                "",
                                                                "true",
                                                                "logits stored in fp32 for the cross-entropy",
                                                                "Korthikanti et al. 2022 §4.3"},
                                                               false));
  rows.push_back(training_bool<&TrainingWorkload::causal>({"causal",
                                                           "",
                                                           {},
                                                           {},
                                                           "",
                                                           "",
                                                           "true",
                                                           "causal attention FLOPs (half the scores)",
                                                           "FlashAttention's FLOP convention (Dao 2023)"},
                                                          false));
  return rows;
}

const std::vector<TrainingRow>& training_rows() {
  static const std::vector<TrainingRow> rows = make_training_rows();
  return rows;
}

using ServingRow = Row<ServingWorkload>;

template <int64_t ServingWorkload::*Field>
ServingRow serving_int(KeyInfo info, double min) {
  info.type = KeyType::integer;
  return {std::move(info),
          min,
          0,
          "",
          [](ServingWorkload& w, const Parsed& p) {
            w.*Field = p.integer;
            return ok();
          },
          [](const ServingWorkload& w) -> Get { return std::to_string(w.*Field); }};
}

template <DType ServingWorkload::*Field>
ServingRow serving_dtype(KeyInfo info, std::vector<std::string> choices) {
  info.type = KeyType::dtype;
  info.choices = std::move(choices);
  return {std::move(info),
          0,
          0,
          "",
          [](ServingWorkload& w, const Parsed& p) {
            w.*Field = p.dtype;
            return ok();
          },
          [](const ServingWorkload& w) -> Get { return dtype_text(w.*Field); }};
}

std::vector<ServingRow> make_serving_rows() {
  std::vector<ServingRow> rows;
  rows.push_back(
      serving_dtype<&ServingWorkload::weight_dtype>({"weights",
                                                     "weight_dtype",
                                                     {},
                                                     {},
                                                     "",
                                                     "",
                                                     "`bf16`",
                                                     "weight format (embedding and head stay 16-bit)",
                                                     "vLLM / TensorRT-LLM weight-only quantisation (GPTQ, AWQ, FP8)"},
                                                    {"bf16", "fp16", "fp8", "int8", "int4"}));
  rows.push_back(serving_int<&ServingWorkload::weight_group_size>(
      {"group_size",
       "",
       {},
       {},
       "",
       "weights",
       "128",
       "int8/int4 group size; one fp16 scale per group",
       "GPTQ (Frantar et al. 2023), AWQ (Lin et al. 2024): group size 128"},
      0));
  rows.push_back(serving_dtype<&ServingWorkload::kv_dtype>(
      {"kv", "kv_dtype", {}, {}, "", "", "`bf16`", "KV-cache format", "vLLM `--kv-cache-dtype`"},
      {"bf16", "fp16", "fp8"}));
  rows.push_back(serving_int<&ServingWorkload::prompt_len>(
      {"prompt", "prompt_len", {}, {}, "", "tokens", "1024", "prompt length of one request", ""}, 0));
  rows.push_back(serving_int<&ServingWorkload::output_len>(
      {"output", "output_len", {}, {}, "", "tokens", "256", "output length of one request", ""}, 0));
  rows.push_back(serving_int<&ServingWorkload::concurrency>(
      {"concurrency", "", {}, {}, "", "sequences", "64", "resident sequences", "vLLM `--max-num-seqs`"}, 1));
  rows.push_back(serving_int<&ServingWorkload::max_batched_tokens>({"max_batched_tokens",
                                                                    "",
                                                                    {},
                                                                    {},
                                                                    "",
                                                                    "tokens",
                                                                    "8192",
                                                                    "scheduler token budget (sizes the workspace)",
                                                                    "vLLM `--max-num-batched-tokens`"},
                                                                   1));
  rows.push_back({{"memory_fraction",
                   "",
                   KeyType::number,
                   {},
                   "0.01–1",
                   "",
                   "0.9",
                   "share of GPU memory the engine uses",
                   "vLLM `gpu_memory_utilization` (default 0.9)"},
                  0.01,
                  1.0,
                  "",
                  [](ServingWorkload& w, const Parsed& p) {
                    w.memory_fraction = p.number;
                    return ok();
                  },
                  [](const ServingWorkload& w) -> Get { return fmt_double(w.memory_fraction); }});
  add_runtime_rows(rows, false);
  return rows;
}

const std::vector<ServingRow>& serving_rows() {
  static const std::vector<ServingRow> rows = make_serving_rows();
  return rows;
}

using LayoutRow = Row<Layout>;

template <int64_t Layout::*Field>
LayoutRow degree(KeyInfo info, double min = 1) {
  info.type = KeyType::integer;
  return {std::move(info),
          min,
          0,
          "",
          [](Layout& l, const Parsed& p) {
            l.*Field = p.integer;
            return ok();
          },
          [](const Layout& l) -> Get { return std::to_string(l.*Field); }};
}

std::vector<LayoutRow> make_layout_rows() {
  std::vector<LayoutRow> rows;
  rows.push_back(degree<&Layout::dp>({"dp",
                                      "",
                                      {},
                                      {},
                                      "",
                                      "ranks",
                                      "1",
                                      "data-parallel degree (all replicas, FSDP shards included)",
                                      "Megatron-LM: world size ÷ (tp × pp × cp)"}));
  rows.push_back(degree<&Layout::fsdp>({"fsdp",
                                        "",
                                        {},
                                        {},
                                        "",
                                        "ranks",
                                        "0",
                                        "ZeRO/FSDP shard-group size (HSDP); 0 = the whole DP group",
                                        "PyTorch HSDP (`dp_shard` × `dp_replicate` in torchtitan)"},
                                       0));
  rows.push_back(degree<&Layout::tp>(
      {"tp", "", {}, {}, "", "ranks", "1", "tensor parallel degree", "Shoeybi et al. 2019 (Megatron-LM)"}));
  rows.push_back(
      degree<&Layout::pp>({"pp", "", {}, {}, "", "stages", "1", "pipeline stages", "Narayanan et al. SC21 §2.2"}));
  rows.push_back(degree<&Layout::vpp>({"vpp",
                                       "",
                                       {},
                                       {},
                                       "",
                                       "chunks",
                                       "1",
                                       "virtual pipeline stages (model chunks) per pipeline rank",
                                       "Narayanan et al. SC21 §2.2.2; Megatron-LM "
                                       "`--num-layers-per-virtual-pipeline-stage`"}));
  rows.push_back(degree<&Layout::cp>(
      {"cp", "", {}, {}, "", "ranks", "1", "context parallel degree", "Megatron-LM `--context-parallel-size`"}));
  rows.push_back(degree<&Layout::ep>(
      {"ep", "", {}, {}, "", "ranks", "1", "expert parallel degree", "Megatron-LM `--expert-model-parallel-size`"}));
  rows.push_back(degree<&Layout::etp>({"etp",
                                       "",
                                       {},
                                       {},
                                       "",
                                       "ranks",
                                       "1",
                                       "expert tensor parallel degree",
                                       "Megatron-LM `--expert-tensor-parallel-size`"}));
  rows.push_back(
      {{"sp", "", KeyType::boolean, {}, "", "", "false", "sequence parallelism", "Korthikanti et al. 2022 §4.2.2"},
       0,
       0,
       "",
       [](Layout& l, const Parsed& p) {
         l.sp = p.boolean;
         return ok();
       },
       [](const Layout& l) -> Get { return fmt_bool(l.sp); }});
  rows.push_back(degree<&Layout::micro_batch>({"micro_batch",
                                               "mbs",
                                               {},
                                               {},
                                               "",
                                               "sequences",
                                               "1",
                                               "sequences per micro-batch",
                                               "Megatron-LM `--micro-batch-size`"}));
  rows.push_back(
      {{"stages",
        "stage_layers",
        KeyType::text,
        {},
        "`7:8:8:…:7` or `7/8/…`",
        "layers",
        "an even split",
        "layers per pipeline stage (uneven split); with `vpp`, each stage needs at least `vpp` layers and its chunks "
        "differ by at most one (the first stage's first chunk and the other stages' last chunks are the lighter "
        "ones)",
        "Megatron-LM `--decoder-first-pipeline-num-layers` / `--decoder-last-pipeline-num-layers`"},
       0,
       0,
       "",
       [](Layout& l, const Parsed& p) -> Result<bool> {
         l.stage_layers.clear();
         size_t start = 0;
         while (start <= p.text.size()) {
           const size_t sep = p.text.find_first_of(":/", start);
           const std::string item = p.text.substr(start, sep == std::string::npos ? std::string::npos : sep - start);
           int64_t layers = 0;
           const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), layers);
           if (ec != std::errc() || end != item.data() + item.size() || layers < 0 || item.empty())
             return bad_value(p.option, p.key, item, "an integer ≥ 0");
           l.stage_layers.push_back(layers);
           if (sep == std::string::npos) break;
           start = sep + 1;
         }
         return ok();
       },
       [](const Layout& l) -> Get {
         if (l.stage_layers.empty()) return std::nullopt;
         std::string stages;
         for (const auto layers : l.stage_layers) stages += (stages.empty() ? "" : ":") + std::to_string(layers);
         return stages;
       },
       false});
  return rows;
}

const std::vector<LayoutRow>& layout_rows() {
  static const std::vector<LayoutRow> rows = make_layout_rows();
  return rows;
}

using ServingLayoutRow = Row<ServingLayout>;

template <int64_t ServingLayout::*Field>
ServingLayoutRow instance_degree(KeyInfo info) {
  info.type = KeyType::integer;
  return {std::move(info),
          1,
          0,
          "",
          [](ServingLayout& l, const Parsed& p) {
            l.*Field = p.integer;
            return ok();
          },
          [](const ServingLayout& l) -> Get { return std::to_string(l.*Field); }};
}

std::vector<ServingLayoutRow> make_serving_layout_rows() {
  std::vector<ServingLayoutRow> rows;
  rows.push_back(instance_degree<&ServingLayout::tp>(
      {"tp", "", {}, {}, "", "ranks", "1", "tensor parallel degree of one instance", "vLLM `--tensor-parallel-size`"}));
  rows.push_back(instance_degree<&ServingLayout::pp>(
      {"pp", "", {}, {}, "", "stages", "1", "pipeline stages of one instance", "vLLM `--pipeline-parallel-size`"}));
  rows.push_back(instance_degree<&ServingLayout::dp>(
      {"dp",
       "",
       {},
       {},
       "",
       "ranks",
       "1",
       "attention data parallelism inside one MoE instance (each rank its own sequences; experts over `ep`)",
       "DeepSeek-V3 report §3.4; vLLM `--data-parallel-size` with `--enable-expert-parallel`"}));
  rows.push_back(instance_degree<&ServingLayout::ep>({"ep",
                                                      "",
                                                      {},
                                                      {},
                                                      "",
                                                      "ranks",
                                                      "1",
                                                      "expert parallel degree over the tp × dp ranks of a stage",
                                                      "vLLM `--enable-expert-parallel`"}));
  rows.push_back(instance_degree<&ServingLayout::replicas>(
      {"replicas", "", {}, {}, "", "instances", "1", "independent serving instances", ""}));
  return rows;
}

const std::vector<ServingLayoutRow>& serving_layout_rows() {
  static const std::vector<ServingLayoutRow> rows = make_serving_layout_rows();
  return rows;
}

template <class T>
std::vector<KeyInfo> infos_of(const std::vector<Row<T>>& rows) {
  std::vector<KeyInfo> infos;
  infos.reserve(rows.size());
  for (const Row<T>& row : rows) infos.push_back(row.info);
  return infos;
}

std::string markdown_cell(std::string_view text) {
  std::string out;
  for (const char c : text) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

std::string values_text(const KeyInfo& info) {
  if (!info.values.empty()) return std::string(info.values);
  switch (info.type) {
    case KeyType::boolean:
      return "bool";
    case KeyType::choice:
    case KeyType::dtype: {
      std::string out;
      for (const std::string& choice : info.choices) out += (out.empty() ? "`" : ", `") + choice + "`";
      return out;
    }
    case KeyType::integer:
    case KeyType::number:
    case KeyType::text:
      return info.unit.empty() ? (info.type == KeyType::integer ? "integer" : "number") : std::string(info.unit);
  }
  return {};
}

template <class T>
Result<T> from_keys(const std::vector<Row<T>>& rows, const KeyValues& keys, T target, const std::string& option) {
  for (const auto& [key, value] : keys) {
    const Row<T>* row = find_row(rows, key);
    if (row == nullptr) return unknown_key(rows, option, key);
    MS_TRY(applied, apply_row(*row, target, option, key, value));
    (void)applied;
  }
  return target;
}

}  // namespace

const std::vector<KeyInfo>& key_table(KeyScope scope) {
  static const std::vector<KeyInfo> train = infos_of(training_rows());
  static const std::vector<KeyInfo> serve = infos_of(serving_rows());
  static const std::vector<KeyInfo> layout = infos_of(layout_rows());
  static const std::vector<KeyInfo> serving_layout = infos_of(serving_layout_rows());
  switch (scope) {
    case KeyScope::train:
      return train;
    case KeyScope::serve:
      return serve;
    case KeyScope::layout:
      return layout;
    case KeyScope::serving_layout:
      return serving_layout;
  }
  return train;
}

const KeyInfo* find_key(KeyScope scope, std::string_view name) {
  for (const KeyInfo& info : key_table(scope))
    if (info.name == name || (!info.alias.empty() && info.alias == name)) return &info;
  return nullptr;
}

std::string key_table_markdown(KeyScope scope) {
  std::string out = "| key | values | default | meaning | source |\n|---|---|---|---|---|\n";
  for (const KeyInfo& info : key_table(scope)) {
    out += "| `" + std::string(info.name) + "`";
    if (!info.alias.empty()) out += " (`" + std::string(info.alias) + "`)";
    out += " | " + markdown_cell(values_text(info)) + " | " + markdown_cell(info.default_text) + " | " +
           markdown_cell(info.help) + " | " + markdown_cell(info.source) + " |\n";
  }
  return out;
}

Result<KeyValues> split_key_values(std::string_view text, const std::string& option) {
  KeyValues keys;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = text.find(',', start);
    const std::string_view item =
        text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    if (!item.empty()) {
      const size_t eq = item.find('=');
      if (eq == std::string_view::npos || eq == 0)
        return make_error(ErrorCode::invalid_argument, "\"" + std::string(item) + "\" is not a key=value pair", option);
      keys.emplace_back(std::string(item.substr(0, eq)), std::string(item.substr(eq + 1)));
    }
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return keys;
}

Result<TrainingWorkload> training_from_keys(const KeyValues& keys, TrainingWorkload w) {
  const std::string option = "--train";
  // The convention first, so that explicit dtypes override it.
  KeyValues rest;
  for (const auto& [key, value] : keys) {
    if (key != "convention") {
      rest.emplace_back(key, value);
      continue;
    }
    MS_TRY(applied, apply_row(*find_row(training_rows(), key), w, option, key, value));
    (void)applied;
  }
  MS_TRY(out, from_keys(training_rows(), rest, std::move(w), option));
  // Megatron-LM refuses --overlap-param-gather without --overlap-grad-reduce
  // (megatron/training/arguments.py, validate_args); so do we.
  if (out.overlap_param_gather && !out.overlap_grad_reduce)
    return make_error(ErrorCode::invalid_argument,
                      "overlap_param_gather needs overlap_grad_reduce (Megatron-LM: \"Must use "
                      "--overlap-param-gather with --overlap-grad-reduce\")",
                      option + " overlap_param_gather");
  return out;
}

Result<ServingWorkload> serving_from_keys(const KeyValues& keys, ServingWorkload w) {
  return from_keys(serving_rows(), keys, w, "--serve");
}

Result<Layout> layout_from_keys(const KeyValues& keys, Layout l) {
  return from_keys(layout_rows(), keys, std::move(l), "--layout");
}

Result<ServingLayout> serving_layout_from_keys(const KeyValues& keys, ServingLayout l) {
  return from_keys(serving_layout_rows(), keys, l, "--layout");
}

KeyValues serving_layout_to_keys(const ServingLayout& l) {
  return keys_of(serving_layout_rows(), l, ServingLayout{});
}

KeyValues training_to_keys(const TrainingWorkload& w) {
  // Compared with the defaults of the same convention: what the convention sets is not "changed".
  TrainingWorkload defaults;
  [[maybe_unused]] const bool known = apply_training_convention(defaults, w.convention);
  return keys_of(training_rows(), w, defaults);
}

KeyValues serving_to_keys(const ServingWorkload& w) {
  return keys_of(serving_rows(), w, ServingWorkload{});
}

KeyValues layout_to_keys(const Layout& l) {
  return keys_of(layout_rows(), l, Layout{});
}

}  // namespace meshscope
