#pragma once
// Looking up one of an estimate's operations by name (core/estimate/compute.hpp layer_operations).
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "core/estimate/compute.hpp"

namespace meshscope::test {

inline const OperationCost& operation(const std::vector<OperationCost>& ops, const std::string& name) {
  for (const auto& op : ops)
    if (op.name == name) return op;
  FAIL("no operation " << name);
  static const OperationCost none;
  return none;
}

}  // namespace meshscope::test
