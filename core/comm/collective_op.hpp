#pragma once
// The collective operations of NCCL and nccl-tests, shared by the cost model and the importers.
#include <cstdint>
#include <optional>
#include <string_view>

namespace meshscope {

enum class CollectiveOp { all_reduce, all_gather, reduce_scatter, all_to_all, broadcast, reduce, send_recv };

// "all-reduce", "all-gather", "reduce-scatter", "all-to-all", "broadcast", "reduce", "send-recv".
[[nodiscard]] std::string_view collective_op_name(CollectiveOp op);

// Accepts the names above and nccl-tests' spellings, case-insensitive: "all_reduce", "allreduce",
// "AllReduce", "all_reduce_perf", "/opt/nccl-tests/build/all_reduce_perf", "alltoall", "sendrecv".
[[nodiscard]] std::optional<CollectiveOp> parse_collective_op(std::string_view name);

// nccl-tests' bus-bandwidth factor, busbw = algbw × factor (nccl-tests doc/PERFORMANCE.md, "Summary"):
// all-reduce 2(n-1)/n; all-gather, reduce-scatter, all-to-all (n-1)/n; broadcast, reduce, send/recv 1.
// NaN when ranks < 1 (an unknown rank count stays unknown).
[[nodiscard]] double bus_bandwidth_factor(CollectiveOp op, int64_t ranks);

}  // namespace meshscope
