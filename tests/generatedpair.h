#pragma once
// A generated host ET + Kineto pair written into a test's temporary folder, for tests that read
// traces from files (the readers' file paths, spans into the source file).

#include "gen/tracegenerator.h"
#include "io/file/atomicfile.h"

#include <QDir>
#include <QString>

#include <sstream>
#include <string>

namespace linkscope::test {

struct GeneratedPairFiles {
    std::string host;   // DIR/host.json
    std::string device; // DIR/kineto.json
};

inline GeneratedPairFiles writeGeneratedPair(const gen::GeneratorOptions &options, const QString &dir)
{
    std::ostringstream hostText, deviceText, truth;
    gen::generatePair(options, hostText, deviceText, truth);
    GeneratedPairFiles files{QDir(dir).filePath(QStringLiteral("host.json")).toStdString(),
                             QDir(dir).filePath(QStringLiteral("kineto.json")).toStdString()};
    core::writeFileAtomically(files.host, hostText.str());
    core::writeFileAtomically(files.device, deviceText.str());
    return files;
}

} // namespace linkscope::test
