#pragma once
// meshscope's public API: the use cases every front end shares — evaluate a project (its layout's problems,
// memory budget, step or serving estimate), search it, and export the ranked tables.
#include "core/session/evaluate.hpp"
#include "core/session/export.hpp"
