#pragma once
// The rings (channels) a collective library runs over the GPUs of one node, found the way NCCL's
// channel search finds them (NVIDIA/nccl src/graph/search.cc, ncclTopoCompute and
// ncclTopoSearchRec): for a per-channel bandwidth s, taken from the highest down, rings are
// added one after another, each a Hamiltonian cycle over the GPUs whose every hop still has s
// left on every link it crosses (each ring takes s from those links, so a link is shared by the
// rings that cross it), until no further ring fits or the channel limit is reached; the speed
// whose rings carry the most in total wins. On a switch fabric that is one ring at the GPU's
// link; on a fully connected xGMI node (MI300X: 7 links per GPU) it is 7 rings in each
// direction, every direct link carrying traffic — RCCL's own MI300X rings (ROCm/rccl
// src/graph/rome_models.cc, rome_model_79: 8 GPUs, 7 xGMI links each, 14 distinct rings).
//
// The group's ring bus bandwidth is then the rings' total: each ring moves its share of the
// buffer, every GPU sending on all the rings at once. It never exceeds the group's max-flow
// bound, the smallest total link capacity out of (or into) any one GPU.
#include <cstdint>
#include <functional>
#include <vector>

#include "core/topology/cluster.hpp"
#include "core/topology/routing.hpp"

namespace meshscope {

struct ChannelRing {
  std::vector<DeviceId> order;  // the group's GPUs in ring order
  std::vector<Route> routes;    // order[i] → order[(i + 1) mod n]
  double bandwidth = 0;         // bytes/s this ring moves over each of its edges, per direction
};

struct ChannelPlan {
  std::vector<ChannelRing> rings;
  double bandwidth = 0;  // Σ rings' bandwidth: the ring algorithm's bus bandwidth
  double bound = 0;      // min over GPUs of the usable bandwidth out of and into it (max-flow bound)
  LinkId bottleneck;     // a link the rings fill (one of the narrowest when no ring fits)
  [[nodiscard]] bool empty() const { return rings.empty(); }
};

// Usable bytes/s of a link in one direction (0: a→b, 1: b→a) for this group.
using LinkCapacity = std::function<double(LinkId, int)>;

// NCCL's MAXCHANNELS (src/include/device.h: 32); RCCL allows more, but 32 rings at an equal share
// already split every 8-GPU full mesh evenly.
constexpr int kMaxChannels = 32;

// The rings over `gpus` (two or more, normally the group's GPUs on one node), over the routes the
// router gives between them. Deterministic; tries every speed c/k (c: each route's capacity, k =
// 1..kMaxChannels) and keeps the one with the largest total (ties: fewer rings).
[[nodiscard]] ChannelPlan search_channels(const Router& router, const std::vector<DeviceId>& gpus,
                                          const LinkCapacity& capacity, int max_channels = kMaxChannels);

// Whether a channel search can find more than one ring's worth: some GPU of `gpus` has direct
// GPU-to-GPU links (NVLink or xGMI, not through an NVSwitch) to two or more of the others. On
// switch fabrics and PCIe trees every ring is limited by the same per-GPU link, so the rank-order
// ring is already the answer and the search is skipped.
[[nodiscard]] bool has_direct_mesh(const Cluster& cluster, const std::vector<DeviceId>& gpus);

}  // namespace meshscope
