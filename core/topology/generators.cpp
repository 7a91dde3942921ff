#include "core/topology/generators.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <optional>
#include <system_error>
#include <utility>

#include "core/base/text.hpp"
#include "core/model/catalogue.hpp"
#include "core/topology/cluster_io.hpp"
#include "core/topology/link_defaults.hpp"

namespace meshscope {
namespace {

// ---- What one host contains --------------------------------------------------------------------

struct HostDesign {
  std::string_view title;      // "DGX H100"
  std::string_view gpu_model;  // catalogue id
  int32_t gpus = 8;
  // NVLink through one aggregated NVSwitch fabric device (chips == 0: none).
  int32_t nvswitch_chips = 0;
  int32_t nvlink_generation = 0;
  int32_t nvlinks_per_gpu = 0;
  // A direct link between every GPU pair (MI300X Infinity Fabric), per direction; 0: none.
  double gpu_mesh_bytes_per_s = 0;
  // CPU sockets, each its own NUMA domain, joined pairwise by one aggregated link.
  std::string_view cpu_name;
  int32_t sockets = 2;
  LinkKind socket_link = LinkKind::upi;
  double socket_link_bytes_per_s = 0;
  // PCIe: switches spread evenly over the sockets, GPUs and NICs spread evenly over the switches
  // (0 switches: GPUs and NICs on CPU root ports). Every PCIe link is x16.
  int32_t pcie_switches = 0;
  int32_t pcie_generation = 4;
  // Compute-fabric NICs, one rail each (local_index = rail).
  int32_t nics = 0;
  double nic_gbps = 0;
  LinkKind nic_kind = LinkKind::infiniband;
  std::string_view nic_name;
  bool nics_on_switches = true;  // false: on a CPU root port of their socket
};

constexpr int32_t kLanes = 16;

// Intel UPI moves 2 bytes per transfer per direction (Intel Xeon Scalable platform brief: UPI at
// 10.4 GT/s = 20.8 GB/s per direction, 41.6 GB/s per link both ways).
constexpr double upi_bytes_per_s(int32_t links, double gigatransfers_per_s) {
  return links * gigatransfers_per_s * 1e9 * 2.0;
}
// AMD xGMI links are x16 serial links: lanes × Gb/s per lane ÷ 8 per direction.
constexpr double xgmi_bytes_per_s(int32_t links, double gbits_per_lane) {
  return links * kLanes * gbits_per_lane * 1e9 / 8.0;
}

// NVIDIA DGX A100 User Guide (system topology) and DGX A100 System Architecture whitepaper
// (WP-10083-001): 8× A100 SXM4 80GB, six NVSwitch chips, 12 third-generation NVLinks per GPU
// (600 GB/s both ways), 2× AMD EPYC 7742, PCIe Gen4 switches each serving 2 GPUs and 2 compute
// NICs, 8× single-port ConnectX-6 HDR 200 Gb/s InfiniBand for the compute fabric (the storage
// NICs are not modelled). xGMI: AMD EPYC 7002 allows up to 4 x16 xGMI links at up to 18 Gb/s per
// lane; NVIDIA does not publish the DGX A100 setting, so 4 links at 18 Gb/s (144 GB/s per
// direction) is an assumption.
constexpr HostDesign kDgxA100{
    .title = "DGX A100",
    .gpu_model = "a100-80gb-sxm",
    .nvswitch_chips = 6,
    .nvlink_generation = 3,
    .nvlinks_per_gpu = 12,
    .cpu_name = "AMD EPYC 7742",
    .socket_link = LinkKind::xgmi,
    .socket_link_bytes_per_s = xgmi_bytes_per_s(4, 18),
    .pcie_switches = 4,
    .pcie_generation = 4,
    .nics = 8,
    .nic_gbps = 200,
    .nic_name = "ConnectX-6 HDR 200 Gb/s",
};

// NVIDIA DGX H100/H200 User Guide and DGX BasePOD reference architecture ("Core Components"):
// 8× H100 SXM5, four NVSwitch chips, 18 fourth-generation NVLinks per GPU (900 GB/s both ways),
// 2× Intel Xeon Platinum 8480C, PCIe Gen5 switches each serving 2 GPUs and 2 NICs, 8× single-port
// ConnectX-7 400 Gb/s NDR InfiniBand. UPI: the 8480 has 4 UPI links at 16 GT/s (Intel ARK) =
// 128 GB/s per direction.
constexpr HostDesign kDgxH100{
    .title = "DGX H100",
    .gpu_model = "h100-sxm",
    .nvswitch_chips = 4,
    .nvlink_generation = 4,
    .nvlinks_per_gpu = 18,
    .cpu_name = "Intel Xeon Platinum 8480C",
    .socket_link = LinkKind::upi,
    .socket_link_bytes_per_s = upi_bytes_per_s(4, 16),
    .pcie_switches = 4,
    .pcie_generation = 5,
    .nics = 8,
    .nic_gbps = 400,
    .nic_name = "ConnectX-7 NDR 400 Gb/s",
};

// HGX H200 8-GPU board (four NVSwitch chips, 900 GB/s NVLink per GPU, NVIDIA H200 datasheet) in a
// DGX H200 host, which the DGX BasePOD reference architecture lists with the DGX H100 CPU tray.
constexpr HostDesign kHgxH200 = [] {
  HostDesign h = kDgxH100;
  h.title = "HGX H200";
  h.gpu_model = "h200-sxm";
  return h;
}();

// NVIDIA DGX B200 datasheet and DGX BasePOD reference architecture: 8× B200, two NVSwitch chips,
// 18 fifth-generation NVLinks per GPU (1.8 TB/s both ways), 2× Intel Xeon Platinum 8570, 8×
// single-port ConnectX-7 400 Gb/s. UPI: the 8570 has 4 UPI links at 20 GT/s (Intel ARK) =
// 160 GB/s per direction. The PCIe switch layout is taken to be the DGX H100's.
constexpr HostDesign kDgxB200{
    .title = "DGX B200",
    .gpu_model = "b200",
    .nvswitch_chips = 2,
    .nvlink_generation = 5,
    .nvlinks_per_gpu = 18,
    .cpu_name = "Intel Xeon Platinum 8570",
    .socket_link = LinkKind::upi,
    .socket_link_bytes_per_s = upi_bytes_per_s(4, 20),
    .pcie_switches = 4,
    .pcie_generation = 5,
    .nics = 8,
    .nic_gbps = 400,
    .nic_name = "ConnectX-7 NDR 400 Gb/s",
};

// NVIDIA DGX B300 (Blackwell Ultra): 8× B300 on two NVSwitch chips with 18 fifth-generation NVLinks
// per GPU (1.8 TB/s both ways), 2× Intel Xeon 6776P, 8× ConnectX-8 SuperNIC 800 Gb/s (the HGX page's
// 1.6 TB/s networking per board; NVIDIA DGX B300 documentation as quoted at aiwiki.ai/wiki/
// nvidia_dgx_b300). UPI: 4 UPI 2.0 links at 24 GT/s = 192 GB/s per direction (**assumed**: the Xeon
// 6700P series' link count and rate, not checked against the 6776P's own listing). The PCIe switch layout is taken to
// be the DGX B200's (ConnectX-8's built-in PCIe switch is not modelled separately).
constexpr HostDesign kDgxB300 = [] {
  HostDesign h = kDgxB200;
  h.title = "DGX B300";
  h.gpu_model = "b300";
  h.cpu_name = "Intel Xeon 6776P";
  h.socket_link_bytes_per_s = upi_bytes_per_s(4, 24);
  h.nic_gbps = 800;
  h.nic_name = "ConnectX-8 SuperNIC 800 Gb/s";
  return h;
}();

// AMD Instinct MI300X platform (datasheet): 8 OAM GPUs on one board, each with 7 Infinity Fabric
// links of 128 GB/s both ways, one to every other GPU (64 GB/s per direction per pair), and a PCIe
// Gen5 x16 host link. Host: 2× AMD EPYC 9004; xGMI taken as 4 x16 links at 32 Gb/s per lane
// (256 GB/s per direction; AMD EPYC 9004 allows 3 or 4 links). OEM MI300X servers pair each GPU
// with one 400 Gb/s NIC behind a PCIe switch (1 GPU + 1 NIC per switch, 4 switches per socket);
// the NIC model and RoCE fabric are a choice, not a vendor figure.
constexpr HostDesign kMi300x{
    .title = "MI300X platform",
    .gpu_model = "mi300x",
    .gpu_mesh_bytes_per_s = 64e9,
    .cpu_name = "AMD EPYC 9004",
    .socket_link = LinkKind::xgmi,
    .socket_link_bytes_per_s = xgmi_bytes_per_s(4, 32),
    .pcie_switches = 8,
    .pcie_generation = 5,
    .nics = 8,
    .nic_gbps = 400,
    .nic_kind = LinkKind::roce,
    .nic_name = "400 Gb/s RoCE NIC",
};

// A generic 2-socket PCIe GPU server (NVIDIA L40S datasheet: PCIe Gen4 x16, no NVLink): 8 GPUs
// behind 4 PCIe Gen4 switches (2 per socket, 2 GPUs each), 2× 4th-generation Xeon joined by 3 UPI
// links at 16 GT/s (96 GB/s per direction), one 200 Gb/s RoCE NIC per socket on a CPU root port.
constexpr HostDesign kPcie8Gpu{
    .title = "8-GPU PCIe server",
    .gpu_model = "l40s",
    .cpu_name = "Intel Xeon (4th generation)",
    .socket_link = LinkKind::upi,
    .socket_link_bytes_per_s = upi_bytes_per_s(3, 16),
    .pcie_switches = 4,
    .pcie_generation = 4,
    .nics = 2,
    .nic_gbps = 200,
    .nic_kind = LinkKind::roce,
    .nic_name = "200 Gb/s RoCE NIC",
    .nics_on_switches = false,
};

// A 4-GPU workstation: one AMD Threadripper PRO socket (128 PCIe Gen4 lanes), 4× GeForce RTX 4090
// each on its own Gen4 x16 root port (no PCIe switch, and GeForce cards have no P2P), one 100 Gb/s
// Ethernet NIC.
constexpr HostDesign kRtx4090Ws{
    .title = "RTX 4090 workstation",
    .gpu_model = "rtx-4090",
    .gpus = 4,
    .cpu_name = "AMD Ryzen Threadripper PRO",
    .sockets = 1,
    .pcie_switches = 0,
    .pcie_generation = 4,
    .nics = 1,
    .nic_gbps = 100,
    .nic_kind = LinkKind::ethernet,
    .nic_name = "100 Gb/s Ethernet NIC",
    .nics_on_switches = false,
};

// Amazon EC2 p4d.24xlarge (AWS instance-type page: 8× A100 40GB SXM4 on NVSwitch, 600 GB/s NVLink
// per GPU, 4× 100 Gb/s EFA, Intel Xeon Platinum 8275CL) with the PCIe layout of AWS's own NCCL
// topology file for it (aws-ofi-nccl topology/p4d-24xl-topo.xml: under each of the 2 sockets, 2
// PCIe switches, each with 2 GPUs and 1 EFA NIC). A100 links are Gen4. UPI: 3 links at 10.4 GT/s
// (62.4 GB/s per direction; **assumed** from the Xeon Platinum 8275's listing, AWS does not
// publish the 8275CL's). The EFA fabric is drawn as the rail-optimised two-level fabric below
// (AWS does not publish its topology).
constexpr HostDesign kAwsP4d{
    .title = "AWS p4d.24xlarge",
    .gpu_model = "a100-40gb-sxm",
    .nvswitch_chips = 6,
    .nvlink_generation = 3,
    .nvlinks_per_gpu = 12,
    .cpu_name = "Intel Xeon Platinum 8275CL",
    .socket_link = LinkKind::upi,
    .socket_link_bytes_per_s = upi_bytes_per_s(3, 10.4),
    .pcie_switches = 4,
    .pcie_generation = 4,
    .nics = 4,
    .nic_gbps = 100,
    .nic_kind = LinkKind::efa,
    .nic_name = "EFA 100 Gb/s",
};

// Amazon EC2 p4de.24xlarge: the p4d with A100 80GB (AWS instance-type page; aws-ofi-nccl
// topology/p4de-24xl-topo.xml has the p4d's PCIe layout).
constexpr HostDesign kAwsP4de = [] {
  HostDesign h = kAwsP4d;
  h.title = "AWS p4de.24xlarge";
  h.gpu_model = "a100-80gb-sxm";
  return h;
}();

// Amazon EC2 p5.48xlarge (AWS instance-type page: 8× H100 SXM 80GB on NVSwitch, 900 GB/s NVLink
// per GPU, 3,200 Gb/s of EFA, 2× 3rd-generation AMD EPYC 7R13) with the PCIe layout of AWS's NCCL
// topology file for it (aws-ofi-nccl topology/p5.48xl-topo.xml: 8 PCIe switches, each with 1 GPU
// on Gen5 x16 and 4 EFA NICs of 100 Gb/s): 32 NICs, 4 per GPU. The switches are split 4 per
// socket; xGMI between the sockets as in dgx-a100 (4 x16 links at 18 Gb/s, **assumed**).
constexpr HostDesign kAwsP5{
    .title = "AWS p5.48xlarge",
    .gpu_model = "h100-sxm",
    .nvswitch_chips = 4,
    .nvlink_generation = 4,
    .nvlinks_per_gpu = 18,
    .cpu_name = "AMD EPYC 7R13",
    .socket_link = LinkKind::xgmi,
    .socket_link_bytes_per_s = xgmi_bytes_per_s(4, 18),
    .pcie_switches = 8,
    .pcie_generation = 5,
    .nics = 32,
    .nic_gbps = 100,
    .nic_kind = LinkKind::efa,
    .nic_name = "EFA 100 Gb/s",
};

// GB200 NVL72 (NVIDIA GB200 NVL72 product page; Multi-Node NVLink tuning guide, "Understanding
// Your Grace-Blackwell Systems"): 18 compute trays per rack, each with 2 GB200 superchips (2 Grace
// CPUs, 4 Blackwell GPUs), 9 NVLink switch trays of 2 NVSwitch chips (18 chips) joining all 72 GPUs
// with 18 fifth-generation NVLinks each (1.8 TB/s both ways). NVLink-C2C: 900 GB/s both ways, taken
// as 450 GB/s per direction on each GPU–Grace link. 4 ConnectX-7 400 Gb/s compute NICs per tray,
// one per GPU, on the PCIe Gen5 lanes of the GPU's Grace.
constexpr int32_t kTraysPerRack = 18;
constexpr int32_t kGb200GpusPerTray = 4;
constexpr int32_t kGb200NvswitchChips = 18;
constexpr double kNvlinkC2cBytesPerS = 450e9;

// ---- Options --------------------------------------------------------------------------------------

struct Options {
  int32_t count = 1;  // nodes, or racks for gb200-nvl72
  // gb200-nvl72: the compute trays of each rack in the job. A Slurm job allocated in segments of
  // 16 trays (topology/block; NVIDIA's recommendation for jobs of 128 GPUs and more, "Unlock
  // exascale performance on GB200 NVL72 with Slurm topology-aware job scheduling") holds 64 GPUs
  // of each rack's NVLink domain.
  int32_t trays = kTraysPerRack;
  std::string gpu;  // empty: the design's GPU
  double oversubscription = 1;
  int32_t nodes_per_leaf = 32;
  double nic_gbps = 0;  // 0: the design's
};

struct Generator {
  GeneratorInfo info;
  const HostDesign* host;  // nullptr: gb200-nvl72
};

const std::vector<Generator>& generators() {
  static const std::vector<Generator> table = [] {
    const std::vector<std::string> host_keys{"nodes", "gpu", "oversubscription", "nodes_per_leaf", "nic_gbps"};
    return std::vector<Generator>{
        {{"dgx-a100",
          "8× A100 80GB on a 6-chip NVSwitch fabric (NVLink 3 ×12), 2× EPYC 7742 (xGMI), 4 PCIe Gen4 switches, "
          "8× 200 Gb/s HDR InfiniBand",
          host_keys},
         &kDgxA100},
        {{"dgx-h100",
          "8× H100 SXM on a 4-chip NVSwitch fabric (NVLink 4 ×18), 2× Xeon 8480C (UPI), 4 PCIe Gen5 switches, "
          "8× 400 Gb/s NDR InfiniBand",
          host_keys},
         &kDgxH100},
        {{"hgx-h200", "as dgx-h100 with H200 SXM GPUs", host_keys}, &kHgxH200},
        {{"dgx-b200",
          "8× B200 on a 2-chip NVSwitch fabric (NVLink 5 ×18), 2× Xeon 8570 (UPI), 4 PCIe Gen5 switches, "
          "8× 400 Gb/s NDR InfiniBand",
          host_keys},
         &kDgxB200},
        {{"dgx-b300",
          "8× B300 (Blackwell Ultra) on a 2-chip NVSwitch fabric (NVLink 5 ×18), 2× Xeon 6776P (UPI), 4 PCIe Gen5 "
          "switches, 8× 800 Gb/s ConnectX-8",
          host_keys},
         &kDgxB300},
        {{"gb200-nvl72",
          "per rack: 18 trays of 2 Grace + 4 B200 (NVLink-C2C), one 18-chip NVSwitch fabric for all 72 GPUs "
          "(NVLink 5 ×18), 4× 400 Gb/s InfiniBand per tray; gpu=gb300: a GB300 NVL72 (4× 800 Gb/s ConnectX-8); "
          "trays=16: the 16 trays (64 GPUs) of each rack a Slurm segment of 16 gives a job",
          {"racks", "gpu", "oversubscription", "nodes_per_leaf", "nic_gbps", "trays"}},
         nullptr},
        {{"aws-p4d",
          "Amazon EC2 p4d.24xlarge: 8× A100 40GB on a 6-chip NVSwitch fabric (NVLink 3 ×12), 2× Xeon 8275CL (UPI), "
          "4 PCIe Gen4 switches of 2 GPUs + 1 NIC, 4× 100 Gb/s EFA",
          host_keys},
         &kAwsP4d},
        {{"aws-p4de", "as aws-p4d with A100 80GB (Amazon EC2 p4de.24xlarge)", host_keys}, &kAwsP4de},
        {{"aws-p5",
          "Amazon EC2 p5.48xlarge: 8× H100 SXM on a 4-chip NVSwitch fabric (NVLink 4 ×18), 2× EPYC 7R13 (xGMI), "
          "8 PCIe Gen5 switches of 1 GPU + 4 NICs, 32× 100 Gb/s EFA (3,200 Gb/s)",
          host_keys},
         &kAwsP5},
        {{"mi300x",
          "8× MI300X fully connected by xGMI (64 GB/s per direction per pair), 2× EPYC 9004, 8 PCIe Gen5 switches "
          "of 1 GPU + 1 NIC, 8× 400 Gb/s RoCE",
          host_keys},
         &kMi300x},
        {{"pcie-8gpu",
          "8 PCIe GPUs (default L40S) behind 4 PCIe Gen4 switches, 2 sockets (UPI), 2× 200 Gb/s RoCE, no NVLink",
          host_keys},
         &kPcie8Gpu},
        {{"rtx4090-ws", "4× RTX 4090 on CPU root ports of one socket (Gen4 x16), 1× 100 Gb/s Ethernet", host_keys},
         &kRtx4090Ws},
    };
  }();
  return table;
}

std::string joined(const std::vector<std::string>& items) {
  std::string text;
  for (const auto& item : items) text += (text.empty() ? "" : ", ") + item;
  return text;
}

using text::parse_integer;
using text::parse_number;
using text::trim;

Result<Options> parse_options(const Generator& generator, std::string_view options_text, const std::string& spec) {
  Options options;
  std::vector<std::string> seen;
  while (!options_text.empty()) {
    const size_t comma = options_text.find(',');
    const std::string_view item = trim(options_text.substr(0, comma));
    options_text = comma == std::string_view::npos ? std::string_view{} : options_text.substr(comma + 1);
    if (item.empty()) continue;  // "nodes=2," or "a,,b"
    const size_t equals = item.find('=');
    if (equals == std::string_view::npos)
      return make_error(ErrorCode::invalid_argument,
                        "\"" + std::string(item) + "\" is not key=value; keys: " + joined(generator.info.keys), spec);
    const std::string key(trim(item.substr(0, equals)));
    const std::string_view value = trim(item.substr(equals + 1));
    if (std::find(generator.info.keys.begin(), generator.info.keys.end(), key) == generator.info.keys.end())
      return make_error(
          ErrorCode::invalid_argument,
          "generator \"" + generator.info.name + "\" has no key \"" + key + "\"; keys: " + joined(generator.info.keys),
          spec);
    if (std::find(seen.begin(), seen.end(), key) != seen.end())
      return make_error(ErrorCode::invalid_argument, "key \"" + key + "\" is given twice", spec);
    seen.push_back(key);
    auto bad = [&](const std::string& expected) {
      return make_error(ErrorCode::invalid_argument,
                        "\"" + key + "=" + std::string(value) + "\": " + key + " must be " + expected, spec);
    };
    if (key == "trays") {
      const auto n = parse_integer(value);
      if (!n || *n < 1 || *n > kTraysPerRack)
        return bad("an integer from 1 to " + std::to_string(kTraysPerRack) + " (compute trays per rack)");
      options.trays = static_cast<int32_t>(*n);
    } else if (key == "nodes" || key == "racks" || key == "nodes_per_leaf") {
      const int64_t limit = key == "racks" ? 1024 : 65536;
      const auto n = parse_integer(value);
      if (!n || *n < 1 || *n > limit) return bad("an integer from 1 to " + std::to_string(limit));
      (key == "nodes_per_leaf" ? options.nodes_per_leaf : options.count) = static_cast<int32_t>(*n);
    } else if (key == "oversubscription") {
      const auto x = parse_number(value);
      if (!x || *x < 1 || *x > 64) return bad("a number from 1 to 64 (downlink ÷ uplink capacity of a leaf)");
      options.oversubscription = *x;
    } else if (key == "nic_gbps") {
      const auto x = parse_number(value);
      if (!x || !(*x > 0) || *x > 1e5) return bad("a positive line rate in Gb/s");
      options.nic_gbps = *x;
    } else if (key == "gpu") {
      if (!find_gpu(value)) {
        std::vector<std::string> known;
        for (const auto& gpu : gpu_catalogue()) known.push_back(gpu.id);
        return bad("a GPU of the catalogue: " + joined(known));
      }
      options.gpu = std::string(value);
    }
  }
  return options;
}

// ---- Building -------------------------------------------------------------------------------------

// "n3.gpu5" and "n3.nvsw" → "n3.gpu5-nvsw"; "n3.nic5" and "leaf.r5.p0" → "n3.nic5-leaf.r5.p0".
std::string link_id(const std::string& a, const std::string& b) {
  const size_t dot = a.find('.');
  if (dot != std::string::npos && b.size() > dot && b.compare(0, dot + 1, a, 0, dot + 1) == 0)
    return a + "-" + b.substr(dot + 1);
  return a + "-" + b;
}

std::string padded(int64_t value, size_t width) {
  std::string digits = std::to_string(value);
  if (digits.size() < width) digits.insert(0, width - digits.size(), '0');
  return digits;
}

class Builder {
 public:
  explicit Builder(Cluster& cluster) : c_(cluster) {}

  DeviceId device(std::string id, DeviceKind kind, std::string name, int32_t node, int32_t rack, int32_t numa,
                  int32_t local_index = -1, std::string gpu_model = {}, int32_t chips = 1) {
    Device d;
    d.id = std::move(id);
    d.kind = kind;
    d.name = name.empty() ? d.id : std::move(name);
    d.node = node;
    d.rack = rack;
    d.numa = numa;
    d.local_index = local_index;
    d.gpu_model = std::move(gpu_model);
    d.chips = chips;
    c_.devices.push_back(std::move(d));
    return DeviceId{static_cast<int32_t>(c_.devices.size() - 1)};
  }

  void nvlink(DeviceId a, DeviceId b, int32_t generation, int32_t count) {
    Link& l = add(a, b, LinkKind::nvlink, nvlink_bandwidth(generation, count));
    l.nvlink_generation = generation;
    l.nvlink_count = count;
  }
  void pcie(DeviceId a, DeviceId b, int32_t generation, int32_t lanes) {
    Link& l = add(a, b, LinkKind::pcie, pcie_bandwidth(generation, lanes));
    l.pcie_generation = generation;
    l.pcie_lanes = lanes;
  }
  void network(DeviceId a, DeviceId b, LinkKind kind, double gbits_per_s) {
    add(a, b, kind, network_bandwidth(gbits_per_s)).gbits_per_s = gbits_per_s;
  }
  void direct(DeviceId a, DeviceId b, LinkKind kind, double bytes_per_s) { add(a, b, kind, bytes_per_s); }

 private:
  Link& add(DeviceId a, DeviceId b, LinkKind kind, double bytes_per_s) {
    Link l;
    l.id = link_id(c_.device(a).id, c_.device(b).id);
    l.a = a;
    l.b = b;
    l.kind = kind;
    l.bandwidth_bytes_per_s = bytes_per_s;
    l.latency_s = default_link_latency_s(kind, c_.device(a).kind, c_.device(b).kind);
    c_.links.push_back(std::move(l));
    return c_.links.back();
  }

  Cluster& c_;
};

// Evenly spreads `count` items over `bins` (item i → bin i·bins/count).
int32_t spread(int32_t index, int32_t count, int32_t bins) {
  return static_cast<int32_t>(int64_t{index} * bins / std::max(count, 1));
}

// One host.
void build_host(Builder& b, const HostDesign& h, int32_t node, const std::string& gpu_model) {
  const std::string p = "n" + std::to_string(node) + ".";
  const int32_t switches = h.pcie_switches;
  auto socket_of_switch = [&](int32_t s) { return spread(s, switches, h.sockets); };
  auto gpu_switch = [&](int32_t g) { return spread(g, h.gpus, switches); };
  auto gpu_socket = [&](int32_t g) {
    return switches > 0 ? socket_of_switch(gpu_switch(g)) : spread(g, h.gpus, h.sockets);
  };
  auto nic_switch = [&](int32_t k) { return spread(k, h.nics, switches); };
  auto nic_socket = [&](int32_t k) {
    return h.nics_on_switches && switches > 0 ? socket_of_switch(nic_switch(k)) : spread(k, h.nics, h.sockets);
  };

  std::vector<DeviceId> gpus, cpus, pcie, nics;
  gpus.reserve(static_cast<size_t>(h.gpus));
  for (int32_t g = 0; g < h.gpus; ++g)
    gpus.push_back(b.device(p + "gpu" + std::to_string(g), DeviceKind::gpu, {}, node, -1, gpu_socket(g), g, gpu_model));
  DeviceId nvswitch;
  if (h.nvswitch_chips > 0)
    nvswitch =
        b.device(p + "nvsw", DeviceKind::nvswitch, "NVSwitch fabric (" + std::to_string(h.nvswitch_chips) + " chips)",
                 node, -1, -1, -1, {}, h.nvswitch_chips);
  for (int32_t s = 0; s < h.sockets; ++s)
    cpus.push_back(b.device(p + "cpu" + std::to_string(s), DeviceKind::cpu, std::string(h.cpu_name), node, -1, s));
  for (int32_t s = 0; s < switches; ++s)
    pcie.push_back(b.device(p + "pcie" + std::to_string(s), DeviceKind::pcie_switch,
                            "PCIe Gen" + std::to_string(h.pcie_generation) + " switch", node, -1, socket_of_switch(s)));
  for (int32_t k = 0; k < h.nics; ++k)
    nics.push_back(
        b.device(p + "nic" + std::to_string(k), DeviceKind::nic, std::string(h.nic_name), node, -1, nic_socket(k), k));

  if (nvswitch.valid())
    for (const DeviceId g : gpus) b.nvlink(g, nvswitch, h.nvlink_generation, h.nvlinks_per_gpu);
  if (h.gpu_mesh_bytes_per_s > 0)
    for (size_t i = 0; i < gpus.size(); ++i)
      for (size_t j = i + 1; j < gpus.size(); ++j) b.direct(gpus[i], gpus[j], LinkKind::xgmi, h.gpu_mesh_bytes_per_s);
  for (int32_t g = 0; g < h.gpus; ++g) {
    const DeviceId up =
        switches > 0 ? pcie[static_cast<size_t>(gpu_switch(g))] : cpus[static_cast<size_t>(gpu_socket(g))];
    b.pcie(gpus[static_cast<size_t>(g)], up, h.pcie_generation, kLanes);
  }
  for (int32_t k = 0; k < h.nics; ++k) {
    const DeviceId up = h.nics_on_switches && switches > 0 ? pcie[static_cast<size_t>(nic_switch(k))]
                                                           : cpus[static_cast<size_t>(nic_socket(k))];
    b.pcie(nics[static_cast<size_t>(k)], up, h.pcie_generation, kLanes);
  }
  for (int32_t s = 0; s < switches; ++s)
    b.pcie(pcie[static_cast<size_t>(s)], cpus[static_cast<size_t>(socket_of_switch(s))], h.pcie_generation, kLanes);
  for (size_t i = 0; i < cpus.size(); ++i)
    for (size_t j = i + 1; j < cpus.size(); ++j) b.direct(cpus[i], cpus[j], h.socket_link, h.socket_link_bytes_per_s);
}

// One GB200 NVL72 rack: the rack's NVSwitch fabric, then 18 trays (nodes).
void build_gb200_rack(Builder& b, int32_t rack, int32_t trays, const std::string& gpu_model) {
  const DeviceId nvswitch = b.device("r" + std::to_string(rack) + ".nvsw", DeviceKind::nvswitch,
                                     "NVLink switch trays (" + std::to_string(kGb200NvswitchChips) + " NVSwitch chips)",
                                     -1, rack, -1, -1, {}, kGb200NvswitchChips);
  for (int32_t tray = 0; tray < trays; ++tray) {
    const int32_t node = rack * trays + tray;
    const std::string p = "n" + std::to_string(node) + ".";
    std::vector<DeviceId> gpus, cpus, nics;
    for (int32_t g = 0; g < kGb200GpusPerTray; ++g)
      gpus.push_back(b.device(p + "gpu" + std::to_string(g), DeviceKind::gpu, {}, node, rack, g / 2, g, gpu_model));
    for (int32_t s = 0; s < 2; ++s)
      cpus.push_back(b.device(p + "cpu" + std::to_string(s), DeviceKind::cpu, "NVIDIA Grace", node, rack, s));
    for (int32_t k = 0; k < kGb200GpusPerTray; ++k)
      nics.push_back(b.device(p + "nic" + std::to_string(k), DeviceKind::nic,
                              gpu_model == "gb300" ? "ConnectX-8 SuperNIC 800 Gb/s" : "ConnectX-7 NDR 400 Gb/s", node,
                              rack, k / 2, k));
    for (int32_t g = 0; g < kGb200GpusPerTray; ++g) {
      b.nvlink(gpus[static_cast<size_t>(g)], nvswitch, 5, 18);
      b.direct(gpus[static_cast<size_t>(g)], cpus[static_cast<size_t>(g / 2)], LinkKind::nvlink, kNvlinkC2cBytesPerS);
    }
    for (int32_t k = 0; k < kGb200GpusPerTray; ++k)
      b.pcie(nics[static_cast<size_t>(k)], cpus[static_cast<size_t>(k / 2)], 5, kLanes);
  }
}

std::string plural(int64_t n, const char* word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

Cluster build(const Generator& generator, const Options& options, std::string spec) {
  Cluster c;
  c.generator = std::move(spec);
  Builder b(c);
  int32_t nodes = 0;
  LinkKind nic_kind = LinkKind::infiniband;
  double nic_gbps = 0;
  if (generator.host) {
    const HostDesign& h = *generator.host;
    nodes = options.count;
    nic_kind = h.nic_kind;
    nic_gbps = options.nic_gbps > 0 ? options.nic_gbps : h.nic_gbps;
    const std::string gpu_model = options.gpu.empty() ? std::string(h.gpu_model) : options.gpu;
    const size_t per_node = static_cast<size_t>(h.gpus) + static_cast<size_t>(h.sockets) +
                            static_cast<size_t>(h.pcie_switches) + static_cast<size_t>(h.nics) + 1;
    c.devices.reserve(static_cast<size_t>(nodes) * per_node + 64);
    c.links.reserve(
        static_cast<size_t>(nodes) * (per_node + static_cast<size_t>(h.gpus) * static_cast<size_t>(h.gpus)) + 64);
    for (int32_t n = 0; n < nodes; ++n) build_host(b, h, n, gpu_model);
    c.name = std::string(h.title) + ", " + plural(nodes, "node") + " (" + gpu_model + ")";
  } else {
    const int32_t racks = options.count;
    nodes = racks * options.trays;
    const std::string gpu_model = options.gpu.empty() ? std::string("gb200") : options.gpu;
    // GB300 NVL72 trays carry ConnectX-8 SuperNICs (800 Gb/s); GB200's ConnectX-7 (400 Gb/s).
    nic_gbps = options.nic_gbps > 0 ? options.nic_gbps : (gpu_model == "gb300" ? 800 : 400);
    c.devices.reserve(static_cast<size_t>(nodes) * 10 + 64);
    c.links.reserve(static_cast<size_t>(nodes) * 16 + 64);
    for (int32_t r = 0; r < racks; ++r) build_gb200_rack(b, r, options.trays, gpu_model);
    for (int32_t r = 0; r < racks; ++r) c.rack_names.push_back("rack" + padded(r, 2));
    c.name = "GB200 NVL72, " + plural(racks, "rack") + (gpu_model == "gb200" ? "" : " (" + gpu_model + ")") +
             (options.trays == kTraysPerRack ? "" : ", " + plural(options.trays, "tray") + " each");
  }
  const size_t width = std::max<size_t>(3, std::to_string(std::max(nodes - 1, 0)).size());
  c.node_names.reserve(static_cast<size_t>(nodes));
  for (int32_t n = 0; n < nodes; ++n) c.node_names.push_back("node" + padded(n, width));
  connect_to_fabric(c, FabricOptions{.nodes_per_leaf = options.nodes_per_leaf,
                                     .oversubscription = options.oversubscription,
                                     .kind = nic_kind,
                                     .nic_gbps = nic_gbps});
  return c;
}

}  // namespace

// Rail-optimised two-level fabric: the rail-r NICs of each group of `nodes_per_leaf` nodes share a
// leaf; every leaf links to every spine with one aggregated link. A leaf's uplink capacity is its
// downlink capacity ÷ oversubscription, split evenly over the spines; the spine count is the
// number of NIC-rate uplink ports of the fullest leaf, at most 16. One leaf alone gets no spines.
void connect_to_fabric(Cluster& cluster, const FabricOptions& options) {
  // NICs by node and rail (their local index; NICs without one take the next free rail).
  int32_t nodes = static_cast<int32_t>(cluster.node_names.size());
  for (const Device& d : cluster.devices)
    if (d.kind == DeviceKind::nic) nodes = std::max(nodes, d.node + 1);
  std::vector<std::vector<DeviceId>> nics(static_cast<size_t>(std::max(nodes, 0)));
  int32_t rails = 0;
  for (size_t i = 0; i < cluster.devices.size(); ++i) {
    const Device& d = cluster.devices[i];
    if (d.kind != DeviceKind::nic || d.node < 0) continue;
    auto& rail_nics = nics[static_cast<size_t>(d.node)];
    const auto rail = static_cast<size_t>(d.local_index >= 0 ? d.local_index : static_cast<int32_t>(rail_nics.size()));
    if (rail_nics.size() <= rail) rail_nics.resize(rail + 1);
    if (!rail_nics[rail].valid()) rail_nics[rail] = DeviceId{static_cast<int32_t>(i)};
    rails = std::max(rails, static_cast<int32_t>(rail) + 1);
  }
  if (nodes < 2 || rails < 1) return;
  Builder b(cluster);
  const int32_t per_leaf = std::max(options.nodes_per_leaf, 1);
  const int32_t groups = (nodes + per_leaf - 1) / per_leaf;
  std::vector<DeviceId> leaves;
  leaves.reserve(static_cast<size_t>(groups) * static_cast<size_t>(rails));
  for (int32_t g = 0; g < groups; ++g)
    for (int32_t r = 0; r < rails; ++r)
      leaves.push_back(b.device("leaf.r" + std::to_string(r) + ".p" + std::to_string(g), DeviceKind::leaf_switch,
                                "leaf switch (rail " + std::to_string(r) + ", group " + std::to_string(g) + ")", -1, -1,
                                -1));
  for (int32_t n = 0; n < nodes; ++n) {
    const auto& rail_nics = nics[static_cast<size_t>(n)];
    for (size_t r = 0; r < rail_nics.size(); ++r)
      if (rail_nics[r].valid())
        b.network(rail_nics[r], leaves[static_cast<size_t>(n / per_leaf) * static_cast<size_t>(rails) + r],
                  options.kind, options.nic_gbps);
  }
  if (leaves.size() < 2) return;
  const int32_t fullest = std::min(nodes, per_leaf);
  const auto uplink_ports = static_cast<int32_t>(std::ceil(fullest / options.oversubscription - 1e-9));
  const int32_t spines = std::clamp(uplink_ports, 1, 16);
  std::vector<DeviceId> spine_ids;
  spine_ids.reserve(static_cast<size_t>(spines));
  for (int32_t s = 0; s < spines; ++s)
    spine_ids.push_back(b.device("spine" + std::to_string(s), DeviceKind::spine_switch, "spine switch", -1, -1, -1));
  for (int32_t g = 0; g < groups; ++g) {
    const int32_t attached = std::min(per_leaf, nodes - g * per_leaf);
    const double gbits_per_link = attached * options.nic_gbps / options.oversubscription / spines;
    for (int32_t r = 0; r < rails; ++r)
      for (const DeviceId spine : spine_ids)
        b.network(leaves[static_cast<size_t>(g) * static_cast<size_t>(rails) + static_cast<size_t>(r)], spine,
                  options.kind, gbits_per_link);
  }
}

const std::vector<GeneratorInfo>& cluster_generators() {
  static const std::vector<GeneratorInfo> infos = [] {
    std::vector<GeneratorInfo> list;
    for (const auto& g : generators()) list.push_back(g.info);
    return list;
  }();
  return infos;
}

std::vector<std::string> generator_names() {
  std::vector<std::string> names;
  for (const auto& g : generators()) names.push_back(g.info.name);
  return names;
}

Result<Cluster> generate_cluster(std::string_view spec_text) {
  const std::string spec(trim(spec_text));
  const size_t colon = spec.find(':');
  const std::string name(trim(std::string_view(spec).substr(0, colon)));
  const auto it =
      std::find_if(generators().begin(), generators().end(), [&](const Generator& g) { return g.info.name == name; });
  if (it == generators().end())
    return make_error(ErrorCode::invalid_argument,
                      "unknown cluster generator \"" + name + "\"; generators: " + joined(generator_names()), spec);
  const std::string_view options_text =
      colon == std::string::npos ? std::string_view{} : std::string_view(spec).substr(colon + 1);
  MS_TRY(options, parse_options(*it, options_text, spec));
  Cluster cluster = build(*it, options, spec);
  const auto problems = index_cluster(cluster);
  if (!problems.empty())  // a generator bug, reported rather than handed on
    return make_error(ErrorCode::invalid_argument, "generated cluster is inconsistent: " + problems.front().message,
                      spec);
  return cluster;
}

Result<Cluster> resolve_cluster(const std::string& file_or_spec) {
  std::error_code error;
  if (std::filesystem::is_regular_file(file_or_spec, error)) return load_cluster_file(file_or_spec);
  auto generated = generate_cluster(file_or_spec);
  if (generated) return generated;
  const bool looks_like_path = file_or_spec.find('/') != std::string::npos ||
                               file_or_spec.find('\\') != std::string::npos || file_or_spec.ends_with(".json");
  if (looks_like_path) return make_error(ErrorCode::io_error, "no cluster file at this path", file_or_spec);
  Error e = generated.error();
  e.message += " (and no file of that name exists)";
  return tl::unexpected(e);
}

}  // namespace meshscope
