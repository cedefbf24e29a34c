#pragma once

#include "flatlistmodel.h"
#include "report/inputset.h"

#include <QStringList>
#include <QVector>

#include <optional>

namespace jitscope {

/// The input sets a check runs, one row each in the CLI's SET syntax, editable and validated with
/// parseInputSet(): an invalid row keeps its text and carries the parse error and its position. The first set is
/// the one traced; the others check the trace.
class InputSetsModel : public FlatListModel
{
    Q_OBJECT
public:
    enum Columns { SetColumn, InfoColumn, NumColumns };
    enum Roles {
        ValidRole = Qt::UserRole, ///< bool: the text parses
        ErrorRole, ///< QString: the parse error, empty when valid
        ErrorPositionRole, ///< int: 0-based index of the offending character, -1 when valid
        TextRole, ///< QString: the set as typed
    };

    explicit InputSetsModel(QObject* parent = nullptr);

    /// Replaces all rows (not an edit: setsEdited() is not emitted).
    void setSets(const QVector<InputSet>& sets);
    void setTexts(const QStringList& texts);
    QStringList texts() const;
    /// The parsed sets in order; false in *ok (and invalid rows skipped) when a row does not parse.
    QVector<InputSet> sets(bool* ok = nullptr) const;
    int invalidCount() const;
    /// The first invalid row, or -1.
    int firstInvalidRow() const;

    /// Appends a row (copying the last set, or a small tensor when there is none); returns its row.
    int addSet(const QString& text = QString());
    int duplicateSet(int row);
    bool removeSet(int row);
    /// Moves a row up (-1) or down (+1); returns the new row, or -1 when it cannot move.
    int moveSet(int row, int delta);

    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    bool insertRows(int row, int count, const QModelIndex& parent = {}) override;
    bool removeRows(int row, int count, const QModelIndex& parent = {}) override;
    bool moveRows(const QModelIndex& sourceParent, int sourceRow, int count, const QModelIndex& destinationParent,
        int destinationChild) override;

    /// The error text and a caret under the bad character, as the tooltip shows it (HTML).
    static QString errorToolTip(const QString& text, const InputParseError& error);

protected:
    int itemCount() const override;
    QString columnTitle(int column) const override;

Q_SIGNALS:
    /// The user changed the sets: edited, added, removed or moved a row.
    void setsEdited();

private:
    struct Row
    {
        QString text;
        std::optional<InputSet> set;
        InputParseError error;
    };
    static Row makeRow(const QString& text);

    QVector<Row> m_rows;
};

} // namespace jitscope
