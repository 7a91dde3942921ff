#pragma once
// meshscope's public API: clusters (cluster files, generator strings such as "dgx-h100:nodes=8"),
// routing between GPUs, placing a layout's mesh on the GPUs, and a cluster's summary.
#include "core/topology/cluster.hpp"
#include "core/topology/cluster_io.hpp"
#include "core/topology/generators.hpp"
#include "core/topology/placement.hpp"
#include "core/topology/routing.hpp"
#include "core/topology/summary.hpp"
