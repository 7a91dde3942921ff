// The axes of the trade-off explorer: what each one changes, what stays fixed, its default values.
#include <algorithm>
#include <charconv>
#include <regex>

#include "core/model/catalogue.hpp"
#include "core/session/tradeoff.hpp"
#include "core/topology/generators.hpp"

namespace meshscope {

namespace {

TradeoffValue number_value(int64_t number) {
  return {number, std::to_string(number)};
}

std::vector<TradeoffValue> powers_of_two(int64_t from, int64_t to) {
  std::vector<TradeoffValue> out;
  for (int64_t v = std::max<int64_t>(from, 1); v <= to; v *= 2) out.push_back(number_value(v));
  return out;
}

std::vector<TradeoffValue> divisors(int64_t n) {
  std::vector<TradeoffValue> out;
  for (int64_t v = 1; v <= n; ++v)
    if (n % v == 0) out.push_back(number_value(v));
  return out;
}

// The world size other than the DP degree: tp·pp·cp (Layout::world_size).
int64_t non_dp(const Layout& layout) {
  return layout.tp * layout.pp * layout.cp;
}

int64_t project_world(const Project& project) {
  return project.layout.world_size();
}

// Sets one degree d of tp, pp or cp and lets DP absorb it: dp = world / (tp·pp·cp).
Result<Project> keep_world(Project project, int64_t Layout::*degree, int64_t value, const char* name) {
  const int64_t world = project_world(project);
  project.layout.*degree = value;
  const int64_t rest = non_dp(project.layout);
  if (value <= 0) return make_error(ErrorCode::invalid_argument, std::string(name) + " must be at least 1", name);
  if (world % rest != 0)
    return make_error(ErrorCode::invalid_layout,
                      std::to_string(world) + " GPUs are not divisible by tp·pp·cp = " + std::to_string(rest), name);
  project.layout.dp = world / rest;
  if (project.layout.fsdp > 0 && project.layout.dp % project.layout.fsdp != 0) project.layout.fsdp = 0;
  return project;
}

// The project's generator string with `key`=`value` (replaced, or appended): the gpus, dp, gpu and nic_gbps
// axes change a generated cluster as its own keys do (docs/cluster-format.md); a drawn or file cluster cannot.
Result<std::string> with_generator_key(const Project& project, const std::string& key, const std::string& value) {
  if (project.cluster_inline)
    return make_error(
        ErrorCode::invalid_argument,
        "the cluster is drawn (inline): only a generated cluster (e.g. dgx-h100:nodes=8) takes " + key + "=", key);
  const std::string name = project.cluster.substr(0, project.cluster.find(':'));
  const auto& generators = cluster_generators();
  const auto generator =
      std::find_if(generators.begin(), generators.end(), [&](const GeneratorInfo& info) { return info.name == name; });
  if (generator == generators.end() ||
      std::find(generator->keys.begin(), generator->keys.end(), key) == generator->keys.end())
    return make_error(
        ErrorCode::invalid_argument,
        "only a generated cluster that takes " + key + "= can be varied along it, not \"" + project.cluster + "\"",
        key);
  const std::regex pattern("([:,])" + key + "=[^,]*");
  const std::string entry = key + "=" + value;
  if (std::regex_search(project.cluster, pattern)) return std::regex_replace(project.cluster, pattern, "$1" + entry);
  return project.cluster + (project.cluster.find(':') == std::string::npos ? ":" : ",") + entry;
}

// The cluster grown or shrunk to `gpus` by whole nodes (as a job is given nodes).
Result<Project> resize_cluster(Project project, int64_t gpus) {
  auto cluster = project_cluster(project);
  if (!cluster) return tl::unexpected(cluster.error());
  const int64_t nodes = std::max<int64_t>(cluster->num_nodes(), 1);
  const int64_t per_node = cluster->num_gpus() / nodes;
  if (per_node <= 0 || gpus % per_node != 0)
    return make_error(ErrorCode::invalid_layout,
                      std::to_string(gpus) + " GPUs are not whole nodes of " + std::to_string(per_node), "gpus");
  MS_TRY(spec, with_generator_key(project, "nodes", std::to_string(gpus / per_node)));
  project.cluster = spec;
  project.gpu_count = gpus;
  return project;
}

Result<Project> set_gpu_model(Project project, const TradeoffValue& value) {
  MS_TRY(gpu, find_gpu(value.label));
  MS_TRY(spec, with_generator_key(project, "gpu", value.label));
  project.cluster = spec;
  project.gpu = gpu;
  return project;
}

Result<Project> set_nic_gbps(Project project, int64_t gbps) {
  MS_TRY(spec, with_generator_key(project, "nic_gbps", std::to_string(gbps)));
  project.cluster = spec;
  return project;
}

}  // namespace

std::string tradeoff_rule(TradeoffAxis axis) {
  switch (axis) {
    case TradeoffAxis::tp:
    case TradeoffAxis::pp:
    case TradeoffAxis::cp:
      return "world size fixed (the cluster's GPUs): dp = GPUs / (tp·pp·cp) absorbs the change; pp resets the "
             "stage split to even (and v to 1 at pp = 1); everything else as in the project";
    case TradeoffAxis::vpp:
      return "virtual stages per pipeline rank; mesh, batch and workload as in the project";
    case TradeoffAxis::dp:
      return "tp, pp, cp fixed: the cluster grows or shrinks by whole nodes to dp·tp·pp·cp GPUs; global batch fixed";
    case TradeoffAxis::fsdp:
      return "ZeRO/FSDP shard-group size inside the DP group (HSDP); mesh and workload as in the project";
    case TradeoffAxis::ep:
      return "expert parallel inside tp·cp·dp; mesh and workload as in the project";
    case TradeoffAxis::mbs:
      return "sequences per micro-batch; global batch fixed, so the micro-batch count falls";
    case TradeoffAxis::recompute:
      return "activation recomputation mode; mesh and batch as in the project";
    case TradeoffAxis::zero:
      return "ZeRO stage (0 replicate; 1 optimizer; 2 + gradients; 3 + parameters); mesh as in the project";
    case TradeoffAxis::seq:
      return "sequence length; layout and global batch (sequences) fixed, so tokens per step grow";
    case TradeoffAxis::gbs:
      return "global batch (sequences per step); layout fixed, so the micro-batch count grows";
    case TradeoffAxis::gpus:
      return "tp, pp, cp fixed: the cluster grows or shrinks by whole nodes and dp = GPUs / (tp·pp·cp); global "
             "batch fixed";
    case TradeoffAxis::gpu:
      return "the generated cluster's GPU model (gpu=): its peak FLOP/s, HBM capacity and bandwidth; the nodes' "
             "links, the mesh and the workload as in the project";
    case TradeoffAxis::nic_gbps:
      return "the NIC line rate of the generated cluster's fabric (nic_gbps=, Gb/s per NIC); nodes, GPUs, mesh "
             "and workload as in the project";
  }
  return {};
}

std::string tradeoff_axis_title(TradeoffAxis axis) {
  switch (axis) {
    case TradeoffAxis::tp:
      return "tensor parallel (TP)";
    case TradeoffAxis::pp:
      return "pipeline stages (PP)";
    case TradeoffAxis::vpp:
      return "virtual stages per rank (v)";
    case TradeoffAxis::dp:
      return "data parallel (DP)";
    case TradeoffAxis::fsdp:
      return "FSDP shard group (GPUs)";
    case TradeoffAxis::cp:
      return "context parallel (CP)";
    case TradeoffAxis::ep:
      return "expert parallel (EP)";
    case TradeoffAxis::mbs:
      return "micro-batch (sequences)";
    case TradeoffAxis::recompute:
      return "recompute mode";
    case TradeoffAxis::zero:
      return "ZeRO stage";
    case TradeoffAxis::seq:
      return "sequence length (tokens)";
    case TradeoffAxis::gbs:
      return "global batch (sequences)";
    case TradeoffAxis::gpus:
      return "GPUs";
    case TradeoffAxis::gpu:
      return "GPU model";
    case TradeoffAxis::nic_gbps:
      return "NIC line rate (Gb/s)";
  }
  return {};
}

std::vector<TradeoffValue> default_tradeoff_values(const Project& p, TradeoffAxis axis) {
  const Layout& l = p.layout;
  const int64_t world = project_world(p);
  switch (axis) {
    case TradeoffAxis::tp:
      return powers_of_two(1, std::min<int64_t>(world, std::max<int64_t>(p.model.num_heads, 1)));
    case TradeoffAxis::pp:
      return powers_of_two(1, std::min<int64_t>(world, std::max<int64_t>(p.model.num_layers, 1)));
    case TradeoffAxis::vpp: {
      auto out = divisors(std::max<int64_t>(p.model.num_layers / std::max<int64_t>(l.pp, 1), 1));
      if (out.size() > 16) out.resize(16);
      return out;
    }
    case TradeoffAxis::dp:
      return powers_of_two(1, std::max<int64_t>(4 * l.dp, 1));
    case TradeoffAxis::fsdp:
      return divisors(std::max<int64_t>(l.dp, 1));
    case TradeoffAxis::cp:
      return powers_of_two(1, std::min<int64_t>(world, 16));
    case TradeoffAxis::ep:
      return powers_of_two(1, std::max<int64_t>(std::min<int64_t>(p.model.moe.num_experts, l.tp * l.cp * l.dp), 1));
    case TradeoffAxis::mbs:
      return powers_of_two(1, 16);
    case TradeoffAxis::recompute: {
      std::vector<TradeoffValue> out;
      out.reserve(EnumNames<RecomputeMode>::table.size());
      for (const auto& [mode, name] : EnumNames<RecomputeMode>::table)
        out.push_back({static_cast<int64_t>(mode), std::string(name)});
      return out;
    }
    case TradeoffAxis::zero:
      return {number_value(0), number_value(1), number_value(2), number_value(3)};
    case TradeoffAxis::seq:
      return powers_of_two(std::max<int64_t>(p.training.seq_len / 8, 512), p.training.seq_len * 4);
    case TradeoffAxis::gbs:
      return powers_of_two(std::max<int64_t>(p.training.global_batch / 8, 1), p.training.global_batch * 4);
    case TradeoffAxis::gpus: {
      const int64_t rest = non_dp(l);
      return powers_of_two(rest, std::max<int64_t>(4 * world, rest));
    }
    case TradeoffAxis::gpu: {
      std::vector<TradeoffValue> out;
      const auto& catalogue = gpu_catalogue();
      out.reserve(catalogue.size());
      for (size_t i = 0; i < catalogue.size(); ++i) out.push_back({static_cast<int64_t>(i), catalogue[i].id});
      return out;
    }
    case TradeoffAxis::nic_gbps:
      return {number_value(100), number_value(200), number_value(400), number_value(800)};
  }
  return {};
}

Result<TradeoffAxes> parse_tradeoff_axes(std::string_view text) {
  const size_t comma = text.find(',');
  std::vector<std::string_view> names{text.substr(0, comma)};
  if (comma != std::string_view::npos) names.push_back(text.substr(comma + 1));
  std::vector<TradeoffAxis> axes;
  for (const std::string_view name : names) {
    if (name.find(',') != std::string_view::npos)
      return make_error(ErrorCode::invalid_argument, "at most two axes, not \"" + std::string(text) + "\"", "axis");
    const auto axis = parse_enum<TradeoffAxis>(name);
    if (!axis)
      return make_error(ErrorCode::invalid_argument,
                        "unknown axis \"" + std::string(name) + "\" (" + enum_choices<TradeoffAxis>() + ")", "axis");
    axes.push_back(*axis);
  }
  TradeoffAxes out;
  out.axis = axes.front();
  if (axes.size() == 2) out.axis2 = axes.back();
  return out;
}

Result<std::vector<TradeoffValue>> parse_tradeoff_values(TradeoffAxis axis, std::string_view text) {
  std::vector<TradeoffValue> out;
  const std::string axis_name(enum_name(axis));
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view item = text.substr(start, comma - start);
    start = comma + 1;
    if (item.empty())
      return make_error(ErrorCode::invalid_argument, "an empty value in the " + axis_name + " values", axis_name);
    if (axis == TradeoffAxis::gpu) {
      const auto& catalogue = gpu_catalogue();
      const auto gpu = std::find_if(catalogue.begin(), catalogue.end(), [&](const GpuSpec& g) { return g.id == item; });
      if (gpu == catalogue.end())
        return make_error(
            ErrorCode::invalid_argument,
            "gpu value \"" + std::string(item) + "\" is not a GPU of the catalogue (meshscope-cli presets)", axis_name);
      out.push_back({static_cast<int64_t>(gpu - catalogue.begin()), gpu->id});
      continue;
    }
    if (axis == TradeoffAxis::recompute) {
      const auto mode = parse_enum<RecomputeMode>(item);
      if (!mode)
        return make_error(ErrorCode::invalid_argument,
                          "recompute value \"" + std::string(item) + "\" is not " + enum_choices<RecomputeMode>(),
                          axis_name);
      out.push_back({static_cast<int64_t>(*mode), std::string(item)});
      continue;
    }
    int64_t number = 0;
    const auto [end, error] = std::from_chars(item.data(), item.data() + item.size(), number);
    const int64_t least = axis == TradeoffAxis::zero ? 0 : 1;
    if (error != std::errc() || end != item.data() + item.size() || number < least ||
        (axis == TradeoffAxis::zero && number > 3))
      return make_error(ErrorCode::invalid_argument,
                        axis_name + " value \"" + std::string(item) + "\" is not " +
                            (axis == TradeoffAxis::zero ? "a ZeRO stage 0, 1, 2 or 3" : "a whole number of at least 1"),
                        axis_name);
    out.push_back(number_value(number));
  }
  if (out.empty()) return make_error(ErrorCode::invalid_argument, "no " + axis_name + " values", axis_name);
  return out;
}

Result<Project> apply_tradeoff_value(const Project& project, TradeoffAxis axis, const TradeoffValue& value) {
  Project p = project;
  const int64_t v = value.number;
  switch (axis) {
    case TradeoffAxis::tp:
      return keep_world(std::move(p), &Layout::tp, v, "tp");
    case TradeoffAxis::pp:
      p.layout.stage_layers.clear();
      p.layout.pipeline_layout.clear();  // a layout is written for one PP × vpp
      if (v == 1) p.layout.vpp = 1;      // no pipeline, no model chunks to interleave
      return keep_world(std::move(p), &Layout::pp, v, "pp");
    case TradeoffAxis::cp:
      return keep_world(std::move(p), &Layout::cp, v, "cp");
    case TradeoffAxis::vpp:
      p.layout.pipeline_layout.clear();
      p.layout.vpp = v;
      return p;
    case TradeoffAxis::dp: {
      p.layout.dp = v;
      if (p.layout.fsdp > 0 && v % p.layout.fsdp != 0) p.layout.fsdp = 0;
      const int64_t world = p.layout.world_size();
      return resize_cluster(std::move(p), world);
    }
    case TradeoffAxis::gpus: {
      const int64_t rest = non_dp(p.layout);
      if (v % rest != 0)
        return make_error(ErrorCode::invalid_layout,
                          std::to_string(v) + " GPUs are not divisible by tp·pp·cp = " + std::to_string(rest), "gpus");
      p.layout.dp = v / rest;
      if (p.layout.fsdp > 0 && p.layout.dp % p.layout.fsdp != 0) p.layout.fsdp = 0;
      return resize_cluster(std::move(p), v);
    }
    case TradeoffAxis::fsdp:
      p.layout.fsdp = v == p.layout.dp ? 0 : v;
      return p;
    case TradeoffAxis::ep:
      p.layout.ep = v;
      return p;
    case TradeoffAxis::mbs:
      p.layout.micro_batch = v;
      return p;
    case TradeoffAxis::recompute:
      p.training.recompute = static_cast<RecomputeMode>(v);
      return p;
    case TradeoffAxis::zero:
      p.training.zero_stage = static_cast<int>(v);
      return p;
    case TradeoffAxis::seq:
      p.training.seq_len = v;
      return p;
    case TradeoffAxis::gbs:
      p.training.global_batch = v;
      return p;
    case TradeoffAxis::gpu:
      return set_gpu_model(std::move(p), value);
    case TradeoffAxis::nic_gbps:
      return set_nic_gbps(std::move(p), v);
  }
  return p;
}

}  // namespace meshscope
