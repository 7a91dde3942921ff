#pragma once
// Everything a user of the meshscope library includes: `#include <meshscope/meshscope.hpp>` and link
// meshscope::core (find_package(meshscope); README.md, "Library use"). Each header below forwards to the
// core's own headers, so that this set of names stays put while the core's folders are reorganised.
#include "meshscope/calibration.hpp"
#include "meshscope/cluster.hpp"
#include "meshscope/collectives.hpp"
#include "meshscope/estimate.hpp"
#include "meshscope/importers.hpp"
#include "meshscope/memory.hpp"
#include "meshscope/model.hpp"
#include "meshscope/project.hpp"
#include "meshscope/report.hpp"
#include "meshscope/search.hpp"
#include "meshscope/serving.hpp"
#include "meshscope/session.hpp"
#include "meshscope/version.hpp"
#include "meshscope/workload.hpp"
