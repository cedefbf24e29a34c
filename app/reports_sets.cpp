// What a set of a check came to, for the JUnit, Markdown and HTML reports (reports_p.h).

#include "reports_p.h"

#include <QFileInfo>

namespace jitscope::reports {

QString shortWhere(const SourceLocation& l)
{
    return l.isValid() ? QStringLiteral("%1:%2").arg(QFileInfo(l.file).fileName()).arg(l.line) : QString();
}

QStringList causes(const TraceDiff& d)
{
    QStringList out;
    for (const Divergence& v : d.divergences)
        out << v.message;
    return out;
}

const TraceDiff* diffOf(const CheckReport& r, int trace)
{
    for (const TraceDiff& d : r.diffs)
        if (d.other == trace)
            return &d;
    return nullptr;
}

QString failureMessage(const CheckReport& r, int k, const QString& reference)
{
    QStringList parts;
    if (const TraceDiff* d = diffOf(r, k); d && (!d->equal || !d->divergences.isEmpty()))
        parts << (causes(*d).isEmpty() ? QStringLiteral("records a different graph than trace 1")
                                       : causes(*d).join(QStringLiteral("; ")));
    if (k - 1 < r.outputs.size()) {
        const OutputCheck& o = r.outputs[k - 1];
        parts += o.bakedSizes;
        if (!o.ran && !o.error.isEmpty())
            parts << o.error;
        else if (o.ran && !o.comparison.equal)
            parts << QStringLiteral("outputs differ from %1's: %2").arg(reference, o.comparison.message);
    }
    if (!r.traces[k].ok)
        parts << QStringLiteral("the trace failed: %1").arg(r.traces[k].error.message);
    return parts.join(QStringLiteral("; "));
}

QString setResult(const CheckReport& r, int k, const QString& reference)
{
    if (k == 0)
        return r.traces[0].ok ? QStringLiteral("traced (reference)") : r.traces[0].error.message;
    const QString failure = failureMessage(r, k, reference);
    return failure.isEmpty() ? QStringLiteral("same graph, outputs match") : failure;
}

QString exportResult(const ExportSetRow& row)
{
    if (row.status.isEmpty())
        return QStringLiteral("-");
    if (row.status == QLatin1String("guard"))
        return QStringLiteral("fails a guard");
    if (row.status == QLatin1String("outputs-differ"))
        return QStringLiteral("outputs differ");
    if (row.status == QLatin1String("error"))
        return QStringLiteral("raises");
    return row.status;
}

QString exportFindingLine(const ExportFinding& f)
{
    QString s = QStringLiteral("[%1] %2").arg(f.kind, f.message);
    if (f.libraryLocation.isValid())
        s += QStringLiteral(" at %1 (from %2)").arg(shortWhere(f.libraryLocation), shortWhere(f.userLocation));
    else if (f.userLocation.isValid())
        s += QStringLiteral(" at %1").arg(shortWhere(f.userLocation));
    if (!f.expression.isEmpty())
        s += QStringLiteral(": `%1`").arg(f.expression);
    return s;
}

} // namespace jitscope::reports
