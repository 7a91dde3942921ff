#pragma once
// meshscope's public API: models (presets, Hugging Face config.json, model files), GPUs, parameter
// counts and FLOPs. Forwards to the core's headers; include this, not core/..., from outside the tree.
#include "core/base/result.hpp"
#include "core/hardware/dtype.hpp"
#include "core/hardware/hardware.hpp"
#include "core/model/catalogue.hpp"
#include "core/model/model.hpp"
#include "core/model/model_io.hpp"
#include "core/workload/flops.hpp"
