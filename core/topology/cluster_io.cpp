#include "core/topology/cluster_io.hpp"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "core/model/catalogue.hpp"
#include "core/model/model_io.hpp"
#include "core/topology/link_defaults.hpp"

namespace meshscope {

using nlohmann::json;

namespace {

constexpr const char* kFormat = "meshscope-cluster";
constexpr int64_t kVersion = 1;
constexpr size_t kMaxErrorLines = 20;
constexpr double kBytesPerGB = 1e9;     // bandwidth_GBps: 10^9 bytes per second
constexpr double kSecondsPerUs = 1e-6;  // latency_us
// Bounds far beyond real hardware, so that a value from a file cannot overflow what is computed from it or size an
// allocation without limit (connect_to_fabric sizes a table by the local indices, the GUI one by the nodes).
constexpr int64_t kMaxNodes = 65536;  // as the generators' nodes=
constexpr int32_t kMaxNuma = 4095;
constexpr int32_t kMaxLocalIndex = 65535;
constexpr int32_t kMaxChips = 1024;
constexpr int32_t kMaxNvlinkCount = 64;
constexpr int32_t kMaxPcieLanes = 32;
constexpr double kMaxBandwidthGBps = 1e6;  // 1 PB/s
constexpr double kMaxNetworkGbps = 1e6;
constexpr double kMaxLatencyUs = 1e9;  // 1000 s

// Every problem of a file, gathered so that one load reports them all.
class Problems {
 public:
  void add(ErrorCode code, std::string line) {
    if (lines_.empty()) code_ = code;
    lines_.push_back(std::move(line));
  }
  [[nodiscard]] bool empty() const { return lines_.empty(); }
  [[nodiscard]] size_t size() const { return lines_.size(); }

  [[nodiscard]] tl::unexpected<Error> error(const std::string& origin) const {
    std::string message;
    if (lines_.size() == 1) {
      message = lines_.front();
    } else {
      message = std::to_string(lines_.size()) + " problems in the cluster:";
      for (size_t i = 0; i < lines_.size() && i < kMaxErrorLines; ++i) message += "\n  " + lines_[i];
      if (lines_.size() > kMaxErrorLines)
        message += "\n  ... and " + std::to_string(lines_.size() - kMaxErrorLines) + " more";
    }
    return make_error(code_, std::move(message), origin);
  }

 private:
  ErrorCode code_ = ErrorCode::invalid_argument;
  std::vector<std::string> lines_;
};

std::string in_quotes(const std::string& text) {
  return "\"" + text + "\"";
}

std::string shown(const json& value) {
  std::string text = value.dump();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return text;
}

// Reads optional fields of one JSON object, reporting wrong types against `context`
// ("device #3 \"n0.gpu2\"").
class FieldReader {
 public:
  FieldReader(const json& object, std::string context, Problems& problems)
      : object_(object), context_(std::move(context)), problems_(problems) {}

  [[nodiscard]] const json* find(const char* key) const {
    const auto it = object_.find(key);
    return it == object_.end() || it->is_null() ? nullptr : &*it;
  }
  [[nodiscard]] bool has(const char* key) const { return find(key) != nullptr; }

  std::optional<std::string> string(const char* key) const {
    const json* value = find(key);
    if (!value) return std::nullopt;
    if (!value->is_string()) return wrong(key, "a string", *value);
    return value->get<std::string>();
  }

  std::optional<int32_t> integer(const char* key) const {
    const json* value = find(key);
    if (!value) return std::nullopt;
    if (value->is_number_unsigned()) {
      const auto v = value->get<uint64_t>();
      if (v <= static_cast<uint64_t>(std::numeric_limits<int32_t>::max())) return static_cast<int32_t>(v);
      return wrong(key, "an integer that fits in 32 bits", *value);
    }
    if (value->is_number_integer()) {
      const auto v = value->get<int64_t>();
      if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max())
        return wrong(key, "an integer that fits in 32 bits", *value);
      return static_cast<int32_t>(v);
    }
    if (value->is_number_float()) {
      const double v = value->get<double>();
      if (std::trunc(v) == v && std::abs(v) < 2e9) return static_cast<int32_t>(v);
    }
    return wrong(key, "an integer", *value);
  }

  std::optional<double> number(const char* key) const {
    const json* value = find(key);
    if (!value) return std::nullopt;
    if (!value->is_number()) return wrong(key, "a number", *value);
    return value->get<double>();
  }

  void missing(const char* key, const std::string& what = {}) const {
    problems_.add(ErrorCode::missing_field, context_ + ": required field " + in_quotes(key) + " is missing" + what);
  }
  void invalid(const std::string& why, ErrorCode code = ErrorCode::invalid_argument) const {
    problems_.add(code, context_ + ": " + why);
  }
  [[nodiscard]] const std::string& context() const { return context_; }

 private:
  std::nullopt_t wrong(const char* key, const char* expected, const json& value) const {
    problems_.add(ErrorCode::wrong_type,
                  context_ + ": field " + in_quotes(key) + " must be " + expected + ", got " + shown(value));
    return std::nullopt;
  }

  const json& object_;
  std::string context_;
  Problems& problems_;
};

std::string device_context(size_t index, const std::string& id) {
  return "device #" + std::to_string(index) + (id.empty() ? "" : " " + in_quotes(id));
}
std::string link_context(size_t index, const std::string& id) {
  return "link #" + std::to_string(index) + (id.empty() ? "" : " " + in_quotes(id));
}

std::string device_kind_list() {
  std::string text;
  for (auto kind : {DeviceKind::gpu, DeviceKind::cpu, DeviceKind::pcie_switch, DeviceKind::nvswitch, DeviceKind::nic,
                    DeviceKind::leaf_switch, DeviceKind::spine_switch})
    text += (text.empty() ? "" : ", ") + std::string(device_kind_name(kind));
  return text;
}

std::string link_kind_list() {
  std::string text;
  for (auto kind : {LinkKind::nvlink, LinkKind::pcie, LinkKind::xgmi, LinkKind::upi, LinkKind::infiniband,
                    LinkKind::roce, LinkKind::ethernet, LinkKind::efa})
    text += (text.empty() ? "" : ", ") + std::string(link_kind_name(kind));
  return text;
}

// "nodes" / "racks": an optional array of names.
std::optional<std::vector<std::string>> read_names(const json& doc, const char* key, Problems& problems) {
  const auto it = doc.find(key);
  if (it == doc.end() || it->is_null()) return std::nullopt;
  std::vector<std::string> names;
  if (!it->is_array()) {
    problems.add(ErrorCode::wrong_type,
                 std::string("field ") + in_quotes(key) + " must be an array of names, got " + shown(*it));
    return names;
  }
  for (size_t i = 0; i < it->size(); ++i) {
    const json& name = it->at(i);
    if (!name.is_string()) {
      problems.add(ErrorCode::wrong_type,
                   std::string(key) + "[" + std::to_string(i) + "] must be a string, got " + shown(name));
      names.push_back(std::string(key) + "#" + std::to_string(i));
    } else {
      names.push_back(name.get<std::string>());
    }
  }
  return names;
}

// A device's "node" or "rack": an index into the names, a name from them, or -1 / absent.
struct PlaceField {
  const char* key;       // "node" or "rack"
  const char* list_key;  // "nodes" or "racks"
  const std::optional<std::vector<std::string>>& names;
  int32_t highest_index = -1;  // the largest index used (names synthesised when the list is absent)
};

int32_t read_place(PlaceField& field, const FieldReader& reader, Problems& problems) {
  const json* value = reader.find(field.key);
  if (!value) return -1;
  if (value->is_string()) {
    const auto name = value->get<std::string>();
    if (field.names)
      for (size_t i = 0; i < field.names->size(); ++i)
        if ((*field.names)[i] == name) return static_cast<int32_t>(i);
    problems.add(ErrorCode::invalid_argument, reader.context() + ": " + field.key + " " + in_quotes(name) +
                                                  " is not listed in " + in_quotes(field.list_key));
    return -1;
  }
  if (!value->is_number_integer()) {
    problems.add(ErrorCode::wrong_type, reader.context() + ": field " + in_quotes(field.key) +
                                            " must be an index into " + in_quotes(field.list_key) +
                                            " or a name from it, got " + shown(*value));
    return -1;
  }
  const auto index = value->get<int64_t>();
  if (index == -1) return -1;
  const int64_t count = field.names ? static_cast<int64_t>(field.names->size()) : kMaxNodes;
  if (index < 0 || index >= count) {
    problems.add(
        ErrorCode::invalid_argument,
        reader.context() + ": " + field.key + " " + std::to_string(index) + " is out of range" +
            (field.names ? " (" + in_quotes(field.list_key) + " has " + std::to_string(count) + ")"
                         : " (at most " + std::to_string(kMaxNodes) + " without " + in_quotes(field.list_key) + ")"));
    return -1;
  }
  field.highest_index = std::max(field.highest_index, static_cast<int32_t>(index));
  return static_cast<int32_t>(index);
}

std::vector<std::string> numbered_names(const char* prefix, int32_t count, int width) {
  std::vector<std::string> names;
  names.reserve(static_cast<size_t>(std::max(count, 0)));
  for (int32_t i = 0; i < count; ++i) {
    std::string digits = std::to_string(i);
    if (digits.size() < static_cast<size_t>(width)) digits.insert(0, static_cast<size_t>(width) - digits.size(), '0');
    names.push_back(prefix + digits);
  }
  return names;
}

// The non-empty string "id" of a device or link entry; a problem (and nullopt) otherwise.
std::optional<std::string> entry_id(const json& entry, const std::string& context, Problems& problems) {
  if (!entry.is_object()) {
    problems.add(ErrorCode::wrong_type, context + " must be an object, got " + shown(entry));
    return std::nullopt;
  }
  const FieldReader pre(entry, context, problems);
  const json* id_value = pre.find("id");
  if (!id_value) {
    pre.missing("id");
    return std::nullopt;
  }
  if (!id_value->is_string() || id_value->get<std::string>().empty()) {
    problems.add(ErrorCode::wrong_type,
                 pre.context() + ": field \"id\" must be a non-empty string, got " + shown(*id_value));
    return std::nullopt;
  }
  return id_value->get<std::string>();
}

void read_device(const json& entry, size_t index, Cluster& cluster, PlaceField& node, PlaceField& rack,
                 Problems& problems) {
  const auto id = entry_id(entry, device_context(index, ""), problems);
  if (!id) return;
  Device device;
  device.id = *id;
  const FieldReader f(entry, device_context(index, device.id), problems);
  if (auto kind = f.string("kind")) {
    if (!parse_device_kind(*kind, device.kind))
      f.invalid("unknown device kind " + in_quotes(*kind) + "; kinds: " + device_kind_list());
  } else if (!f.has("kind")) {
    f.missing("kind", " (one of " + device_kind_list() + ")");
  }
  device.name = f.string("name").value_or(device.id);
  device.node = read_place(node, f, problems);
  device.rack = read_place(rack, f, problems);
  device.numa = f.integer("numa").value_or(-1);
  device.local_index = f.integer("local_index").value_or(-1);
  device.chips = f.integer("chips").value_or(1);
  if (device.numa < -1 || device.numa > kMaxNuma)
    f.invalid("numa must be -1 or a NUMA domain index up to " + std::to_string(kMaxNuma) + ", got " +
              std::to_string(device.numa));
  if (device.local_index < -1 || device.local_index > kMaxLocalIndex)
    f.invalid("local_index must be -1 or an index up to " + std::to_string(kMaxLocalIndex) + ", got " +
              std::to_string(device.local_index));
  if (device.chips < 1 || device.chips > kMaxChips)
    f.invalid("chips must be from 1 to " + std::to_string(kMaxChips) + ", got " + std::to_string(device.chips));
  device.gpu_model = f.string("gpu_model").value_or("");
  if (device.kind == DeviceKind::gpu && !device.gpu_model.empty() && !find_gpu(device.gpu_model))
    f.invalid(find_gpu(device.gpu_model).error().message);
  cluster.devices.push_back(std::move(device));
}

// The specification fields of each link kind ("bandwidth_GBps" is accepted by all).
struct SpecFields {
  const char* first;   // "generation" / "gbps" / nullptr
  const char* second;  // "count" / "lanes" / nullptr
};

SpecFields spec_fields(LinkKind kind) {
  if (kind == LinkKind::nvlink) return {"generation", "count"};
  if (kind == LinkKind::pcie) return {"generation", "lanes"};
  if (is_network_link(kind)) return {"gbps", nullptr};
  return {nullptr, nullptr};
}

std::string spec_hint(LinkKind kind) {
  const SpecFields spec = spec_fields(kind);
  std::string hint = "\"bandwidth_GBps\"";
  if (spec.first)
    hint +=
        std::string(" or \"") + spec.first + "\"" + (spec.second ? std::string(" and \"") + spec.second + "\"" : "");
  return hint;
}

void read_bandwidth(const FieldReader& f, Link& link) {
  const SpecFields spec = spec_fields(link.kind);
  for (const char* key : {"generation", "count", "lanes", "gbps"}) {
    const bool applies =
        (spec.first && std::string_view(key) == spec.first) || (spec.second && std::string_view(key) == spec.second);
    if (f.has(key) && !applies)
      f.invalid(std::string("field ") + in_quotes(key) + " does not apply to " +
                std::string(link_kind_name(link.kind)) + " links (give " + spec_hint(link.kind) + ")");
  }
  const bool has_bandwidth = f.has("bandwidth_GBps");
  const bool has_spec = (spec.first && f.has(spec.first)) || (spec.second && f.has(spec.second));
  if (has_bandwidth && has_spec) {
    f.invalid("give either \"bandwidth_GBps\" or a " + std::string(link_kind_name(link.kind)) +
              " specification, not both");
    return;
  }
  if (has_bandwidth) {
    if (auto gbps = f.number("bandwidth_GBps")) {
      if (*gbps > kMaxBandwidthGBps)
        f.invalid("bandwidth_GBps must be at most " + shown(kMaxBandwidthGBps) + " (1 PB/s), got " + shown(*gbps));
      else
        link.bandwidth_bytes_per_s = *gbps * kBytesPerGB;
    }
    return;
  }
  if (!has_spec) {
    f.invalid("no bandwidth: give " + spec_hint(link.kind), ErrorCode::missing_field);
    return;
  }
  if (is_network_link(link.kind)) {
    if (auto gbps = f.number("gbps")) {
      if (*gbps > kMaxNetworkGbps) {
        f.invalid("gbps must be at most " + shown(kMaxNetworkGbps) + ", got " + shown(*gbps));
        return;
      }
      link.gbits_per_s = *gbps;
      link.bandwidth_bytes_per_s = network_bandwidth(*gbps);
    }
    return;
  }
  const auto generation = f.integer("generation");
  const auto width = f.integer(spec.second);
  if (!f.has("generation")) f.missing("generation");
  if (!f.has(spec.second)) f.missing(spec.second);
  if (!generation || !width) return;
  const int32_t max_width = link.kind == LinkKind::nvlink ? kMaxNvlinkCount : kMaxPcieLanes;
  if (*width < 1 || *width > max_width) {
    f.invalid(std::string(spec.second) + " must be from 1 to " + std::to_string(max_width) + ", got " +
              std::to_string(*width));
    return;
  }
  if (link.kind == LinkKind::nvlink) {
    if (*generation < 2 || *generation > 5) {
      f.invalid("NVLink generation must be 2 to 5, got " + std::to_string(*generation) +
                " (give \"bandwidth_GBps\" for others)");
      return;
    }
    link.nvlink_generation = *generation;
    link.nvlink_count = *width;
    link.bandwidth_bytes_per_s = nvlink_bandwidth(*generation, *width);
  } else {
    if (*generation < 1 || *generation > 6) {
      f.invalid("PCIe generation must be 1 to 6, got " + std::to_string(*generation));
      return;
    }
    link.pcie_generation = *generation;
    link.pcie_lanes = *width;
    link.bandwidth_bytes_per_s = pcie_bandwidth(*generation, *width);
  }
}

// Adds the link, even a flawed one, so that GPU reachability sees what the file meant; the ids of
// links with problems of their own go to `flawed` (index_cluster's view of them is noise).
void read_link(const json& entry, size_t index, Cluster& cluster,
               const std::unordered_map<std::string, DeviceId>& devices, Problems& problems,
               std::unordered_set<std::string>& flawed) {
  const size_t problems_before = problems.size();
  const auto id = entry_id(entry, link_context(index, ""), problems);
  if (!id) return;
  Link link;
  link.id = *id;
  const FieldReader f(entry, link_context(index, link.id), problems);
  bool ends_known = true;
  auto endpoint = [&](const char* key, DeviceId& end) {
    const auto name = f.string(key);
    if (!name) {
      if (!f.has(key)) f.missing(key, " (a device id)");
      ends_known = false;
      return;
    }
    const auto it = devices.find(*name);
    if (it == devices.end()) {
      problems.add(ErrorCode::invalid_argument,
                   f.context() + ": endpoint " + in_quotes(key) + " names no device (" + in_quotes(*name) + ")");
      ends_known = false;
      return;
    }
    end = it->second;
  };
  endpoint("a", link.a);
  endpoint("b", link.b);
  bool kind_known = false;
  if (auto kind = f.string("kind")) {
    kind_known = parse_link_kind(*kind, link.kind);
    if (!kind_known) f.invalid("unknown link kind " + in_quotes(*kind) + "; kinds: " + link_kind_list());
  } else if (!f.has("kind")) {
    f.missing("kind", " (one of " + link_kind_list() + ")");
  }
  if (kind_known) read_bandwidth(f, link);
  const auto latency_us = f.number("latency_us");
  if (latency_us && *latency_us > kMaxLatencyUs)
    f.invalid("latency_us must be at most " + shown(kMaxLatencyUs) + " (1000 s), got " + shown(*latency_us));
  if (latency_us)
    link.latency_s = *latency_us * kSecondsPerUs;
  else if (ends_known)
    link.latency_s = default_link_latency_s(link.kind, cluster.device(link.a).kind, cluster.device(link.b).kind);
  if (problems.size() > problems_before) flawed.insert(link.id);
  cluster.links.push_back(std::move(link));  // a dangling end stays invalid: no adjacency through it
}
}  // namespace

Result<Cluster> cluster_from_json(const json& doc, const std::string& origin) {
  if (!doc.is_object()) return make_error(ErrorCode::wrong_type, "a cluster file must be a JSON object", origin);
  const auto format = doc.find("format");
  if (format == doc.end())
    return make_error(ErrorCode::missing_field, "required field \"format\" is missing (\"meshscope-cluster\")",
                      origin + ": format");
  if (!format->is_string() || format->get<std::string>() != kFormat)
    return make_error(ErrorCode::invalid_argument, "\"format\" must be \"meshscope-cluster\", got " + shown(*format),
                      origin + ": format");
  const auto version = doc.find("version");
  if (version == doc.end())
    return make_error(ErrorCode::missing_field, "required field \"version\" is missing", origin + ": version");
  if (!version->is_number_integer())
    return make_error(ErrorCode::wrong_type, "\"version\" must be an integer, got " + shown(*version),
                      origin + ": version");
  if (version->get<int64_t>() != kVersion)
    return make_error(
        ErrorCode::unsupported,
        "cluster file version " + version->dump() + " is not supported (" + std::to_string(kVersion) + " is)",
        origin + ": version");
  const auto devices = doc.find("devices");
  if (devices == doc.end())
    return make_error(ErrorCode::missing_field, "required field \"devices\" is missing", origin + ": devices");
  if (!devices->is_array())
    return make_error(ErrorCode::wrong_type, "\"devices\" must be an array, got " + shown(*devices),
                      origin + ": devices");
  const auto links = doc.find("links");
  if (links != doc.end() && !links->is_null() && !links->is_array())
    return make_error(ErrorCode::wrong_type, "\"links\" must be an array, got " + shown(*links), origin + ": links");

  Problems problems;
  Cluster cluster;
  const FieldReader top(doc, "cluster", problems);
  cluster.name = top.string("name").value_or("");
  cluster.generator = top.string("generator").value_or("");
  const auto node_names = read_names(doc, "nodes", problems);
  const auto rack_names = read_names(doc, "racks", problems);

  PlaceField node{"node", "nodes", node_names};
  PlaceField rack{"rack", "racks", rack_names};
  cluster.devices.reserve(devices->size());
  for (size_t i = 0; i < devices->size(); ++i) read_device(devices->at(i), i, cluster, node, rack, problems);
  cluster.node_names = node_names ? *node_names : numbered_names("node", node.highest_index + 1, 3);
  cluster.rack_names = rack_names ? *rack_names : numbered_names("rack", rack.highest_index + 1, 2);

  // Endpoints resolve to the first device of an id; duplicates are index_cluster's to report.
  std::unordered_map<std::string, DeviceId> by_id;
  by_id.reserve(cluster.devices.size());
  for (size_t i = 0; i < cluster.devices.size(); ++i)
    by_id.emplace(cluster.devices[i].id, DeviceId{static_cast<int32_t>(i)});
  std::unordered_set<std::string> flawed_links;
  if (links != doc.end() && links->is_array()) {
    cluster.links.reserve(links->size());
    for (size_t i = 0; i < links->size(); ++i) read_link(links->at(i), i, cluster, by_id, problems, flawed_links);
  }

  for (const ClusterProblem& problem : index_cluster(cluster))
    if (problem.id.empty() || !flawed_links.contains(problem.id))
      problems.add(ErrorCode::invalid_argument, problem.message);
  if (!problems.empty()) return problems.error(origin);
  return cluster;
}

namespace {

// 400 rather than 400.0 in files people read; other values as the shortest round-trip decimal.
json number_value(double x) {
  if (std::trunc(x) == x && std::abs(x) < 1e15) return static_cast<int64_t>(x);
  return x;
}

}  // namespace

json cluster_to_json(const Cluster& cluster) {
  json doc = json::object();
  doc["format"] = kFormat;
  doc["version"] = kVersion;
  doc["name"] = cluster.name;
  if (!cluster.generator.empty()) doc["generator"] = cluster.generator;
  if (!cluster.node_names.empty()) doc["nodes"] = cluster.node_names;
  if (!cluster.rack_names.empty()) doc["racks"] = cluster.rack_names;
  json devices = json::array();
  for (const Device& d : cluster.devices) {
    json entry = {{"id", d.id}, {"kind", device_kind_name(d.kind)}};
    if (!d.name.empty() && d.name != d.id) entry["name"] = d.name;
    if (d.node >= 0) entry["node"] = d.node;
    if (d.rack >= 0) entry["rack"] = d.rack;
    if (d.numa >= 0) entry["numa"] = d.numa;
    if (d.local_index >= 0) entry["local_index"] = d.local_index;
    if (!d.gpu_model.empty()) entry["gpu_model"] = d.gpu_model;
    if (d.chips != 1) entry["chips"] = d.chips;
    devices.push_back(std::move(entry));
  }
  doc["devices"] = std::move(devices);

  auto same = [](double x, double y) { return std::abs(x - y) <= 1e-12 * std::max(std::abs(x), std::abs(y)); };
  json links = json::array();
  const Device unknown_end{};  // a link of an unchecked cluster may point nowhere; write "" for it
  auto end = [&](DeviceId d) -> const Device& {
    return d.valid() && d.index() < cluster.devices.size() ? cluster.device(d) : unknown_end;
  };
  for (const Link& l : cluster.links) {
    const Device& a = end(l.a);
    const Device& b = end(l.b);
    json entry = {{"id", l.id}, {"a", a.id}, {"b", b.id}, {"kind", link_kind_name(l.kind)}};
    if (l.kind == LinkKind::nvlink && l.nvlink_generation > 0 &&
        same(l.bandwidth_bytes_per_s, nvlink_bandwidth(l.nvlink_generation, l.nvlink_count))) {
      entry["generation"] = l.nvlink_generation;
      entry["count"] = l.nvlink_count;
    } else if (l.kind == LinkKind::pcie && l.pcie_generation > 0 &&
               same(l.bandwidth_bytes_per_s, pcie_bandwidth(l.pcie_generation, l.pcie_lanes))) {
      entry["generation"] = l.pcie_generation;
      entry["lanes"] = l.pcie_lanes;
    } else if (is_network_link(l.kind) && l.gbits_per_s > 0 &&
               same(l.bandwidth_bytes_per_s, network_bandwidth(l.gbits_per_s))) {
      entry["gbps"] = number_value(l.gbits_per_s);
    } else {
      entry["bandwidth_GBps"] = number_value(l.bandwidth_bytes_per_s / kBytesPerGB);
    }
    if (a.id.empty() || b.id.empty() || !same(l.latency_s, default_link_latency_s(l.kind, a.kind, b.kind)))
      entry["latency_us"] = number_value(l.latency_s / kSecondsPerUs);
    links.push_back(std::move(entry));
  }
  doc["links"] = std::move(links);
  return doc;
}

namespace {

// One JSON object on one line with its keys in `order` first (then any others, sorted).
std::string one_line(const json& object, std::initializer_list<const char*> order) {
  std::string text = "{";
  auto append = [&](const std::string& key, const json& value) {
    if (text.size() > 1) text += ", ";
    text += json(key).dump() + ": " + value.dump();
  };
  for (const char* key : order)
    if (object.contains(key)) append(key, object.at(key));
  for (const auto& [key, value] : object.items()) {
    bool listed = false;
    for (const char* k : order) listed = listed || key == k;
    if (!listed) append(key, value);
  }
  return text + "}";
}

std::string wrapped_names(const json& names) {
  std::string text = "[";
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) text += i % 8 == 0 ? ",\n    " : ", ";
    text += names.at(i).dump();
  }
  return text + "]";
}

}  // namespace

std::string cluster_to_json_text(const Cluster& cluster) {
  const json doc = cluster_to_json(cluster);
  std::string text = "{\n";
  for (const char* key : {"format", "version", "name", "generator"})
    if (doc.contains(key)) text += "  " + json(key).dump() + ": " + doc.at(key).dump() + ",\n";
  for (const char* key : {"nodes", "racks"})
    if (doc.contains(key)) text += "  " + json(key).dump() + ": " + wrapped_names(doc.at(key)) + ",\n";
  auto array = [&](const char* key, std::initializer_list<const char*> order, bool last) {
    const json& entries = doc.at(key);
    text += "  " + json(key).dump() + ": [";
    for (size_t i = 0; i < entries.size(); ++i) text += (i ? ",\n    " : "\n    ") + one_line(entries.at(i), order);
    text += entries.empty() ? "]" : "\n  ]";
    text += last ? "\n" : ",\n";
  };
  array("devices", {"id", "kind", "name", "node", "rack", "numa", "local_index", "gpu_model", "chips"}, false);
  array("links", {"id", "a", "b", "kind", "generation", "count", "lanes", "gbps", "bandwidth_GBps", "latency_us"},
        true);
  return text + "}\n";
}

Result<Cluster> load_cluster_file(const std::string& path) {
  MS_TRY(text, read_text_file(path));
  MS_TRY(doc, parse_json_text(text, path));
  return cluster_from_json(doc, path);
}

}  // namespace meshscope
