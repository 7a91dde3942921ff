#include "core/importers/node_topology.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "core/base/text_input.hpp"
#include "core/model/model_io.hpp"
#include "core/topology/link_defaults.hpp"

namespace meshscope {
namespace {

// The name of the first element of an XML text (after the declaration, comments and DOCTYPE).
std::string first_element(std::string_view text) {
  size_t i = 0;
  while (true) {
    i = text.find('<', i);
    if (i == std::string_view::npos || i + 1 >= text.size()) return {};
    const char next = text[i + 1];
    if (next == '?' || next == '!') {
      const std::string_view close = text.substr(i, 4) == "<!--" ? "-->" : ">";
      i = text.find(close, i);
      if (i == std::string_view::npos) return {};
      continue;
    }
    size_t end = i + 1;
    while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_' ||
                                 text[end] == '-' || text[end] == ':' || text[end] == '.'))
      ++end;
    return std::string(text.substr(i + 1, end - i - 1));
  }
}

std::string padded(int64_t value, size_t width) {
  std::string digits = std::to_string(value);
  if (digits.size() < width) digits.insert(0, width - digits.size(), '0');
  return digits;
}

// "n0.gpu3" → "n5.gpu3"; "n0.gpu0-nvsw" → "n5.gpu0-nvsw".
std::string renamed(const std::string& id, const std::string& prefix) {
  return id.rfind("n0.", 0) == 0 ? prefix + id.substr(3) : prefix + id;
}

}  // namespace

NodeTopologyFormat detect_node_topology_format(std::string_view text) {
  size_t start = 0;
  if (text.substr(0, 3) == "\xEF\xBB\xBF") start = 3;
  while (start < text.size() && std::isspace(static_cast<unsigned char>(text[start]))) ++start;
  if (start < text.size() && text[start] == '<') {
    const std::string root = first_element(text.substr(start));
    if (root == "topology") return NodeTopologyFormat::hwloc_xml;
    if (root == "system") return NodeTopologyFormat::nccl_topo_xml;
    if (root == "graphs" || root == "graph") return NodeTopologyFormat::nccl_graph_xml;
    return NodeTopologyFormat::unknown;
  }
  // rocm-smi --showtopo: its section titles; it also has rows starting with GPU0, so it goes first.
  if (looks_like_rocm_smi_topo(text)) return NodeTopologyFormat::rocm_smi_topo;
  // nvidia-smi: a line whose first token is GPU0 (the header), once terminal escapes are gone.
  const std::string clean = node_import::clean_pasted_text(text);
  for (const std::string_view line : node_import::split_lines(clean)) {
    const auto t = node_import::tokens_of(line);
    if (!t.empty() && t[0] == "GPU0") return NodeTopologyFormat::nvidia_smi_topo;
  }
  return NodeTopologyFormat::unknown;
}

Result<NodeImport> import_node_topology_text(std::string_view text, const std::string& origin,
                                             const NodeImportOptions& options) {
  if (options.nodes < 1 || options.nodes > 65536)
    return make_error(ErrorCode::invalid_argument,
                      "nodes must be from 1 to 65536, got " + std::to_string(options.nodes), origin);
  if (auto encoding = check_text_encoding(text, origin)) return tl::unexpected(*encoding);
  const NodeTopologyFormat format = detect_node_topology_format(text);
  Result<NodeImport> node = make_error(ErrorCode::parse_error, "", origin);
  double file_gbps = 0;
  switch (format) {
    case NodeTopologyFormat::nvidia_smi_topo:
      node = import_nvidia_smi_topo(text, origin, options);
      break;
    case NodeTopologyFormat::rocm_smi_topo:
      node = import_rocm_smi_topo(text, origin, options);
      break;
    case NodeTopologyFormat::hwloc_xml:
      node = import_hwloc_xml(text, origin, options);
      break;
    case NodeTopologyFormat::nccl_topo_xml:
    case NodeTopologyFormat::nccl_graph_xml:  // the importer explains why a graph is no topology
      node = import_nccl_topo_xml(text, origin, options);
      file_gbps = nccl_topo_nic_gbps(text);
      break;
    case NodeTopologyFormat::unknown: {
      const std::string root =
          text.find('<') != std::string_view::npos && text.find_first_not_of(" \t\r\n") == text.find('<')
              ? first_element(text)
              : std::string();
      return make_error(ErrorCode::parse_error,
                        root.empty() ? "not a node topology: expected the text of `nvidia-smi topo -m` (a matrix "
                                       "whose header starts with GPU0), of `rocm-smi --showtopo` (its \"Link Type "
                                       "between two GPUs\" table), hwloc XML (<topology>) or NCCL topology XML "
                                       "(<system>)"
                                     : "XML root <" + root +
                                           "> is not a node topology: expected hwloc's <topology> or NCCL's <system>",
                        origin);
    }
  }
  if (!node) return node;
  if (options.nodes == 1) return node;
  const double gbps = options.nic_gbps > 0 ? options.nic_gbps : file_gbps > 0 ? file_gbps : 200;
  MS_TRY(cluster, replicate_node(node->cluster, options.nodes, gbps, options.oversubscription, options.nic_kind,
                                 options.nodes_per_leaf));
  node->cluster = std::move(cluster);
  return node;
}

Result<NodeImport> import_node_topology_file(const std::string& path, const NodeImportOptions& options) {
  MS_TRY(text, read_text_file(path));
  return import_node_topology_text(text, path, options);
}

Result<Cluster> import_node_topology(const std::string& path, const NodeImportOptions& options) {
  MS_TRY(node, import_node_topology_file(path, options));
  return std::move(node.cluster);
}

Result<Cluster> replicate_node(const Cluster& node, int64_t nodes, double nic_gbps, double oversubscription,
                               LinkKind nic_kind, int32_t nodes_per_leaf) {
  if (nodes < 1 || nodes > 65536)
    return make_error(ErrorCode::invalid_argument, "nodes must be from 1 to 65536, got " + std::to_string(nodes));
  if (!(nic_gbps > 0)) return make_error(ErrorCode::invalid_argument, "the NIC line rate must be positive");
  if (!(oversubscription >= 1) || oversubscription > 64)
    return make_error(ErrorCode::invalid_argument, "oversubscription must be from 1 to 64");
  if (nodes_per_leaf < 1) return make_error(ErrorCode::invalid_argument, "nodes_per_leaf must be at least 1");
  if (!is_network_link(nic_kind))
    return make_error(ErrorCode::invalid_argument, "the NIC link kind must be infiniband, roce or ethernet");
  if (node.num_nodes() > 1 || std::any_of(node.devices.begin(), node.devices.end(), [](const Device& d) {
        return d.node > 0 || d.kind == DeviceKind::leaf_switch || d.kind == DeviceKind::spine_switch;
      }))
    return make_error(ErrorCode::invalid_argument, "replicate_node takes a one-node cluster");
  Cluster c;
  c.name = node.name;
  c.generator = node.generator;
  if (nodes == 1) {
    c = node;
    if (c.node_names.empty()) c.node_names = {"node000"};
  } else {
    c.name += ", " + std::to_string(nodes) + " nodes";
  }
  // Rails: the NICs with a local index, in rail order.
  std::vector<const Device*> rails;
  for (const Device& d : node.devices)
    if (d.kind == DeviceKind::nic && d.local_index >= 0) rails.push_back(&d);
  std::sort(rails.begin(), rails.end(),
            [](const Device* x, const Device* y) { return x->local_index < y->local_index; });
  if (nodes > 1 && rails.empty())
    return make_error(ErrorCode::invalid_argument,
                      "the node has no NIC with a rail (local_index): nothing to join the copies by");
  if (nodes > 1) {
    const size_t width = std::max<size_t>(3, std::to_string(nodes - 1).size());
    c.devices.reserve(node.devices.size() * static_cast<size_t>(nodes) + 64);
    c.links.reserve(node.links.size() * static_cast<size_t>(nodes) + 64);
    for (int64_t n = 0; n < nodes; ++n) {
      const std::string prefix = "n" + std::to_string(n) + ".";
      const auto offset = static_cast<int32_t>(c.devices.size());
      for (Device d : node.devices) {
        d.id = renamed(d.id, prefix);
        if (d.name.rfind("n0.", 0) == 0) d.name = renamed(d.name, prefix);
        d.node = static_cast<int32_t>(n);
        c.devices.push_back(std::move(d));
      }
      for (Link l : node.links) {
        l.id = renamed(l.id, prefix);
        l.a = DeviceId{l.a.value + offset};
        l.b = DeviceId{l.b.value + offset};
        c.links.push_back(std::move(l));
      }
      c.node_names.push_back("node" + padded(n, width));
    }
  }
  auto add_link = [&](DeviceId a, DeviceId b, double gbps) {
    Link l;
    const std::string& ia = c.device(a).id;
    const std::string& ib = c.device(b).id;
    l.id = ia + "-" + ib;
    l.a = a;
    l.b = b;
    l.kind = nic_kind;
    l.gbits_per_s = gbps;
    l.bandwidth_bytes_per_s = network_bandwidth(gbps);
    l.latency_s = default_link_latency_s(nic_kind, c.device(a).kind, c.device(b).kind);
    c.links.push_back(std::move(l));
  };
  auto add_device = [&](std::string id, DeviceKind kind, std::string name) {
    Device d;
    d.id = std::move(id);
    d.kind = kind;
    d.name = std::move(name);
    c.devices.push_back(std::move(d));
    return DeviceId{static_cast<int32_t>(c.devices.size() - 1)};
  };
  if (nodes > 1) {
    const auto per_node = static_cast<int32_t>(node.devices.size());
    const auto rail_count = static_cast<int64_t>(rails.size());
    const int64_t groups = (nodes + nodes_per_leaf - 1) / nodes_per_leaf;
    std::vector<DeviceId> leaves;
    for (int64_t g = 0; g < groups; ++g)
      for (int64_t r = 0; r < rail_count; ++r)
        leaves.push_back(add_device("leaf.r" + std::to_string(r) + ".p" + std::to_string(g), DeviceKind::leaf_switch,
                                    "leaf switch (rail " + std::to_string(r) + ", group " + std::to_string(g) + ")"));
    for (int64_t n = 0; n < nodes; ++n)
      for (int64_t r = 0; r < rail_count; ++r) {
        const auto index = static_cast<int32_t>(rails[static_cast<size_t>(r)] - node.devices.data());
        add_link(DeviceId{static_cast<int32_t>(n) * per_node + index},
                 leaves[static_cast<size_t>((n / nodes_per_leaf) * rail_count + r)], nic_gbps);
      }
    if (leaves.size() >= 2) {
      const int64_t fullest = std::min<int64_t>(nodes, nodes_per_leaf);
      const auto uplink_ports = static_cast<int64_t>(std::ceil(static_cast<double>(fullest) / oversubscription - 1e-9));
      const int64_t spines = std::clamp<int64_t>(uplink_ports, 1, 16);
      std::vector<DeviceId> spine_ids;
      for (int64_t s = 0; s < spines; ++s)
        spine_ids.push_back(add_device("spine" + std::to_string(s), DeviceKind::spine_switch, "spine switch"));
      for (int64_t g = 0; g < groups; ++g) {
        const int64_t attached = std::min<int64_t>(nodes_per_leaf, nodes - g * nodes_per_leaf);
        const double gbits = static_cast<double>(attached) * nic_gbps / oversubscription / static_cast<double>(spines);
        for (int64_t r = 0; r < rail_count; ++r)
          for (const DeviceId spine : spine_ids)
            add_link(leaves[static_cast<size_t>(g * rail_count + r)], spine, gbits);
      }
    }
  }
  const auto problems = index_cluster(c);
  if (!problems.empty())
    return make_error(ErrorCode::invalid_argument, "replicated cluster is inconsistent: " + problems.front().message);
  return c;
}

}  // namespace meshscope
