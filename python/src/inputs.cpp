#include "inputs.hpp"

#include <charconv>
#include <system_error>

#include "core/model/catalogue.hpp"
#include "core/model/model_io.hpp"
#include "core/session/measurements.hpp"
#include "core/topology/cluster_io.hpp"
#include "core/topology/generators.hpp"
#include "py_json.hpp"

namespace meshscope::python {

namespace py = pybind11;

namespace {

std::string type_name(const py::handle& value) {
  return py::str(py::type::of(value).attr("__name__")).cast<std::string>();
}

// A key's value as the text the core's key parsers read.
std::string key_text(const py::handle& value, const std::string& where) {
  if (py::isinstance<py::bool_>(value)) return value.cast<bool>() ? "true" : "false";
  if (py::isinstance<py::int_>(value)) return py::str(value).cast<std::string>();
  if (py::isinstance<py::float_>(value)) {
    // The shortest text that reads back as the same double.
    char buffer[32];
    const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value.cast<double>());
    if (ec != std::errc()) throw py::value_error(where + ": cannot write the number");
    return std::string(buffer, end);
  }
  if (py::isinstance<py::str>(value)) return value.cast<std::string>();
  throw py::type_error(where + ": a key's value must be int, float, bool or str, not " + type_name(value));
}

Result<int64_t> gpu_index(const std::string& text) {
  int64_t value = -1;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value < 0)
    return make_error(ErrorCode::invalid_argument, "\"" + text + "\" is not a GPU index", "gpus");
  return value;
}

DeviceId cluster_gpu_at(const Cluster& cluster, int64_t index) {
  if (index < 0 || index >= cluster.num_gpus())
    throw CoreError("gpus: GPU " + std::to_string(index) + " does not exist; the cluster has " +
                    std::to_string(cluster.num_gpus()) + " GPUs");
  return cluster.gpus[static_cast<size_t>(index)];
}

}  // namespace

KeyValues key_values(const py::handle& keys, const std::string& option) {
  if (keys.is_none()) return {};
  if (py::isinstance<py::str>(keys)) return take(split_key_values(keys.cast<std::string>(), option));
  if (!py::isinstance<py::dict>(keys))
    throw py::type_error(option + ": expected a dict of keys or \"k=v,...\" text, not " + type_name(keys));
  KeyValues out;
  for (const auto& [key, value] : keys.cast<py::dict>()) {
    if (!py::isinstance<py::str>(key)) throw py::type_error(option + ": key names must be str, not " + type_name(key));
    const auto name = key.cast<std::string>();
    out.emplace_back(name, key_text(value, option + " " + name));
  }
  return out;
}

ModelSpec model_value(const py::handle& model) {
  if (py::isinstance<py::str>(model)) return take(resolve_model(model.cast<std::string>()));
  if (py::isinstance<py::dict>(model)) {
    const nlohmann::json doc = from_python(model, "model");
    if (doc.contains("model_type")) return take(model_from_hf_config(doc, "model"));
    return take(model_from_json(doc, "model"));
  }
  throw py::type_error("model: expected a preset name, a file path or a dict, not " + type_name(model));
}

Cluster cluster_value(const py::handle& cluster) {
  if (py::isinstance<py::str>(cluster)) return take(resolve_cluster(cluster.cast<std::string>()));
  if (py::isinstance<py::dict>(cluster)) return take(cluster_from_json(from_python(cluster, "cluster"), "cluster"));
  throw py::type_error("cluster: expected a generator string, a file path or a dict, not " + type_name(cluster));
}

std::vector<DeviceId> gpu_list(const Cluster& cluster, const py::handle& gpus) {
  std::vector<DeviceId> out;
  if (py::isinstance<py::str>(gpus)) {
    const auto text = gpus.cast<std::string>();
    size_t start = 0;
    while (true) {
      const size_t comma = text.find(',', start);
      const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      const size_t dash = item.find('-');
      const int64_t first = take(gpu_index(item.substr(0, dash)));
      const int64_t last = dash == std::string::npos ? first : take(gpu_index(item.substr(dash + 1)));
      if (last < first) throw CoreError("gpus: range \"" + item + "\" is reversed");
      for (int64_t g = first; g <= last; ++g) out.push_back(cluster_gpu_at(cluster, g));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    return out;
  }
  if (!py::isinstance<py::iterable>(gpus))
    throw py::type_error("gpus: expected a list of GPU indices or text such as \"0-7\", not " + type_name(gpus));
  for (const auto& item : gpus) {
    if (!py::isinstance<py::int_>(item) || py::isinstance<py::bool_>(item))
      throw py::type_error("gpus: a GPU index must be an int, not " + type_name(item));
    out.push_back(cluster_gpu_at(cluster, item.cast<int64_t>()));
  }
  return out;
}

std::vector<std::string> trace_files(const py::handle& paths) {
  std::vector<std::string> entries;
  if (py::isinstance<py::str>(paths) || py::hasattr(paths, "__fspath__")) {
    entries.push_back(py::str(paths).cast<std::string>());
  } else {
    for (const auto& item : paths) entries.push_back(py::str(item).cast<std::string>());
  }
  return take(expand_trace_paths(entries, "trace"));
}

}  // namespace meshscope::python
