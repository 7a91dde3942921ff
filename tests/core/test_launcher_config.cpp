// Launcher configs both ways (core/session/import_launcher.hpp over core/importers/launcher_config.hpp,
// core/report/launcher_export.hpp), on the real files in ../shared/data/launcher_configs and on broken variants
// derived from them here. Expected values are the files' own text; the line each comes from is named next to it.
#include <catch2/catch.hpp>
#include <string>

#include "core/model/catalogue.hpp"
#include "core/model/model_io.hpp"
#include "core/report/launcher.hpp"
#include "core/report/launcher_export.hpp"
#include "core/session/import_launcher.hpp"
#include "support/csv.hpp"

using namespace meshscope;
using Catch::Matchers::Contains;

namespace {

std::string config_path(const std::string& name) {
  return test::shared_path("data/launcher_configs/" + name);
}

std::string read(const std::string& name) {
  auto text = read_text_file(config_path(name));
  REQUIRE(text);
  return *text;
}

LauncherImport import_file(const std::string& name, LauncherImportOptions options = {}) {
  auto imported = import_launcher_config(read(name), name, options);
  INFO(name << ": " << (imported ? "" : imported.error().to_string()));
  REQUIRE(imported);
  return *imported;
}

bool contains(const std::vector<std::string>& items, const std::string& text) {
  for (const auto& item : items)
    if (item.find(text) != std::string::npos) return true;
  return false;
}

// text with the first `from` replaced by `to` (the broken variants).
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("launcher: the format is detected from the name and the text") {
  CHECK(detect_launcher_format("", "a.toml") == LauncherFormat::torchtitan);
  CHECK(detect_launcher_format("", "a.json") == LauncherFormat::deepspeed);
  CHECK(detect_launcher_format("", "a.sh") == LauncherFormat::megatron);
  CHECK(detect_launcher_format("  {\"zero_optimization\": {}}", "pasted") == LauncherFormat::deepspeed);
  CHECK(detect_launcher_format("[parallelism]\ntensor_parallel_degree = 2\n", "pasted") == LauncherFormat::torchtitan);
  CHECK(detect_launcher_format("--num-layers 2 --hidden-size 64", "pasted") == LauncherFormat::megatron);
}

TEST_CASE("launcher: Megatron-LM's GPT-3 175B script imports its model, TP 8 × PP 16 and fp16") {
  const LauncherImport imported = import_file("megatron_train_gpt3_175b_distributed.sh");
  const Project& p = imported.project;
  CHECK(imported.format == LauncherFormat::megatron);
  // Lines 29-33: --num-layers 96, --hidden-size 12288, --num-attention-heads 96, --seq-length 2048,
  // --max-position-embeddings 2048; no --swiglu, --normalization or --position-embedding-type: GPT-3's
  // 4·h MLP, LayerNorm and learned positions (arguments.py defaults).
  CHECK(p.model.num_layers == 96);
  CHECK(p.model.hidden_size == 12288);
  CHECK(p.model.num_heads == 96);
  CHECK(p.model.num_kv_heads == 96);
  CHECK(p.model.head_dim == 128);
  CHECK(p.model.ffn_hidden_size == 4 * 12288);
  CHECK(p.model.mlp == MlpKind::plain);
  CHECK(p.model.norm == NormKind::layernorm);
  CHECK(p.model.position == PositionKind::learned);
  CHECK(p.model.max_position_embeddings == 2048);
  CHECK(p.model.tied_embeddings);
  CHECK(p.model.qkv_bias);
  CHECK(p.model.dropout);
  // Line 62 --vocab-file (GPT-2 BPE, 50257 tokens) padded to a multiple of 128 × TP 8: 51200.
  CHECK(p.model.vocab_size == 51200);
  // Lines 56-57: TP 8, PP 16 — 128 GPUs although torchrun (line 22, GPUS_PER_NODE=8, NUM_NODES=1) starts 8.
  CHECK(p.layout.tp == 8);
  CHECK(p.layout.pp == 16);
  CHECK(p.layout.dp == 1);
  CHECK(p.gpu_count == 128);
  CHECK(p.cluster == "dgx-h100:nodes=16");
  CHECK(contains(imported.warnings, "128 GPUs (DP = 1) used"));
  // Lines 38-39, 47: micro-batch 1, global batch 1536, --fp16; no --use-distributed-optimizer: ZeRO 0.
  CHECK(p.layout.micro_batch == 1);
  CHECK(p.training.global_batch == 1536);
  CHECK(p.training.seq_len == 2048);
  CHECK(p.training.compute_dtype == DType::fp16);
  CHECK(p.training.param_dtype == DType::fp16);
  CHECK(p.training.zero_stage == 0);
  CHECK(p.training.recompute == RecomputeMode::none);
  CHECK(p.training.convention == "megatron");
  // Line 40: the batch-size schedule changes the run but is not modelled; line 48: --lr is ignored.
  CHECK(contains(imported.unmodelled, "--step-batch-size-schedule"));
  CHECK(contains(imported.ignored, "--lr"));
  CHECK(contains(imported.ignored, "--train-iters"));
  // Lines 15-19: the script's positional arguments are placeholders, each warned about.
  CHECK(contains(imported.warnings, "line 15: CHECKPOINT_PATH=$1"));
  CHECK(contains(imported.warnings, "line 19: DATA_PATH=$5"));
  CHECK(validate_training_layout(p.model, p.training, p.layout, p.gpu_count).empty());
}

TEST_CASE("launcher: the importer reads a script against plain base values and builds no project") {
  // The GPT-3 175B script read against a base of 64 GPUs on "dgx-a100:nodes=8" (8 per node), with --gpus 256:
  // lines 56-57's TP 8 × PP 16 leave DP 2, and the generator string is re-sized to 256 / 8 = 32 nodes.
  const std::string name = "megatron_train_gpt3_175b_distributed.sh";
  LaunchReadOptions options;
  options.gpus = 256;
  options.base.cluster = "dgx-a100:nodes=8";
  options.base.gpu_count = 64;
  auto imported = read_launcher_config(read(name), name, options);
  REQUIRE(imported);
  CHECK(imported->format == LauncherFormat::megatron);
  REQUIRE(imported->model);
  CHECK(imported->model->num_layers == 96);  // line 29
  CHECK(imported->model_ref.empty());
  CHECK(imported->gpu_count == 256);
  CHECK(imported->cluster == "dgx-a100:nodes=32");
  CHECK(imported->layout.dp == 2);
  CHECK(imported->training.global_batch == 1536);  // line 39
  // An inline (drawn) cluster is never re-sized: the import says so.
  options.base.inline_cluster = "my cluster";
  auto drawn = read_launcher_config(read(name), name, options);
  REQUIRE(drawn);
  CHECK(drawn->cluster == "dgx-a100:nodes=8");
  CHECK(contains(drawn->warnings, "the cluster (my cluster, 64 GPUs) was not re-sized to 256 GPUs"));
}

TEST_CASE("launcher: the imported project keeps the base project's GPU, calibration and serving settings") {
  auto base = default_project();
  REQUIRE(base);
  base->mode = Mode::serving;
  base->comm_keys = {{"algorithm", "ring"}};
  base->efficiency_keys = {{"gemm", "0.5"}};
  base->view = nlohmann::json{{"tab", "memory"}};
  LauncherImportOptions options;
  options.base = *base;
  const std::string name = "megatron_train_gpt3_175b_distributed.sh";
  const LauncherImport imported = import_file(name, options);
  const Project& p = imported.project;
  // What the file describes is the run: one training run, the app's view state reset.
  CHECK(p.mode == Mode::training);
  CHECK(p.view == nlohmann::json::object());
  CHECK(p.model.num_layers == 96);  // line 29
  // What it does not say stays the base's.
  CHECK(p.gpu == base->gpu);
  CHECK(p.comm_keys == base->comm_keys);
  CHECK(p.efficiency_keys == base->efficiency_keys);
  CHECK(p.serving == base->serving);
  CHECK(p.serving_layout == base->serving_layout);
  CHECK(p.order == base->order);
}

TEST_CASE("launcher: Megatron's activation offloading is listed as unmodelled, not ignored") {
  // The GPT-3 175B script with line 48's "--lr 6.0e-5" preceded by Megatron-Core's CPU offloading
  // flags (megatron/training/arguments.py --cpu-offloading, --cpu-offloading-num-layers): they change
  // the memory a run needs, so the import says they are not modelled rather than ignoring them.
  const std::string name = "megatron_train_gpt3_175b_distributed.sh";
  auto imported = import_launcher_config(
      replaced(read(name), "--lr 6.0e-5", "--cpu-offloading --cpu-offloading-num-layers 8 --lr 6.0e-5"), name);
  REQUIRE(imported);
  CHECK(contains(imported->unmodelled, "--cpu-offloading"));
  CHECK(contains(imported->unmodelled, "--cpu-offloading-num-layers"));
  CHECK_FALSE(contains(imported->ignored, "--cpu-offloading"));
}

TEST_CASE("launcher: Megatron-LM's Llama 3 8B FP8 script reads its variables, its if branches and its arrays") {
  const LauncherImport imported = import_file("megatron_train_llama3_8b_h100_fp8.sh");
  const Project& p = imported.project;
  // Line 38 NUM_LAYERS=32 through line 57 --num-layers $NUM_LAYERS; lines 58-63 and 71-77.
  CHECK(p.model.num_layers == 32);
  CHECK(p.model.hidden_size == 4096);
  CHECK(p.model.ffn_hidden_size == 14336);
  CHECK(p.model.num_heads == 32);
  CHECK(p.model.num_kv_heads == 8);  // lines 61-62 --group-query-attention --num-query-groups 8
  CHECK(p.model.head_dim == 128);    // line 63 --kv-channels 128
  CHECK(p.model.mlp == MlpKind::gated);
  CHECK(p.model.norm == NormKind::rmsnorm);
  CHECK(p.model.position == PositionKind::rotary);
  CHECK_FALSE(p.model.tied_embeddings);
  CHECK_FALSE(p.model.qkv_bias);  // line 77 --disable-bias-linear
  CHECK_FALSE(p.model.dropout);   // lines 69-70 dropouts 0.0
  // Line 139 "--vocab-size 128256" in the MOCK branch (line 14 TOKENIZER_ARG=${3:-"MOCK"}).
  CHECK(p.model.vocab_size == 128256);
  // Lines 40-41, 36-37: seq 8192, micro-batch 1, global batch 128; line 22 GPUS_PER_NODE=8 × line 23 NUM_NODES=1.
  CHECK(p.training.seq_len == 8192);
  CHECK(p.layout.micro_batch == 1);
  CHECK(p.training.global_batch == 128);
  CHECK(p.gpu_count == 8);
  CHECK(p.layout.dp == 8);
  CHECK(p.layout.tp == 1);
  CHECK(p.layout.cp == 1);
  // Line 120 --sequence-parallel with TP 1: Megatron turns it off, and so does the import.
  CHECK_FALSE(p.layout.sp);
  CHECK(contains(imported.warnings, "--sequence-parallel with TP = 1"));
  // Lines 106-112: DTYPE="fp8" selects "--fp8-format hybrid"; line 95 --bf16; line 96 --grad-reduce-in-bf16.
  CHECK(p.training.compute_dtype == DType::fp8);
  CHECK(p.training.param_dtype == DType::bf16);
  CHECK(p.training.grad_dtype == DType::bf16);
  // Lines 126-130: the DDP arrays appended to TRAINING_ARGS.
  CHECK(p.training.zero_stage == 1);
  CHECK(p.training.convention == "megatron-distopt");
  CHECK(p.training.overlap_grad_reduce);
  CHECK(p.training.overlap_param_gather);
  CHECK(contains(imported.unmodelled, "--fp8-param-gather"));
  CHECK(contains(imported.unmodelled, "--cross-entropy-loss-fusion"));
  // The real-data branch (lines 150-152) is not read: no --data-path, --tokenizer-model.
  CHECK_FALSE(contains(imported.ignored, "--data-path"));
  CHECK(contains(imported.ignored, "--mock-data"));
  CHECK(validate_training_layout(p.model, p.training, p.layout, p.gpu_count).empty());
}

TEST_CASE("launcher: torchtitan's Llama 3 8B TOML is FSDP over the GPUs its comment names, op-level AC, eager") {
  const LauncherImport imported = import_file("torchtitan_llama3_8b.toml");
  const Project& p = imported.project;
  CHECK(imported.format == LauncherFormat::torchtitan);
  CHECK(p.model_ref == "llama3.1-8b");  // lines 18-19 name = "llama3", flavor = "8B"
  CHECK(p.name == "Llama 3 8B training");
  // Line 1 "a preset for 64 A100 GPUs", line 40 data_parallel_shard_degree = -1.
  CHECK(p.gpu_count == 64);
  CHECK(p.layout.dp == 64);
  CHECK(p.layout.fsdp == 0);
  CHECK(p.layout.tp == 1);
  CHECK(p.training.zero_stage == 3);
  CHECK(p.layout.micro_batch == 1);                  // line 32 local_batch_size = 1
  CHECK(p.training.global_batch == 64);              // global_batch_size -1: local × DP
  CHECK(p.training.seq_len == 8192);                 // line 33
  CHECK(p.training.recompute == RecomputeMode::op);  // lines 58-59 selective, "op"
  CHECK(p.training.eager_kernels);                   // line 54 [compile] enable=false
  CHECK(p.training.compute_dtype == DType::bf16);    // line 21: converters commented out
  CHECK(contains(imported.ignored, "optimizer.lr"));
  CHECK(validate_training_layout(p.model, p.training, p.layout, p.gpu_count).empty());
}

TEST_CASE("launcher: torchtitan's Llama 3.1 405B TOML is FSDP × TP 8 with async TP, float8 and full AC") {
  const LauncherImport imported = import_file("torchtitan_llama3_405b.toml");
  const Project& p = imported.project;
  CHECK(p.model_ref == "llama3.1-405b");
  CHECK(p.gpu_count == 128);  // line 1 "a preset for 128 H100 GPUs"
  CHECK(p.layout.tp == 8);    // line 41
  CHECK(p.layout.dp == 16);
  CHECK(p.layout.sp);
  CHECK(p.training.tp_comm_overlap);  // line 42 enable_async_tensor_parallel with line 58 compile
  CHECK_FALSE(p.training.eager_kernels);
  CHECK(p.training.compute_dtype == DType::fp8);       // line 21 converters = ["float8"]
  CHECK(p.training.recompute == RecomputeMode::full);  // line 55
  CHECK(p.layout.micro_batch == 2);                    // line 32
  CHECK(p.training.global_batch == 32);
  CHECK(contains(imported.unmodelled, "quantize.linear.float8.enable_fsdp_float8_all_gather"));
  // --gpus overrides the comment.
  LauncherImportOptions options;
  options.gpus = 256;
  CHECK(import_file("torchtitan_llama3_405b.toml", options).project.layout.dp == 32);
}

TEST_CASE("launcher: torchtitan's Llama 4 TOML keeps its degrees and says it has no preset") {
  const LauncherImport imported = import_file("torchtitan_llama4_17bx16e.toml");
  const Project& p = imported.project;
  CHECK(p.gpu_count == 64);  // line 1
  CHECK(p.layout.tp == 8);   // line 42
  CHECK(p.layout.etp == 8);  // line 47
  CHECK(p.layout.ep == 1);
  CHECK(p.layout.micro_batch == 8);  // line 33
  CHECK(contains(imported.warnings, "llama4 flavor 17bx16e has no meshscope preset"));
}

TEST_CASE("launcher: the DeepSpeed ZeRO-3 JSON is stage 3 in fp16 with overlap, no prefetch and offload unmodelled") {
  LauncherImportOptions options;
  options.gpus = 16;
  const LauncherImport imported = import_file("deepspeed_ds_config_zero3.json", options);
  const Project& p = imported.project;
  CHECK(imported.format == LauncherFormat::deepspeed);
  CHECK(p.training.zero_stage == 3);               // line 12
  CHECK(p.training.compute_dtype == DType::fp16);  // line 3
  CHECK(p.training.overlap_grad_reduce);           // line 21 overlap_comm
  CHECK_FALSE(p.training.fsdp_prefetch);           // line 25 stage3_prefetch_bucket_size 0
  CHECK(p.layout.dp == 16);
  CHECK(p.gpu_count == 16);
  CHECK(p.cluster == "dgx-h100:nodes=2");
  CHECK(contains(imported.unmodelled, "zero_optimization.offload_optimizer"));  // lines 13-16
  CHECK(contains(imported.unmodelled, "zero_optimization.offload_param"));      // lines 17-20
  CHECK(contains(imported.ignored, "scheduler.type"));
  CHECK(contains(imported.warnings, "no batch size"));
}

TEST_CASE("launcher: import → export → import gives the same project for every real config") {
  const auto [name, format] = GENERATE(table<std::string, LauncherFormat>({
      {"megatron_train_gpt3_175b_distributed.sh", LauncherFormat::megatron},
      {"megatron_train_llama3_8b_h100_fp8.sh", LauncherFormat::megatron},
      {"torchtitan_llama3_8b.toml", LauncherFormat::torchtitan},
      {"torchtitan_llama3_405b.toml", LauncherFormat::torchtitan},
      {"torchtitan_llama4_17bx16e.toml", LauncherFormat::torchtitan},
      {"deepspeed_ds_config_zero3.json", LauncherFormat::deepspeed},
  }));
  INFO(name);
  const LauncherImport first = import_file(name);
  auto exported = export_launcher_config(first.project, format);
  REQUIRE(exported);
  CHECK_FALSE(exported->placeholders.empty());
  auto again = import_launcher_config(exported->text, "exported", {});
  INFO(exported->text);
  REQUIRE(again);
  CHECK(again->format == format);
  CHECK(again->project == first.project);
  // The project document round-trips too.
  auto reread = project_from_json(project_to_json(first.project), "project");
  REQUIRE(reread);
  CHECK(*reread == first.project);
}

TEST_CASE("launcher: exports mark what the user must supply") {
  const Project project = import_file("megatron_train_llama3_8b_h100_fp8.sh").project;
  const LauncherExport megatron = export_megatron_args(project);
  CHECK_THAT(megatron.text, Contains("DATA_PATH=\"<DATA_PATH>\""));
  CHECK_THAT(megatron.text, Contains("--tokenizer-model \"$TOKENIZER_MODEL\""));
  CHECK_THAT(megatron.text, Contains("--fp8-format hybrid"));
  CHECK_THAT(megatron.text, Contains("torchrun ${DISTRIBUTED_ARGS[@]} pretrain_gpt.py"));
  CHECK(contains(megatron.placeholders, "<TOKENIZER_MODEL>"));
  const LauncherExport titan = export_torchtitan_toml(import_file("torchtitan_llama3_405b.toml").project);
  CHECK_THAT(titan.text, Contains("flavor = '405B'"));
  CHECK_THAT(titan.text, Contains("hf_assets_path = '<HF_ASSETS_PATH>'"));
  CHECK_THAT(titan.text, Contains("converters = [ 'float8' ]"));
  const LauncherExport ds = export_deepspeed_json(project);
  CHECK_THAT(ds.text, Contains("\"stage\": 1"));
  CHECK_THAT(ds.text, Contains("\"lr\": \"<LR>\""));
  CHECK(contains(ds.warnings, "FP8"));
  // A serving project is not a training run.
  Project serving = project;
  serving.mode = Mode::serving;
  CHECK_FALSE(export_launcher_config(serving, LauncherFormat::megatron));
}

TEST_CASE("launcher: the import report names the format, the project and the three lists") {
  const LauncherImport imported = import_file("megatron_train_gpt3_175b_distributed.sh");
  const nlohmann::json doc = launcher_import_report(imported);
  CHECK(doc.at("format") == "megatron");
  CHECK(doc.at("project").at("layout").at("pp") == "16");
  CHECK(doc.at("ignored").size() == imported.ignored.size());
  CHECK(doc.at("unmodelled").size() == 1);
  CHECK_THAT(launcher_import_text(imported), Contains("Unmodelled (1)"));
}

TEST_CASE("launcher: a broken Megatron-LM script is an error naming the file, the line and the flag") {
  const std::string gpt3 = read("megatron_train_gpt3_175b_distributed.sh");
  SECTION("an unterminated array") {
    auto r = import_launcher_config(replaced(gpt3, "    --tensorboard-dir $TENSORBOARD_LOGS_PATH \n)", ""), "gpt3.sh");
    REQUIRE_FALSE(r);
    CHECK(r.error().code == ErrorCode::parse_error);
    CHECK_THAT(r.error().to_string(), Contains("gpt3.sh: line 67") && Contains("EVAL_AND_LOGGING_ARGS"));
  }
  SECTION("a non-numeric value") {
    auto r = import_launcher_config(replaced(gpt3, "--num-layers 96", "--num-layers ninety-six"), "gpt3.sh");
    REQUIRE_FALSE(r);
    CHECK(r.error().code == ErrorCode::invalid_argument);
    CHECK_THAT(r.error().to_string(), Contains("gpt3.sh: line 29: --num-layers") && Contains("ninety-six"));
  }
  SECTION("a value the script takes from its command line") {
    auto r = import_launcher_config(replaced(gpt3, "--hidden-size 12288", "--hidden-size $6"), "gpt3.sh");
    REQUIRE_FALSE(r);
    CHECK_THAT(r.error().to_string(), Contains("line 30: --hidden-size") && Contains("<ARG6>"));
  }
  SECTION("a missing required flag") {
    auto r = import_launcher_config(replaced(gpt3, "--num-attention-heads 96", ""), "gpt3.sh");
    REQUIRE_FALSE(r);
    CHECK(r.error().code == ErrorCode::missing_field);
    CHECK_THAT(r.error().to_string(), Contains("--num-attention-heads"));
  }
  SECTION("an unterminated quote") {
    auto r = import_launcher_config(replaced(gpt3, "\"0:16 2.4B", "\"0:16 2.4B\\\""), "gpt3.sh");
    auto open =
        import_launcher_config(replaced(gpt3, "2.4B:320 4.8B:624 7.2B:928 9.6B:1232 12B:1536\"", "x"), "gpt3.sh");
    REQUIRE_FALSE(open);
    CHECK_THAT(open.error().to_string(), Contains("gpt3.sh: line 40") && Contains("quote"));
    (void)r;
  }
  SECTION("no arguments at all") {
    CHECK_FALSE(import_launcher_config("#!/bin/bash\necho hello\n", "empty.sh"));
  }
}

TEST_CASE("launcher: a broken torchtitan TOML is an error naming the file, the line and the key") {
  const std::string titan = read("torchtitan_llama3_8b.toml");
  SECTION("bad TOML") {
    auto r = import_launcher_config(replaced(titan, "[parallelism]", "[parallelism"), "llama3_8b.toml");
    REQUIRE_FALSE(r);
    CHECK(r.error().code == ErrorCode::parse_error);
    CHECK_THAT(r.error().location, Contains("llama3_8b.toml: line 38"));
  }
  SECTION("a non-numeric degree") {
    auto r = import_launcher_config(replaced(titan, "tensor_parallel_degree = 1", "tensor_parallel_degree = \"one\""),
                                    "llama3_8b.toml");
    REQUIRE_FALSE(r);
    CHECK(r.error().code == ErrorCode::wrong_type);
    CHECK_THAT(r.error().to_string(), Contains("line 41: parallelism.tensor_parallel_degree"));
  }
  SECTION("GPUs that the degrees do not divide") {
    LauncherImportOptions options;
    options.gpus = 12;
    auto r = import_launcher_config(replaced(titan, "tensor_parallel_degree = 1", "tensor_parallel_degree = 8"),
                                    "llama3_8b.toml", options);
    REQUIRE_FALSE(r);
    CHECK_THAT(r.error().to_string(), Contains("12 GPUs"));
  }
  SECTION("an unknown activation checkpointing mode") {
    auto r = import_launcher_config(replaced(titan, "mode = \"selective\"", "mode = \"sometimes\""), "llama3_8b.toml");
    REQUIRE_FALSE(r);
    CHECK_THAT(r.error().to_string(), Contains("activation_checkpoint.mode"));
  }
}

TEST_CASE("launcher: a broken DeepSpeed JSON is an error naming the file and the field") {
  const std::string ds = read("deepspeed_ds_config_zero3.json");
  SECTION("bad JSON") {
    auto r = import_launcher_config(replaced(ds, "\"stage\": 3,", "\"stage\": 3"), "ds.json");
    REQUIRE_FALSE(r);
    CHECK(r.error().code == ErrorCode::parse_error);
    CHECK_THAT(r.error().to_string(), Contains("ds.json") && Contains("line 13"));
  }
  SECTION("a JSON file that is not a DeepSpeed config") {
    auto r = import_launcher_config(default_project_text(), "default_project.json");
    REQUIRE_FALSE(r);
    CHECK(r.error().code == ErrorCode::missing_field);
    CHECK_THAT(r.error().to_string(), Contains("default_project.json: not a DeepSpeed config"));
  }
  SECTION("a non-numeric stage") {
    auto r = import_launcher_config(replaced(ds, "\"stage\": 3", "\"stage\": \"three\""), "ds.json");
    REQUIRE_FALSE(r);
    CHECK_THAT(r.error().to_string(), Contains("ds.json: zero_optimization.stage"));
  }
  SECTION("batch sizes that disagree") {
    LauncherImportOptions options;
    options.gpus = 8;
    auto r = import_launcher_config(replaced(ds, "\"steps_per_print\"",
                                             "\"train_batch_size\": 100, \"train_micro_batch_size_per_gpu\": 2, "
                                             "\"gradient_accumulation_steps\": 4, \"steps_per_print\""),
                                    "ds.json", options);
    REQUIRE_FALSE(r);
    CHECK_THAT(r.error().to_string(), Contains("train_batch_size 100") && Contains("64"));
  }
  SECTION("\"auto\" values are warnings, not errors") {
    auto r = import_launcher_config(
        replaced(ds, "\"steps_per_print\"", "\"train_batch_size\": \"auto\", \"steps_per_print\""), "ds.json");
    REQUIRE(r);
    CHECK(contains(r->warnings, "train_batch_size is \"auto\""));
  }
  SECTION("two of the three batch sizes give the third") {
    LauncherImportOptions options;
    options.gpus = 8;
    auto r = import_launcher_config(
        replaced(ds, "\"steps_per_print\"",
                 "\"train_batch_size\": 64, \"train_micro_batch_size_per_gpu\": 2, \"steps_per_print\""),
        "ds.json", options);
    REQUIRE(r);
    CHECK(r->project.layout.micro_batch == 2);
    CHECK(r->project.training.global_batch == 64);
  }
}

TEST_CASE("launcher: a bare argument list and virtual stages") {
  const std::string args =
      "--num-layers 80 --hidden-size 8192 --num-attention-heads 64 --group-query-attention --num-query-groups 8 \\\n"
      "--seq-length 8192 --swiglu --normalization RMSNorm --position-embedding-type rope --vocab-size 128256 \\\n"
      "--tensor-model-parallel-size 4 --pipeline-model-parallel-size 4 --num-layers-per-virtual-pipeline-stage 5 \\\n"
      "--context-parallel-size 2 --sequence-parallel --micro-batch-size 1 --global-batch-size 2048 --bf16 \\\n"
      "--recompute-granularity full --recompute-method block --recompute-num-layers 2 --tp-comm-overlap\n";
  LauncherImportOptions options;
  options.gpus = 1024;
  auto r = import_launcher_config(args, "args.txt", options);
  REQUIRE(r);
  const Project& p = r->project;
  CHECK(p.model.ffn_hidden_size == 21824);  // int(4·8192·2/3 / 64)·64 (validate_args)
  CHECK(p.layout.vpp == 4);                 // 80 / (4 · 5)
  CHECK(p.layout.dp == 32);
  CHECK(p.layout.sp);
  CHECK(p.training.schedule == PipelineSchedule::interleaved);
  CHECK(p.training.recompute == RecomputeMode::layers);
  CHECK(p.training.recompute_layers == 2);
  CHECK(p.training.tp_comm_overlap);
  CHECK(contains(r->warnings, "the cluster") == false);
  auto exported = import_launcher_config(export_megatron_args(p).text, "exported.sh", options);
  REQUIRE(exported);
  CHECK(exported->project == p);
}

// Megatron-LM docs (pipeline_parallel_layout.md): DeepSeek-V3 on PP 16 × VPP 2 with
// --pipeline-model-parallel-layout "Et*3|(tt|)*29,m|L"; the layout's 32 chunks give the 2 virtual stages.
TEST_CASE("launcher: a Megatron-LM pipeline layout becomes pp_layout and sets the virtual stages; EP overlap") {
  const std::string args =
      "--num-layers 61 --hidden-size 7168 --num-attention-heads 128 --seq-length 4096 --swiglu \\\n"
      "--normalization RMSNorm --position-embedding-type rope --vocab-size 129280 --ffn-hidden-size 18432 \\\n"
      "--pipeline-model-parallel-size 16 --pipeline-model-parallel-layout \"Et*3|(tt|)*29,m|L\" \\\n"
      "--micro-batch-size 1 --global-batch-size 1024 --bf16 --overlap-moe-expert-parallel-comm\n";
  LauncherImportOptions options;
  options.gpus = 128;
  auto r = import_launcher_config(args, "args.txt", options);
  REQUIRE(r);
  CHECK(r->project.layout.pipeline_layout == "Et*3|(tt|)*29m|L");  // Megatron's cosmetic comma dropped
  CHECK(r->project.layout.vpp == 2);
  CHECK(r->project.training.schedule == PipelineSchedule::interleaved);
  CHECK(r->project.training.ep_comm_overlap);  // --overlap-moe-expert-parallel-comm
  auto exported = import_launcher_config(export_megatron_args(r->project).text, "exported.sh", options);
  REQUIRE(exported);
  CHECK(exported->project.layout == r->project.layout);
  CHECK(exported->project.training.ep_comm_overlap);
  CHECK(r->project.training.overlap_p2p_comm);  // Megatron-Core's default
  CHECK_FALSE(r->project.training.cuda_graphs);

  // --cuda-graph-scope (nargs='+', CudaGraphScope): the router's and preprocessing's scopes become
  // cuda_graph_moe_router; an attention-only scope does not.
  auto graphed = import_launcher_config(
      args + "--cuda-graph-impl transformer_engine --cuda-graph-scope attn moe_router moe_preprocess\n", "args.txt",
      options);
  REQUIRE(graphed);
  CHECK(graphed->project.training.cuda_graphs);
  CHECK(graphed->project.training.cuda_graph_moe_router);
  auto graphed_again = import_launcher_config(export_megatron_args(graphed->project).text, "exported.sh", options);
  REQUIRE(graphed_again);
  CHECK(graphed_again->project.training.cuda_graph_moe_router);
  auto attention_only = import_launcher_config(args + "--cuda-graph-impl transformer_engine --cuda-graph-scope attn\n",
                                               "args.txt", options);
  REQUIRE(attention_only);
  CHECK(attention_only->project.training.cuda_graphs);
  CHECK_FALSE(attention_only->project.training.cuda_graph_moe_router);

  // megatron/training/arguments.py: --no-overlap-p2p-communication (store_false into
  // overlap_p2p_comm) and --overlap-p2p-communication-warmup-flush; both survive the round trip.
  auto synchronous = import_launcher_config(
      args + "--no-overlap-p2p-communication --overlap-p2p-communication-warmup-flush\n", "args.txt", options);
  REQUIRE(synchronous);
  CHECK_FALSE(synchronous->project.training.overlap_p2p_comm);
  CHECK(synchronous->project.training.overlap_p2p_comm_warmup_flush);
  auto again = import_launcher_config(export_megatron_args(synchronous->project).text, "exported.sh", options);
  REQUIRE(again);
  CHECK_FALSE(again->project.training.overlap_p2p_comm);
  CHECK(again->project.training.overlap_p2p_comm_warmup_flush);
  // The 2023 flag (store_true, off unless given) is read, not ignored.
  auto old_flag = import_launcher_config(args + "--overlap-p2p-communication\n", "args.txt", options);
  REQUIRE(old_flag);
  CHECK(old_flag->project.training.overlap_p2p_comm);
  for (const std::string& flag : old_flag->ignored) CHECK(flag.find("overlap-p2p") == std::string::npos);

  auto broken = import_launcher_config(replaced(args, "(tt|)*29", "(tt|*29"), "args.txt", options);
  REQUIRE_FALSE(broken);
  CHECK_THAT(broken.error().to_string(),
             Contains("args.txt: line 3: --pipeline-model-parallel-layout") && Contains("not closed"));
}

// Megatron-LM's _add_mixed_precision_args and _add_moe_args (megatron/training/arguments.py): --fp8-recipe
// delayed (default), tensorwise, mxfp8, blockwise, custom; --fp4-format e2m1 with --fp4-recipe nvfp4;
// --moe-token-dispatcher-type allgather (default), alltoall, flex.
TEST_CASE("launcher: Megatron-LM's FP8 recipes, NVFP4 and the MoE token dispatcher import and export") {
  const std::string dense =
      "--num-layers 32 --hidden-size 4096 --num-attention-heads 32 --group-query-attention --num-query-groups 8 \\\n"
      "--ffn-hidden-size 14336 --seq-length 8192 --swiglu --normalization RMSNorm --position-embedding-type rope \\\n"
      "--vocab-size 128256 --micro-batch-size 1 --global-batch-size 128 --bf16 ";
  LauncherImportOptions options;
  options.gpus = 8;
  const auto imported = [&](const std::string& extra) {
    return import_launcher_config(dense + extra + "\n", "args.txt", options);
  };
  const auto round_trip = [&](const Project& p) {
    auto again = import_launcher_config(export_megatron_args(p).text, "exported.sh", options);
    REQUIRE(again);
    CHECK(again->project == p);
  };

  auto tensorwise = imported("--fp8-format hybrid --fp8-recipe tensorwise");
  REQUIRE(tensorwise);
  CHECK(tensorwise->project.training.compute_dtype == DType::fp8);
  CHECK(tensorwise->project.training.fp8_recipe == Fp8Recipe::current);
  CHECK_THAT(export_megatron_args(tensorwise->project).text, Contains("--fp8-recipe tensorwise"));
  round_trip(tensorwise->project);

  auto mx = imported("--fp8-format e4m3 --fp8-recipe mxfp8");
  REQUIRE(mx);
  CHECK(mx->project.training.fp8_recipe == Fp8Recipe::mxfp8);
  round_trip(mx->project);

  auto custom = imported("--fp8-format hybrid --fp8-recipe custom");
  REQUIRE(custom);
  CHECK(custom->project.training.fp8_recipe == Fp8Recipe::automatic);
  CHECK(contains(custom->unmodelled, "--fp8-recipe custom: modelled as delayed scaling"));

  auto nvfp4 = imported("--fp4-format e2m1 --fp4-recipe nvfp4");
  REQUIRE(nvfp4);
  CHECK(nvfp4->project.training.compute_dtype == DType::fp4);
  CHECK(nvfp4->project.training.param_dtype == DType::bf16);
  CHECK_THAT(export_megatron_args(nvfp4->project).text, Contains("--fp4-format e2m1 --fp4-recipe nvfp4"));
  round_trip(nvfp4->project);

  auto both = imported("--fp8-format hybrid --fp4-format e2m1");
  REQUIRE_FALSE(both);
  CHECK_THAT(both.error().to_string(), Contains("args.txt: line 3: --fp4-format") && Contains("Megatron-LM takes one"));

  const std::string moe =
      "--num-experts 8 --moe-router-topk 2 --moe-ffn-hidden-size 14336 --expert-model-parallel-size 8 ";
  auto flex = imported(moe + "--moe-token-dispatcher-type flex");
  REQUIRE(flex);
  CHECK(flex->project.training.moe_dispatcher == MoeDispatcher::flex);
  CHECK_THAT(export_megatron_args(flex->project).text, Contains("--moe-token-dispatcher-type flex"));
  round_trip(flex->project);
  auto by_default = imported(moe);
  REQUIRE(by_default);
  CHECK(by_default->project.training.moe_dispatcher == MoeDispatcher::alltoall);
  CHECK(contains(by_default->unmodelled, "--moe-token-dispatcher-type allgather (the default): modelled as alltoall"));
  CHECK_THAT(export_megatron_args(by_default->project).text, Contains("--moe-token-dispatcher-type alltoall"));
}

// Megatron-LM's uneven splits (validate_args; transformer_block.py get_num_layers_to_build): the
// embedding and the loss counted as a layer each, or the first and last stage's layers given.
TEST_CASE("launcher: Megatron-LM's --recompute-modules import and export; unknown modules are listed") {
  // megatron/training/arguments.py: --recompute-modules takes several names (nargs='*'); a name
  // meshscope does not model (a fork's, or the EP-overlap segments) is reported, the others kept.
  const std::string args =
      "--num-layers 32 --hidden-size 4096 --num-attention-heads 32 --seq-length 4096 --swiglu \\\n"
      "--normalization RMSNorm --position-embedding-type rope --vocab-size 128256 --ffn-hidden-size 14336 \\\n"
      "--micro-batch-size 1 --global-batch-size 64 --bf16 --recompute-granularity selective \\\n"
      "--recompute-modules core_attn layernorm mlp a2a_overlap_attn\n";
  LauncherImportOptions options;
  options.gpus = 8;
  auto r = import_launcher_config(args, "args.txt", options);
  REQUIRE(r);
  CHECK(r->project.training.recompute == RecomputeMode::selective);
  CHECK(recompute_modules_text(r->project.training.recompute_modules) == "core_attn+layernorm+mlp");
  CHECK(contains(r->unmodelled, "--recompute-modules a2a_overlap_attn"));
  const std::string exported = export_megatron_args(r->project).text;
  CHECK(exported.find("--recompute-modules core_attn layernorm mlp") != std::string::npos);
  auto again = import_launcher_config(exported, "exported.sh", options);
  REQUIRE(again);
  CHECK(again->project.training.recompute_modules == r->project.training.recompute_modules);
  // Without --recompute-modules the default (core_attn) stays, and none is written back.
  auto plain = import_launcher_config(
      replaced(args, " \\\n--recompute-modules core_attn layernorm mlp a2a_overlap_attn", ""), "args.txt", options);
  REQUIRE(plain);
  CHECK(recompute_modules_text(plain->project.training.recompute_modules) == "core_attn");
  CHECK(export_megatron_args(plain->project).text.find("--recompute-modules") == std::string::npos);
}

TEST_CASE("launcher: Megatron-LM's token dropping imports as moe_capacity_factor when padded") {
  const std::string args =
      "--num-layers 48 --hidden-size 2048 --num-attention-heads 32 --seq-length 4096 --swiglu \\\n"
      "--normalization RMSNorm --position-embedding-type rope --vocab-size 151936 --ffn-hidden-size 6144 \\\n"
      "--num-experts 128 --moe-router-topk 8 --moe-ffn-hidden-size 768 --expert-model-parallel-size 8 \\\n"
      "--moe-token-dispatcher-type alltoall --micro-batch-size 1 --global-batch-size 512 --bf16 \\\n"
      "--moe-expert-capacity-factor 1.0 --moe-pad-expert-input-to-capacity\n";
  LauncherImportOptions options;
  options.gpus = 8;
  auto r = import_launcher_config(args, "args.txt", options);
  REQUIRE(r);
  CHECK(r->project.training.moe_capacity_factor == 1.0);
  const std::string exported = export_megatron_args(r->project).text;
  CHECK(exported.find("--moe-expert-capacity-factor 1\n") != std::string::npos);
  CHECK(exported.find("--moe-pad-expert-input-to-capacity") != std::string::npos);
  auto again = import_launcher_config(exported, "exported.sh", options);
  REQUIRE(again);
  CHECK(again->project.training.moe_capacity_factor == 1.0);
  // Without padding, balanced routing fills no expert past its capacity: dropless work, and said so.
  auto unpadded =
      import_launcher_config(replaced(args, " --moe-pad-expert-input-to-capacity", ""), "args.txt", options);
  REQUIRE(unpadded);
  CHECK(unpadded->project.training.moe_capacity_factor == 0);
  CHECK(contains(unpadded->unmodelled, "--moe-expert-capacity-factor 1.0 without"));
}

TEST_CASE("launcher: Megatron-LM's uneven pipeline splits become a pipeline layout") {
  const std::string model =
      "--num-layers 126 --hidden-size 16384 --num-attention-heads 128 --group-query-attention --num-query-groups 8 \\\n"
      "--ffn-hidden-size 53248 --seq-length 8192 --swiglu --normalization RMSNorm --vocab-size 128256 \\\n"
      "--tensor-model-parallel-size 4 --pipeline-model-parallel-size 16 --micro-batch-size 1 --bf16 ";
  LauncherImportOptions options;
  options.gpus = 256;
  // Llama 3.1 405B on 16 × 8 chunks with both counted (Megatron-Bridge's large-model recipes): 128 "layers",
  // one per chunk, so the first chunk holds the embedding alone and the last the loss alone.
  std::string expected = "E|";
  for (int i = 0; i < 126; ++i) expected += "t|";
  expected += "L";
  for (const char* virtual_stages :
       {"--num-virtual-stages-per-pipeline-rank 8", "--num-layers-per-virtual-pipeline-stage 1"}) {
    auto r = import_launcher_config(
        model + virtual_stages + " --account-for-embedding-in-pipeline-split --account-for-loss-in-pipeline-split\n",
        "args.txt", options);
    REQUIRE(r);
    CHECK(r->project.layout.vpp == 8);
    CHECK(r->project.layout.pipeline_layout == expected);
    CHECK_FALSE(contains(r->unmodelled, "--account-for"));
    auto again = import_launcher_config(export_megatron_args(r->project).text, "exported.sh", options);
    REQUIRE(again);
    CHECK(again->project.layout == r->project.layout);
  }
  // The embedding alone: 127 over 16 chunks does not divide, as Megatron-LM's assertion says.
  auto odd = import_launcher_config(model + "--account-for-embedding-in-pipeline-split\n", "args.txt", options);
  REQUIRE_FALSE(odd);
  CHECK_THAT(odd.error().to_string(), Contains("args.txt: line 3: --account-for-embedding-in-pipeline-split") &&
                                          Contains("(127) do not divide over 16 model chunks"));

  // First and last stage given: 30 layers on PP 4 × VP 3, 6 + 9 + 9 + 6, each stage's over its 3 chunks.
  const std::string small =
      "--num-layers 30 --hidden-size 4096 --num-attention-heads 32 --seq-length 4096 --vocab-size 32000 \\\n"
      "--pipeline-model-parallel-size 4 --micro-batch-size 1 --bf16 --num-virtual-stages-per-pipeline-rank 3 ";
  options.gpus = 4;
  auto uneven = import_launcher_config(
      small + "--decoder-first-pipeline-num-layers 6 --decoder-last-pipeline-num-layers 6\n", "args.txt", options);
  REQUIRE(uneven);
  CHECK(uneven->project.layout.pipeline_layout == "Et*2|t*3|t*3|t*2|t*2|t*3|t*3|t*2|t*2|t*3|t*3|t*2L");
  auto indivisible = import_launcher_config(small + "--decoder-first-pipeline-num-layers 5\n", "args.txt", options);
  REQUIRE_FALSE(indivisible);
  CHECK_THAT(indivisible.error().to_string(), Contains("--decoder-first-pipeline-num-layers") &&
                                                  Contains("25 layers between") &&
                                                  Contains("do not divide over the 3 stages between"));
}

TEST_CASE("launcher: NeMo YAML recipes are refused with a message that says so") {
  const std::string name = "nemo_launcher_llama3_70b.yaml";
  auto r = import_launcher_config(read(name), name);
  REQUIRE_FALSE(r);
  CHECK(r.error().code == ErrorCode::unsupported);
  CHECK_THAT(r.error().to_string(), Contains("NeMo YAML"));
}
