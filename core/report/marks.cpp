#include "report/marks.h"

namespace jitscope {

namespace {

const DiffMark marks[] = {
    { DiffStatus::Unchanged, "unchanged", "", "", 0, 0, 0 },
    { DiffStatus::Inserted, "inserted", "+", "+", 0x1a7f37, 0x3fb950, 0xd3f5db },
    { DiffStatus::Deleted, "deleted", "\u2212", "&minus;", 0xcf222e, 0xf85149, 0xffdcd9 },
    { DiffStatus::Changed, "changed", "~", "~", 0xbf8700, 0xd29922, 0xffecb3 },
};

} // namespace

const DiffMark& diffMark(DiffStatus status)
{
    for (const DiffMark& m : marks)
        if (m.status == status)
            return m;
    return marks[0];
}

DiffStatus diffStatusOf(NodeChange::Op op)
{
    switch (op) {
    case NodeChange::Op::Insert:
        return DiffStatus::Inserted;
    case NodeChange::Op::Delete:
        return DiffStatus::Deleted;
    case NodeChange::Op::Change:
        break;
    }
    return DiffStatus::Changed;
}

QString rgbName(unsigned rgb)
{
    return QStringLiteral("#%1").arg(rgb & 0xffffff, 6, 16, QLatin1Char('0'));
}

} // namespace jitscope
