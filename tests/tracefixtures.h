#pragma once
// Extracting the .tgz / .tar.gz public traces (JSON inside tar archives) for reader tests.

#include <QByteArray>
#include <QDir>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <string>

namespace linkscope::test {

// Extracts `archive` into `dir` with the system tar; returns false (and warns) on failure.
inline bool extractTar(const std::string &archive, const QTemporaryDir &dir)
{
    QProcess tar;
    tar.start(QStringLiteral("tar"), {QStringLiteral("-xzf"), QString::fromStdString(archive), QStringLiteral("-C"), dir.path()});
    if (!tar.waitForFinished(120000) || tar.exitStatus() != QProcess::NormalExit || tar.exitCode() != 0) {
        qWarning("tar failed on %s: %s", archive.c_str(), tar.readAllStandardError().constData());
        return false;
    }
    return true;
}

inline std::string inDir(const QTemporaryDir &dir, const char *relative)
{
    return QDir(dir.path()).filePath(QString::fromUtf8(relative)).toStdString();
}

// gzip-compresses `data` with the system gzip (tests only; the product reads gzip with zlib).
inline QByteArray gzipBytes(const QByteArray &data)
{
    QProcess gz;
    gz.start(QStringLiteral("gzip"), {QStringLiteral("-c"), QStringLiteral("-n")});
    gz.waitForStarted();
    gz.write(data);
    gz.closeWriteChannel();
    gz.waitForFinished(120000);
    return gz.readAllStandardOutput();
}

inline QByteArray gunzipFile(const std::string &path)
{
    QProcess gz;
    gz.start(QStringLiteral("gzip"), {QStringLiteral("-dc"), QString::fromStdString(path)});
    gz.waitForFinished(120000);
    return gz.readAllStandardOutput();
}

} // namespace linkscope::test
