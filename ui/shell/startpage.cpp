#include "shell/startpage.h"

#include <QCoreApplication>
#include <QDir>
#include <QEvent>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QStandardPaths>
#include <QVBoxLayout>

#include <algorithm>

namespace linkscope::ui {

namespace {
constexpr int kEntryRole = Qt::UserRole;
const char *const kSampleHost = "sample_host_et.json";
const char *const kSampleDevice = "sample_kineto.json";
} // namespace

StartPage::StartPage(QWidget *under) : QFrame(under), m_under(under)
{
    setObjectName(QStringLiteral("StartPage"));
    setAutoFillBackground(true);
    setFrameShape(QFrame::NoFrame);
    auto *outer = new QHBoxLayout(this);
    outer->addStretch(1);
    auto *column = new QVBoxLayout;
    column->addStretch(1);
    auto *title = new QLabel(tr("<h2>Linkscope</h2>Link the GPU ops of a PyTorch trace to their CPU parents, find what is wrong, "
                                "correct it and export for ASTRA-sim."),
                             this);
    title->setWordWrap(true);
    column->addWidget(title);
    auto *buttons = new QHBoxLayout;
    m_openPair = new QPushButton(tr("Open &pair…"), this);
    m_openPair->setToolTip(tr("A host ET and its Kineto trace (or a Kineto trace alone), in either order"));
    m_openJob = new QPushButton(tr("Open &job folder…"), this);
    m_openJob->setToolTip(tr("A folder with a host ET and a Kineto trace per rank"));
    m_sample = new QPushButton(tr("Open the bundled &sample"), this);
    const auto [host, device] = samplePair();
    m_sample->setEnabled(!device.isEmpty());
    m_sample->setToolTip(device.isEmpty()
                             ? tr("The sample (share/linkscope/samples) is not installed beside this program")
                             : QDir::toNativeSeparators(host) + QLatin1Char('\n') + QDir::toNativeSeparators(device));
    for (QPushButton *b : {m_openPair, m_openJob, m_sample}) {
        b->setAutoDefault(true); // Enter presses the focused one
        buttons->addWidget(b);
    }
    buttons->addStretch(1);
    column->addLayout(buttons);
    auto *recentTitle = new QLabel(tr("<b>&Recent</b> (Enter or a double-click opens it)"), this);
    column->addWidget(recentTitle);
    m_recent = new QListWidget(this);
    m_recent->setObjectName(QStringLiteral("StartPageRecent"));
    m_recent->setMinimumHeight(80);
    recentTitle->setBuddy(m_recent);
    column->addWidget(m_recent, 2);
    column->addStretch(1);
    outer->addLayout(column, 4);
    outer->addStretch(1);
    setTabOrder(m_openPair, m_openJob);
    setTabOrder(m_openJob, m_sample);
    setTabOrder(m_sample, m_recent);

    connect(m_openPair, &QPushButton::clicked, this, &StartPage::openPairRequested);
    connect(m_openJob, &QPushButton::clicked, this, &StartPage::openJobRequested);
    connect(m_sample, &QPushButton::clicked, this, [this] {
        const auto [h, d] = samplePair();
        if (!d.isEmpty())
            emit openRecentRequested({h, d, {}});
    });
    connect(m_recent, &QListWidget::itemActivated, this, [this](QListWidgetItem *item) {
        const int row = item->data(kEntryRole).toInt();
        if (row >= 0 && row < m_entries.size() && m_entries.at(row).exists())
            emit openRecentRequested(m_entries.at(row));
    });
    setGeometry(under->rect());
    under->installEventFilter(this);
    hide(); // until the main window says nothing is open
}

std::pair<QString, QString> StartPage::samplePair()
{
    QStringList dirs{QCoreApplication::applicationDirPath() + QStringLiteral("/../share/linkscope/samples")};
    dirs << QStandardPaths::locateAll(QStandardPaths::GenericDataLocation, QStringLiteral("linkscope/samples"),
                                      QStandardPaths::LocateDirectory);
#ifdef LINKSCOPE_SAMPLES_DIR
    dirs << QStringLiteral(LINKSCOPE_SAMPLES_DIR); // the source tree's, for a build that is not installed
#endif
    for (const QString &dir : dirs) {
        const QString host = QDir(dir).filePath(QLatin1String(kSampleHost));
        const QString device = QDir(dir).filePath(QLatin1String(kSampleDevice));
        if (QFileInfo(host).isFile() && QFileInfo(device).isFile())
            return {QFileInfo(host).absoluteFilePath(), QFileInfo(device).absoluteFilePath()};
    }
    return {};
}

void StartPage::refresh()
{
    m_recent->clear();
    m_entries = recent::pairs() + recent::jobs();
    const int folderWidth = std::max(200, width() / 3);
    for (int i = 0; i < m_entries.size(); ++i) {
        const RecentEntry &e = m_entries.at(i);
        const bool there = e.exists();
        auto *item = new QListWidgetItem(e.text(fontMetrics(), folderWidth) + (there ? QString() : tr(" (no longer there)")),
                                         m_recent);
        item->setData(kEntryRole, i);
        item->setToolTip(e.toolTip());
        if (!there)
            item->setFlags(item->flags() & ~Qt::ItemIsEnabled); // greyed, skipped by the keys
    }
    if (m_entries.isEmpty()) {
        auto *none = new QListWidgetItem(tr("Nothing opened yet: the pairs and jobs you open are listed here"), m_recent);
        none->setFlags(Qt::NoItemFlags);
    }
    // The first entry that can be opened is current: Tab to the list, then Enter.
    for (int i = 0; i < m_recent->count(); ++i)
        if (m_recent->item(i)->flags() & Qt::ItemIsEnabled) {
            m_recent->setCurrentRow(i);
            break;
        }
}

bool StartPage::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_under && event->type() == QEvent::Resize)
        setGeometry(m_under->rect());
    return QFrame::eventFilter(watched, event);
}

void StartPage::showEvent(QShowEvent *event)
{
    QFrame::showEvent(event);
    setGeometry(m_under->rect());
    raise();
}

} // namespace linkscope::ui
