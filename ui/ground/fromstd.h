#pragma once
// Text from core (UTF-8 std::string / std::string_view) as a QString, and paths from a dialog as the
// strings core takes: the conversions ui uses, so the encoding is stated once.

#include <QString>
#include <QStringList>

#include <string>
#include <string_view>
#include <vector>

namespace linkscope::ui {

inline QString fromStd(std::string_view text) { return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size())); }

inline std::vector<std::string> toStd(const QStringList &texts)
{
    std::vector<std::string> out;
    out.reserve(static_cast<std::size_t>(texts.size()));
    for (const QString &t : texts)
        out.push_back(t.toStdString());
    return out;
}

} // namespace linkscope::ui
