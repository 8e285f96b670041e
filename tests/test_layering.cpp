// core/ is one-way: its folders form a declared order, lowest first, and a file may include only its
// own folder's headers and those of folders below it (docs/architecture.md, "Layers"). So is ui/, with
// an order of its own: the ground floor (the open document, loaders, styles, notes), the timeline, the
// feature folders, the shell on top (HACKING.md, "Layering"). core/ does not
// depend on Qt: no file under core/ includes a Qt header or links a Qt target. And ui/ does not compile
// the protobuf headers: no ui file reaches a generated .pb.h or <google/protobuf/…> through the
// headers it includes (export/exportrequest.h is what the GUI includes to export). Nor does core/job,
// nor any core folder below export: which collective an op is (core/collective) is decided without
// Chakra's messages, and only the writers and readers of an .et map it to them (export/chakra/chakrakind.h).
// The Python module (python/) stands on core alone, as the commands do: no Qt, no ui/ or app/ header,
// no Qt target. Inside io and export, the folder of one format or target does not include another's
// (kSharedSubfolders).

#include "testsupport.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QRegularExpression>

namespace {

// The order of core's folders, lowest first. A new folder is placed here, where its includes allow.
const QStringList kCoreLayers = {
    QStringLiteral("base"),     QStringLiteral("model"),      QStringLiteral("io"),       QStringLiteral("index"),
    QStringLiteral("link"),     QStringLiteral("collective"), QStringLiteral("analysis"), QStringLiteral("edit"),
    QStringLiteral("pipeline"), QStringLiteral("jobmodel"),   QStringLiteral("export"),   QStringLiteral("report"),
    QStringLiteral("job"),      QStringLiteral("predict"),
};

// The order of ui's folders, lowest first; the same rule. A ui folder is never named as a core folder
// is: an include's first folder says which tree it is in.
const QStringList kUiLayers = {
    QStringLiteral("ground"),  QStringLiteral("timeline"), QStringLiteral("review"),  QStringLiteral("prediction"),
    QStringLiteral("jobview"), QStringLiteral("docks"),    QStringLiteral("compare"), QStringLiteral("shell"),
};

// Inside io and export, a folder per format or target (io/kineto, export/chakra, …) includes no other
// one's headers: what two of them share is in the layer's own files (the tables, the readers' and
// writers' common parts) or in one of its shared folders, listed here. The layer's own files include
// every format's folder (they assemble the tables); a shared folder includes none.
const QHash<QString, QStringList> kSharedSubfolders = {
    {QStringLiteral("io"), {QStringLiteral("json"), QStringLiteral("file")}},
    {QStringLiteral("export"), {}},
};

struct IncludeLine {
    int line = 0;
    QString text;   // the directive as written
    QString target; // what it names: "job/crossrank.h", "QString", …
};

QList<IncludeLine> includesOf(const QString &text)
{
    static const QRegularExpression include(QStringLiteral("^\\s*#\\s*include\\s*[<\"]([^>\"]+)[>\"]"));
    QList<IncludeLine> out;
    const QStringList lines = text.split(QLatin1Char('\n'));
    for (int i = 0; i < lines.size(); ++i) {
        const auto match = include.match(lines[i]);
        if (match.hasMatch())
            out.push_back({i + 1, lines[i].trimmed(), match.captured(1)});
    }
    return out;
}

// The include lines of `text` (a file of folder `folder`) that name a folder above `folder` in
// `layers` (kCoreLayers or kUiLayers), as "line N: #include …".
QStringList upwardIncludes(const QStringList &layers, const QString &folder, const QString &text)
{
    QStringList found;
    const qsizetype level = layers.indexOf(folder);
    for (const IncludeLine &inc : includesOf(text)) {
        const qsizetype slash = inc.target.indexOf(QLatin1Char('/'));
        if (slash <= 0)
            continue;
        const qsizetype target = layers.indexOf(inc.target.left(slash));
        if (target > level)
            found << QStringLiteral("line %1: %2 (%3 is above %4)").arg(inc.line).arg(inc.text, inc.target.left(slash), folder);
    }
    return found;
}

// The include lines of `text` (the file `relative`, "io/kineto/kinetoreader.cpp") that name a header
// of another format's or target's folder of its layer (kSharedSubfolders), as "line N: #include …".
QStringList siblingIncludes(const QString &relative, const QString &text)
{
    const QStringList parts = relative.split(QLatin1Char('/'));
    if (parts.size() < 3 || !kSharedSubfolders.contains(parts[0]))
        return {}; // the layer's own files, or another folder's
    const QStringList shared = kSharedSubfolders.value(parts[0]);
    QStringList found;
    for (const IncludeLine &inc : includesOf(text)) {
        const QStringList target = inc.target.split(QLatin1Char('/'));
        if (target.size() < 3 || target[0] != parts[0] || target[1] == parts[1] || shared.contains(target[1]))
            continue;
        found << QStringLiteral("line %1: %2 (%3/%4 is another format's or target's folder)")
                     .arg(inc.line)
                     .arg(inc.text, target[0], target[1]);
    }
    return found;
}

bool isProtobufInclude(const QString &target)
{
    return target.endsWith(QStringLiteral(".pb.h")) || target.startsWith(QStringLiteral("google/protobuf/"));
}

// Every header `path` reaches through its quoted includes, resolved as the build resolves them:
// beside the including file, then under each of `roots`. Returns the protobuf includes reached, each
// with the chain of files that leads to it.
QStringList protobufReachedFrom(const QString &path, const QStringList &roots)
{
    QStringList found;
    QHash<QString, QString> chainTo{{path, QDir::cleanPath(path)}};
    QStringList queue{path};
    while (!queue.isEmpty()) {
        const QString file = queue.takeFirst();
        QFile f(file);
        if (!f.open(QIODevice::ReadOnly))
            continue;
        for (const IncludeLine &inc : includesOf(QString::fromUtf8(f.readAll()))) {
            if (isProtobufInclude(inc.target)) {
                found << chainTo.value(file) + QStringLiteral(" -> ") + inc.target;
                continue;
            }
            QStringList candidates{QFileInfo(file).dir().filePath(inc.target)};
            for (const QString &root : roots)
                candidates << QDir(root).filePath(inc.target);
            for (const QString &candidate : candidates) {
                const QString resolved = QDir::cleanPath(candidate);
                if (!QFileInfo::exists(resolved))
                    continue;
                if (!chainTo.contains(resolved)) {
                    chainTo.insert(resolved, chainTo.value(file) + QStringLiteral(" -> ") + inc.target);
                    queue << resolved;
                }
                break;
            }
        }
    }
    return found;
}

bool isQtInclude(const QString &target)
{
    // <QString>, <QtCore/qstring.h>, "QObject" …
    static const QRegularExpression qt(QStringLiteral("^(Q[A-Za-z]+|Qt[A-Za-z]*/.+)$"));
    return qt.match(target).hasMatch();
}

struct SourceFile {
    QString path;
    QString relative; // under core/ or ui/: "io/kineto/kinetoreader.cpp"
    QString folder;   // the folder under core/ or ui/ ("" for its CMakeLists.txt)
    QString text;
};

// The files of `tree` ("core" or "ui").
QList<SourceFile> sourceFiles(const char *tree)
{
    const QDir dir(QString::fromStdString(linkscope::test::sourcePath(tree)));
    QDirIterator it(dir.path(),
                    {QStringLiteral("*.h"), QStringLiteral("*.hpp"), QStringLiteral("*.cpp"), QStringLiteral("*.txt")},
                    QDir::Files, QDirIterator::Subdirectories);
    QList<SourceFile> files;
    while (it.hasNext()) {
        const QString path = it.next();
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly))
            return {};
        const QString relative = dir.relativeFilePath(path);
        const qsizetype slash = relative.indexOf(QLatin1Char('/'));
        files.push_back({path, relative, slash < 0 ? QString() : relative.left(slash), QString::fromUtf8(file.readAll())});
    }
    return files;
}

} // namespace

class TestLayering : public QObject {
    Q_OBJECT
private slots:
    void checkerFindsAnUpwardInclude()
    {
        // The checker itself, on text: export including job (above it) is found with its line;
        // job including export, a folder including itself, and system headers are not.
        const QString text = QStringLiteral("#pragma once\n#include \"export/exporter.h\"\n#include <vector>\n"
                                            "  #  include \"job/jobrun.h\"\n#include \"base/parallel.h\"\n");
        const QStringList found = upwardIncludes(kCoreLayers, QStringLiteral("export"), text);
        QCOMPARE(found.size(), 1);
        QVERIFY2(found[0].startsWith(QStringLiteral("line 4: #  include \"job/jobrun.h\"")), qPrintable(found[0]));
        QVERIFY(upwardIncludes(kCoreLayers, QStringLiteral("job"), text).isEmpty());
        QVERIFY(upwardIncludes(kCoreLayers, QStringLiteral("predict"), text).isEmpty());
        QCOMPARE(upwardIncludes(kCoreLayers, QStringLiteral("base"), text).size(), 2);
        QVERIFY(isQtInclude(QStringLiteral("QString")));
        QVERIFY(isQtInclude(QStringLiteral("QtCore/qstring.h")));
        QVERIFY(!isQtInclude(QStringLiteral("queue")));
        QVERIFY(!isQtInclude(QStringLiteral("export/exporter.h")));
        QVERIFY(isProtobufInclude(QStringLiteral("export/chakra/et_def.pb.h")));
        QVERIFY(isProtobufInclude(QStringLiteral("google/protobuf/message.h")));
        QVERIFY(!isProtobufInclude(QStringLiteral("export/exportrequest.h")));
        // A format's folder may include its own, the shared ones and the layer's files, not a sibling's;
        // a shared folder no format's.
        const QString reader = QStringLiteral("#include \"io/kineto/kinetometadata.h\"\n#include \"io/json/jsonscan.h\"\n"
                                              "#include \"io/formats.h\"\n#include \"io/hostet/hosttree.h\"\n");
        const QStringList sibling = siblingIncludes(QStringLiteral("io/kineto/kinetoreader.cpp"), reader);
        QCOMPARE(sibling.size(), 1);
        QVERIFY2(sibling[0].startsWith(QStringLiteral("line 4: #include \"io/hostet/hosttree.h\"")), qPrintable(sibling[0]));
        QCOMPARE(siblingIncludes(QStringLiteral("io/json/jsonhead.cpp"), reader).size(), 2);
        QVERIFY(siblingIncludes(QStringLiteral("io/formats.cpp"), reader).isEmpty());
        QVERIFY(siblingIncludes(QStringLiteral("job/discovery.cpp"), reader).isEmpty());
        QCOMPARE(siblingIncludes(QStringLiteral("export/perfetto/perfettowriter.cpp"),
                                 QStringLiteral("#include \"export/chakra/etformat.h\"\n#include \"export/jsonout.h\"\n"))
                     .size(),
                 1);
    }

    void protobufReachIsFollowedThroughHeaders()
    {
        // The walk itself: core's exporter.h reaches the generated header (through etformat.h), the
        // header the GUI exports with does not.
        const QString core = QString::fromStdString(linkscope::test::sourcePath("core"));
        const QStringList throughExporter = protobufReachedFrom(core + QStringLiteral("/export/exporter.h"), {core});
        QVERIFY2(!throughExporter.isEmpty(), "export/exporter.h should reach et_def.pb.h");
        QVERIFY2(throughExporter.join(QLatin1Char('\n'))
                     .contains(QStringLiteral("export/chakra/etformat.h -> export/chakra/et_def.pb.h")),
                 qPrintable(throughExporter.join(QLatin1Char('\n'))));
        const QStringList throughRequest = protobufReachedFrom(core + QStringLiteral("/export/exportrequest.h"), {core});
        QVERIFY2(throughRequest.isEmpty(), qPrintable(throughRequest.join(QLatin1Char('\n'))));
    }

    void uiReachesNoProtobufHeader()
    {
        const QString core = QString::fromStdString(linkscope::test::sourcePath("core"));
        const QString ui = QString::fromStdString(linkscope::test::sourcePath("ui"));
        QDirIterator it(ui, {QStringLiteral("*.h"), QStringLiteral("*.cpp")}, QDir::Files, QDirIterator::Subdirectories);
        int scanned = 0;
        QStringList offenders;
        while (it.hasNext()) {
            const QString path = it.next();
            ++scanned;
            for (const QString &chain : protobufReachedFrom(path, {core, ui}))
                offenders << chain;
        }
        QVERIFY2(scanned >= 5, "expected to scan the ui sources");
        QVERIFY2(offenders.isEmpty(), qPrintable(offenders.join(QLatin1Char('\n'))));
    }

    void jobAndTheFoldersBelowExportReachNoProtobufHeader()
    {
        // Which collective a GPU op is, a job's calls and checks, the pipeline: none of it needs
        // Chakra's messages. The folders below export and core/job, every file, through its includes.
        const QString core = QString::fromStdString(linkscope::test::sourcePath("core"));
        QStringList folders = kCoreLayers.mid(0, kCoreLayers.indexOf(QStringLiteral("export")));
        folders << QStringLiteral("job");
        QVERIFY(folders.contains(QStringLiteral("collective")) && folders.contains(QStringLiteral("jobmodel")));
        int scanned = 0;
        QStringList offenders;
        for (const QString &folder : folders) {
            QDirIterator it(core + QLatin1Char('/') + folder, {QStringLiteral("*.h"), QStringLiteral("*.cpp")}, QDir::Files,
                            QDirIterator::Subdirectories);
            while (it.hasNext()) {
                const QString path = it.next();
                ++scanned;
                for (const QString &chain : protobufReachedFrom(path, {core}))
                    offenders << chain;
            }
        }
        QVERIFY2(scanned >= 20, "expected to scan core/job and the folders below export");
        QVERIFY2(offenders.isEmpty(), qPrintable(offenders.join(QLatin1Char('\n'))));
    }

    void everyCoreFolderHasALayer()
    {
        const QDir coreDir(QString::fromStdString(linkscope::test::sourcePath("core")));
        const QStringList folders = coreDir.entryList(QDir::Dirs | QDir::NoDotAndDotDot);
        QVERIFY2(folders.size() >= 5, "expected to find core's folders");
        QStringList unplaced;
        for (const QString &folder : folders) {
            if (!kCoreLayers.contains(folder))
                unplaced << folder;
        }
        QVERIFY2(unplaced.isEmpty(), qPrintable(QStringLiteral("core folders without a place in kCoreLayers "
                                                               "(tests/test_layering.cpp): ")
                                                + unplaced.join(QStringLiteral(", "))));
    }

    void coreIncludesOnlyDownward()
    {
        const QList<SourceFile> files = sourceFiles("core");
        QVERIFY2(files.size() >= 5, "expected to scan the core sources");
        QStringList offenders;
        for (const SourceFile &file : files) {
            if (file.folder.isEmpty())
                continue;
            for (const QString &found : upwardIncludes(kCoreLayers, file.folder, file.text))
                offenders << file.path + QStringLiteral(": ") + found;
        }
        QVERIFY2(offenders.isEmpty(), qPrintable(offenders.join(QLatin1Char('\n'))));
    }

    void uiCheckerFindsAnUpwardInclude()
    {
        // The same checker with ui's order: review including the shell (above it) is found with its
        // line; review including the ground floor, the timeline, itself or a core folder is not.
        const QString text = QStringLiteral("#include \"review/bookmarkui.h\"\n#include \"ground/tracedocument.h\"\n"
                                            "#include \"timeline/timelineview.h\"\n#include \"link/linkset.h\"\n"
                                            "#include \"shell/mainwindow.h\"\n#include <QMenu>\n");
        const QStringList found = upwardIncludes(kUiLayers, QStringLiteral("review"), text);
        QCOMPARE(found.size(), 1);
        QVERIFY2(found[0] == QStringLiteral("line 5: #include \"shell/mainwindow.h\" (shell is above review)"),
                 qPrintable(found[0]));
        QVERIFY(upwardIncludes(kUiLayers, QStringLiteral("shell"), text).isEmpty());
        QCOMPARE(upwardIncludes(kUiLayers, QStringLiteral("ground"), text).size(), 3);
    }

    void everyUiFolderHasALayer()
    {
        const QDir uiDir(QString::fromStdString(linkscope::test::sourcePath("ui")));
        const QStringList folders = uiDir.entryList(QDir::Dirs | QDir::NoDotAndDotDot);
        QVERIFY2(folders.size() >= 5, "expected to find ui's folders");
        QStringList unplaced;
        for (const QString &folder : folders) {
            if (!kUiLayers.contains(folder))
                unplaced << folder;
        }
        QVERIFY2(unplaced.isEmpty(), qPrintable(QStringLiteral("ui folders without a place in kUiLayers "
                                                               "(tests/test_layering.cpp): ")
                                                + unplaced.join(QStringLiteral(", "))));
        for (const QString &folder : kUiLayers)
            QVERIFY2(!kCoreLayers.contains(folder), qPrintable(folder + QStringLiteral(" is both a ui and a core folder")));
    }

    void uiIncludesOnlyDownward()
    {
        const QList<SourceFile> files = sourceFiles("ui");
        QVERIFY2(files.size() >= 5, "expected to scan the ui sources");
        QStringList offenders;
        for (const SourceFile &file : files) {
            if (file.folder.isEmpty())
                continue;
            for (const QString &found : upwardIncludes(kUiLayers, file.folder, file.text))
                offenders << file.path + QStringLiteral(": ") + found;
        }
        QVERIFY2(offenders.isEmpty(), qPrintable(offenders.join(QLatin1Char('\n'))));
    }

    void formatFoldersIncludeNoSibling()
    {
        const QList<SourceFile> files = sourceFiles("core");
        QVERIFY2(files.size() >= 5, "expected to scan the core sources");
        int inFormatFolders = 0;
        QStringList offenders;
        for (const SourceFile &file : files) {
            inFormatFolders += file.relative.count(QLatin1Char('/')) >= 2 && kSharedSubfolders.contains(file.folder) ? 1 : 0;
            for (const QString &found : siblingIncludes(file.relative, file.text))
                offenders << file.path + QStringLiteral(": ") + found;
        }
        QVERIFY2(inFormatFolders >= 20, "expected to scan io's and export's folders");
        QVERIFY2(offenders.isEmpty(), qPrintable(offenders.join(QLatin1Char('\n'))));
    }

    void coreIncludesNoQtHeader()
    {
        const QList<SourceFile> files = sourceFiles("core");
        QVERIFY2(files.size() >= 5, "expected to scan the core sources");
        QStringList offenders;
        for (const SourceFile &file : files) {
            for (const IncludeLine &inc : includesOf(file.text)) {
                if (isQtInclude(inc.target))
                    offenders << file.path + QStringLiteral(":%1: ").arg(inc.line) + inc.text;
            }
            if (file.path.endsWith(QStringLiteral("CMakeLists.txt")) && file.text.contains(QStringLiteral("Qt6::")))
                offenders << file.path + QStringLiteral(": links a Qt target");
        }
        QVERIFY2(offenders.isEmpty(), qPrintable(offenders.join(QLatin1Char('\n'))));
    }

    void pythonModuleIncludesCoreOnly()
    {
        const QString python = QString::fromStdString(linkscope::test::sourcePath("python"));
        const QString core = QString::fromStdString(linkscope::test::sourcePath("core"));
        const QString binding = python + QStringLiteral("/binding");
        QDirIterator it(python, {QStringLiteral("*.h"), QStringLiteral("*.cpp"), QStringLiteral("CMakeLists.txt")}, QDir::Files,
                        QDirIterator::Subdirectories);
        int scanned = 0;
        QStringList offenders;
        while (it.hasNext()) {
            const QString path = it.next();
            QFile file(path);
            if (!file.open(QIODevice::ReadOnly))
                continue;
            ++scanned;
            const QString text = QString::fromUtf8(file.readAll());
            if (path.endsWith(QStringLiteral("CMakeLists.txt"))) {
                for (const QString &target :
                     {QStringLiteral("Qt6::"), QStringLiteral("linkscope::ui"), QStringLiteral("linkscope_cli")})
                    if (text.contains(target))
                        offenders << path + QStringLiteral(": links ") + target;
                continue;
            }
            for (const IncludeLine &inc : includesOf(text)) {
                const bool own = QFileInfo::exists(binding + QLatin1Char('/') + inc.target);
                const bool fromCore = QFileInfo::exists(core + QLatin1Char('/') + inc.target);
                const bool system = !inc.target.contains(QLatin1Char('/')) || inc.text.contains(QLatin1Char('<'));
                if (isQtInclude(inc.target) || (!own && !fromCore && !system))
                    offenders << path + QStringLiteral(":%1: ").arg(inc.line) + inc.text;
            }
        }
        QVERIFY2(scanned >= 3, "expected to scan the Python module's sources");
        QVERIFY2(offenders.isEmpty(), qPrintable(offenders.join(QLatin1Char('\n'))));
    }
};

QTEST_GUILESS_MAIN(TestLayering)
#include "test_layering.moc"
