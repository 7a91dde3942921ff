// key=value options and project files.
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/keys/options.hpp"
#include "core/memory/memory.hpp"
#include "core/model/catalogue.hpp"
#include "core/model/model_io.hpp"
#include "core/project/project.hpp"

using namespace meshscope;
using Catch::Matchers::Contains;

TEST_CASE("options: key=value lists parse in order and explicit keys override the convention") {
  auto keys = split_key_values("grad_dtype=bf16,convention=megatron,seq=8192", "--train");
  REQUIRE(keys);
  auto w = training_from_keys(*keys);
  REQUIRE(w);
  CHECK(w->seq_len == 8192);
  CHECK(w->convention == "megatron");
  CHECK(w->grad_dtype == DType::bf16);  // applied after the convention
}

TEST_CASE("options: unknown keys and bad values are errors naming the key") {
  auto w = training_from_keys({{"sequence", "8192"}});
  REQUIRE_FALSE(w);
  CHECK_THAT(w.error().to_string(), Contains("sequence") && Contains("known keys"));
  w = training_from_keys({{"zero", "4"}});
  REQUIRE_FALSE(w);
  CHECK_THAT(w.error().to_string(), Contains("zero"));
  auto l = layout_from_keys({{"tp", "eight"}});
  REQUIRE_FALSE(l);
  CHECK_THAT(l.error().to_string(), Contains("tp") && Contains("eight"));
  CHECK_FALSE(split_key_values("tp=8,pp", "--layout"));
  CHECK_FALSE(serving_from_keys({{"memory_fraction", "1.5"}}));
}

TEST_CASE("options: recompute takes none, selective, full or a number of layers") {
  CHECK(training_from_keys({{"recompute", "full"}})->recompute == RecomputeMode::full);
  auto w = training_from_keys({{"recompute", "4"}});
  REQUIRE(w);
  CHECK(w->recompute == RecomputeMode::layers);
  CHECK(w->recompute_layers == 4);
  CHECK_FALSE(training_from_keys({{"recompute", "some"}}));
}

TEST_CASE("options: uneven stages are written with ':' or '/'") {
  auto l = layout_from_keys({{"pp", "4"}, {"stages", "7/9:9/7"}});
  REQUIRE(l);
  CHECK(l->stage_layers == std::vector<int64_t>{7, 9, 9, 7});
}

TEST_CASE("project: the embedded default project is Llama-3.1-70B on 64 H100s and fits") {
  auto p = default_project();
  REQUIRE(p);
  CHECK(p->model.name == "Llama-3.1-70B");
  CHECK(p->gpu.id == "h100-sxm");
  CHECK(p->training.seq_len == 8192);
  CHECK(p->training.global_batch == 512);
  CHECK(p->training.recompute == RecomputeMode::selective);
  CHECK(p->layout.world_size() == p->gpu_count);
  CHECK(validate_training_layout(p->model, p->training, p->layout, p->gpu_count).empty());
  CHECK(training_memory(p->model, p->training, p->layout, p->gpu).fits());
}

TEST_CASE("project: writing and reading a project gives the same budget") {
  auto p = default_project();
  REQUIRE(p);
  auto again = project_from_json(project_to_json(*p), "roundtrip.json");
  REQUIRE(again);
  const auto a = training_memory(p->model, p->training, p->layout, p->gpu);
  const auto b = training_memory(again->model, again->training, again->layout, again->gpu);
  CHECK(a.peak_total_bytes() == b.peak_total_bytes());
  // An inline model survives the round trip too.
  p->model_ref.clear();
  again = project_from_json(project_to_json(*p), "inline.json");
  REQUIRE(again);
  CHECK(count_params(again->model).total_params() == count_params(p->model).total_params());
}

TEST_CASE("project: a broken project file names the field") {
  auto doc = parse_json_text(default_project_text(), "default.json");
  REQUIRE(doc);
  nlohmann::json broken = *doc;
  broken["gpu"] = "h9000";
  auto p = project_from_json(broken, "broken.json");
  REQUIRE_FALSE(p);
  CHECK_THAT(p.error().to_string(), Contains("h9000"));
  broken = *doc;
  broken["training"]["zero"] = "five";
  p = project_from_json(broken, "broken.json");
  REQUIRE_FALSE(p);
  CHECK_THAT(p.error().to_string(), Contains("broken.json") && Contains("zero"));
  broken = *doc;
  broken["version"] = 7;
  CHECK_FALSE(project_from_json(broken, "broken.json"));
}

TEST_CASE("project: version 2 keeps an edited cluster, the schedule and the view state") {
  auto p = default_project();
  REQUIRE(p);
  auto cluster = project_cluster(*p);
  REQUIRE(cluster);
  CHECK(cluster->num_gpus() == 64);
  // Edit the cluster as the topology editor would: drop one node's spine uplinks' bandwidth.
  cluster->name = "edited";
  p->cluster_inline = *cluster;
  p->training.schedule = PipelineSchedule::zb_h1;
  p->view = {{"current_view", "pipeline"}};
  const nlohmann::json doc = project_to_json(*p);
  CHECK(doc.at("version") == kProjectVersion);
  CHECK(doc.at("cluster").is_object());
  auto again = project_from_json(doc, "v2.json");
  REQUIRE(again);
  REQUIRE(again->cluster_inline);
  auto resolved = project_cluster(*again);
  REQUIRE(resolved);
  CHECK(resolved->name == "edited");
  CHECK(resolved->num_gpus() == 64);
  CHECK(resolved->links.size() == cluster->links.size());
  CHECK(again->training.schedule == PipelineSchedule::zb_h1);
  // The schedule is one field, the workload's "schedule" key; files written before that kept it
  // beside the workload ("schedule": "zb-h1" at the top), which still sets the same field.
  CHECK(doc.at("training").at("schedule") == "zb-h1");
  CHECK_FALSE(doc.contains("schedule"));
  nlohmann::json older = doc;
  older["training"]["schedule"] = "1f1b";
  older["schedule"] = "DualPipe";
  auto read_older = project_from_json(older, "older.json");
  REQUIRE(read_older);
  CHECK(read_older->training.schedule == PipelineSchedule::dualpipe);
  CHECK(again->view.at("current_view") == "pipeline");

  // A cluster with a dangling link is reported by the link's id, not loaded silently.
  nlohmann::json broken = doc;
  broken["cluster"]["links"][0]["b"] = "nowhere";
  auto bad = project_from_json(broken, "v2.json");
  REQUIRE_FALSE(bad);
  CHECK_THAT(bad.error().to_string(), Contains("v2.json"));
  broken = doc;
  broken["schedule"] = "2f2b";
  bad = project_from_json(broken, "v2.json");
  REQUIRE_FALSE(bad);
  CHECK_THAT(bad.error().to_string(), Contains("schedule"));
  broken = doc;
  broken["cluster"] = 5;
  CHECK_FALSE(project_from_json(broken, "v2.json"));
  // Version 1 files (no inline cluster) still load.
  broken = doc;
  broken["version"] = 1;
  broken["cluster"] = "dgx-h100:nodes=8";
  CHECK(project_from_json(broken, "v1.json"));
}

TEST_CASE("project: a calibration is saved, read back, and checked by key") {
  auto p = default_project();
  REQUIRE(p);
  p->comm_keys = {{"nvlink_efficiency", "0.715"}};
  p->efficiency_keys = {{"gemm", "0.6"}};
  auto again = project_from_json(project_to_json(*p), "calibrated.json");
  REQUIRE(again);
  auto options = project_estimate_options(*again);
  REQUIRE(options);
  CHECK(options->comm.constants.efficiency(LinkKind::nvlink) == Approx(0.715));
  CHECK(options->efficiency.gemm == Approx(0.6));
  nlohmann::json broken = project_to_json(*p);
  broken["calibration"]["comm"]["warp_efficiency"] = "0.5";
  auto bad = project_from_json(broken, "calibrated.json");
  REQUIRE_FALSE(bad);
  CHECK_THAT(bad.error().to_string(), Contains("calibrated.json") && Contains("warp_efficiency"));
}

TEST_CASE("project: every example project loads, and the axis order round-trips") {
  // examples/ is what the README and the screenshots open: each file must load as it is.
  int loaded = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(MESHSCOPE_SOURCE_DIR) + "/examples")) {
    if (entry.path().extension() != ".json") continue;
    INFO(entry.path());
    auto text = read_text_file(entry.path().string());
    REQUIRE(text);
    auto project = project_from_json(nlohmann::json::parse(*text), entry.path().string());
    REQUIRE(project);
    CHECK(project_cluster(*project));
    ++loaded;
  }
  CHECK(loaded >= 4);

  Project p = *default_project();
  CHECK(project_to_json(p).count("axis_order") == 0);  // the default (megatron) is not written
  p.order = AxisOrder::tp_pp_dp;
  const nlohmann::json doc = project_to_json(p);
  CHECK(doc.at("axis_order") == "tp-pp-dp");
  auto back = project_from_json(doc, "round trip");
  REQUIRE(back);
  CHECK(back->order == AxisOrder::tp_pp_dp);
  auto options = project_estimate_options(*back);
  REQUIRE(options);
  CHECK(options->order == AxisOrder::tp_pp_dp);
  nlohmann::json bad = doc;
  bad["axis_order"] = "pp-first";
  auto refused = project_from_json(bad, "bad.json");
  REQUIRE_FALSE(refused);
  CHECK(refused.error().location == "bad.json: axis_order");
}
