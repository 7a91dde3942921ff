#pragma once
// Reading and writing cluster files: `format: "meshscope-cluster"`, `version: 1`
// (docs/cluster-format.md describes every field, its unit and its default).
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "core/base/result.hpp"
#include "core/topology/cluster.hpp"

namespace meshscope {

// Reads a cluster document; `origin` names the file in the error. Every problem found (wrong
// types, unknown kinds, dangling endpoints, duplicate ids, non-positive bandwidth, GPUs cut off
// from each other) is reported at once, by device/link id, in one Error (at most 20 lines). The
// cluster returned is indexed: index_cluster() ran on it without problems.
[[nodiscard]] Result<Cluster> cluster_from_json(const nlohmann::json& doc, const std::string& origin);

// The inverse of cluster_from_json: links keep the specification they were given by (NVLink
// generation and count, PCIe generation and lanes, network Gb/s) when it still gives their
// bandwidth; latencies equal to the default for the link are left out.
[[nodiscard]] nlohmann::json cluster_to_json(const Cluster& cluster);

// cluster_to_json as text for files people read and diff: one device or link per line.
[[nodiscard]] std::string cluster_to_json_text(const Cluster& cluster);

[[nodiscard]] Result<Cluster> load_cluster_file(const std::string& path);

}  // namespace meshscope
