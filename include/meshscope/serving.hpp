#pragma once
// meshscope's public API: the serving model (prefill and decode as a roofline, latency and throughput as
// concurrency grows) and the replicas-vs-sharding ranking; docs/serving.md.
#include "core/serving/serving.hpp"
