#pragma once
// The rows of the input-format table (io/formats.h) read by the host ET reader: the host execution
// trace, and ET+ (chakra_trace_link's output, a host ET whose nodes carry device timing), recognised
// to say what it is. Both are {"nodes": [...]}; ET+ is tried first.

#include "io/formats.h"

namespace linkscope::core::io {

bool isEtPlus(const FileHead &head);
bool isHostEt(const FileHead &head);

InputFormat etPlusInputFormat();
InputFormat hostEtInputFormat();

} // namespace linkscope::core::io
