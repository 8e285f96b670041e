// linkscope-bench walk KINETO: the practical single-core limit for reading a Kineto trace. A plain
// simdjson On-Demand walk over the whole file (one iterate, no windows) that reads what the
// Kineto reader reads of each event: ts, dur, name, cat, ph, pid, tid and the args ids (External
// id, correlation, Record function id, Ev Idx, stream). In the same run, the Kineto reader loads
// the same file, on one core and on every core, so the ratio is measured, not remembered.

#include "benchsupport.h"

#include "io/json/jsonkernel.h"
#include "io/tracereader.h"

#include <simdjson.h>

#include <algorithm>
#include <iomanip>
#include <ostream>
#include <thread>

namespace linkscope::bench {

namespace {

namespace ond = simdjson::ondemand;

struct WalkTotals {
    std::uint64_t events = 0;
    std::uint64_t checksum = 0; // keeps every read value live
};

std::uint64_t tokenHash(std::string_view s)
{
    return s.empty() ? 0 : (static_cast<std::uint64_t>(static_cast<unsigned char>(s.front())) << 8) ^ s.size();
}

// One pass over the document; throws simdjson_error on invalid JSON.
WalkTotals walk(const simdjson::padded_string &json)
{
    WalkTotals totals;
    ond::parser parser;
    ond::document doc = parser.iterate(json);
    for (auto member : doc.get_object()) {
        if (member.unescaped_key().value() != "traceEvents")
            continue;
        for (auto element : member.value().get_array()) {
            ond::object event = element.get_object();
            for (auto field : event) {
                const std::string_view key = field.unescaped_key().value();
                ond::value v = field.value();
                if (key == "ts" || key == "dur" || key == "pid" || key == "tid") {
                    totals.checksum += tokenHash(v.raw_json_token());
                } else if (key == "name" || key == "cat" || key == "ph") {
                    if (v.type() == ond::json_type::string)
                        totals.checksum += tokenHash(v.get_string().value());
                } else if (key == "args") {
                    if (v.type() != ond::json_type::object)
                        continue;
                    for (auto arg : v.get_object()) {
                        const std::string_view name = arg.unescaped_key().value();
                        if (name == "External id" || name == "correlation" || name == "Record function id" || name == "Ev Idx"
                            || name == "stream") {
                            std::int64_t id = 0;
                            if (!arg.value().get_int64().get(id))
                                totals.checksum += static_cast<std::uint64_t>(id);
                        }
                    }
                }
            }
            ++totals.events;
        }
    }
    return totals;
}

} // namespace

int runWalk(Args args, std::ostream &out, std::ostream &err)
{
    const int runs = std::max(1, std::stoi(takeOption(args, "--runs", "3")));
    if (args.size() != 1) {
        err << "usage: linkscope-bench walk KINETO.json [--runs N]   (plain JSON, not gzip)\n";
        return 2;
    }
    const std::string &path = args[0];
    out << "walk: simdjson " << simdjson::SIMDJSON_VERSION_MAJOR << "." << simdjson::SIMDJSON_VERSION_MINOR << "."
        << simdjson::SIMDJSON_VERSION_REVISION << ", kernel " << core::activeJsonKernel().name << ", best of " << runs
        << " runs; 1 MB = 10^6 bytes\n";

    double bestRead = 1e30, bestWalk = 1e30, bestOne = 1e30, bestAll = 1e30;
    std::uint64_t bytes = 0, events = 0, readerEvents = 0;
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    for (int r = 0; r < runs; ++r) {
        {
            Stopwatch watch;
            simdjson::padded_string json;
            if (simdjson::padded_string::load(path).get(json)) {
                err << "walk: cannot read " << path << '\n';
                return 1;
            }
            const double read = watch.seconds();
            watch.restart();
            const WalkTotals totals = walk(json);
            bestWalk = std::min(bestWalk, watch.seconds());
            bestRead = std::min(bestRead, read);
            bytes = json.size();
            events = totals.events;
            if (totals.checksum == 42)
                out << ' '; // never, but the compiler cannot know
        }
        {
            const core::ReaderThreads configured = core::readerThreads();
            core::setReaderThreads({1, configured.minChunkBytes});
            pinToOneCore();
            Stopwatch watch;
            readerEvents = core::readKinetoTrace(path).events.size();
            bestOne = std::min(bestOne, watch.seconds());
            unpinCores();
            core::setReaderThreads(configured);
        }
        {
            Stopwatch watch;
            core::readKinetoTrace(path);
            bestAll = std::min(bestAll, watch.seconds());
        }
    }
    const double mb = megabytes(bytes);
    out << std::fixed << std::setprecision(3) << "file " << std::setprecision(1) << mb << " MB, " << events
        << " traceEvents elements (the reader keeps " << readerEvents << ")\n"
        << std::setprecision(3) << "simdjson walk, one core:        " << bestWalk << " s parse (" << std::setprecision(1)
        << mb / bestWalk << " MB/s) + " << std::setprecision(3) << bestRead << " s reading the file = " << bestWalk + bestRead
        << " s (" << std::setprecision(1) << mb / (bestWalk + bestRead) << " MB/s)\n"
        << std::setprecision(3) << "Kineto reader, one core:        " << bestOne << " s (" << std::setprecision(1) << mb / bestOne
        << " MB/s), " << std::setprecision(2) << (bestWalk + bestRead) / bestOne << "x the walk's throughput\n"
        << std::setprecision(3) << "Kineto reader, " << cores << " cores (" << core::readerThreads().threads
        << " threads): " << bestAll << " s (" << std::setprecision(1) << mb / bestAll << " MB/s), " << std::setprecision(2)
        << (bestWalk + bestRead) / bestAll << "x the walk's throughput\n";
    printResult(out, "kineto_load_vs_walk", (bestWalk + bestRead) / bestAll, "x");
    return 0;
}

} // namespace linkscope::bench
