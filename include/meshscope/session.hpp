#pragma once
// meshscope's public API: the use cases every front end shares — the inputs a front end builds (a training
// setup, a project from its arguments), evaluate a project (its layout's problems, memory budget, step or serving
// estimate) and compare two of its layouts, search it, load a profiled run and compare it with the prediction,
// calibrate it from nccl-tests logs or a profiler trace,
// and export the ranked tables and the current estimate; import a launcher config as a project
// (docs/launchers.md); sweep many searches (docs/sweeps.md); scale one over a cluster family (weak / strong
// scaling, docs/cli.md "scaling"); and load and render guided lessons (docs/lessons.md); the documents of the
// lessons and the trade-off points.
#include "core/session/calibrate.hpp"
#include "core/session/compare_layouts.hpp"
#include "core/session/evaluate.hpp"
#include "core/session/export.hpp"
#include "core/session/import_launcher.hpp"
#include "core/session/inputs.hpp"
#include "core/session/lesson.hpp"
#include "core/session/lesson_report.hpp"
#include "core/session/measurements.hpp"
#include "core/session/scaling.hpp"
#include "core/session/sweep.hpp"
#include "core/session/trace_prediction.hpp"
#include "core/session/tradeoff.hpp"
#include "core/session/tradeoff_report.hpp"
#include "core/session/training.hpp"
