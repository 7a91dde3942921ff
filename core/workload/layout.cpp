#include "core/workload/layout.hpp"

#include <algorithm>
#include <charconv>
#include <numeric>
#include <optional>
#include <string>

namespace meshscope {

Layout ServingLayout::mesh(const ModelSpec& model) const {
  Layout l;
  l.tp = tp;
  l.pp = pp;
  l.dp = dp;
  l.ep = ep;
  l.etp = model.is_moe() ? expert_tp() : 1;
  return l;
}
namespace {

std::string num(int64_t value) {
  return std::to_string(value);
}

void check_positive(std::vector<LayoutProblem>& problems, const Layout& l) {
  const std::pair<const char*, int64_t> degrees[] = {
      {"dp", l.dp}, {"tp", l.tp}, {"pp", l.pp},   {"vpp", l.vpp},
      {"cp", l.cp}, {"ep", l.ep}, {"etp", l.etp}, {"micro_batch", l.micro_batch}};
  for (const auto& [name, value] : degrees)
    if (value < 1) problems.push_back({name, std::string(name) + " must be at least 1, got " + num(value) + "."});
  if (l.fsdp < 0) problems.push_back({"fsdp", "fsdp (shard-group size) must be 0 (whole DP group) or positive."});
}

// The chunks of a layout that parses and has pp·vpp of them; otherwise none (validation says why).
std::optional<std::vector<ModelChunk>> layout_chunks(const Layout& l) {
  if (l.pipeline_layout.empty()) return std::nullopt;
  auto chunks = parse_pipeline_layout(l.pipeline_layout);
  if (!chunks || static_cast<int64_t>(chunks->size()) != std::max<int64_t>(l.pp, 1) * std::max<int64_t>(l.vpp, 1))
    return std::nullopt;
  return std::move(*chunks);
}

// The layout against the model and the degrees, as PipelineParallelLayerLayout.__init__ and
// validate_layer_layout check it.
void check_pipeline_layout(std::vector<LayoutProblem>& problems, const ModelSpec& m, const Layout& l) {
  const auto chunks = parse_pipeline_layout(l.pipeline_layout);
  if (!chunks) {
    problems.push_back({"pp_layout", chunks.error().message});
    return;
  }
  const auto n = static_cast<int64_t>(chunks->size());
  if (n % l.pp != 0) {
    problems.push_back({"pp_layout", "The layout has " + num(n) + " model chunks, not a multiple of PP=" + num(l.pp) +
                                         " (Megatron-Core: its length must be divisible by the pipeline size)."});
    return;
  }
  if (n / l.pp != l.vpp)
    problems.push_back({"vpp", "The layout's " + num(n) + " model chunks over PP=" + num(l.pp) + " are " +
                                   num(n / l.pp) + " virtual stages per rank; set vpp=" + num(n / l.pp) + "."});
  int64_t layers = 0;
  for (const ModelChunk& c : *chunks) layers += c.layers;
  if (layers != m.num_layers)
    problems.push_back({"pp_layout", "The layout places " + num(layers) +
                                         " transformer layers ('t') but the model has " + num(m.num_layers) + "."});
  if (!l.stage_layers.empty()) problems.push_back({"stage_layers", "Give either stages= or pp_layout=, not both."});
  // MTP: all of it in one rank's last chunk, not on the first rank (validate_layer_layout).
  const int64_t v = n / l.pp;
  int64_t mtp = 0;
  for (const ModelChunk& c : *chunks) mtp += c.mtp;
  for (int64_t u = 0; u < n; ++u) {
    const ModelChunk& c = (*chunks)[static_cast<size_t>(u)];
    if (c.mtp == 0) continue;
    const int64_t rank = u % l.pp, chunk = u / l.pp;
    if (chunk != v - 1 || (rank == 0 && l.pp > 1) || c.mtp != mtp) {
      problems.push_back({"pp_layout",
                          "The MTP layers ('m') must all be in one pipeline rank's last model chunk, "
                          "and not on the first rank (Megatron-Core's validate_layer_layout)."});
      break;
    }
  }
}

bool degrees_positive(const Layout& l) {
  return l.dp >= 1 && l.tp >= 1 && l.pp >= 1 && l.vpp >= 1 && l.cp >= 1 && l.ep >= 1 && l.etp >= 1 &&
         l.micro_batch >= 1 && l.fsdp >= 0;
}

// Constraints common to training and serving: head split, stage split, expert split.
void check_model_split(std::vector<LayoutProblem>& problems, const ModelSpec& m, const Layout& l,
                       bool allow_kv_replication) {
  if (m.num_heads % l.tp != 0)
    problems.push_back(
        {"tp", "The " + num(m.num_heads) + " attention heads cannot be split evenly over TP=" + num(l.tp) + "."});
  if (!m.mla.enabled() && m.num_kv_heads % l.tp != 0) {
    const bool replicable = allow_kv_replication && l.tp % m.num_kv_heads == 0;
    if (!replicable)
      problems.push_back({"tp", "The " + num(m.num_kv_heads) + " KV heads cannot be split evenly over TP=" + num(l.tp) +
                                    (allow_kv_replication ? " (nor replicated: TP is not a multiple of them)."
                                                          : " (Megatron requires num_query_groups % TP == 0).")});
  }
  if (m.ffn_hidden_size > 0 && m.ffn_hidden_size % l.tp != 0)
    problems.push_back(
        {"tp", "The FFN width " + num(m.ffn_hidden_size) + " is not divisible by TP=" + num(l.tp) + "."});
  if (!l.pipeline_layout.empty()) {
    check_pipeline_layout(problems, m, l);
  } else if (l.stage_layers.empty()) {
    if (m.num_layers % (l.pp * l.vpp) != 0)
      problems.push_back({"pp", "The " + num(m.num_layers) + " layers cannot be split evenly into PP=" + num(l.pp) +
                                    (l.vpp > 1 ? " × virtual stages " + num(l.vpp) : std::string()) +
                                    " stages; give stage_layers explicitly for an uneven split."});
  } else {
    if (static_cast<int64_t>(l.stage_layers.size()) != l.pp)
      problems.push_back({"stage_layers", "stage_layers lists " + num(static_cast<int64_t>(l.stage_layers.size())) +
                                              " stages but PP=" + num(l.pp) + "."});
    const int64_t sum = std::accumulate(l.stage_layers.begin(), l.stage_layers.end(), int64_t{0});
    if (sum != m.num_layers)
      problems.push_back({"stage_layers", "stage_layers add up to " + num(sum) + " layers but the model has " +
                                              num(m.num_layers) + "."});
    for (const int64_t layers : l.stage_layers)
      if (layers < 0) problems.push_back({"stage_layers", "A pipeline stage cannot have a negative layer count."});
    if (l.vpp > 1)
      for (const int64_t layers : l.stage_layers)
        if (layers < l.vpp) {
          problems.push_back({"stage_layers", "Each stage needs at least one layer per model chunk: " + num(layers) +
                                                  " layers cannot fill " + num(l.vpp) + " virtual stages."});
          break;
        }
  }
  if (l.vpp > 1 && l.pp == 1) problems.push_back({"vpp", "Virtual pipeline stages need PP > 1."});
  if (m.is_moe()) {
    if (m.moe.num_experts % l.ep != 0)
      problems.push_back(
          {"ep", "The " + num(m.moe.num_experts) + " experts cannot be split evenly over EP=" + num(l.ep) + "."});
    if (m.moe.expert_ffn_hidden_size % l.etp != 0)
      problems.push_back({"etp", "The expert FFN width " + num(m.moe.expert_ffn_hidden_size) +
                                     " is not divisible by expert-TP=" + num(l.etp) + "."});
    if ((l.tp * l.cp * l.dp) % (l.ep * l.etp) != 0)
      problems.push_back({"ep", "EP×expert-TP=" + num(l.ep * l.etp) + " must divide TP×CP×DP=" +
                                    num(l.tp * l.cp * l.dp) + " (the ranks of one pipeline stage)."});
  } else {
    if (l.ep > 1)
      problems.push_back({"ep", "EP=" + num(l.ep) + " needs a mixture-of-experts model; this one is dense."});
    if (l.etp > 1) problems.push_back({"etp", "Expert-TP needs a mixture-of-experts model."});
  }
  if (l.fsdp > 0 && l.dp % l.fsdp != 0)
    problems.push_back({"fsdp", "The FSDP shard-group size " + num(l.fsdp) + " must divide DP=" + num(l.dp) + "."});
}

void check_world(std::vector<LayoutProblem>& problems, const Layout& l, int64_t world_size) {
  if (world_size > 0 && l.world_size() != world_size)
    problems.push_back({"dp", "DP×TP×PP×CP = " + num(l.dp) + "×" + num(l.tp) + "×" + num(l.pp) + "×" + num(l.cp) +
                                  " = " + num(l.world_size()) + " ranks, but the cluster has " + num(world_size) +
                                  " GPUs."});
}

}  // namespace

std::vector<LayoutProblem> validate_training_layout(const ModelSpec& m, const TrainingWorkload& w, const Layout& l,
                                                    int64_t world_size) {
  std::vector<LayoutProblem> problems;
  check_positive(problems, l);
  if (!degrees_positive(l)) return problems;
  check_model_split(problems, m, l, /*allow_kv_replication=*/false);
  check_world(problems, l, world_size);
  if (l.cp > 1 && w.seq_len % (2 * l.cp) != 0)
    problems.push_back({"cp", "Sequence length " + num(w.seq_len) + " is not divisible by 2×CP=" + num(2 * l.cp) +
                                  " (load-balanced causal context parallelism splits it into 2·CP chunks)."});
  if (l.sp && w.seq_len % (l.tp * l.cp) != 0)
    problems.push_back({"sp", "Sequence parallelism splits the sequence over TP: " + num(w.seq_len) +
                                  " is not divisible by TP×CP=" + num(l.tp * l.cp) + "."});
  if (w.global_batch % (l.dp * l.micro_batch) != 0)
    problems.push_back({"global_batch", "Global batch " + num(w.global_batch) +
                                            " is not divisible by DP×micro-batch=" + num(l.dp) + "×" +
                                            num(l.micro_batch) + "=" + num(l.dp * l.micro_batch) + "."});
  else if (l.vpp > 1 && num_micro_batches(w, l) % l.pp != 0)
    problems.push_back({"vpp", "The interleaved schedule needs the number of micro-batches (" +
                                   num(num_micro_batches(w, l)) + ") to be a multiple of PP=" + num(l.pp) + "."});
  if (l.fsdp > 0 && w.zero_stage == 0)
    problems.push_back({"fsdp", "An FSDP shard-group size is set but ZeRO stage is 0; set zero=3 for FSDP."});
  if (w.zero_stage < 0 || w.zero_stage > 3) problems.push_back({"zero", "ZeRO stage must be 0, 1, 2 or 3."});
  if (w.recompute == RecomputeMode::layers && w.recompute_layers < 0)
    problems.push_back({"recompute", "The number of recomputed layers cannot be negative."});
  if (w.seq_len < 1) problems.push_back({"seq", "Sequence length must be positive."});
  return problems;
}

std::vector<LayoutProblem> validate_serving_layout(const ModelSpec& m, const Layout& l, int64_t world_size) {
  std::vector<LayoutProblem> problems;
  check_positive(problems, l);
  if (!degrees_positive(l)) return problems;
  check_model_split(problems, m, l, /*allow_kv_replication=*/true);
  check_world(problems, l, world_size);
  return problems;
}

Result<std::vector<ModelChunk>> parse_pipeline_layout(std::string_view text) {
  // A layout of a million symbols is a typo; so is a larger repeat count.
  constexpr size_t kMaxSymbols = 1'000'000;
  const auto fail = [](const std::string& why) { return make_error(ErrorCode::invalid_argument, why, "pp_layout"); };
  const auto position = [&](std::string_view::size_type i) {
    return " at position " + num(static_cast<int64_t>(i) + 1);
  };
  // "*n" after a symbol or a group at i: its count, and i moved past it.
  const auto repeat = [&](std::string_view part, size_t& i) -> Result<int64_t> {
    if (i >= part.size() || part[i] != '*') return 1;
    ++i;
    int64_t n = 0;
    const auto [end, ec] = std::from_chars(part.data() + i, part.data() + part.size(), n);
    if (ec != std::errc() || n < 0 || static_cast<size_t>(n) > kMaxSymbols)
      return fail("'*' must be followed by a repeat count (0 to " + num(static_cast<int64_t>(kMaxSymbols)) + ")" +
                  position(i - 1));
    i = static_cast<size_t>(end - part.data());
    return n;
  };
  // Symbols and their "x*n" repeats, commas dropped.
  const auto symbols = [&](std::string_view part, std::string& out) -> Result<bool> {
    for (size_t i = 0; i < part.size();) {
      const char c = part[i++];
      if (c == ',') continue;
      if (c == '(' || c == ')') return fail("groups '(...)*n' cannot be nested or unbalanced (as in Megatron-Core)");
      if (c != 'E' && c != 't' && c != 'm' && c != 'L' && c != '|')
        return fail(std::string("'") + c +
                    "' is not a layer: E (embedding), t (transformer layer), m (MTP layer), "
                    "L (loss), | (next model chunk)");
      MS_TRY(n, repeat(part, i));
      if (out.size() + static_cast<size_t>(n) > kMaxSymbols) return fail("the layout expands to too many layers");
      out.append(static_cast<size_t>(n), c);
    }
    return true;
  };
  std::string flat;
  for (size_t i = 0; i < text.size();) {
    if (text[i] != '(') {
      const size_t next = std::min(text.find('(', i), text.size());
      MS_TRY(done, symbols(text.substr(i, next - i), flat));
      (void)done;
      i = next;
      continue;
    }
    const size_t close = text.find(')', i + 1);
    if (close == std::string_view::npos) return fail("'(' is not closed" + position(i));
    std::string group;
    MS_TRY(inner, symbols(text.substr(i + 1, close - i - 1), group));
    (void)inner;
    i = close + 1;
    if (i >= text.size() || text[i] != '*') return fail("a group '(...)' must be followed by *n" + position(close));
    MS_TRY(n, repeat(text, i));
    if (flat.size() + group.size() * static_cast<size_t>(n) > kMaxSymbols)
      return fail("the layout expands to too many layers");
    for (int64_t k = 0; k < n; ++k) flat += group;
  }
  std::vector<ModelChunk> chunks(1);
  int64_t embeddings = 0, losses = 0;
  bool after_mtp = false;
  for (const char c : flat) {
    ModelChunk& chunk = chunks.back();
    switch (c) {
      case '|':
        chunks.emplace_back();
        break;
      case 'E':
        chunk.embedding = true;
        ++embeddings;
        break;
      case 'L':
        chunk.loss = true;
        ++losses;
        break;
      case 'm':
        ++chunk.mtp;
        after_mtp = true;
        break;
      default:
        if (after_mtp) return fail("transformer layers ('t') must come before the MTP layers ('m')");
        ++chunk.layers;
    }
  }
  if (embeddings != 1 || losses != 1) return fail("the layout needs exactly one E (embedding) and one L (loss)");
  if (flat.front() != 'E') return fail("the layout must begin with the embedding, E");
  if (flat.back() != 'L') return fail("the layout must end with the loss, L");
  return chunks;
}

std::vector<int64_t> layers_per_stage(const ModelSpec& m, const Layout& l) {
  if (const auto chunks = layout_chunks(l)) {
    std::vector<int64_t> layers(static_cast<size_t>(l.pp), 0);
    for (size_t u = 0; u < chunks->size(); ++u) layers[u % layers.size()] += (*chunks)[u].layers;
    return layers;
  }
  if (!l.stage_layers.empty()) return l.stage_layers;
  const int64_t pp = l.pp > 0 ? l.pp : 1;
  std::vector<int64_t> layers(static_cast<size_t>(pp), m.num_layers / pp);
  for (int64_t i = 0; i < m.num_layers % pp; ++i) layers[static_cast<size_t>(i)] += 1;  // only for invalid splits
  return layers;
}

std::vector<int64_t> layers_per_virtual_stage(const ModelSpec& m, const Layout& l) {
  if (const auto chunks = layout_chunks(l)) {
    std::vector<int64_t> layers;
    for (const ModelChunk& c : *chunks) layers.push_back(c.layers);
    return layers;
  }
  const auto ranks = layers_per_stage(m, l);
  const int64_t p = static_cast<int64_t>(ranks.size()), v = std::max<int64_t>(l.vpp, 1);
  std::vector<int64_t> layers(static_cast<size_t>(p * v), 0);
  for (int64_t r = 0; r < p; ++r) {
    const int64_t n = ranks[static_cast<size_t>(r)], base = n / v, extra = n % v;
    for (int64_t c = 0; c < v; ++c) {
      // The first rank's lighter chunks come first (its first chunk holds the embedding), every
      // other rank's come last (the last rank's last chunk holds the LM head).
      const bool more = r == 0 ? c >= v - extra : c < extra;
      layers[static_cast<size_t>(c * p + r)] = base + (more ? 1 : 0);
    }
  }
  return layers;
}

std::vector<int64_t> first_layer_of_virtual_stage(const ModelSpec& m, const Layout& l) {
  const auto layers = layers_per_virtual_stage(m, l);
  std::vector<int64_t> first(layers.size(), 0);
  for (size_t i = 1; i < layers.size(); ++i) first[i] = first[i - 1] + layers[i - 1];
  return first;
}

std::vector<int64_t> mtp_layers_per_virtual_stage(const Layout& l) {
  std::vector<int64_t> mtp(static_cast<size_t>(std::max<int64_t>(l.pp, 1) * std::max<int64_t>(l.vpp, 1)), 0);
  if (const auto chunks = layout_chunks(l))
    for (size_t u = 0; u < chunks->size(); ++u) mtp[u] = (*chunks)[u].mtp;
  return mtp;
}

std::vector<int64_t> first_layer_of_stage(const ModelSpec& m, const Layout& l) {
  const auto layers = layers_per_stage(m, l);
  std::vector<int64_t> first(layers.size(), 0);
  for (size_t i = 1; i < layers.size(); ++i) first[i] = first[i - 1] + layers[i - 1];
  return first;
}

int64_t num_micro_batches(const TrainingWorkload& w, const Layout& l) {
  const int64_t per_step = l.dp * l.micro_batch;
  return per_step > 0 ? w.global_batch / per_step : 0;
}

}  // namespace meshscope
