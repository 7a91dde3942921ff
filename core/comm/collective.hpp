#pragma once
// Collective operations and their time on a group of GPUs of a cluster: an α–β model with the
// structure of NCCL's own tuning model (NVIDIA/nccl src/graph/tuning.cc @01afd20: per algorithm
// and protocol, time = latency + bytes / algorithm bandwidth, the fastest combination chosen),
// where the bandwidth comes from the group's actual links, shared between concurrent flows.
#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "core/base/enum_names.hpp"
#include "core/comm/channels.hpp"
#include "core/comm/collective_op.hpp"
#include "core/keys/options.hpp"
#include "core/topology/cluster.hpp"
#include "core/topology/group_paths.hpp"
#include "core/topology/routing.hpp"

namespace meshscope {

enum class CollectiveAlgorithm { ring, tree, hierarchical, pairwise, point_to_point, nvls, nvls_tree };

template <>
struct EnumNames<CollectiveAlgorithm> {
  static constexpr std::array<std::pair<CollectiveAlgorithm, std::string_view>, 7> table{
      {{CollectiveAlgorithm::ring, "ring"},
       {CollectiveAlgorithm::tree, "tree"},
       {CollectiveAlgorithm::hierarchical, "hierarchical"},
       {CollectiveAlgorithm::pairwise, "pairwise"},
       {CollectiveAlgorithm::point_to_point, "p2p"},
       {CollectiveAlgorithm::nvls, "nvls"},
       {CollectiveAlgorithm::nvls_tree, "nvls_tree"}}};
};
enum class Protocol { ll, ll128, simple };

template <>
struct EnumNames<Protocol> {
  static constexpr std::array<std::pair<Protocol, std::string_view>, 3> table{
      {{Protocol::ll, "LL"}, {Protocol::ll128, "LL128"}, {Protocol::simple, "Simple"}}};
};
[[nodiscard]] std::string_view algorithm_name(CollectiveAlgorithm algorithm);
[[nodiscard]] std::optional<CollectiveAlgorithm> parse_algorithm(std::string_view name);
[[nodiscard]] std::string_view protocol_name(Protocol protocol);

// The constants of the model, one table per link type, each with its source; overridable.
struct CommConstants {
  // Achievable share of a link's nominal bandwidth for NCCL's Simple protocol.
  std::array<double, 8> link_efficiency{};  // indexed by LinkKind
  // Whether NCCL's low-latency protocols (LL, LL128) run over a network of this kind. They rely
  // on ordered, atomic delivery of 8/128-byte stores; over plain Ethernet sockets NCCL runs the
  // Simple protocol only. EFA keeps them: AWS's NCCL tuner costs LL and LL128 on p5
  // (aws-ofi-nccl src/tuner/nccl_ofi_model.cpp).
  std::array<bool, 8> low_latency_protocols{};
  // NCCL tuning.cc @01afd20: baseLat[algorithm][protocol] and hwLat[NVLink|PCI|NET][...], in µs.
  double base_latency_us[2][3]{};            // [tree, ring][ll, ll128, simple]
  double hw_latency_us[3][2][3]{};           // [nvlink, pci, net][tree, ring][ll, ll128, simple]
  double tree_bandwidth_factor = 0.9;        // tuning.cc: tree busBw × .9
  double ll_ring_factor = 0.25;              // tuning.cc: ring LL busBw × 1/4
  double ll128_factor = 0.92;                // tuning.cc: LL128 busBw × 0.92 (120 of 128 bytes)
  double ring_plateau_latency_factor = 1.9;  // tuning.cc: multi-node ring Simple all-reduce latency × 1.9
  // Multiplies every latency of the tables above: 1 = NCCL's own tables; calibration (issue 6)
  // fits it to the latency-bound rows of nccl-tests logs measured on the user's cluster.
  double latency_scale = 1.0;
  // A fixed cost per call, per protocol [ll, ll128, simple], in µs, added after the scaled
  // tables: the measured start-up of the pipelined protocols that tuning.cc leaves out. Values
  // and sources in collective.cpp (CommConstants::defaults).
  double call_overhead_us[3]{};
  // NVLink SHARP (NVLS): all-reduce reduced and multicast inside third-generation-and-later
  // NVSwitches. Efficiency per NVLink generation 4 (Hopper) and 5 (Blackwell): NVIDIA/nccl
  // src/tuning/nvls.cc nvlsEfficiency {0.85, 0.74}; latency: tuning.cc hwLat[NVLink][NVLS][Simple]
  // 25 µs. Across nodes of such switches NCCL's NVLSTree all-reduce uses the same. `nvls=0` turns
  // both off (NCCL_NVLS_ENABLE=0).
  bool nvls = true;
  // An all-to-all issued as one kernel that writes to every peer at once (DeepEP's and HybridEP's
  // dispatch and combine, Megatron-Core's flex dispatcher): one launch's latency, not NCCL's
  // n − 1 rounds of grouped sends and receives.
  bool all_to_all_one_kernel = false;
  double nvls_efficiency[2] = {0.85, 0.74};
  double nvls_latency_us = 25.0;
  // tuning.cc treeCorrectionFactor[protocol][log2(bytes / 64)], 64 B to 128 MiB: "Trees are not
  // perfectly sticking to the model for medium sizes".
  double tree_correction[3][22]{};

  // NVLink efficiency by NVLink generation where it differs from link_efficiency[nvlink] (0:
  // use that). Generation 2 (V100): NCCL src/graph/topo.h SM70_NVLINK_BW, 20 GB/s usable of a
  // 25 GB/s NVLink2 link = 0.80 — tuning.cc's 235 GB/s cap, behind the 0.78, is for sm80 only.
  // `nvlink_efficiency=` sets every generation.
  double nvlink_generation_efficiency[6]{};

  // RCCL (groups of AMD GPUs) has its own tables: ROCm/rccl src/graph/tuning.cc @9e22c79,
  // baseLat for Ring {LL, LL128, Simple} = {12, 12, 17} µs, and the MI300X tuning model
  // (rome_models.cc rome_model_79, 8 GPUs with 7 xGMI links each, options "tuning=5"):
  // tuning_model_5 hwLat[NVLINK|PCI][Tree|Ring][LL, LL128, Simple] (xGMI is LINK_NVL in RCCL's
  // topology) and its bwRatio for ring LL and LL128, 0.08. No per-call start-up is added: the
  // 113.6 µs of call_overhead_us was measured on NCCL (A100 logs); the MI300X logs' large-message
  // latency (57–62 µs from 64 MiB up) is what RCCL's tables give (46 µs), and the network row
  // stays NCCL's (no multi-node rccl-tests log to check RCCL's).
  double rccl_base_latency_us[3] = {12.0, 12.0, 17.0};
  double rccl_hw_latency_us[2][2][3] = {{{0.9, 0.9, 2.3}, {0.8, 0.8, 2.1}},   // NVLink (xGMI)
                                        {{2.2, 2.2, 5.7}, {2.2, 2.2, 5.7}}};  // PCI
  double rccl_ll_factor = 0.08;
  double rccl_ll128_factor = 0.08;
  double rccl_call_overhead_us[3] = {0.0, 0.0, 0.0};

  // nullopt: NCCL's choice (the fastest of ring and tree; pairwise for all-to-all). Otherwise only
  // this algorithm; `hierarchical` is the 2-D all-reduce (reduce-scatter inside each node,
  // all-reduce across nodes on every rail, all-gather inside each node), which NCCL itself only
  // runs through CollNet/NVLS hardware.
  std::optional<CollectiveAlgorithm> algorithm;

  [[nodiscard]] static CommConstants defaults();
  [[nodiscard]] double efficiency(LinkKind kind) const { return link_efficiency[static_cast<size_t>(kind)]; }
  [[nodiscard]] double efficiency(const Link& link) const;
};

// Overrides from key=value pairs (CLI --comm): `<link kind>_efficiency` (e.g. nvlink_efficiency=0.8,
// infiniband_efficiency=0.9), `algorithm` (auto, ring, tree, hierarchical), `tree_factor`,
// `ll128_factor`, `latency_scale`, `overhead_ll_us`, `overhead_ll128_us`, `overhead_simple_us`, `nvls` (0 or 1).
[[nodiscard]] Result<CommConstants> comm_constants_from_keys(const KeyValues& keys,
                                                             CommConstants base = CommConstants::defaults());

// Where the default efficiency of each link kind comes from (docs/conventions.md prints this).
struct LinkEfficiencySource {
  LinkKind kind;
  double efficiency;
  std::string_view source;
};
[[nodiscard]] const std::vector<LinkEfficiencySource>& link_efficiency_sources();

struct CollectiveEstimate {
  CollectiveOp op = CollectiveOp::all_reduce;
  int64_t ranks = 0;
  int64_t nodes = 0;
  double bytes = 0;
  double time_s = 0;
  double algbw_bytes_per_s = 0;      // bytes / time (nccl-tests' algbw)
  double busbw_bytes_per_s = 0;      // algbw × bus factor (nccl-tests' busbw)
  double latency_s = 0;              // the α of the chosen algorithm
  double bandwidth_bytes_per_s = 0;  // the β (algorithm bandwidth) of the chosen algorithm
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::ring;
  Protocol protocol = Protocol::simple;
  PathTier tier = PathTier::same_gpu;           // the slowest tier the group's traffic crosses
  LinkId bottleneck;                            // the link that limits the bandwidth
  LinkKind bottleneck_kind = LinkKind::nvlink;  // its kind (tier_name: "xgmi" for an xGMI mesh)
};

// Per-direction load on the links when one or more groups run the same collective at once.
struct LinkLoad {
  // flows[2·link + direction]: concurrent flows over the link in that direction (a→b: 0, b→a: 1)
  std::vector<int32_t> flows;
  explicit LinkLoad(size_t links = 0) : flows(2 * links, 0) {}
};

// Usable bytes/s of every link direction for the channel search of a group's node: nominal ×
// efficiency, divided among the other groups' flows in `load` (this group's own ring edges, `own`,
// are the search's business: its rings share the links they cross).
[[nodiscard]] LinkCapacity group_link_capacity(const Cluster& cluster, const CommConstants& constants,
                                               const LinkLoad* load, const GroupPaths& group);
// The group's GPUs on each node it spans, in rank order (nodes in order of first appearance).
[[nodiscard]] std::vector<std::vector<DeviceId>> gpus_per_node(const Cluster& cluster,
                                                               const std::vector<DeviceId>& ranks);
// What the tier is made of: "xgmi" for an xGMI mesh, "nvlink" for NVLink (direct or through an
// NVSwitch), otherwise path_tier_name (pcie-switch, numa, cross-socket, same-leaf, spine).
[[nodiscard]] std::string_view tier_name(const Cluster& cluster, PathTier tier, LinkId bottleneck);
[[nodiscard]] std::string_view tier_name(PathTier tier, LinkKind bottleneck_kind);
// Adds the flows of a group's ring to the load.
void add_ring_flows(const Cluster& cluster, const GroupPaths& group, LinkLoad& load);

// The size-independent part of a collective on a group: every algorithm/protocol candidate with
// its latency and bandwidth. Prepare once, evaluate for many sizes (the layout search does).
struct CollectiveModel {
  struct Candidate {
    double latency_s = 0;
    double bandwidth = 0;  // algorithm bandwidth, bytes/s
    CollectiveAlgorithm algorithm = CollectiveAlgorithm::ring;
    Protocol protocol = Protocol::simple;
    int protocol_index = 2;  // into CommConstants::tree_correction
    bool tree = false;       // tree correction factors apply
    bool plateau = false;    // ring plateau latency factor applies from plateau_bytes
  };
  CollectiveEstimate base;  // op, ranks, nodes, tier, bottleneck
  std::vector<Candidate> candidates;
  double plateau_bytes = 0;
  LinkId tree_bottleneck, nvls_tree_bottleneck;  // the link that binds each (network or NVLink)
  bool unreachable = false;
  bool rccl = false;  // RCCL's start-up (CommConstants::rccl_call_overhead_us)
  bool forced = false;
  CollectiveAlgorithm forced_algorithm = CollectiveAlgorithm::ring;
};
[[nodiscard]] CollectiveModel prepare_collective(const Router& router, const GroupPaths& group, CollectiveOp op,
                                                 const CommConstants& constants, const LinkLoad* load = nullptr);

// Bandwidths that bound the group's algorithms (what prepare_collective derives from the group's
// links; the same for every collective on the group, so callers that time several share it).
struct GroupBandwidth {
  double ring = std::numeric_limits<double>::infinity();          // narrowest ring edge (= ring busBw)
  double intra = std::numeric_limits<double>::infinity();         // narrowest intra-node edge
  double node_network = std::numeric_limits<double>::infinity();  // narrowest node's NIC total
  LinkId ring_bottleneck, intra_bottleneck;
  bool intra_nvlink = true;
  // The NVLink generation when every ring edge runs over NVLink through an NVSwitch (one NVLink
  // domain: a node, or a GB200 NVL72 rack); 0 otherwise. NVLS needs generation 4 or later.
  int nvswitch_generation = 0;
  // Groups across the network: the NVLink generation when, on every node, the group's ranks are
  // joined through an NVSwitch (each node its own NVLink domain, two ranks or more on it); 0
  // otherwise. NCCL's NVLSTree all-reduce needs generation 4 or later.
  int node_nvswitch_generation = 0;
  // The group's hosts joined by NVLink across hosts (GB200 NVL72 trays of one rack) form one
  // network domain, as NCCL's multi-node NVLink cliques: the tree runs between domains, from all
  // the NICs of a domain's hosts. How many domains, the narrowest domain's NIC total and the most
  // ranks on one domain (equal to nodes, node_network and max_ranks_per_node without such hosts).
  int64_t network_domains = 0;
  double domain_network = std::numeric_limits<double>::infinity();
  int64_t max_ranks_per_domain = 0;
  // Nodes whose GPUs of the group are joined by direct links (meshes: xGMI, DGX-1 NVLink, drawn
  // bridges): their part of the ring is the channel search's rings (core/comm/channels.hpp),
  // `channels` of them at most on one node; 0 when the group has no such node.
  int mesh_channels = 0;
  PathTier tier = PathTier::same_gpu;  // slowest tier the rings cross (the channels' on meshes)
  bool rccl = false;                   // AMD GPUs: RCCL's tables
};
[[nodiscard]] GroupBandwidth group_bandwidth(const Router& router, const GroupPaths& group,
                                             const CommConstants& constants, const LinkLoad* load = nullptr);
[[nodiscard]] CollectiveModel prepare_collective(const Router& router, const GroupPaths& group, CollectiveOp op,
                                                 const CommConstants& constants, const GroupBandwidth& bandwidth);
[[nodiscard]] CollectiveEstimate evaluate_collective(const CollectiveModel& model, double bytes,
                                                     const CommConstants& constants);

// Time of one collective of `bytes` (nccl-tests' size: the per-rank buffer for all-reduce,
// broadcast, reduce, all-to-all; the full output for all-gather; the full input for
// reduce-scatter) on the group, with `load` describing every concurrent flow (this group's
// included; an empty load means the group runs alone).
[[nodiscard]] CollectiveEstimate estimate_collective(const Router& router, const GroupPaths& group, CollectiveOp op,
                                                     double bytes, const CommConstants& constants,
                                                     const LinkLoad* load = nullptr);

}  // namespace meshscope
