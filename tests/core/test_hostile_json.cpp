// Hostile JSON: the readers of HF configs, model, project and cluster files on broken or malicious variants of the
// real files (../shared/data/hf_configs, sample_clusters/, resources/default_project.json), derived here. Every one
// must give an error naming the file and the field or line, never a crash, an exception, a silent default or an
// allocation sized by a number from the file.
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "core/base/text_input.hpp"
#include "core/model/catalogue.hpp"
#include "core/model/model_io.hpp"
#include "core/project/project.hpp"
#include "core/topology/cluster_io.hpp"
#include "core/topology/generators.hpp"
#include "support/csv.hpp"

using namespace meshscope;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;
using nlohmann::json;

namespace {

const std::string kMixtral = test::shared_path("data/hf_configs/mixtral-8x7b-v0.1_config.json");
const std::string kTeaching = std::string(MESHSCOPE_SOURCE_DIR) + "/sample_clusters/teaching-2x4.json";
const std::string kDefaultProject = std::string(MESHSCOPE_SOURCE_DIR) + "/resources/default_project.json";

std::string read(const std::string& path) {
  auto text = read_text_file(path);
  REQUIRE(text);
  return *text;
}

json document(const std::string& path) {
  auto doc = parse_json_text(read(path), path);
  REQUIRE(doc);
  return *doc;
}

// ASCII text as UTF-16 (every character followed or preceded by a NUL byte), with or without a byte-order mark.
std::string utf16(const std::string& ascii, bool little_endian, bool bom) {
  std::string out = bom ? (little_endian ? "\xFF\xFE" : "\xFE\xFF") : "";
  for (const char ch : ascii) {
    out += little_endian ? ch : '\0';
    out += little_endian ? '\0' : ch;
  }
  return out;
}

// The text with the first occurrence of `from` replaced by `to` (which must be there).
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

// The 1-based line of the first occurrence of `needle`.
std::string line_of(const std::string& text, const std::string& needle) {
  const size_t at = text.find(needle);
  REQUIRE(at != std::string::npos);
  return std::to_string(1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
}

Result<ModelSpec> hf_model_from_text(const std::string& text) {
  auto doc = parse_json_text(text, "config.json");
  if (!doc) return tl::unexpected(doc.error());
  return model_from_hf_config(*doc, "config.json");
}

Result<Cluster> cluster_from_text(const std::string& text) {
  auto doc = parse_json_text(text, "cluster.json");
  if (!doc) return tl::unexpected(doc.error());
  return cluster_from_json(*doc, "cluster.json");
}

}  // namespace

TEST_CASE("hostile json: a UTF-8 byte-order mark before a real HF config reads as the config itself") {
  const std::string text = read(kMixtral);
  auto plain = hf_model_from_text(text);
  auto with_bom = hf_model_from_text("\xEF\xBB\xBF" + text);
  REQUIRE(plain);
  REQUIRE(with_bom);
  CHECK(with_bom->num_layers == plain->num_layers);
  CHECK(with_bom->moe.num_experts == plain->moe.num_experts);
  CHECK(with_bom->hidden_size == plain->hidden_size);
}

TEST_CASE("hostile json: a UTF-16 file, with or without its byte-order mark, is refused with a save-as-UTF-8 error") {
  const auto [little_endian, bom, name] = GENERATE(table<bool, bool, std::string>(
      {{true, true, "UTF-16LE"}, {false, true, "UTF-16BE"}, {true, false, "UTF-16LE"}, {false, false, "UTF-16BE"}}));
  CAPTURE(name, bom);
  auto doc = parse_json_text(utf16(read(kMixtral), little_endian, bom), "config.json");
  REQUIRE_FALSE(doc);
  CHECK(doc.error().code == ErrorCode::parse_error);
  CHECK(doc.error().location == "config.json");
  CHECK_THAT(doc.error().message, StartsWith("the file is " + name));
  CHECK_THAT(doc.error().message, Contains("save it as UTF-8"));
}

TEST_CASE("hostile json: 100,000 nested arrays in a cluster file are an error with the line, not a stack overflow") {
  // The cluster's "name" replaced by [[[...]]] 100,000 deep, on a line of its own.
  const std::string deep = std::string(100'000, '[') + std::string(100'000, ']');
  const std::string text = replaced(read(kTeaching), "\"name\": ", "\"name\":\n" + deep + ", \"was\": ");
  auto cluster = cluster_from_text(text);
  REQUIRE_FALSE(cluster);
  CHECK(cluster.error().code == ErrorCode::parse_error);
  CHECK_THAT(cluster.error().message, Contains("nested more than " + std::to_string(kMaxJsonDepth) + " deep"));
  CHECK_THAT(cluster.error().message, Contains("at name"));
  CHECK(cluster.error().location == "cluster.json:" + line_of(text, "[["));
  // 256 levels are still read (the top-level object is one of them).
  const std::string at_limit = std::string(kMaxJsonDepth - 1, '[') + std::string(kMaxJsonDepth - 1, ']');
  CHECK(parse_json_text("{\"a\": " + at_limit + "}", "limit.json"));
  CHECK_FALSE(parse_json_text("{\"a\": [" + at_limit + "]}", "limit.json"));
}

TEST_CASE("hostile json: a number beyond a double (1e400) in an HF config is a parse error on its line") {
  const std::string text = replaced(read(kMixtral), "\"hidden_size\": 4096", "\"hidden_size\": 1e400");
  auto model = hf_model_from_text(text);
  REQUIRE_FALSE(model);
  CHECK(model.error().code == ErrorCode::parse_error);
  CHECK_THAT(model.error().message, Contains("1e400"));
  CHECK_THAT(model.error().location, StartsWith("config.json:" + line_of(text, "1e400") + " "));
}

TEST_CASE("hostile json: NaN and Infinity in an HF config are parse errors that say JSON has no such numbers") {
  const std::string literal = GENERATE(as<std::string>{}, "NaN", "Infinity", "-Infinity");
  CAPTURE(literal);
  const std::string text = replaced(read(kMixtral), "\"rms_norm_eps\": 1e-05", "\"rms_norm_eps\": " + literal);
  auto model = hf_model_from_text(text);
  REQUIRE_FALSE(model);
  CHECK(model.error().code == ErrorCode::parse_error);
  CHECK_THAT(model.error().message, Contains("NaN and Infinity are not JSON numbers"));
  CHECK_THAT(model.error().location, StartsWith("config.json:" + line_of(text, literal) + " "));
}

TEST_CASE("hostile json: a key given twice is an error naming the key and its object, not a silent last-wins") {
  SECTION("at the top of an HF config") {
    const std::string text =
        replaced(read(kMixtral), "\"num_hidden_layers\": 32", "\"num_hidden_layers\": 32, \"num_hidden_layers\": 1");
    auto model = hf_model_from_text(text);
    REQUIRE_FALSE(model);
    CHECK(model.error().code == ErrorCode::parse_error);
    CHECK(model.error().message ==
          "the key \"num_hidden_layers\" appears twice in the top-level object (meshscope does not pick one of them)");
    CHECK(model.error().location == "config.json");
  }
  SECTION("in a device of a cluster file") {
    auto doc = document(kTeaching);
    const std::string id = doc["devices"][2]["id"].get<std::string>();
    const std::string text =
        replaced(read(kTeaching), "\"id\": \"" + id + "\"", "\"id\": \"" + id + "\", \"id\": \"other\"");
    auto cluster = cluster_from_text(text);
    REQUIRE_FALSE(cluster);
    CHECK_THAT(cluster.error().message, Contains("the key \"id\" appears twice in devices[2]"));
  }
}

TEST_CASE("hf config: huge, negative and fractional layer counts are field errors before the core loops over them") {
  const auto [value, message] = GENERATE(table<std::string, std::string>({
      {"1e12", "num_layers must be at most 100000, got 1000000000000"},
      {"1000000000000", "num_layers must be at most 100000, got 1000000000000"},
      {"1e300", "field \"num_hidden_layers\" is too large (at most 10^15), got 1e+300"},
      {"18446744073709551615", "field \"num_hidden_layers\" is too large (at most 10^15), got 18446744073709551615"},
      {"-32", "field \"num_hidden_layers\" must not be negative"},
      {"32.5", "field \"num_hidden_layers\" must be an integer, got 32.5"},
      {"\"32\"", "field \"num_hidden_layers\" must be an integer, got \"32\""},
  }));
  CAPTURE(value);
  auto model =
      hf_model_from_text(replaced(read(kMixtral), "\"num_hidden_layers\": 32", "\"num_hidden_layers\": " + value));
  REQUIRE_FALSE(model);
  CHECK(model.error().message == message);
  CHECK_THAT(model.error().location, StartsWith("config.json: num_"));
}

TEST_CASE("model file: every width far beyond any real model is refused by its field") {
  auto preset = model_preset("mixtral-8x7b");
  REQUIRE(preset);
  const json original = model_to_json(*preset);
  REQUIRE(model_from_json(original, "model.json"));
  const auto [path, value, field] = GENERATE(table<std::string, int64_t, std::string>({
      {"/hidden_size", int64_t{1} << 40, "hidden_size"},
      {"/vocab_size", int64_t{1} << 40, "vocab_size"},
      {"/num_layers", 1'000'000, "num_layers"},
      {"/ffn_hidden_size", int64_t{1} << 40, "ffn_hidden_size"},
      {"/moe/num_experts", int64_t{1} << 30, "num_experts"},
      {"/moe/expert_ffn_hidden_size", int64_t{1} << 40, "expert_ffn_hidden_size"},
  }));
  CAPTURE(path);
  json doc = original;
  doc[json::json_pointer(path)] = value;
  auto model = model_from_json(doc, "model.json");
  REQUIRE_FALSE(model);
  CHECK(model.error().code == ErrorCode::invalid_argument);
  CHECK(model.error().location == "model.json: " + field);
  CHECK_THAT(model.error().message, StartsWith(field + " must be at most"));
}

TEST_CASE("project file: wrong types in name, cluster, gpu_count and mode are field errors, not exceptions") {
  const json original = document(kDefaultProject);
  REQUIRE(project_from_json(original, "project.json"));
  const auto [field, value, message] = GENERATE(table<std::string, json, std::string>({
      {"format", json(7), "not a meshscope project"},
      {"name", json::array({1, 2}), "\"name\" must be a string, got [1,2]"},
      {"cluster", json(3.5), "\"cluster\" must be a generator string"},
      {"gpu_count", json("64"), "\"gpu_count\" must be an integer from 0 to 2^31, got \"64\""},
      {"gpu_count", json(int64_t{-1}), "\"gpu_count\" must be an integer from 0 to 2^31, got -1"},
      {"gpu_count", json(uint64_t{1} << 40), "\"gpu_count\" must be an integer from 0 to 2^31, got 1099511627776"},
      {"mode", json(true), "\"mode\" must be a string, got true"},
  }));
  CAPTURE(field, value.dump());
  json doc = original;
  doc[field] = value;
  Result<Project> project = make_error(ErrorCode::invalid_argument, "not run");
  REQUIRE_NOTHROW(project = project_from_json(doc, "project.json"));
  REQUIRE_FALSE(project);
  CHECK_THAT(project.error().message, Contains(message));
  CHECK_THAT(project.error().location, StartsWith("project.json"));
}

TEST_CASE("cluster file: a GPU claiming local index 10^9 is refused before anything is sized by it") {
  // connect_to_fabric sizes its rail table by the NICs' local indices, the GUI its node list by the node indices.
  const json original = document(kTeaching);
  REQUIRE(cluster_from_json(original, "cluster.json"));
  const auto [field, value, message] = GENERATE(table<std::string, json, std::string>({
      {"local_index", json(1'000'000'000), "local_index must be -1 or an index up to 65535, got 1000000000"},
      {"numa", json(1'000'000'000), "numa must be -1 or a NUMA domain index up to 4095, got 1000000000"},
      {"chips", json(1'000'000'000), "chips must be from 1 to 1024, got 1000000000"},
      {"local_index", json(1e12), "field \"local_index\" must be an integer, got 1000000000000.0"},
  }));
  CAPTURE(field, value.dump());
  json doc = original;
  doc["devices"][0][field] = value;
  auto cluster = cluster_from_json(doc, "cluster.json");
  REQUIRE_FALSE(cluster);
  CHECK_THAT(cluster.error().message,
             Contains("device #0 \"" + original["devices"][0]["id"].get<std::string>() + "\""));
  CHECK_THAT(cluster.error().message, Contains(message));
  CHECK(cluster.error().location == "cluster.json");
}

TEST_CASE("cluster file: a node index of 10^9 without a node list is refused, not 10^9 names made up") {
  json doc = document(kTeaching);
  doc.erase("nodes");
  doc["devices"][0]["node"] = 1'000'000'000;
  auto cluster = cluster_from_json(doc, "cluster.json");
  REQUIRE_FALSE(cluster);
  CHECK_THAT(cluster.error().message, Contains("node 1000000000 is out of range (at most 65536 without \"nodes\")"));
}

TEST_CASE("cluster file: link bandwidths, counts and latencies beyond any hardware are refused by link") {
  const json original = document(kTeaching);
  const auto [field, value, message] = GENERATE(table<std::string, json, std::string>({
      {"bandwidth_GBps", json(1e300), "bandwidth_GBps must be at most 1000000.0 (1 PB/s), got 1e+300"},
      {"latency_us", json(1e300), "latency_us must be at most 1000000000.0 (1000 s), got 1e+300"},
  }));
  CAPTURE(field);
  json doc = original;
  json& link = doc["links"][0];
  for (const char* spec : {"generation", "count", "lanes", "gbps"}) link.erase(spec);
  link[field] = value;
  if (field != "bandwidth_GBps") link["bandwidth_GBps"] = 100;
  auto cluster = cluster_from_json(doc, "cluster.json");
  REQUIRE_FALSE(cluster);
  CHECK_THAT(cluster.error().message, Contains("link #0 \"" + original["links"][0]["id"].get<std::string>() + "\""));
  CHECK_THAT(cluster.error().message, Contains(message));
}

TEST_CASE("cluster file: an NVLink count of 10^9 is refused, not a 25 EB/s link") {
  json doc = document(kTeaching);
  bool found = false;
  for (json& link : doc["links"])
    if (link.value("kind", "") == "nvlink" && link.contains("count")) {
      link["count"] = 1'000'000'000;
      found = true;
      break;
    }
  REQUIRE(found);
  auto cluster = cluster_from_json(doc, "cluster.json");
  REQUIRE_FALSE(cluster);
  CHECK_THAT(cluster.error().message, Contains("count must be from 1 to 64, got 1000000000"));
}

TEST_CASE("cluster generator: 10^9 nodes is refused before anything is allocated") {
  auto cluster = generate_cluster("dgx-h100:nodes=1000000000");
  REQUIRE_FALSE(cluster);
  CHECK_THAT(cluster.error().message, Contains("nodes must be an integer from 1 to 65536"));
  CHECK_FALSE(generate_cluster("dgx-h100:nodes=99999999999999999999999"));
  CHECK_FALSE(generate_cluster("gb200-nvl72:racks=1000000000"));
}

TEST_CASE("read_text_file: a file beyond the size limit is refused from its size, with the limit in the message") {
  const auto path = (std::filesystem::temp_directory_path() / "meshscope_hostile_large.json").string();
  {
    std::ofstream out(path, std::ios::binary);
    out << read(kTeaching);
  }
  auto text = read_text_file(path, 100);
  std::filesystem::remove(path);
  REQUIRE_FALSE(text);
  CHECK(text.error().code == ErrorCode::io_error);
  CHECK(text.error().location == path);
  CHECK_THAT(text.error().message, Contains("up to 100 bytes"));
  CHECK(kMaxTextFileBytes == int64_t{256} << 20);
}
