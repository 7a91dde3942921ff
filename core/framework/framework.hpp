#pragma once
// The target framework (the `framework` key, workload.hpp): what each training framework runs, at
// a stated version, as data — the pipeline schedules, the data-parallel sharding, recompute,
// sequence and context parallelism, expert parallelism, the TP overlap, the rank order and the
// low-precision recipes — and what it does when a key is left `auto` (its defaults). The layout
// search proposes only what the target framework runs (search.cpp); under `any` every ranked layout
// is marked with the frameworks whose table allows it. Sources and versions are in framework.cpp
// and docs/estimate.md ("The target framework").
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/workload/layout.hpp"
#include "core/workload/pipeline_schedule.hpp"
#include "core/workload/workload.hpp"

namespace meshscope {

struct FrameworkSpec {
  Framework id = Framework::any;
  std::string_view title;    // "Megatron-LM (Megatron-Core)"
  std::string_view version;  // the version the table was read at
  std::string_view sources;  // the files the rows below come from
  // The schedules it runs that the simulator models (core/workload/pipeline_schedule.hpp); interleaved is
  // 1F1B with virtual stages.
  std::vector<PipelineSchedule> schedules;
  // Schedules it runs that the simulator does not model, named as the framework names them (never
  // proposed; said in the docs and `keys`).
  std::string_view unmodelled_schedules;
  std::vector<int> zero_stages;  // 0 replicated (DDP), 1 sharded optimizer, 2 + gradients, 3 + parameters (FSDP)
  int max_zero_stage_with_pipeline = 3;   // DeepSpeed's pipeline engine takes ZeRO-1 at most
  bool fsdp_with_expert_parallel = true;  // ZeRO-3 beside EP (Megatron's --use-torch-fsdp2 refuses it)
  std::vector<RecomputeMode> recompute;
  bool sequence_parallel_optional = true;  // false: TP always runs with SP (torchtitan's TP plan)
  bool tp_comm_overlap = false;            // TE userbuffers (Megatron) or async TP (torchtitan)
  std::vector<CpComm> cp_comms;            // empty: no context parallelism
  bool expert_parallel = false;
  bool expert_tensor_parallel = false;
  std::vector<MoeDispatcher> moe_dispatchers;
  bool ep_comm_overlap = false;   // Megatron-Core's combined 1F1B (--overlap-moe-expert-parallel-comm)
  bool tp_pp_dp_mapping = false;  // Megatron-LM --use-tp-pp-dp-mapping
  bool fp8 = false;               // FP8 training (precision=fp8)
  bool fp4 = false;               // NVFP4 training (precision=fp4)
  std::vector<Fp8Recipe> fp8_recipes;
  bool cuda_graphs = false;
  // What `auto` resolves to (memory.hpp resolved_framework / resolved_cp_comm, compute.cpp's recipe).
  MemoryFramework memory = MemoryFramework::automatic;
  CpComm default_cp_comm = CpComm::automatic;
  Fp8Recipe default_fp8_recipe = Fp8Recipe::automatic;
};

// The table of one framework; Framework::any has every option the cost core models.
[[nodiscard]] const FrameworkSpec& framework_spec(Framework framework);
// The named frameworks (every one but `any`), in the key's order.
[[nodiscard]] std::span<const Framework> named_frameworks();
[[nodiscard]] constexpr uint32_t framework_bit(Framework framework) {
  return 1U << static_cast<unsigned>(framework);
}

// Why `framework` cannot run this training configuration (a sentence naming the framework, the
// option and its version), or nullopt when it can. `schedule` is the schedule the layout runs
// (simulated_schedule: interleaved with virtual stages); `tp_pp_dp_order` Megatron's rank mapping.
[[nodiscard]] std::optional<std::string> framework_rejects(const FrameworkSpec& framework, const Layout& layout,
                                                           const TrainingWorkload& workload, PipelineSchedule schedule,
                                                           bool tp_pp_dp_order = false);
// The workload's own options alone (precision, recipe, CP implementation, dispatcher, CUDA graphs,
// the EP overlap), before any layout: what the search checks once.
[[nodiscard]] std::optional<std::string> framework_rejects_workload(const FrameworkSpec& framework,
                                                                    const TrainingWorkload& workload);
// framework_bit of every named framework that runs it.
[[nodiscard]] uint32_t frameworks_running(const Layout& layout, const TrainingWorkload& workload,
                                          PipelineSchedule schedule, bool tp_pp_dp_order = false);
// The named frameworks whose bits are set, in the key's order.
[[nodiscard]] std::vector<Framework> frameworks_in(uint32_t bits);
// "megatron-lm+torchtitan"; "none" for 0.
[[nodiscard]] std::string frameworks_text(uint32_t bits);

}  // namespace meshscope
