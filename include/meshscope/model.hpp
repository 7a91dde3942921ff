#pragma once
// meshscope's public API: models (presets, Hugging Face config.json, model files), GPUs, parameter
// counts and FLOPs. Forwards to the core's headers; include this, not core/..., from outside the tree.
#include "core/catalogue.hpp"
#include "core/dtype.hpp"
#include "core/flops.hpp"
#include "core/hardware.hpp"
#include "core/model.hpp"
#include "core/model_io.hpp"
#include "core/result.hpp"
