#pragma once
// meshscope's public API: the stable JSON documents of every command (the field names docs/cli.md lists)
// and the unit conversions they use (the lesson and trade-off documents are the session's: session.hpp).
#include "core/report/calibration.hpp"
#include "core/report/estimate.hpp"
#include "core/report/importers.hpp"
#include "core/report/keys.hpp"
#include "core/report/log_compare.hpp"
#include "core/report/memory.hpp"
#include "core/report/model.hpp"
#include "core/report/scaling.hpp"
#include "core/report/search.hpp"
#include "core/report/serving.hpp"
#include "core/report/topology.hpp"
#include "core/report/training_log.hpp"
#include "core/report/units.hpp"
