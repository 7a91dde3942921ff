#pragma once
// meshscope's public API: the step-time estimate of one training layout (compute, exposed
// communication, the simulated pipeline schedule, tokens/s, MFU; docs/estimate.md).
#include "core/estimate/step.hpp"
#include "core/schedule/in_flight.hpp"
#include "core/schedule/schedule.hpp"
