#pragma once
// The Kineto trace's row of the input-format table (io/formats.h): its detector, the rank and world
// size its distributedInfo declares (what job discovery asks a device trace), its file names.

#include "io/formats.h"

#include <string>

namespace linkscope::core::io {

// A JSON array (Chrome's "JSON Array Format") or an object whose first trace key is "traceEvents".
bool isKinetoTrace(const FileHead &head);
// distributedInfo.rank / world_size from the first MiB of a (plain or gzip) Kineto file; -1 when absent.
RankHeader peekKinetoRank(const std::string &path);

InputFormat kinetoInputFormat();

} // namespace linkscope::core::io
