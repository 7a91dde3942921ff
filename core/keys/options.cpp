#include "core/keys/options.hpp"

#include <algorithm>
#include <iterator>

#include "core/keys/options_rows.hpp"

namespace meshscope {
namespace {

using namespace key_rows;

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
  ServingRow weights = serving_dtype<&ServingWorkload::weight_dtype>(
      {"weights",
       "weight_dtype",
       {},
       {},
       "",
       "",
       "`bf16`",
       "weight format (embedding and head stay 16-bit): fp8 and nvfp4 run low-precision GEMMs where the GPU has "
       "the tensor cores (nvfp4: Blackwell; elsewhere its weights are dequantised into 16-bit GEMMs), int8/int4 "
       "are weight-only",
       "vLLM / TensorRT-LLM quantisation (GPTQ, AWQ, ModelOpt FP8 and NVFP4)"},
      {"bf16", "fp16", "fp8", "nvfp4", "int8", "int4"});
  weights.get = [](const ServingWorkload& w) -> Get {
    return w.weight_dtype == DType::fp4 ? std::string("nvfp4") : dtype_text(w.weight_dtype);
  };
  rows.push_back(std::move(weights));
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
  rows.push_back(
      {{"pp_layout",
        "pipeline_model_parallel_layout",
        KeyType::text,
        {},
        "`Et*3|(tt|)*29m|L`",
        "",
        "stages, or an even split",
        "what each model chunk holds, chunks in virtual-stage order (chunk c of rank r at c·pp + r): E embedding, t "
        "transformer layer, m multi-token-prediction layer, L loss, | next chunk, x*n and (…)*n repeats (Megatron's "
        "cosmetic commas are dropped; leave them out in a key list); a chunk may hold no transformer layer; vpp must "
        "be the chunks ÷ pp",
        "Megatron-Core `--pipeline-model-parallel-layout` (pipeline_parallel_layer_layout.py)"},
       0,
       0,
       "",
       [](Layout& l, const Parsed& p) -> Result<bool> {
         if (auto chunks = parse_pipeline_layout(p.text); !chunks)
           return make_error(ErrorCode::invalid_argument,
                             "\"" + p.text + "\" is not a pipeline layout: " + chunks.error().message,
                             p.option + " " + p.key);
         // Megatron's commas are cosmetic; without them the key survives comma-separated key lists.
         l.pipeline_layout.clear();
         std::copy_if(p.text.begin(), p.text.end(), std::back_inserter(l.pipeline_layout),
                      [](char c) { return c != ','; });
         return ok();
       },
       [](const Layout& l) -> Get {
         if (l.pipeline_layout.empty()) return std::nullopt;
         return l.pipeline_layout;
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
  // Megatron-Bridge's apply_moe_token_drop asserts the all-to-all dispatcher (token dropping is
  // its drop_and_pad path); so do we.
  if (out.moe_capacity_factor > 0 && out.moe_dispatcher != MoeDispatcher::alltoall)
    return make_error(ErrorCode::invalid_argument,
                      "moe_capacity_factor needs moe_dispatcher=alltoall (Megatron pads experts to capacity in the "
                      "all-to-all dispatcher's drop_and_pad path; Megatron-Bridge's apply_moe_token_drop asserts it)",
                      option + " moe_capacity_factor");
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
