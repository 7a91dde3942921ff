#pragma once
// meshscope's public API: project files (model, cluster, workload and layout in one versioned JSON
// document; docs/formats.md).
#include "core/project/project.hpp"
