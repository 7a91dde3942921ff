#pragma once
// The activations each pipeline stage holds at a moment of a simulated schedule (the pipeline view's
// animation): the micro-batches whose forward has started and whose backward (B and W, or the fused
// B+W) has not finished, in the units of ScheduleResult::peak_in_flight (one stage's activations for one
// micro-batch; an interleaved chunk counts 1/v). For 1F1B the most stage s ever holds is min(p − s, m)
// (Narayanan et al. SC21 §2.2.1, PipeDream-Flush); for GPipe it is m on every stage (Huang et al. 2019).
#include <vector>

#include "core/schedule/schedule.hpp"

namespace meshscope {

// Per stage (size p = result.busy_s.size()), at `t_s` on the schedule's own clock (events' start_s).
[[nodiscard]] std::vector<double> in_flight_activations(const ScheduleResult& result, double t_s);

// Every distinct event start and end time, sorted: the moments at which the counts above change.
[[nodiscard]] std::vector<double> schedule_event_times(const ScheduleResult& result);
// The first event time after `t_s` (the last one when there is none), and the last one before it (the
// first when there is none): one step of the animation forward or back.
[[nodiscard]] double next_event_time(const std::vector<double>& times, double t_s);
[[nodiscard]] double previous_event_time(const std::vector<double>& times, double t_s);

}  // namespace meshscope
