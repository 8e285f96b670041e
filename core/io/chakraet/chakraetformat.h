#pragma once
// The Chakra .et's row of the input-format table (io/formats.h): an output format, recognised only to
// say what a file is (its reader and writer are the export's, export/chakra/etformat.h).

#include "io/formats.h"

namespace linkscope::core::io {

bool isChakraEt(const FileHead &head);

InputFormat chakraEtInputFormat();

} // namespace linkscope::core::io
