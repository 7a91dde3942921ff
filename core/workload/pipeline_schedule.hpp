#pragma once
// The pipeline schedule: one enum for the workload's choice ("schedule" key, the project file, the
// GUI), the search's candidates and the event simulator (core/schedule/schedule.hpp). Each
// schedule's sources and timing are in docs/schedules.md.
#include <array>
#include <cstdint>
#include <string_view>
#include <utility>

#include "core/base/enum_names.hpp"

namespace meshscope {

enum class PipelineSchedule {
  gpipe,        // all forwards, then all backwards (Huang et al. 2019)
  one_f_one_b,  // PipeDream-Flush (Narayanan et al. SC21 §2.2.1)
  interleaved,  // interleaved 1F1B, v model chunks per rank (SC21 §2.2.2, Megatron-LM)
  zb_h1,        // zero bubble, 1F1B memory (Qi et al. 2024 §2.1, arXiv:2401.10241)
  zb_h2,        // zero bubble, 2p−1 micro-batches in flight (Qi et al. 2024 §2.2)
  dualpipe,     // bidirectional (DeepSeek-V3 report §3.2.1, deepseek-ai/DualPipe)
};

template <>
struct EnumNames<PipelineSchedule> {
  static constexpr std::array<std::pair<PipelineSchedule, std::string_view>, 6> table{
      {{PipelineSchedule::gpipe, "gpipe"},
       {PipelineSchedule::one_f_one_b, "1f1b"},
       {PipelineSchedule::interleaved, "interleaved"},
       {PipelineSchedule::zb_h1, "zb-h1"},
       {PipelineSchedule::zb_h2, "zb-h2"},
       {PipelineSchedule::dualpipe, "dualpipe"}}};
};

// The schedule a layout runs: 1F1B with virtual stages (vpp > 1) is Megatron-LM's interleaved
// schedule (--num-layers-per-virtual-pipeline-stage selects it, megatron/core/pipeline_parallel/
// schedules.py get_forward_backward_func), and interleaved without them is 1F1B. Any other schedule
// is itself; with vpp > 1 the simulator says that it cannot split a rank into model chunks.
[[nodiscard]] constexpr PipelineSchedule simulated_schedule(PipelineSchedule schedule, int64_t vpp) {
  const bool one_f_one_b = schedule == PipelineSchedule::one_f_one_b || schedule == PipelineSchedule::interleaved;
  if (!one_f_one_b) return schedule;
  return vpp > 1 ? PipelineSchedule::interleaved : PipelineSchedule::one_f_one_b;
}

}  // namespace meshscope
