#pragma once
// The binding's arguments as the core's values: models, clusters and key=value lists given the way the CLI takes
// them (a preset name, a file path, a generator string, a dict of --train keys), and the core's errors as the
// Python exception meshscope.Error.
#include <pybind11/pybind11.h>

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/base/result.hpp"
#include "core/keys/options.hpp"
#include "core/model/model.hpp"
#include "core/topology/cluster.hpp"

namespace meshscope::python {

// Thrown for an input the core refuses; the module registers it as meshscope.Error (a ValueError). The message is
// the core's Error::to_string(): its location (file, field, line) and its sentence.
class CoreError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The value of `result`, or CoreError with its error.
template <typename T>
T take(Result<T> result) {
  if (!result) throw CoreError(result.error().to_string());
  return std::move(*result);
}

// The keys of an option such as "--train": a dict {"seq": 8192, "sp": True} (values int, float, bool or str, in
// the dict's order) or the CLI's text "seq=8192,sp=true". None: no keys. `option` names the option in errors.
[[nodiscard]] KeyValues key_values(const pybind11::handle& keys, const std::string& option);

// A model: a preset name or the path of a Hugging Face config.json or meshscope model file (resolve_model), or a
// dict holding either document.
[[nodiscard]] ModelSpec model_value(const pybind11::handle& model);
// A cluster: a generator string ("dgx-h100:nodes=8") or cluster file path (resolve_cluster), or a dict holding
// a cluster document.
[[nodiscard]] Cluster cluster_value(const pybind11::handle& cluster);

// GPU indices of `cluster` in rank order: a list of ints, or the CLI's text "0-7", "0,8,16", "0-3,8-11".
[[nodiscard]] std::vector<DeviceId> gpu_list(const Cluster& cluster, const pybind11::handle& gpus);

// One path or a list of paths; a folder stands for the .json and .json.gz files in it, sorted by name (the CLI's
// --trace: expand_trace_paths).
[[nodiscard]] std::vector<std::string> trace_files(const pybind11::handle& paths);

}  // namespace meshscope::python
