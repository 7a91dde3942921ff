// A user's program: loads a preset model and a generated cluster through the installed package's public
// headers only, validates a layout and prints its step estimate and memory peak.
#include <cstdio>
#include <meshscope/meshscope.hpp>
#include <string>

namespace {

int fail(const meshscope::Error& error) {
  std::fprintf(stderr, "consumer: %s\n", error.to_string().c_str());
  return 1;
}

}  // namespace

int main() {
  using namespace meshscope;
  auto model = model_preset("llama3-8b");
  if (!model) return fail(model.error());
  auto cluster = generate_cluster("dgx-h100:nodes=1");
  if (!cluster) return fail(cluster.error());
  auto train_keys = split_key_values("seq=8192,global_batch=64", "--train");
  if (!train_keys) return fail(train_keys.error());
  auto workload = training_from_keys(*train_keys);
  if (!workload) return fail(workload.error());
  auto layout_keys = split_key_values("tp=2,dp=4", "--layout");
  if (!layout_keys) return fail(layout_keys.error());
  auto layout = layout_from_keys(*layout_keys);
  if (!layout) return fail(layout.error());
  const auto problems = validate_training_layout(*model, *workload, *layout, cluster->num_gpus());
  for (const auto& problem : problems)
    std::fprintf(stderr, "consumer: [%s] %s\n", problem.field.c_str(), problem.message.c_str());
  if (!problems.empty()) return 1;

  const Router router(*cluster);
  auto estimate = estimate_step(*model, *workload, *layout, *cluster, router);
  if (!estimate) return fail(estimate.error());
  std::printf("meshscope %s: %s on %s: step %.3f s, %.0f tokens/s, MFU %.1f %%, peak memory %.1f GiB\n",
              std::string(library_version).c_str(), model->name.c_str(), cluster->name.c_str(), estimate->step_time_s,
              estimate->tokens_per_s, 100 * estimate->mfu, estimate->peak_memory_bytes / double(1 << 30));
  return 0;
}
