#pragma once
// meshscope's public API: the layout search — every candidate mesh, rejected ones with their reason, the
// rest ranked.
#include "core/search/search.hpp"
