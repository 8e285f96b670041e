#pragma once
// The streaming JSON writers with their text handed to a sink instead of a file: what
// writeEtPlus / writePerfettoTrace (export/exporter.h) write, block by block. linkscope-bench
// formats into a sink that discards, to time the formatting apart from the disk.

#include "export/exporter.h"

#include <cstdint>
#include <functional>
#include <string_view>

namespace linkscope::core {

// Called with the output's bytes in order, a block (a few MB) at a time, on the calling thread.
using OutputSink = std::function<void(std::string_view bytes)>;

// The ET+ JSON text, made on `threads` threads (0: exportThreads()); returns its size in bytes.
std::uint64_t writeEtPlusTo(const OutputSink &sink, const EtPlusGraph &graph, const HostTrace &host, const DeviceTrace &device,
                            const LinkSet &links, int threads = 0);

// The Perfetto JSON text, made on `threads` threads (0: exportThreads()); returns its size in bytes.
std::uint64_t writePerfettoTraceTo(const OutputSink &sink, const DeviceTrace &device, const LinkSet &links, const HostTrace *host,
                                   int threads = 0);

} // namespace linkscope::core
