#pragma once
// meshscope's public API: the importers — PyTorch profiler (Kineto) traces, nccl-tests logs, node
// topologies (nvidia-smi topo -m, rocm-smi --showtopo, hwloc XML, NCCL topology XML); docs/import*.md; training logs
// (Megatron-LM, Megatron-DeepSpeed, DeepSpeed, torchtitan); docs/logs.md; launcher configs both ways (Megatron-LM
// scripts, torchtitan TOML, DeepSpeed JSON); docs/launchers.md.
#include "core/importers/comm_kernel_rules.hpp"
#include "core/importers/hwloc_xml.hpp"
#include "core/importers/kineto.hpp"
#include "core/importers/launcher_config.hpp"
#include "core/importers/nccl_tests.hpp"
#include "core/importers/nccl_topo_xml.hpp"
#include "core/importers/node_import.hpp"
#include "core/importers/node_topology.hpp"
#include "core/importers/nvidia_smi_topo.hpp"
#include "core/importers/rocm_smi_topo.hpp"
#include "core/importers/training_log.hpp"
#include "core/importers/training_log_model.hpp"
#include "core/report/launcher_export.hpp"
