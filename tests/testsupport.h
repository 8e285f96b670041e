#pragma once
// Paths the tests use: the public traces in ../shared/traces and the repo's own fixtures.

#include <QDir>
#include <QFileInfo>
#include <QString>
#include <QTest>

#include <fstream>
#include <iterator>
#include <string>

namespace linkscope::test {

// A file under ../shared/traces. CI has that folder beside the clone; a missing file fails the test.
inline std::string tracePath(const char *relative)
{
    const QString path = QDir(QStringLiteral(LINKSCOPE_TRACES_DIR)).filePath(QString::fromUtf8(relative));
    if (!QFileInfo::exists(path))
        qWarning("trace file missing: %s", qPrintable(path));
    return path.toStdString();
}

inline std::string dataPath(const char *relative)
{
    return QDir(QStringLiteral(LINKSCOPE_TEST_DATA)).filePath(QString::fromUtf8(relative)).toStdString();
}

inline std::string sourcePath(const char *relative)
{
    return QDir(QStringLiteral(LINKSCOPE_SOURCE_DIR)).filePath(QString::fromUtf8(relative)).toStdString();
}

// The whole file as bytes (empty if it cannot be read).
inline std::string readFile(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

} // namespace linkscope::test
