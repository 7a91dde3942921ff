// Readers of what a training log says about the run's setup (training_log_setup.hpp).
#include "core/importers/training_log_setup.hpp"

#include <charconv>

#include "core/importers/training_log_lines.hpp"

namespace meshscope::training_log_detail {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

std::optional<std::string> str_arg(const std::map<std::string, std::string>& args, const std::string& name) {
  const auto it = args.find(name);
  if (it == args.end() || it->second == "None") return std::nullopt;
  return it->second;
}

std::optional<int64_t> int_arg(const std::map<std::string, std::string>& args, const std::string& name) {
  const auto it = args.find(name);
  if (it == args.end()) return std::nullopt;
  int64_t v = 0;
  const std::string& s = it->second;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

}  // namespace

// The argument dump's "name ....... value" (or "name  value" where the name is long).
std::optional<std::pair<std::string, std::string>> argument_line(std::string_view s) {
  s = trim(s);
  const size_t space = s.find(' ');
  if (space == std::string_view::npos || space == 0) return std::nullopt;
  const std::string_view name = s.substr(0, space);
  for (const char c : name)
    if (!(is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_')) return std::nullopt;
  std::string_view rest = s.substr(space);
  while (!rest.empty() && (rest.front() == ' ' || rest.front() == '.')) rest.remove_prefix(1);
  return std::pair{std::string(name), std::string(trim(rest))};
}

std::optional<bool> bool_arg(const std::map<std::string, std::string>& args, const std::string& name) {
  const auto it = args.find(name);
  if (it == args.end()) return std::nullopt;
  if (it->second == "True" || it->second == "true") return true;
  if (it->second == "False" || it->second == "false") return false;
  return std::nullopt;
}

// Megatron's (and Megatron-DeepSpeed's, and DeepSpeedExamples' Megatron v1.1.5) arguments → model and layout.
void read_megatron_arguments(const std::map<std::string, std::string>& a, LogModelDims& m, LogLayout& l) {
  m.num_layers = int_arg(a, "num_layers");
  m.hidden_size = int_arg(a, "hidden_size");
  m.ffn_hidden_size = int_arg(a, "ffn_hidden_size");
  m.num_attention_heads = int_arg(a, "num_attention_heads");
  if (bool_arg(a, "group_query_attention").value_or(false)) m.num_query_groups = int_arg(a, "num_query_groups");
  m.seq_length = int_arg(a, "seq_length");
  m.vocab_size = int_arg(a, "padded_vocab_size");
  if (!m.vocab_size) m.vocab_size = int_arg(a, "vocab_size");
  m.num_experts = int_arg(a, "num_experts");
  m.head_dim = int_arg(a, "kv_channels");
  m.max_position_embeddings = int_arg(a, "max_position_embeddings");
  // Megatron's defaults where an older version prints no such argument: GeLU MLP, LayerNorm, learned absolute
  // positions, tied embeddings, biases on every linear layer (megatron/training/arguments.py).
  m.gated_mlp = bool_arg(a, "swiglu").value_or(false);
  m.rmsnorm = str_arg(a, "normalization").value_or("LayerNorm") == "RMSNorm";
  m.rotary = str_arg(a, "position_embedding_type").value_or("learned_absolute") == "rope" ||
             bool_arg(a, "use_rotary_position_embeddings").value_or(false);
  m.tied_embeddings = !bool_arg(a, "untie_embeddings_and_output_weights").value_or(false);
  m.linear_bias = bool_arg(a, "add_bias_linear").value_or(true);
  const auto positive = [&](const char* name) {
    const auto it = a.find(name);
    return it != a.end() && number_at(it->second).value_or(0) > 0;
  };
  m.dropout = positive("hidden_dropout") || positive("attention_dropout");
  l.world_size = int_arg(a, "world_size");
  l.tp = int_arg(a, "tensor_model_parallel_size");
  if (!l.tp) l.tp = int_arg(a, "model_parallel_size");  // Megatron v1.1.5: model parallel = tensor parallel
  l.pp = int_arg(a, "pipeline_model_parallel_size");
  l.cp = int_arg(a, "context_parallel_size");
  l.ep = int_arg(a, "expert_model_parallel_size");
  l.vpp = int_arg(a, "virtual_pipeline_model_parallel_size");
  if (!l.vpp && m.num_layers && l.pp)
    if (const auto per_stage = int_arg(a, "num_layers_per_virtual_pipeline_stage"); per_stage && *per_stage > 0)
      l.vpp = *m.num_layers / (*l.pp * *per_stage);
  l.dp = int_arg(a, "data_parallel_size");
  if (!l.dp && l.world_size && l.tp) {
    const int64_t model_ranks = *l.tp * l.pp.value_or(1) * l.cp.value_or(1);
    if (model_ranks > 0 && *l.world_size % model_ranks == 0) l.dp = *l.world_size / model_ranks;
  }
  l.sequence_parallel = bool_arg(a, "sequence_parallel");
  l.micro_batch = int_arg(a, "micro_batch_size");
  if (!l.micro_batch) l.micro_batch = int_arg(a, "batch_size");  // v1.1.5: batch per model instance
  l.global_batch = int_arg(a, "global_batch_size");
  if (!l.global_batch && !a.count("micro_batch_size") && l.micro_batch && l.dp)
    l.global_batch = *l.micro_batch * *l.dp;  // v1.1.5 without gradient accumulation
  if (const auto granularity = str_arg(a, "recompute_granularity"))
    l.recompute = *granularity;
  else if (bool_arg(a, "checkpoint_activations").value_or(false))
    l.recompute = "full";
  else if (bool_arg(a, "recompute_activations").value_or(false))
    l.recompute = "selective";
  else if (a.count("recompute_granularity") || a.count("checkpoint_activations"))
    l.recompute = "none";
  if (bool_arg(a, "bf16").value_or(false))
    l.precision = "bf16";
  else if (bool_arg(a, "fp16").value_or(false))
    l.precision = "fp16";
  else if (a.count("fp16") || a.count("bf16"))
    l.precision = "fp32";
  l.distributed_optimizer = bool_arg(a, "use_distributed_optimizer");
  if (bool_arg(a, "deepspeed").value_or(false))
    l.zero_stage = int_arg(a, "zero_stage");
  else
    l.zero_stage = l.distributed_optimizer.value_or(false) ? 1 : 0;  // Megatron's distributed optimizer ≈ ZeRO-1
}

// torchtitan's "ModelArgs(dim=4096, n_layers=32, ...)".
void read_torchtitan_model(std::string_view s, LogModelDims& m) {
  const auto arg = [&](std::string_view key) -> std::optional<int64_t> {
    const size_t at = s.find(key);
    if (at == std::string_view::npos) return std::nullopt;
    return as_count(number_at(s.substr(at + key.size())));
  };
  m.hidden_size = arg("(dim=");
  if (!m.hidden_size) m.hidden_size = arg(" dim=");
  m.num_layers = arg("n_layers=");
  m.num_attention_heads = arg("n_heads=");
  m.num_query_groups = arg("n_kv_heads=");
  m.vocab_size = arg("vocab_size=");
  m.seq_length = arg("max_seq_len=");
  m.max_position_embeddings = m.seq_length;
  // torchtitan's Llama FeedForward: 4·dim → 2/3 of it → × ffn_dim_multiplier → up to a multiple of multiple_of.
  if (m.hidden_size) {
    int64_t ffn = 2 * (4 * *m.hidden_size) / 3;
    if (const size_t at = s.find("ffn_dim_multiplier="); at != std::string_view::npos)
      if (const auto f = number_at(s.substr(at + 19)); f && *f > 0 && *f < 100)
        ffn = static_cast<int64_t>(*f * static_cast<double>(ffn));
    if (const auto multiple = arg("multiple_of="); multiple && *multiple > 0)
      ffn = *multiple * ((ffn + *multiple - 1) / *multiple);
    m.ffn_hidden_size = ffn;
  }
  if (m.hidden_size && m.num_attention_heads && *m.num_attention_heads > 0)
    m.head_dim = *m.hidden_size / *m.num_attention_heads;
  m.gated_mlp = true;
  m.rmsnorm = true;
  m.rotary = true;
  m.tied_embeddings = false;
  m.linear_bias = false;
  m.dropout = false;
}

// "Building 1-D device mesh with ['dp_shard'], [8]" → name → size.
std::map<std::string, int64_t> read_mesh(std::string_view s) {
  std::map<std::string, int64_t> mesh;
  const size_t names_open = s.find('[', s.find("device mesh with"));
  const size_t names_close = s.find(']', names_open);
  if (names_open == std::string_view::npos || names_close == std::string_view::npos) return mesh;
  const size_t sizes_open = s.find('[', names_close);
  const size_t sizes_close = s.find(']', sizes_open);
  if (sizes_open == std::string_view::npos || sizes_close == std::string_view::npos) return mesh;
  std::vector<std::string> names;
  std::string_view n = s.substr(names_open + 1, names_close - names_open - 1);
  while (!n.empty()) {
    const size_t comma = n.find(',');
    std::string_view item = trim(n.substr(0, comma));
    if (item.size() >= 2 && (item.front() == '\'' || item.front() == '"')) item = item.substr(1, item.size() - 2);
    names.emplace_back(item);
    if (comma == std::string_view::npos) break;
    n.remove_prefix(comma + 1);
  }
  std::string_view z = s.substr(sizes_open + 1, sizes_close - sizes_open - 1);
  for (const std::string& name : names) {
    const auto size = as_count(number_at(z));
    if (!size) break;
    mesh[name] = *size;
    const size_t comma = z.find(',');
    if (comma == std::string_view::npos) break;
    z.remove_prefix(comma + 1);
  }
  return mesh;
}

// One or more Megatron memory reports in a line (ranks' prints can run together on one line).
void read_memory_reports(std::string_view s, int64_t line, std::vector<LogMemory>& out) {
  const std::string_view key = "memory (MB)";
  size_t head = 0;
  size_t at = s.find(key);
  while (at != std::string_view::npos) {
    const size_t next = s.find(key, at + key.size());
    const std::string_view before = s.substr(head, at - head);
    const std::string_view body = s.substr(at, next == std::string_view::npos ? std::string_view::npos : next - at);
    LogMemory m;
    m.line = line;
    if (const size_t r = before.rfind("[Rank "); r != std::string_view::npos)
      m.rank = as_count(number_at(before.substr(r + 6)));
    if (const size_t a = before.rfind("after "); a != std::string_view::npos)
      m.after_iterations = as_count(number_at(before.substr(a + 6)));
    const auto mib = [&](std::string_view k) -> std::optional<double> {
      const size_t p = body.find(k);
      if (p == std::string_view::npos) return std::nullopt;
      const auto v = number_at(body.substr(p + k.size()));
      return v ? std::optional<double>(*v * kMiB) : std::nullopt;
    };
    m.allocated_bytes = mib("| allocated:");
    m.max_allocated_bytes = mib("| max allocated:");
    m.reserved_bytes = mib("| reserved:");
    m.max_reserved_bytes = mib("| max reserved:");
    if (m.allocated_bytes || m.max_allocated_bytes) out.push_back(m);
    // The next report's "[Rank N] (after K iterations)" lies between this body's numbers and the next key.
    head = at + key.size();
    at = next;
  }
}

}  // namespace meshscope::training_log_detail
