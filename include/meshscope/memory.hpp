#pragma once
// meshscope's public API: memory budgets per distinct rank and category, for training and serving, and
// the activation inventory behind them.
#include "core/memory/activations.hpp"
#include "core/memory/memory.hpp"
