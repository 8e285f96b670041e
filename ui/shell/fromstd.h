#pragma once
// Text from core (UTF-8 std::string / std::string_view) as a QString: the one conversion ui uses, so
// the encoding is stated once.

#include <QString>

#include <string_view>

namespace linkscope::ui {

inline QString fromStd(std::string_view text) { return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size())); }

} // namespace linkscope::ui
