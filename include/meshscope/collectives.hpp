#pragma once
// meshscope's public API: collective operations and their time on a group of GPUs (the α–β model over
// the group's links), the rings of a node, and the communication plan of every mesh axis.
#include "core/comm/channels.hpp"
#include "core/comm/collective.hpp"
#include "core/comm/collective_op.hpp"
#include "core/comm/comm_plan.hpp"
#include "core/comm/link_load.hpp"
