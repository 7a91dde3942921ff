#include "core/comm/collective_op.hpp"

#include <limits>
#include <string>
#include <utility>

#include "core/base/text.hpp"

namespace meshscope {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

}  // namespace

std::string_view collective_op_name(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::all_reduce:
      return "all-reduce";
    case CollectiveOp::all_gather:
      return "all-gather";
    case CollectiveOp::reduce_scatter:
      return "reduce-scatter";
    case CollectiveOp::all_to_all:
      return "all-to-all";
    case CollectiveOp::broadcast:
      return "broadcast";
    case CollectiveOp::reduce:
      return "reduce";
    case CollectiveOp::send_recv:
      return "send-recv";
  }
  return "unknown";
}

std::optional<CollectiveOp> parse_collective_op(std::string_view name) {
  const size_t slash = name.find_last_of("/\\");
  if (slash != std::string_view::npos) name = name.substr(slash + 1);
  std::string key = text::lowercase_alnum(name);
  if (key.ends_with("perfmpi")) key.resize(key.size() - 3);  // "all_reduce_perf_mpi" builds
  if (key.ends_with("perf")) key.resize(key.size() - 4);
  static constexpr std::pair<std::string_view, CollectiveOp> kNames[] = {
      {"allreduce", CollectiveOp::all_reduce},
      {"allgather", CollectiveOp::all_gather},
      {"reducescatter", CollectiveOp::reduce_scatter},
      {"alltoall", CollectiveOp::all_to_all},
      {"broadcast", CollectiveOp::broadcast},
      {"bcast", CollectiveOp::broadcast},
      {"reduce", CollectiveOp::reduce},
      {"sendrecv", CollectiveOp::send_recv}};
  for (const auto& [spelling, op] : kNames) {
    if (key == spelling) return op;
  }
  return std::nullopt;
}

double bus_bandwidth_factor(CollectiveOp op, int64_t ranks) {
  if (ranks < 1) return kNaN;
  const auto n = static_cast<double>(ranks);
  switch (op) {
    case CollectiveOp::all_reduce:
      return 2.0 * (n - 1.0) / n;
    case CollectiveOp::all_gather:
    case CollectiveOp::reduce_scatter:
    case CollectiveOp::all_to_all:
      return (n - 1.0) / n;
    case CollectiveOp::broadcast:
    case CollectiveOp::reduce:
    case CollectiveOp::send_recv:
      return 1.0;
  }
  return kNaN;
}

}  // namespace meshscope
