#pragma once
// The public validation set (tests/data/validation/training_throughput.csv) as the core's inputs:
// each row's model, cluster generator, workload and layout with the recipe settings its source
// states (test_validation_set.cpp predicts every row; test_plausibility.cpp searches some).
#include <optional>
#include <string>
#include <vector>

#include "core/estimate/step.hpp"
#include "support/csv.hpp"

namespace meshscope::validation_rows {

std::vector<test::CsvRow> read_validation_set();
bool has(const test::CsvRow& row, const std::string& column);
int64_t integer(const test::CsvRow& row, const std::string& column);
bool starts_with(const std::string& text, const std::string& prefix);
bool contains(const std::string& text, const std::string& part);

struct Skip {
  std::string reason;
};
// Why a row cannot be expressed (a GPU or host the catalogue lacks, a model without dimensions).
std::optional<Skip> unsupported(const test::CsvRow& row);
Result<ModelSpec> model_of(const test::CsvRow& row);

struct Setup {
  ModelSpec model;
  TrainingWorkload workload;
  Layout layout;
  EstimateOptions options;
  std::string generator;
};
Setup setup_of(const test::CsvRow& row, const ModelSpec& model);

// The published step time, from the source's own metric; the predicted value in that metric.
double published_step_s(const test::CsvRow& row, const ModelSpec& model);
double in_published_metric(const test::CsvRow& row, double step_s, double published_step, double published_value);
double median(std::vector<double> values);

}  // namespace meshscope::validation_rows
