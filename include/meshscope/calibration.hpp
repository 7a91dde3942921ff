#pragma once
// meshscope's public API: calibrating the collective model from nccl-tests logs and comparing a
// profiler trace with the prediction for its layout.
#include "core/calibration/calibrate.hpp"
#include "core/calibration/trace_compare.hpp"
