#pragma once
// meshscope's public API: training and serving workloads, the parallel layout and its validation, and
// the key=value surface of both ("seq=8192,global_batch=512", "tp=8,pp=4"; docs/cli.md lists every key).
#include "core/keys/options.hpp"
#include "core/workload/layout.hpp"
#include "core/workload/workload.hpp"
