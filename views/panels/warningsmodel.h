#pragma once

#include "flatlistmodel.h"
#include "report/tracewarning.h"

#include <QStringList>
#include <QVector>

namespace jitscope {

/// The warnings of a check, one row each: kind (with a severity icon), message, the input set whose trace raised
/// it and the source line; the suggested fix is in the tooltip. Filled from the report's warnings by setWarnings().
class WarningsModel : public FlatListModel
{
    Q_OBJECT
public:
    enum Columns { KindColumn, MessageColumn, InputSetColumn, LineColumn, NumColumns };
    enum Roles {
        KindRole = Qt::UserRole, ///< QString: TraceWarning::kind's name
        SeverityRole, ///< int: a Severity
        TraceIndexRole, ///< int: the trace (input set) it belongs to
        TraceNodeRole, ///< int: node id in that trace, -1 if none
        ScriptNodeRole, ///< int: node id in the script graph, -1 if none
        LineRole, ///< int: 1-based source line, 0 if none
        SuggestionRole, ///< QString: how to fix it
    };
    using Severity = WarningSeverity;

    explicit WarningsModel(QObject* parent = nullptr);

    /// @p inputSets are the sets' texts in trace order, for the Input set column.
    void setWarnings(const QVector<TraceWarning>& warnings, const QStringList& inputSets);
    void clear();
    const TraceWarning& warning(int row) const { return m_warnings.at(row); }
    const QVector<TraceWarning>& warnings() const { return m_warnings; }
    int count(Severity severity) const;

    static Severity severityOf(WarningKind kind) { return warningSeverity(kind); }

    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

protected:
    int itemCount() const override;
    QString columnTitle(int column) const override;

private:
    QVector<TraceWarning> m_warnings;
    QStringList m_inputSets;
};

} // namespace jitscope
