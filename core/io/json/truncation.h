#pragma once
// A trace that ends too early (a crashed job's last rank, a copy cut short): where its JSON can be
// closed so that the events before the cut are read, as chrome://tracing and Perfetto do.
//
// Only the readers' failure path comes here (io/formats.cpp loadHostTrace / loadDeviceTrace catch the
// reader's LoadError): the normal read is not changed and pays nothing. Without
// LoadOptions::allowTruncated the error is kept, with the cut's byte and how to read past it said;
// with it, the text up to the end of the last complete element (an event of "traceEvents", a node of
// "nodes", a top-level member) is closed and read again, and a warning names the byte where the file
// ends and the byte up to which it was read.

#include "model/common.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace linkscope::core::io {

struct TruncatedJson {
    std::uint64_t size = 0; // where the text ends: the cut
    std::uint64_t keep = 0; // bytes kept: up to the end of the last complete element
    std::string closers;    // what closes the containers still open there ("]}")
};

// Scans the text's structure (strings and brackets, not values). Returns where to close it when the
// document is cut inside its top-level value; nullopt when the top-level value is complete (an
// error is then elsewhere), the text is not JSON-shaped (a close bracket that matches nothing), or
// nothing complete precedes the cut. Safe points: after a complete top-level member and after a
// complete element of an array at depth 2 (traceEvents, nodes) or of a top-level array.
std::optional<TruncatedJson> findTruncation(std::string_view text);

// The whole text of a file, gzip inflated as far as it goes (a truncated gzip stream gives what
// precedes its cut). Throws LoadError when the file cannot be read, GzipLimitError when it inflates
// past gzipInflateLimit.
std::string readTextForRecovery(const std::string &path, bool *wasGzip = nullptr);

// The warning a recovered trace carries, and the message of the refusal without allowTruncated.
std::string truncationWarning(const TruncatedJson &cut, bool wasGzip);
std::string truncationRefusal(const TruncatedJson &cut, bool wasGzip);

// Where a trace read up to a cut ends, from the warnings its reader left: the byte of the warning
// above or of the host ET reader's own ("the "nodes" array is cut off", "…; kept all N nodes");
// kUnknownOffset when none says so (the trace was read whole).
std::uint64_t cutOffset(const std::vector<Diagnostic> &warnings);

} // namespace linkscope::core::io
