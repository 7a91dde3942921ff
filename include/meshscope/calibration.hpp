#pragma once
// meshscope's public API: calibrating the collective model from nccl-tests logs and comparing a
// profiler trace or a training log with the prediction for its layout.
#include "core/calibration/calibrate.hpp"
#include "core/calibration/log_compare.hpp"
#include "core/calibration/trace_compare.hpp"
