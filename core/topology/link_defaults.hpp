#pragma once
// Default one-hop latency of a link whose cluster file gives none. One table (link_defaults.cpp),
// each row with the source of its number; docs/cluster-format.md prints the same table.
#include <span>
#include <string_view>

#include "core/topology/cluster.hpp"

namespace meshscope {

// Which links of a kind a row applies to; the first matching row of the table wins.
enum class LinkEnds {
  any,
  nvswitch_port,     // one end is an NVSwitch fabric
  gpu_end,           // one end is a GPU
  nic_end,           // one end is a NIC (or any device that is not a leaf/spine switch)
  switch_to_switch,  // both ends are leaf or spine switches
};

struct LinkLatencyDefault {
  LinkKind kind;
  LinkEnds ends;
  double latency_s;
  std::string_view applies_to;  // the rule in words, for documentation
  std::string_view source;
};

[[nodiscard]] std::span<const LinkLatencyDefault> link_latency_defaults();

// The latency of a `kind` link between devices of kinds `a` and `b` when none is given.
[[nodiscard]] double default_link_latency_s(LinkKind kind, DeviceKind a, DeviceKind b);

}  // namespace meshscope
