#pragma once
// A toy input format, registered only by the tests that use it (tests/test_registry.cpp,
// tests/gui/test_exportdialog.cpp): proof that a new format is its own folder — a reader, a detector,
// a row — plus the row's registration, with nothing else in Linkscope naming it. A built-in format
// is the same folder under core/io/ (io/kineto/kinetoformat.h) with its row in builtInFormats().
//
// The format: the line "TOYTRACE" and then a Kineto trace's JSON. No built-in row accepts it (it is
// not JSON); its reader strips the line and parses the rest. Its files are named "*.trace".

#include "io/file/atomicfile.h"
#include "io/file/inputfile.h"
#include "io/formats.h"
#include "io/kineto/kinetoformat.h"
#include "io/tracereader.h"

#include "testsupport.h"

#include <atomic>
#include <string>
#include <string_view>

namespace linkscope::test {

inline constexpr std::string_view kToyHeader = "TOYTRACE\n";
inline constexpr std::string_view kToyKind = "toy";

// How many times the toy detector looked at a file that is a toy trace (tests count detections).
inline std::atomic<int> toyDetections{0};

inline bool isToyTrace(const core::FileHead &head)
{
    const bool toy = head.prefix(kToyHeader.size()) == kToyHeader;
    toyDetections += toy ? 1 : 0;
    return toy;
}

inline core::DeviceTrace readToyTrace(const std::string &path, const core::ProgressFn &progress)
{
    core::FileIdentity identity;
    std::string text = core::io::readWholeInputFile(path, &identity);
    if (!std::string_view(text).starts_with(kToyHeader))
        throw core::LoadError(path, 0, "not a toy trace: it does not start with TOYTRACE");
    text.erase(0, kToyHeader.size());
    core::DeviceTrace trace = core::parseKinetoTrace(std::move(text), path, progress);
    trace.path = path;
    trace.sourceIdentity = identity; // the file read, as a sidecar's fingerprint check needs it
    return trace;
}

// The row: what the table asks of a format.
inline core::InputFormat toyFormat()
{
    core::InputFormat row;
    row.kind = std::string(kToyKind);
    row.role = core::TraceRole::Device;
    row.name = "toy trace";
    row.detect = isToyTrace;
    row.readDevice = readToyTrace;
    row.filePatterns = {"*.trace"};
    row.nameSuffixes = {".trace"};
    // Its JSON is a Kineto trace's, distributedInfo and all: the rank and world size are read as there.
    row.peekRank = core::io::peekKinetoRank;
    return row;
}

// The row registered for the scope of one test.
class ToyFormatRow {
public:
    ToyFormatRow() { core::inputFormats().add(toyFormat()); }
    ~ToyFormatRow() { core::inputFormats().remove(kToyKind); }
    ToyFormatRow(const ToyFormatRow &) = delete;
    ToyFormatRow &operator=(const ToyFormatRow &) = delete;
};

// A toy trace made of a Kineto trace: the header line, then its text.
inline void writeToyTrace(const std::string &kinetoPath, const std::string &toyPath)
{
    core::writeFileAtomically(toyPath, std::string(kToyHeader) + readFile(kinetoPath));
}

} // namespace linkscope::test
