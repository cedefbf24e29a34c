#pragma once

// Shared by the benchmarks: a reporter that keeps each benchmark's time so main() can print ratios.

#include <benchmark/benchmark.h>

#include <map>
#include <string>

namespace jitscope::bench {

class RatioReporter : public benchmark::ConsoleReporter
{
public:
    void ReportRuns(const std::vector<Run>& runs) override
    {
        for (const Run& r : runs)
            if (r.run_type == Run::RT_Iteration || r.aggregate_name == "median")
                times[r.benchmark_name()] = r.GetAdjustedRealTime();
        ConsoleReporter::ReportRuns(runs);
    }
    /// Real time per iteration of the first benchmark whose name starts with `prefix`, in the reported unit.
    double time(const std::string& prefix) const
    {
        for (const auto& [name, t] : times)
            if (name.rfind(prefix, 0) == 0)
                return t;
        return 0;
    }
    std::map<std::string, double> times;
};

} // namespace jitscope::bench
