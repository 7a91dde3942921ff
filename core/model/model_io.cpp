#include "core/model/model_io.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <vector>

#include "core/base/text_input.hpp"

namespace meshscope {

using nlohmann::json;

namespace {

// Typed field access with errors that name the file and the field.
class Fields {
 public:
  Fields(const json& doc, std::string origin) : doc_(doc), origin_(std::move(origin)) {}

  Result<int64_t> integer(const char* key) const {
    const auto it = doc_.find(key);
    if (it == doc_.end() || it->is_null())
      return make_error(ErrorCode::missing_field, std::string("required field \"") + key + "\" is missing", where(key));
    // Range checks before any conversion: 1e12 and 18446744073709551615 are integers of JSON, not of a model.
    // No field of a model comes near 10^15; below it, defaults such as 4 × n_embd cannot overflow.
    constexpr double kLimit = 1e15;
    if (it->is_number_unsigned() && it->get<uint64_t>() > static_cast<uint64_t>(kLimit))
      return make_error(ErrorCode::invalid_argument,
                        std::string("field \"") + key + "\" is too large (at most 10^15), got " + it->dump(),
                        where(key));
    const bool integral_float =
        it->is_number_float() && std::isfinite(it->get<double>()) && std::trunc(it->get<double>()) == it->get<double>();
    if (!it->is_number_integer() && !integral_float)
      return make_error(ErrorCode::wrong_type,
                        std::string("field \"") + key + "\" must be an integer, got " + it->dump(), where(key));
    if (integral_float && std::abs(it->get<double>()) > kLimit)
      return make_error(ErrorCode::invalid_argument,
                        std::string("field \"") + key + "\" is too large (at most 10^15), got " + it->dump(),
                        where(key));
    const auto value = it->is_number_integer() ? it->get<int64_t>() : static_cast<int64_t>(it->get<double>());
    if (value < 0)
      return make_error(ErrorCode::wrong_type, std::string("field \"") + key + "\" must not be negative", where(key));
    return value;
  }

  Result<int64_t> integer_or(const char* key, int64_t fallback) const {
    const auto it = doc_.find(key);
    if (it == doc_.end() || it->is_null()) return fallback;
    return integer(key);
  }

  Result<bool> boolean_or(const char* key, bool fallback) const {
    const auto it = doc_.find(key);
    if (it == doc_.end() || it->is_null()) return fallback;
    if (!it->is_boolean())
      return make_error(ErrorCode::wrong_type,
                        std::string("field \"") + key + "\" must be true or false, got " + it->dump(), where(key));
    return it->get<bool>();
  }

  Result<double> number_or(const char* key, double fallback) const {
    const auto it = doc_.find(key);
    if (it == doc_.end() || it->is_null()) return fallback;
    if (!it->is_number())
      return make_error(ErrorCode::wrong_type, std::string("field \"") + key + "\" must be a number, got " + it->dump(),
                        where(key));
    return it->get<double>();
  }

  Result<std::string> string_or(const char* key, const std::string& fallback) const {
    const auto it = doc_.find(key);
    if (it == doc_.end() || it->is_null()) return fallback;
    if (!it->is_string())
      return make_error(ErrorCode::wrong_type, std::string("field \"") + key + "\" must be a string, got " + it->dump(),
                        where(key));
    return it->get<std::string>();
  }

  [[nodiscard]] bool has(const char* key) const { return doc_.contains(key) && !doc_.at(key).is_null(); }
  [[nodiscard]] std::string where(const char* key) const { return origin_ + ": " + key; }
  [[nodiscard]] const std::string& origin() const { return origin_; }

 private:
  const json& doc_;
  std::string origin_;
};

Result<ModelSpec> check_model(ModelSpec m, const std::string& origin) {
  auto bad = [&](const char* field, const std::string& why) {
    return make_error(ErrorCode::invalid_argument, why, origin + ": " + field);
  };
  // Upper bounds far above any real model (the largest published ones have 126-160 layers, 2^14-2^15 hidden, 2^18
  // vocabulary, 256 experts): the cost core loops over layers and multiplies the widths, so a file must not make it
  // run for hours or overflow. Each bound names its field.
  struct Bound {
    const char* field;
    int64_t value;
    int64_t limit;
  };
  const Bound bounds[] = {{"num_layers", m.num_layers, 100'000},
                          {"hidden_size", m.hidden_size, int64_t{1} << 20},
                          {"num_heads", m.num_heads, int64_t{1} << 16},
                          {"num_kv_heads", m.num_kv_heads, int64_t{1} << 16},
                          {"head_dim", m.head_dim, int64_t{1} << 16},
                          {"vocab_size", m.vocab_size, int64_t{1} << 26},
                          {"ffn_hidden_size", m.ffn_hidden_size, int64_t{1} << 24},
                          {"max_position_embeddings", m.max_position_embeddings, int64_t{1} << 34},
                          {"num_experts", m.moe.num_experts, int64_t{1} << 16},
                          {"top_k", m.moe.top_k, int64_t{1} << 16},
                          {"expert_ffn_hidden_size", m.moe.expert_ffn_hidden_size, int64_t{1} << 24},
                          {"num_shared_experts", m.moe.num_shared_experts, int64_t{1} << 16},
                          {"shared_expert_ffn_hidden_size", m.moe.shared_expert_ffn_hidden_size, int64_t{1} << 24},
                          {"first_dense_layers", m.moe.first_dense_layers, 100'000},
                          {"layer_frequency", m.moe.layer_frequency, 100'000},
                          {"layer_phase", m.moe.layer_phase, 100'000},
                          {"q_lora_rank", m.mla.q_lora_rank, int64_t{1} << 20},
                          {"kv_lora_rank", m.mla.kv_lora_rank, int64_t{1} << 20},
                          {"qk_rope_head_dim", m.mla.qk_rope_head_dim, int64_t{1} << 16},
                          {"qk_nope_head_dim", m.mla.qk_nope_head_dim, int64_t{1} << 16},
                          {"v_head_dim", m.mla.v_head_dim, int64_t{1} << 16},
                          {"sliding_window", m.sliding_window, int64_t{1} << 34},
                          {"full_attention_every", m.full_attention_every, 100'000}};
  for (const Bound& b : bounds)
    if (b.value > b.limit)
      return bad(b.field, std::string(b.field) + " must be at most " + std::to_string(b.limit) + ", got " +
                              std::to_string(b.value));
  if (m.hidden_size <= 0) return bad("hidden_size", "hidden size must be positive");
  if (m.num_layers <= 0) return bad("num_layers", "the model needs at least one layer");
  if (m.num_heads <= 0) return bad("num_heads", "the number of attention heads must be positive");
  if (m.vocab_size <= 0) return bad("vocab_size", "vocabulary size must be positive");
  if (m.sliding_window < 0) return bad("sliding_window", "the attention window must be 0 (none) or positive");
  if (m.full_attention_every < 0)
    return bad("full_attention_every", "full_attention_every must be 0 (every layer slides) or positive");
  if (m.full_attention_every > 0 && m.sliding_window == 0)
    return bad("full_attention_every", "full_attention_every needs a sliding_window");
  if (!m.mla.enabled()) {
    if (m.num_kv_heads <= 0 || m.num_heads % m.num_kv_heads != 0)
      return bad("num_kv_heads", "KV heads must be positive and divide the attention heads (" +
                                     std::to_string(m.num_heads) + "), got " + std::to_string(m.num_kv_heads));
    if (m.head_dim <= 0) return bad("head_dim", "head dimension must be positive");
  }
  if (m.is_moe()) {
    if (m.moe.top_k <= 0 || m.moe.top_k > m.moe.num_experts)
      return bad("top_k", "experts per token must be between 1 and the number of experts");
    if (m.moe.expert_ffn_hidden_size <= 0) return bad("expert_ffn_hidden_size", "expert FFN width must be positive");
  }
  if (m.num_moe_layers() < m.num_layers && m.ffn_hidden_size <= 0)
    return bad("ffn_hidden_size", "dense layers need a positive FFN width");
  if (m.position == PositionKind::learned && m.max_position_embeddings <= 0)
    return bad("max_position_embeddings", "learned position embeddings need a positive table size");
  return m;
}

}  // namespace

namespace {

// One step of the path to the value being parsed: an object member (its key, owned by the document, whose map nodes
// do not move) or an array element.
struct PathStep {
  const std::string* key = nullptr;
  size_t index = 0;
};

// "devices[3].id", or "the top level"; only the first steps of a deep path (256 levels are no help in a message).
std::string path_text(const std::vector<PathStep>& path) {
  constexpr size_t kShown = 8;
  std::string text;
  for (size_t i = 0; i < path.size() && i < kShown; ++i) {
    if (path[i].key == nullptr)
      text += "[" + std::to_string(path[i].index) + "]";
    else
      text += (text.empty() ? "" : ".") + *path[i].key;
  }
  if (path.size() > kShown) text += "...";
  return text.empty() ? "the top level" : text;
}

// Builds the document from nlohmann's (iterative) SAX parser, so that the checks below happen while reading:
// nesting deeper than kMaxJsonDepth (the parser is not recursive, but copying, comparing and dumping a document
// are), and a key given twice in one object (nlohmann keeps the last one silently).
class CheckedDomBuilder {
 public:
  explicit CheckedDomBuilder(json& root) : root_(root) {}

  bool null() { return add(json(nullptr)); }
  bool boolean(bool value) { return add(json(value)); }
  bool number_integer(json::number_integer_t value) { return add(json(value)); }
  bool number_unsigned(json::number_unsigned_t value) { return add(json(value)); }
  bool number_float(json::number_float_t value, const json::string_t& /*text*/) { return add(json(value)); }
  bool string(json::string_t& value) { return add(json(std::move(value))); }
  bool binary(json::binary_t& value) { return add(json::binary(std::move(value))); }
  bool start_object(std::size_t /*elements*/) { return open(json::object()); }
  bool start_array(std::size_t /*elements*/) { return open(json::array()); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool key(json::string_t& name) {
    json& object = *stack_.back();
    if (object.contains(name)) {
      failure_ = "the key \"" + name + "\" appears twice in " +
                 (path_.empty() ? "the top-level object" : path_text(path_)) + " (meshscope does not pick one of them)";
      return false;
    }
    const auto member = object.emplace(name, json()).first;
    key_ = &member.value();
    path_.push_back({&member.key(), 0});
    return true;
  }
  bool parse_error(std::size_t position, const std::string& /*token*/, const json::exception& e) {
    error_position_ = position;
    failure_ = e.what();
    syntax_error_ = true;
    return false;
  }

  [[nodiscard]] const std::string& failure() const { return failure_; }
  [[nodiscard]] bool syntax_error() const { return syntax_error_; }
  [[nodiscard]] std::size_t error_position() const { return error_position_; }

 private:
  // The slot the next value goes to: the document, an object member (after key()) or a new array element.
  json* slot() {
    if (stack_.empty()) return &root_;
    json& parent = *stack_.back();
    if (parent.is_array()) {
      path_.push_back({nullptr, parent.size()});
      parent.push_back(json());
      return &parent.back();
    }
    return key_;
  }
  bool add(json&& value) {
    *slot() = std::move(value);
    if (!stack_.empty()) path_.pop_back();
    return true;
  }
  bool open(json&& container) {
    if (stack_.size() >= kMaxJsonDepth) {
      failure_ = "arrays and objects are nested more than " + std::to_string(kMaxJsonDepth) + " deep (at " +
                 path_text(path_) + ")";
      return false;
    }
    json* target = slot();
    *target = std::move(container);
    stack_.push_back(target);
    return true;
  }
  bool close() {
    stack_.pop_back();
    if (!stack_.empty()) path_.pop_back();
    return true;
  }

  json& root_;
  std::vector<json*> stack_;
  std::vector<PathStep> path_;  // one step per open container below the top, plus the value being read
  json* key_ = nullptr;
  std::string failure_;
  bool syntax_error_ = false;
  std::size_t error_position_ = 0;
};

// The byte offset where nesting first goes deeper than `depth` (outside strings); text.size() if it never does.
size_t offset_beyond_depth(std::string_view text, size_t depth) {
  size_t level = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (in_string) {
      if (ch == '\\')
        ++i;
      else if (ch == '"')
        in_string = false;
    } else if (ch == '"') {
      in_string = true;
    } else if (ch == '[' || ch == '{') {
      if (++level > depth) return i;
    } else if ((ch == ']' || ch == '}') && level > 0) {
      --level;
    }
  }
  return text.size();
}

std::string line_at(std::string_view text, size_t offset) {
  offset = std::min(offset, text.size());
  return std::to_string(1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
}

}  // namespace

Result<json> parse_json_text(std::string_view text, const std::string& origin) {
  if (auto encoding = check_text_encoding(text, origin)) return tl::unexpected(*encoding);
  json doc;
  CheckedDomBuilder builder(doc);
  const bool complete = json::sax_parse(text, &builder);
  if (complete) return doc;
  if (builder.syntax_error()) {
    // The position is the number of characters read, i.e. just past the offending byte.
    const size_t offset = std::min(builder.error_position() > 0 ? builder.error_position() - 1 : 0, text.size());
    std::string message = "not valid JSON: " + builder.failure();
    const std::string_view rest = text.substr(offset > 8 ? offset - 8 : 0, 24);
    if (rest.find("NaN") != std::string_view::npos || rest.find("Infinity") != std::string_view::npos)
      message += " (NaN and Infinity are not JSON numbers: write a number, or null where the field allows it)";
    return make_error(ErrorCode::parse_error, std::move(message),
                      origin + ":" + line_at(text, offset) + " (byte " + std::to_string(offset + 1) + ")");
  }
  if (builder.failure().rfind("arrays and objects are nested", 0) == 0)
    return make_error(ErrorCode::parse_error, builder.failure(),
                      origin + ":" + line_at(text, offset_beyond_depth(text, kMaxJsonDepth)));
  return make_error(ErrorCode::parse_error, builder.failure(), origin);
}

Result<std::string> read_text_file(const std::string& path, int64_t max_bytes) {
  std::error_code error;
  const auto size = std::filesystem::file_size(path, error);
  if (!error && size > static_cast<uintmax_t>(max_bytes))
    return make_error(ErrorCode::io_error,
                      "the file is " + std::to_string(size) + " bytes; meshscope reads files of this kind up to " +
                          std::to_string(max_bytes) + " bytes",
                      path);
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error(ErrorCode::io_error, "cannot open the file", path);
  // Read in pieces, so that a file that grows (or a pipe) cannot take more than the limit either.
  std::string text;
  std::array<char, 1 << 16> piece{};
  while (in) {
    in.read(piece.data(), piece.size());
    text.append(piece.data(), static_cast<size_t>(in.gcount()));
    if (text.size() > static_cast<size_t>(max_bytes))
      return make_error(ErrorCode::io_error,
                        "the file is larger than " + std::to_string(max_bytes) +
                            " bytes, the most meshscope reads for a file of this kind",
                        path);
  }
  if (in.bad()) return make_error(ErrorCode::io_error, "error while reading the file", path);
  return text;
}

Result<ModelSpec> model_from_json(const json& doc, const std::string& origin) {
  if (!doc.is_object()) return make_error(ErrorCode::wrong_type, "a model file must be a JSON object", origin);
  const Fields f(doc, origin);
  MS_TRY(format, f.string_or("format", ""));
  if (format != "meshscope-model")
    return make_error(ErrorCode::invalid_argument, "\"format\" must be \"meshscope-model\"", f.where("format"));
  MS_TRY(version, f.integer("version"));
  if (version != 1)
    return make_error(ErrorCode::unsupported,
                      "model file version " + std::to_string(version) + " is not supported (1 is)", f.where("version"));
  ModelSpec m;
  MS_TRY(name, f.string_or("name", "unnamed"));
  MS_TRY(source, f.string_or("source", ""));
  m.name = name;
  m.source = source;
  MS_TRY(vocab, f.integer("vocab_size"));
  MS_TRY(hidden, f.integer("hidden_size"));
  MS_TRY(layers, f.integer("num_layers"));
  MS_TRY(heads, f.integer("num_heads"));
  MS_TRY(kv_heads, f.integer_or("num_kv_heads", heads));
  MS_TRY(head_dim, f.integer_or("head_dim", heads > 0 ? hidden / heads : 0));
  MS_TRY(ffn, f.integer_or("ffn_hidden_size", 0));
  m.vocab_size = vocab;
  m.hidden_size = hidden;
  m.num_layers = layers;
  m.num_heads = heads;
  m.num_kv_heads = kv_heads;
  m.head_dim = head_dim;
  m.ffn_hidden_size = ffn;
  MS_TRY(mlp, f.string_or("mlp", "gated"));
  if (mlp != "gated" && mlp != "plain")
    return make_error(ErrorCode::invalid_argument, "\"mlp\" must be \"gated\" or \"plain\"", f.where("mlp"));
  m.mlp = mlp == "gated" ? MlpKind::gated : MlpKind::plain;
  MS_TRY(norm, f.string_or("norm", "rmsnorm"));
  if (norm != "rmsnorm" && norm != "layernorm")
    return make_error(ErrorCode::invalid_argument, "\"norm\" must be \"rmsnorm\" or \"layernorm\"", f.where("norm"));
  m.norm = norm == "rmsnorm" ? NormKind::rmsnorm : NormKind::layernorm;
  MS_TRY(position, f.string_or("position_embedding", "rotary"));
  if (position != "rotary" && position != "learned")
    return make_error(ErrorCode::invalid_argument, "\"position_embedding\" must be \"rotary\" or \"learned\"",
                      f.where("position_embedding"));
  m.position = position == "rotary" ? PositionKind::rotary : PositionKind::learned;
  MS_TRY(max_pos, f.integer_or("max_position_embeddings", 0));
  m.max_position_embeddings = max_pos;
  MS_TRY(tied, f.boolean_or("tied_embeddings", false));
  MS_TRY(qkv_bias, f.boolean_or("qkv_bias", false));
  MS_TRY(out_bias, f.boolean_or("attn_out_bias", false));
  MS_TRY(mlp_bias, f.boolean_or("mlp_bias", false));
  MS_TRY(qk_norm, f.boolean_or("qk_norm", false));
  MS_TRY(dropout, f.boolean_or("dropout", false));
  MS_TRY(window, f.integer_or("sliding_window", 0));
  MS_TRY(full_every, f.integer_or("full_attention_every", 0));
  MS_TRY(sinks, f.boolean_or("attention_sinks", false));
  m.sliding_window = window;
  m.full_attention_every = full_every;
  m.attention_sinks = sinks;
  m.tied_embeddings = tied;
  m.qkv_bias = qkv_bias;
  m.attn_out_bias = out_bias;
  m.mlp_bias = mlp_bias;
  m.qk_norm = qk_norm;
  m.dropout = dropout;
  if (doc.contains("moe")) {
    const auto& moe_doc = doc.at("moe");
    if (!moe_doc.is_object()) return make_error(ErrorCode::wrong_type, "\"moe\" must be an object", f.where("moe"));
    const Fields g(moe_doc, origin + ": moe");
    MS_TRY(experts, g.integer("num_experts"));
    MS_TRY(top_k, g.integer("top_k"));
    MS_TRY(expert_ffn, g.integer("expert_ffn_hidden_size"));
    MS_TRY(shared, g.integer_or("num_shared_experts", 0));
    MS_TRY(shared_ffn, g.integer_or("shared_expert_ffn_hidden_size", expert_ffn));
    MS_TRY(first_dense, g.integer_or("first_dense_layers", 0));
    MS_TRY(freq, g.integer_or("layer_frequency", 1));
    MS_TRY(phase, g.integer_or("layer_phase", 0));
    MS_TRY(router_bias, g.boolean_or("router_bias", false));
    m.moe = {experts, top_k, expert_ffn, shared, shared_ffn, first_dense, freq == 0 ? 1 : freq, phase, router_bias};
  }
  if (doc.contains("mla")) {
    const auto& mla_doc = doc.at("mla");
    if (!mla_doc.is_object()) return make_error(ErrorCode::wrong_type, "\"mla\" must be an object", f.where("mla"));
    const Fields g(mla_doc, origin + ": mla");
    MS_TRY(q_lora, g.integer_or("q_lora_rank", 0));
    MS_TRY(kv_lora, g.integer("kv_lora_rank"));
    MS_TRY(rope, g.integer("qk_rope_head_dim"));
    MS_TRY(nope, g.integer("qk_nope_head_dim"));
    MS_TRY(v_dim, g.integer("v_head_dim"));
    m.mla = {q_lora, kv_lora, rope, nope, v_dim};
  }
  return check_model(std::move(m), origin);
}

json model_to_json(const ModelSpec& m) {
  json doc = {{"format", "meshscope-model"},
              {"version", 1},
              {"name", m.name},
              {"source", m.source},
              {"vocab_size", m.vocab_size},
              {"hidden_size", m.hidden_size},
              {"num_layers", m.num_layers},
              {"num_heads", m.num_heads},
              {"num_kv_heads", m.num_kv_heads},
              {"head_dim", m.head_dim},
              {"ffn_hidden_size", m.ffn_hidden_size},
              {"mlp", m.mlp == MlpKind::gated ? "gated" : "plain"},
              {"norm", m.norm == NormKind::rmsnorm ? "rmsnorm" : "layernorm"},
              {"position_embedding", m.position == PositionKind::rotary ? "rotary" : "learned"},
              {"max_position_embeddings", m.max_position_embeddings},
              {"tied_embeddings", m.tied_embeddings},
              {"qkv_bias", m.qkv_bias},
              {"attn_out_bias", m.attn_out_bias},
              {"mlp_bias", m.mlp_bias},
              {"qk_norm", m.qk_norm},
              {"dropout", m.dropout}};
  doc["sliding_window"] = m.sliding_window;
  doc["full_attention_every"] = m.full_attention_every;
  doc["attention_sinks"] = m.attention_sinks;
  if (m.is_moe())
    doc["moe"] = {{"num_experts", m.moe.num_experts},
                  {"top_k", m.moe.top_k},
                  {"expert_ffn_hidden_size", m.moe.expert_ffn_hidden_size},
                  {"num_shared_experts", m.moe.num_shared_experts},
                  {"shared_expert_ffn_hidden_size", m.moe.shared_expert_ffn_hidden_size},
                  {"first_dense_layers", m.moe.first_dense_layers},
                  {"layer_frequency", m.moe.layer_frequency},
                  {"layer_phase", m.moe.layer_phase},
                  {"router_bias", m.moe.router_bias}};
  if (m.mla.enabled())
    doc["mla"] = {{"q_lora_rank", m.mla.q_lora_rank},
                  {"kv_lora_rank", m.mla.kv_lora_rank},
                  {"qk_rope_head_dim", m.mla.qk_rope_head_dim},
                  {"qk_nope_head_dim", m.mla.qk_nope_head_dim},
                  {"v_head_dim", m.mla.v_head_dim}};
  return doc;
}

struct SlidingWindow {
  int64_t window = 0;
  int64_t full_attention_every = 0;
};

// The attention window of a config.json: `sliding_window` with `layer_types` (transformers ≥ 4.55:
// "sliding_attention" / "full_attention" per layer; GPT-OSS, Gemma) — a repeating group of sliding
// layers closed by one full-attention layer, or every layer sliding —; without layer_types every
// layer slides (Mistral 7B v0.1's sliding_window 4096). Qwen2/Qwen3 slide only with
// use_sliding_window, then on the layers from max_window_layers on: no repeating group, refused.
Result<SlidingWindow> sliding_window_of(const json& config, const Fields& f, const std::string& type) {
  MS_TRY(window, f.integer_or("sliding_window", 0));
  if (window == 0) return SlidingWindow{};
  if (type == "qwen2" || type == "qwen3" || type == "qwen3_moe") {
    MS_TRY(use, f.boolean_or("use_sliding_window", false));
    if (!use) return SlidingWindow{};
    return make_error(ErrorCode::unsupported,
                      "use_sliding_window with max_window_layers (a window on the last layers only) is not supported",
                      f.where("use_sliding_window"));
  }
  if (!f.has("layer_types")) return SlidingWindow{window, 0};
  const json& types = config.at("layer_types");
  if (!types.is_array() || types.empty())
    return make_error(ErrorCode::wrong_type, "\"layer_types\" must be a non-empty array", f.where("layer_types"));
  std::vector<bool> full;
  for (size_t i = 0; i < types.size(); ++i) {
    const json& t = types[i];
    if (!t.is_string() || (t != "sliding_attention" && t != "full_attention"))
      return make_error(
          ErrorCode::invalid_argument,
          "layer_types[" + std::to_string(i) + "] must be \"sliding_attention\" or \"full_attention\", got " + t.dump(),
          f.where("layer_types"));
    full.push_back(t == "full_attention");
  }
  const auto first_full = std::find(full.begin(), full.end(), true);
  if (first_full == full.begin() && std::all_of(full.begin(), full.end(), [](bool b) { return b; }))
    return SlidingWindow{};  // a window that no layer uses
  const int64_t every = first_full == full.end() ? 0 : static_cast<int64_t>(first_full - full.begin()) + 1;
  for (size_t i = 0; i < full.size(); ++i) {
    const bool expected = every > 0 && (static_cast<int64_t>(i) + 1) % every == 0;
    if (full[i] != expected)
      return make_error(ErrorCode::unsupported,
                        "layer_types is not a repeating group of sliding layers closed by one full-attention layer "
                        "(layer " +
                            std::to_string(i) + " breaks the pattern of the first " + std::to_string(every) + ")",
                        f.where("layer_types"));
  }
  return SlidingWindow{window, every};
}

namespace {

// GPT-2 (modeling_gpt2.py): Conv1D layers with biases, LayerNorm, learned positions, GeLU 4h
// MLP (n_inner), tied LM head, dropout.
Result<void> read_gpt2_fields(const Fields& f, ModelSpec& m) {
  MS_TRY(vocab, f.integer("vocab_size"));
  MS_TRY(hidden, f.integer("n_embd"));
  MS_TRY(layers, f.integer("n_layer"));
  MS_TRY(heads, f.integer("n_head"));
  MS_TRY(positions, f.integer("n_positions"));
  MS_TRY(inner, f.integer_or("n_inner", 4 * hidden));
  m.vocab_size = vocab;
  m.hidden_size = hidden;
  m.num_layers = layers;
  m.num_heads = heads;
  m.num_kv_heads = heads;
  m.head_dim = heads > 0 ? hidden / heads : 0;
  m.ffn_hidden_size = inner;
  m.mlp = MlpKind::plain;
  m.norm = NormKind::layernorm;
  m.position = PositionKind::learned;
  m.max_position_embeddings = positions;
  m.tied_embeddings = true;
  m.qkv_bias = m.attn_out_bias = m.mlp_bias = true;
  MS_TRY(dropout, f.number_or("resid_pdrop", 0.1));
  m.dropout = dropout > 0;
  return {};
}

// The fields the Llama-style families share (LlamaConfig's names): shape, heads, embeddings; a gated
// MLP, RMSNorm and rotary positions.
Result<void> read_decoder_fields(const Fields& f, ModelSpec& m) {
  MS_TRY(vocab, f.integer("vocab_size"));
  MS_TRY(hidden, f.integer("hidden_size"));
  MS_TRY(layers, f.integer("num_hidden_layers"));
  MS_TRY(heads, f.integer("num_attention_heads"));
  MS_TRY(kv_heads, f.integer_or("num_key_value_heads", heads));
  MS_TRY(head_dim, f.integer_or("head_dim", heads > 0 ? hidden / heads : 0));
  MS_TRY(tied, f.boolean_or("tie_word_embeddings", false));
  MS_TRY(max_pos, f.integer_or("max_position_embeddings", 0));
  m.vocab_size = vocab;
  m.hidden_size = hidden;
  m.num_layers = layers;
  m.num_heads = heads;
  m.num_kv_heads = kv_heads;
  m.head_dim = head_dim;
  m.tied_embeddings = tied;
  m.max_position_embeddings = max_pos;
  m.mlp = MlpKind::gated;
  m.norm = NormKind::rmsnorm;
  m.position = PositionKind::rotary;
  MS_TRY(act, f.string_or("hidden_act", "silu"));
  (void)act;  // all supported families use a gated MLP (SiLU/GeLU gating)
  return {};
}

// Each family's own fields (the MLP, biases, experts, MLA), after the shared ones.
using FamilyFields = Result<void> (*)(const json& config, const Fields& f, const std::string& type, ModelSpec& m);

Result<void> read_llama_fields(const json& /*config*/, const Fields& f, const std::string& /*type*/, ModelSpec& m) {
  MS_TRY(ffn, f.integer("intermediate_size"));
  MS_TRY(bias, f.boolean_or("attention_bias", false));
  MS_TRY(mlp_bias, f.boolean_or("mlp_bias", false));
  m.ffn_hidden_size = ffn;
  m.qkv_bias = m.attn_out_bias = bias;
  m.mlp_bias = mlp_bias;
  return {};
}

Result<void> read_qwen2_fields(const json& /*config*/, const Fields& f, const std::string& /*type*/, ModelSpec& m) {
  MS_TRY(ffn, f.integer("intermediate_size"));
  m.ffn_hidden_size = ffn;
  m.qkv_bias = true;  // Qwen2Attention: bias on q_proj, k_proj, v_proj only
  return {};
}

Result<void> read_qwen3_fields(const json& config, const Fields& f, const std::string& type, ModelSpec& m) {
  MS_TRY(ffn, f.integer_or("intermediate_size", 0));
  MS_TRY(bias, f.boolean_or("attention_bias", false));
  m.ffn_hidden_size = ffn;
  m.qkv_bias = m.attn_out_bias = bias;
  m.qk_norm = true;  // Qwen3Attention: q_norm and k_norm over head_dim
  if (type != "qwen3_moe") return {};
  MS_TRY(experts, f.integer("num_experts"));
  MS_TRY(top_k, f.integer("num_experts_per_tok"));
  MS_TRY(expert_ffn, f.integer("moe_intermediate_size"));
  MS_TRY(step, f.integer_or("decoder_sparse_step", 1));
  if (config.contains("mlp_only_layers") && config.at("mlp_only_layers").is_array() &&
      !config.at("mlp_only_layers").empty())
    return make_error(ErrorCode::unsupported, "mlp_only_layers (dense layers at arbitrary positions) is not supported",
                      f.where("mlp_only_layers"));
  // Qwen3MoeDecoderLayer: MoE when (layer_idx + 1) % decoder_sparse_step == 0.
  const int64_t s = step > 0 ? step : 1;
  m.moe = {experts, top_k, expert_ffn, 0, 0, 0, s, s - 1, false};
  return {};
}

Result<void> read_mixtral_fields(const json& /*config*/, const Fields& f, const std::string& /*type*/, ModelSpec& m) {
  MS_TRY(ffn, f.integer("intermediate_size"));
  MS_TRY(experts, f.integer("num_local_experts"));
  MS_TRY(top_k, f.integer("num_experts_per_tok"));
  m.ffn_hidden_size = ffn;
  m.moe = {experts, top_k, ffn, 0, 0, 0, 1, 0, false};
  return {};
}

Result<void> read_deepseek_v3_fields(const json& /*config*/, const Fields& f, const std::string& /*type*/,
                                     ModelSpec& m) {
  MS_TRY(ffn, f.integer("intermediate_size"));
  MS_TRY(experts, f.integer("n_routed_experts"));
  MS_TRY(top_k, f.integer("num_experts_per_tok"));
  MS_TRY(expert_ffn, f.integer("moe_intermediate_size"));
  MS_TRY(shared, f.integer_or("n_shared_experts", 0));
  MS_TRY(first_dense, f.integer_or("first_k_dense_replace", 0));
  MS_TRY(freq, f.integer_or("moe_layer_freq", 1));
  MS_TRY(q_lora, f.integer_or("q_lora_rank", 0));
  MS_TRY(kv_lora, f.integer("kv_lora_rank"));
  MS_TRY(rope, f.integer("qk_rope_head_dim"));
  MS_TRY(nope, f.integer("qk_nope_head_dim"));
  MS_TRY(v_dim, f.integer("v_head_dim"));
  MS_TRY(bias, f.boolean_or("attention_bias", false));
  m.ffn_hidden_size = ffn;
  // DeepseekV3MoE: shared experts are one MLP of width n_shared_experts × moe_intermediate_size.
  m.moe = {experts, top_k, expert_ffn, shared, expert_ffn, first_dense, freq > 0 ? freq : 1, 0, true};
  m.mla = {q_lora, kv_lora, rope, nope, v_dim};
  m.head_dim = nope + rope;
  m.qkv_bias = m.attn_out_bias = bias;
  // The multi-token-prediction module (num_nextn_predict_layers) is not part of the main model.
  return {};
}

// GPT-OSS (modeling_gpt_oss.py): biased q/k/v/o projections and one learned sink logit per head
// (GptOssAttention), a router Linear with bias (GptOssTopKRouter), experts whose gate_up and
// down projections carry biases (GptOssExperts); every layer is MoE.
Result<void> read_gpt_oss_fields(const json& /*config*/, const Fields& f, const std::string& /*type*/, ModelSpec& m) {
  MS_TRY(ffn, f.integer("intermediate_size"));
  MS_TRY(experts, f.integer("num_local_experts"));
  MS_TRY(top_k, f.integer_or("num_experts_per_tok", 0));
  MS_TRY(bias, f.boolean_or("attention_bias", true));
  m.ffn_hidden_size = ffn;
  m.moe = {experts, top_k, ffn, 0, 0, 0, 1, 0, true};
  if (top_k == 0) {
    MS_TRY(per_token, f.integer("experts_per_token"));
    m.moe.top_k = per_token;
  }
  m.qkv_bias = m.attn_out_bias = bias;
  m.mlp_bias = true;
  m.attention_sinks = true;
  return {};
}

struct HfFamily {
  std::string_view type;  // config.json's model_type
  FamilyFields read;
};
constexpr std::array<HfFamily, 8> kHfFamilies{{{"llama", read_llama_fields},
                                               {"mistral", read_llama_fields},
                                               {"mixtral", read_mixtral_fields},
                                               {"qwen2", read_qwen2_fields},
                                               {"qwen3", read_qwen3_fields},
                                               {"qwen3_moe", read_qwen3_fields},
                                               {"deepseek_v3", read_deepseek_v3_fields},
                                               {"gpt_oss", read_gpt_oss_fields}}};

}  // namespace

Result<ModelSpec> model_from_hf_config(const json& config, const std::string& origin) {
  if (!config.is_object()) return make_error(ErrorCode::wrong_type, "config.json must be a JSON object", origin);
  const Fields f(config, origin);
  if (!f.has("model_type"))
    return make_error(ErrorCode::missing_field, "required field \"model_type\" is missing", f.where("model_type"));
  MS_TRY(type, f.string_or("model_type", ""));
  ModelSpec m;
  m.source = "Hugging Face config.json (" + origin + ")";
  MS_TRY(name, f.string_or("_name_or_path", type));
  m.name = name;

  if (type == "gpt2") {
    if (auto read = read_gpt2_fields(f, m); !read) return tl::unexpected(read.error());
    return check_model(std::move(m), origin);
  }
  const auto* family = std::find_if(kHfFamilies.begin(), kHfFamilies.end(),
                                    [&](const HfFamily& candidate) { return candidate.type == type; });
  if (family == kHfFamilies.end())
    return make_error(
        ErrorCode::unsupported,
        "model_type \"" + type +
            "\" is not supported (llama, mistral, mixtral, qwen2, qwen3, qwen3_moe, deepseek_v3, gpt_oss, gpt2 are)",
        f.where("model_type"));
  if (auto read = read_decoder_fields(f, m); !read) return tl::unexpected(read.error());
  if (auto read = family->read(config, f, type, m); !read) return tl::unexpected(read.error());
  MS_TRY(window, sliding_window_of(config, f, type));
  m.sliding_window = window.window;
  m.full_attention_every = window.full_attention_every;
  return check_model(std::move(m), origin);
}

Result<ModelSpec> load_model_file(const std::string& path) {
  MS_TRY(text, read_text_file(path));
  MS_TRY(doc, parse_json_text(text, path));
  if (doc.is_object() && doc.contains("model_type")) return model_from_hf_config(doc, path);
  if (doc.is_object() && doc.contains("format")) return model_from_json(doc, path);
  return make_error(ErrorCode::invalid_argument,
                    "neither a Hugging Face config.json (no \"model_type\") nor a meshscope model file (no \"format\")",
                    path);
}

}  // namespace meshscope
