#pragma once
// A model from a training log (core/importers/training_log.hpp): what the argument dump (or torchtitan's ModelArgs)
// says about the architecture, as a ModelSpec, for `compare --log` and `calibrate --log` without --model.
#include <string>

#include "core/base/result.hpp"
#include "core/importers/training_log.hpp"
#include "core/model/model.hpp"

namespace meshscope {

// Errors (missing_field, located by the log): a log that does not give num_layers, hidden_size,
// num_attention_heads or the vocabulary size. Dense models only: a log with num_experts is `unsupported`
// (the dump does not give the router's settings). ffn_hidden_size defaults to Megatron's 4·hidden.
[[nodiscard]] Result<ModelSpec> model_spec_from_log(const MeasuredRun& run);

}  // namespace meshscope
