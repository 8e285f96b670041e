// core/ must not depend on Qt: no file under core/ may include a Qt header.

#include "testsupport.h"

#include <QDirIterator>
#include <QFile>
#include <QRegularExpression>

class TestLayering : public QObject {
    Q_OBJECT
private slots:
    void coreIncludesNoQtHeader()
    {
        const QString coreDir = QString::fromStdString(linkscope::test::sourcePath("core"));
        // <QString>, <QtCore/qstring.h>, "QObject" ...
        const QRegularExpression qtInclude(
            QString::fromLatin1("^\\s*#\\s*include\\s*[<\"](Q[A-Za-z]+|Qt[A-Za-z]*/[^>\"]+)[>\"]"),
            QRegularExpression::MultilineOption);
        QDirIterator it(coreDir, {QStringLiteral("*.h"), QStringLiteral("*.hpp"), QStringLiteral("*.cpp"), QStringLiteral("*.txt")},
                        QDir::Files, QDirIterator::Subdirectories);
        int scanned = 0;
        QStringList offenders;
        while (it.hasNext()) {
            const QString path = it.next();
            QFile file(path);
            QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(path));
            const QString text = QString::fromUtf8(file.readAll());
            ++scanned;
            auto match = qtInclude.match(text);
            if (match.hasMatch())
                offenders << path + QStringLiteral(": ") + match.captured(0).trimmed();
            if (path.endsWith(QStringLiteral("CMakeLists.txt")) && text.contains(QStringLiteral("Qt6::")))
                offenders << path + QStringLiteral(": links a Qt target");
        }
        QVERIFY2(scanned >= 5, "expected to scan the core sources");
        QVERIFY2(offenders.isEmpty(), qPrintable(offenders.join(QLatin1Char('\n'))));
    }
};

QTEST_GUILESS_MAIN(TestLayering)
#include "test_layering.moc"
