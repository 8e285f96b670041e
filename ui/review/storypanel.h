#pragma once
// The story on the first screen: a compact panel above the Findings that says, for the links shown
// (corrections included), what Chakra 1.0's rule and the rule before Chakra PR #185 would have done
// differently (compared_with_chakra, link/chakracompare.h) and when a policy cannot apply to the
// pair (link/policynotices.h). Each count is a link: clicking it asks for the Findings (and the
// search results) to show those GPU ops.

#include "ground/tracedocument.h"
#include "link/chakracompare.h"
#include "link/policynotices.h"

#include <QFrame>

#include <optional>
#include <vector>

class QLabel;

namespace linkscope::ui {

class StoryPanel : public QFrame {
    Q_OBJECT
public:
    explicit StoryPanel(QWidget *parent = nullptr);

    // The document shown (the corrected links). After a correction the comparison is updated for
    // the GPU links it changed; otherwise compared again (O(GPU ops + edges)).
    void setDocument(DocumentPtr doc);

    // Null before a document with Chakra's links is shown.
    const core::ChakraComparison *comparison() const { return m_comparison ? &*m_comparison : nullptr; }
    const std::vector<core::Notice> &notices() const { return m_notices; }
    QLabel *label() const { return m_label; }
    QString plainText() const;

    // What a click on a count does. Links: "<rule>:<what>" with rule chakra10 or pre185 and what
    // parent, collective, dropped or sync; "notice:<n>".
    void activate(const QString &link);

    // The height its wrapped text needs at the width it has (never squeezed below it). A wrapped
    // label's own hints are its height at its narrowest: 164 px for three lines that take 52 in
    // the Findings dock at 1920 px, which held that dock (and so the lanes above it) 110 px
    // taller than needed.
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

signals:
    // Show these events (sorted DeviceTrace indices) under this title.
    void showEventsRequested(const QString &title, const std::vector<core::EventIndex> &events);

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    void rebuild();
    int wrapWidth() const;
    QSize withTextHeight(QSize hint) const; // `hint` with the height of the text at wrapWidth()
    // The comparison for m_doc from `before`'s (a correction of it); nullopt when it must be made again.
    std::optional<core::ChakraComparison> updatedComparison(const TraceDocument &before,
                                                            const core::ChakraComparison &previous) const;
    QString ruleLine(const QString &key, const QString &title, const core::RuleComparison &c) const;

    QLabel *m_label;
    DocumentPtr m_doc;
    std::optional<core::ChakraComparison> m_comparison;
    std::vector<core::Notice> m_notices;
};

} // namespace linkscope::ui
