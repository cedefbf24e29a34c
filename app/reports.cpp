#include "reports.h"

#include "report/marks.h"
#include "report/tracewarning.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QHash>
#include <QRegularExpression>
#include <QStringList>
#include <QXmlStreamWriter>

#include <algorithm>
#include <functional>

namespace jitscope {

namespace {

QString shortWhere(const SourceLocation& l)
{
    return l.isValid() ? QStringLiteral("%1:%2").arg(QFileInfo(l.file).fileName()).arg(l.line) : QString();
}

/// The divergences' messages of a diff, in order.
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

/// Set k's divergences as text: each with its place and evidence, then its changed nodes.
QString divergenceText(const CheckReport& r, const TraceDiff& d)
{
    return divergencesText(r, d, {}, true);
}

/// Why set @p k (0-based, k >= 1) fails, or empty when it passes.
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

/// What a set came to, in a table row of the Markdown and HTML reports.
QString setResult(const CheckReport& r, int k, const QString& reference)
{
    if (k == 0)
        return r.traces[0].ok ? QStringLiteral("traced (reference)") : r.traces[0].error.message;
    const QString failure = failureMessage(r, k, reference);
    return failure.isEmpty() ? QStringLiteral("same graph, outputs match") : failure;
}

QString suiteName(const ReportInput& in, const ReportEntry& e)
{
    return QStringLiteral("%1::%2").arg(in.path, e.name);
}

QString warningLine(const TraceWarning& w)
{
    return QStringLiteral("[%1] trace %2: %3%4")
        .arg(warningKindName(w.kind))
        .arg(w.traceIndex + 1)
        .arg(w.message,
            w.location.isValid() ? QStringLiteral(" (") + w.location.toString() + QLatin1Char(')') : QString());
}

// ---------------------------------------------------------------------------------------------------------------
// SVG of a laid-out graph, drawn as the window draws it: rounded boxes, category fills, diff outlines.

QString esc(const QString& s)
{
    return s.toHtmlEscaped();
}

QString graphSvg(
    const ReportInput& in, const IrGraph& graph, const QHash<int, DiffStatus>& marks, const QString& title)
{
    if (!in.layout)
        return QStringLiteral("<p>%1: %2 nodes (no layout)</p>").arg(esc(title)).arg(graph.nodes.size());
    static int serial = 0; // each inline SVG's arrowhead gets an id of its own on the page
    const QString arrow = QStringLiteral("arrow%1").arg(++serial);
    LayoutOptions options;
    const GraphLayout layout = in.layout(graph, options);
    if (!layout.error.isEmpty())
        return QStringLiteral("<p class=\"error\">%1</p>").arg(esc(layout.error));
    const QRectF b = layout.bounds.adjusted(-8, -8, 8, 8);
    QString s;
    s += QStringLiteral(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" aria-label=\"%1\" viewBox=\"%2 %3 %4 %5\" "
        "width=\"%4\" style=\"max-width:100%%;height:auto\">\n")
             .arg(esc(title))
             .arg(b.x())
             .arg(b.y())
             .arg(b.width())
             .arg(b.height());
    s += QStringLiteral("<title>%1</title>\n<defs><marker id=\"%2\" viewBox=\"0 0 8 8\" refX=\"7\" refY=\"4\" "
                        "markerWidth=\"6\" markerHeight=\"6\" orient=\"auto\"><path d=\"M0,0 L8,4 L0,8 z\" "
                        "fill=\"#8c939d\"/></marker></defs>\n")
             .arg(esc(title), arrow);
    for (const LayoutCluster& c : layout.clusters)
        s += QStringLiteral("<g class=\"cluster\"><rect x=\"%1\" y=\"%2\" width=\"%3\" height=\"%4\" rx=\"6\"/>"
                            "<text x=\"%5\" y=\"%6\">%7</text></g>\n")
                 .arg(c.box.x())
                 .arg(c.box.y())
                 .arg(c.box.width())
                 .arg(c.box.height())
                 .arg(c.box.x() + 6)
                 .arg(c.box.y() + 12)
                 .arg(esc(c.title));
    for (const LayoutEdge& e : layout.edges) {
        if (e.points.size() < 4)
            continue;
        QString d = QStringLiteral("M%1,%2").arg(e.points[0].x()).arg(e.points[0].y());
        for (int i = 1; i + 2 < e.points.size(); i += 3)
            d += QStringLiteral(" C%1,%2 %3,%4 %5,%6")
                     .arg(e.points[i].x())
                     .arg(e.points[i].y())
                     .arg(e.points[i + 1].x())
                     .arg(e.points[i + 1].y())
                     .arg(e.points[i + 2].x())
                     .arg(e.points[i + 2].y());
        s += QStringLiteral("<path class=\"edge\" d=\"%1\"%2/>\n")
                 .arg(d, e.hasArrow ? QStringLiteral(" marker-end=\"url(#%1)\"").arg(arrow) : QString());
    }
    for (const LayoutNode& n : layout.nodes) {
        const DiffStatus m = marks.value(n.nodeId, DiffStatus::Unchanged);
        const QString mark
            = m == DiffStatus::Unchanged ? QString() : QLatin1Char(' ') + QString::fromLatin1(diffMark(m).name);
        const QString cls
            = QStringLiteral("node cat-%1%2")
                  .arg(opCategoryName(n.category).toLower().remove(QRegularExpression(QStringLiteral("[^a-z]"))), mark);
        s += QStringLiteral("<g class=\"%1\"><rect x=\"%2\" y=\"%3\" width=\"%4\" height=\"%5\" rx=\"5\"/>")
                 .arg(cls)
                 .arg(n.box.x())
                 .arg(n.box.y())
                 .arg(n.box.width())
                 .arg(n.box.height());
        double y = n.box.y() + 14;
        s += QStringLiteral("<text class=\"title\" x=\"%1\" y=\"%2\">%3</text>")
                 .arg(n.box.center().x())
                 .arg(y)
                 .arg(esc(n.title));
        for (const QString& detail : n.details) {
            y += 12;
            s += QStringLiteral("<text class=\"detail\" x=\"%1\" y=\"%2\">%3</text>")
                     .arg(n.box.center().x())
                     .arg(y)
                     .arg(esc(detail));
        }
        s += QStringLiteral("</g>\n");
    }
    s += QStringLiteral("</svg>\n");
    return s;
}

const char* const kStyle = R"(
:root { color-scheme: light; }
body { font: 14px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 1200px; padding: 0 1em; color: #1f2328; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #d0d7de; }
.verdict { display: inline-block; padding: .2em .7em; border-radius: 1em; font-weight: 600; }
.verdict.diverged { background: #ffdcd9; color: #82071e; } .verdict.consistent { background: #d3f5db; color: #116329; }
table { border-collapse: collapse; width: 100%; margin: .5em 0; } td, th { border: 1px solid #d0d7de; padding: .3em .5em;
  text-align: left; vertical-align: top; } th { background: #f6f8fa; }
code, pre { font: 12px/1.4 ui-monospace, monospace; } pre.source { background: #f6f8fa; padding: .5em; overflow-x: auto; }
pre.source span.line { display: block; } pre.source span.line:target, pre.source span.hit { background: #fff8c5; }
pre.source span.no { display: inline-block; width: 3em; color: #6e7781; user-select: none; }
span.mark { color: #cf222e; font-weight: 700; }
.graphs { display: flex; flex-wrap: wrap; gap: 1em; } .graphs figure { margin: 0; flex: 1 1 360px; overflow: auto;
  border: 1px solid #d0d7de; border-radius: 6px; background: #fafbfc; } figcaption { padding: .3em .6em; font-weight: 600; }
svg text { font: 10px Helvetica, Arial, sans-serif; text-anchor: middle; fill: #1f2328; } svg text.detail { fill: #4b5563; font-size: 9px; }
svg .edge { fill: none; stroke: #8c939d; stroke-width: 1; } svg .cluster rect { fill: none; stroke: #c7ccd1; stroke-dasharray: 4 3; }
svg .cluster text { text-anchor: start; fill: #6b7280; } svg .node rect { fill: #f3f4f6; stroke: #9aa1a9; }
svg .node.cat-input rect, svg .node.cat-output rect { fill: #e1e8f0; } svg .node.cat-convlinear rect { fill: #cde3fa; }
svg .node.cat-arithmetic rect { fill: #fce2cf; } svg .node.cat-shapeview rect { fill: #ece6da; }
svg .node.inserted rect { fill: {inserted.fill}; stroke: {inserted.color}; stroke-width: 2.5; }
svg .node.deleted rect { fill: {deleted.fill}; stroke: {deleted.color}; stroke-width: 2.5; }
svg .node.changed rect { fill: {changed.fill}; stroke: {changed.color}; stroke-width: 2.5; }
.legend span { display: inline-block; padding: 0 .5em; margin-right: .5em; border: 2px solid; border-radius: 4px; }
.legend .inserted { background: {inserted.fill}; border-color: {inserted.color}; } .legend .deleted { background: {deleted.fill}; border-color: {deleted.color}; }
.legend .changed { background: {changed.fill}; border-color: {changed.color}; }
@media print { .graphs figure { break-inside: avoid; } body { max-width: none; } }
)";

/// The page's style sheet, the diff colours ({inserted.fill}, {deleted.color}, ...) from the table of marks.
QString pageStyle()
{
    QString style = QString::fromUtf8(kStyle);
    for (DiffStatus status : { DiffStatus::Inserted, DiffStatus::Deleted, DiffStatus::Changed }) {
        const DiffMark& m = diffMark(status);
        style.replace(QStringLiteral("{%1.fill}").arg(QLatin1String(m.name)), rgbName(m.fill));
        style.replace(QStringLiteral("{%1.color}").arg(QLatin1String(m.name)), rgbName(m.color));
    }
    return style;
}

} // namespace

ReportInput ReportInput::single(const QString& path, const QString& source, const CheckReport& report,
    const QStringList& sets, const QString& htmlReport)
{
    ReportInput in;
    in.path = path;
    in.source = source;
    in.entries.push_back(ReportEntry { &report, report.function, sets });
    in.htmlReport = htmlReport;
    return in;
}

QByteArray junitReport(const ReportInput& in)
{
    QByteArray data;
    QXmlStreamWriter x(&data);
    x.setAutoFormatting(true);
    x.writeStartDocument();
    auto failuresOf = [&](const CheckReport& r) {
        int failures = 0;
        for (int k = 1; k < r.traces.size(); ++k)
            failures += !failureMessage(r, k, in.reference).isEmpty();
        return failures + int(r.traces.isEmpty() || !r.traces[0].ok);
    };
    auto testsOf = [](const CheckReport& r) { return std::max<qsizetype>(r.traces.size(), 1); };
    qsizetype tests = 0;
    int failures = 0;
    for (const ReportEntry& e : in.entries) {
        tests += testsOf(*e.report);
        failures += failuresOf(*e.report);
    }
    x.writeStartElement(QStringLiteral("testsuites"));
    x.writeAttribute(QStringLiteral("name"), QStringLiteral("jitscope check"));
    x.writeAttribute(QStringLiteral("tests"), QString::number(tests));
    x.writeAttribute(QStringLiteral("failures"), QString::number(failures));
    for (const ReportEntry& e : in.entries) {
        const CheckReport& r = *e.report;
        x.writeStartElement(QStringLiteral("testsuite"));
        x.writeAttribute(QStringLiteral("name"), suiteName(in, e));
        x.writeAttribute(QStringLiteral("tests"), QString::number(testsOf(r)));
        x.writeAttribute(QStringLiteral("failures"), QString::number(failuresOf(r)));
        x.writeAttribute(QStringLiteral("errors"), QStringLiteral("0"));
        for (int k = 0; k < r.traces.size(); ++k) {
            x.writeStartElement(QStringLiteral("testcase"));
            x.writeAttribute(QStringLiteral("classname"), suiteName(in, e));
            x.writeAttribute(QStringLiteral("name"),
                QStringLiteral("set %1: %2%3")
                    .arg(k + 1)
                    .arg(e.sets.value(k), k == 0 ? QStringLiteral(" (traced)") : QString()));
            const QString message = k == 0 ? (r.traces[0].ok ? QString() : r.traces[0].error.toString())
                                           : failureMessage(r, k, in.reference);
            if (!message.isEmpty()) {
                x.writeStartElement(QStringLiteral("failure"));
                x.writeAttribute(QStringLiteral("message"), message);
                x.writeAttribute(QStringLiteral("type"), k == 0 ? QStringLiteral("error") : QStringLiteral("diverged"));
                QString text;
                if (const TraceDiff* d = diffOf(r, k))
                    text += divergenceText(r, *d);
                if (k >= 1 && k - 1 < r.outputs.size() && r.outputs[k - 1].ran && !r.outputs[k - 1].comparison.equal)
                    text += QStringLiteral("outputs: %1\n").arg(r.outputs[k - 1].comparison.message);
                x.writeCharacters(text);
                x.writeEndElement();
            }
            x.writeEndElement();
        }
        QStringList warnings;
        for (const TraceWarning& w : r.warnings)
            warnings << warningLine(w);
        if (!warnings.isEmpty())
            x.writeTextElement(QStringLiteral("system-out"), warnings.join(QLatin1Char('\n')) + QLatin1Char('\n'));
        x.writeEndElement();
    }
    x.writeEndElement();
    x.writeEndDocument();
    return data;
}

QByteArray markdownReport(const ReportInput& in)
{
    QString s;
    for (const ReportEntry& e : in.entries) {
        const CheckReport& r = *e.report;
        if (&e != &in.entries.front())
            s += QLatin1Char('\n');
        s += QStringLiteral("### JitScope check: `%1` in `%2`: **%3**\n\n")
                 .arg(e.name, QFileInfo(in.path).fileName(), r.verdict());
        s += QStringLiteral("| set | inputs | result |\n|---|---|---|\n");
        for (int k = 0; k < r.traces.size(); ++k) {
            const QString result = setResult(r, k, in.reference);
            s += QStringLiteral("| %1 | `%2` | %3 |\n").arg(k + 1).arg(e.sets.value(k), result.toHtmlEscaped());
        }
        QString rows;
        for (const TraceDiff& d : r.diffs)
            for (const Divergence& v : d.divergences)
                rows += QStringLiteral("| %1 vs 1 | `%2` | %3 | %4 | %5 | %6 |\n")
                            .arg(d.other + 1)
                            .arg(divergenceKindName(v.kind), v.message.toHtmlEscaped(),
                                v.scope.isEmpty() ? QString() : QStringLiteral("`%1`").arg(v.scope),
                                shortWhere(v.location))
                            .arg(v.changes.size());
        if (!rows.isEmpty())
            s += QStringLiteral("\n**Divergences**\n\n| traces | kind | cause | module | line | nodes |\n"
                                "|---|---|---|---|---|---|\n")
                + rows;
        if (!r.warnings.isEmpty()) {
            s += QStringLiteral("\n**Warnings**\n\n");
            for (const TraceWarning& w : r.warnings)
                s += QStringLiteral("- `%1` trace %2%3: %4\n")
                         .arg(warningKindName(w.kind))
                         .arg(w.traceIndex + 1)
                         .arg(w.location.isValid() ? QStringLiteral(" at ") + shortWhere(w.location) : QString(),
                             w.message.section(QLatin1Char('\n'), 0, 0).toHtmlEscaped());
        }
    }
    if (!in.htmlReport.isEmpty())
        s += QStringLiteral("\nFull report with the graphs: `%1`\n").arg(in.htmlReport);
    return s.toUtf8();
}

QByteArray htmlReport(const ReportInput& in)
{
    const bool single = in.entries.size() == 1;
    const QString pageName = single ? in.entries.front().name : QFileInfo(in.path).fileName();
    QString s;
    s += QStringLiteral("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                        "<title>JitScope check: %1</title>\n<style>%2</style></head><body>\n")
             .arg(esc(pageName), pageStyle());
    if (!single) {
        s += QStringLiteral("<h1>JitScope check: <code>%1</code></h1>\n<ul>\n").arg(esc(in.path));
        for (int i = 0; i < in.entries.size(); ++i)
            s += QStringLiteral("<li><a href=\"#check%1\">%2</a>: <span class=\"verdict %3\">%3</span></li>\n")
                     .arg(i + 1)
                     .arg(esc(in.entries[i].name), in.entries[i].report->verdict());
        s += QStringLiteral("</ul>\n");
    }

    // Lines the report points at, for the source listing's highlights.
    QSet<int> hitLines;
    auto link = [&](const SourceLocation& l) {
        if (!l.isValid() || l.file != in.path || in.source.isEmpty())
            return esc(l.toString());
        hitLines.insert(l.line);
        return QStringLiteral("<a href=\"#L%1\">line %1</a>").arg(l.line);
    };

    for (int entry = 0; entry < in.entries.size(); ++entry) {
        const ReportEntry& e = in.entries[entry];
        const CheckReport& r = *e.report;
        // One check reads as a page of its own; several are sections under the file's heading.
        const QString h1 = single ? QStringLiteral("h1") : QStringLiteral("h2");
        const QString h2 = single ? QStringLiteral("h2") : QStringLiteral("h3");
        const QString h3 = single ? QStringLiteral("h3") : QStringLiteral("h4");
        if (!single)
            s += QStringLiteral("<section id=\"check%1\">\n").arg(entry + 1);
        s += QStringLiteral("<%1>JitScope check: <code>%2</code> in <code>%3</code></%1>\n")
                 .arg(h1, esc(e.name), esc(in.path));
        s += QStringLiteral(
            "<p>Verdict: <span class=\"verdict %1\">%1</span> &mdash; %2 input set(s); the first is "
            "traced, the others check it, as <code>torch.jit.trace(..., check_inputs=...)</code>.</p>\n")
                 .arg(r.verdict())
                 .arg(r.traces.size());

        s += QStringLiteral(
            "<%1>Input sets</%1>\n<table><tr><th>set</th><th>inputs</th><th>nodes</th><th>result</th></tr>\n")
                 .arg(h2);
        for (int k = 0; k < r.traces.size(); ++k) {
            const QString result = setResult(r, k, in.reference);
            s += QStringLiteral("<tr><td>%1</td><td><code>%2</code></td><td>%3</td><td>%4</td></tr>\n")
                     .arg(k + 1)
                     .arg(esc(e.sets.value(k)))
                     .arg(r.traces[k].graph.top.nodes.size())
                     .arg(esc(result));
        }
        s += QStringLiteral("</table>\n");

        s += QStringLiteral("<%1>Divergences</%1>\n").arg(h2);
        bool any = false;
        for (const TraceDiff& d : r.diffs) {
            if (d.equal && d.divergences.isEmpty())
                continue;
            any = true;
            s += QStringLiteral("<%1>Trace %2 vs trace 1: %3 divergence(s), %4 node difference(s)</%1>\n")
                     .arg(h3)
                     .arg(d.other + 1)
                     .arg(d.divergences.size())
                     .arg(d.changes.size());
            s += QStringLiteral("<table><tr><th>kind</th><th>cause</th><th>module</th><th>where</th><th>nodes</th>"
                                "</tr>\n");
            for (const Divergence& v : d.divergences) {
                QString evidence;
                for (const QString& e : v.evidence)
                    evidence += QStringLiteral("<br><small>%1</small>").arg(esc(e));
                s += QStringLiteral("<tr><td><code>%1</code></td><td>%2%3</td><td><code>%4</code></td><td>%5</td>"
                                    "<td>%6</td></tr>\n")
                         .arg(divergenceKindName(v.kind), esc(v.message), evidence,
                             esc(v.scope + (v.scopeType.isEmpty() ? QString() : QStringLiteral(" · ") + v.scopeType)),
                             link(v.location))
                         .arg(v.changes.size());
            }
            s += QStringLiteral("</table>\n<details><summary>Node differences</summary>\n<table><tr><th></th>"
                                "<th>node</th><th>cause</th><th>where</th></tr>\n");
            const IrGraph& base = r.traces[d.base].graph;
            const IrGraph& other = r.traces[d.other].graph;
            for (const NodeChange& c : d.changes) {
                const QString node
                    = c.op == NodeChange::Op::Insert ? other.nodeLine(c.otherNode) : base.nodeLine(c.baseNode);
                s += QStringLiteral("<tr><td class=\"%1\">%2</td><td><code>%3</code></td><td>%4</td><td>%5</td></tr>\n")
                         .arg(nodeChangeOpName(c.op), QLatin1String(diffMark(diffStatusOf(c.op)).htmlSymbol), esc(node),
                             esc(c.cause), link(c.location));
            }
            s += QStringLiteral("</table></details>\n");
            QHash<int, DiffStatus> baseMarks, otherMarks;
            for (const NodeChange& c : d.changes) {
                if (c.op != NodeChange::Op::Insert)
                    baseMarks.insert(c.baseNode, diffStatusOf(c.op));
                if (c.op != NodeChange::Op::Delete)
                    otherMarks.insert(c.otherNode, diffStatusOf(c.op));
            }
            s += QStringLiteral("<p class=\"legend\">");
            for (DiffStatus status : { DiffStatus::Inserted, DiffStatus::Deleted, DiffStatus::Changed })
                s += QStringLiteral("<span class=\"%1\">%1</span>").arg(QLatin1String(diffMark(status).name));
            s += QStringLiteral("</p>\n<div class=\"graphs\">\n");
            s += QStringLiteral("<figure><figcaption>trace 1: <code>%1</code></figcaption>\n%2</figure>\n")
                     .arg(esc(e.sets.value(0)), graphSvg(in, base, baseMarks, QStringLiteral("trace 1")));
            s += QStringLiteral("<figure><figcaption>trace %1: <code>%2</code></figcaption>\n%3</figure>\n")
                     .arg(d.other + 1)
                     .arg(esc(e.sets.value(d.other)),
                         graphSvg(in, other, otherMarks, QStringLiteral("trace %1").arg(d.other + 1)));
            s += QStringLiteral("</div>\n");
        }
        if (!any) {
            s += QStringLiteral("<p>Every trace records the same graph as trace 1.</p>\n");
            if (!r.traces.isEmpty() && r.traces[0].ok)
                s += QStringLiteral(
                    "<div class=\"graphs\"><figure><figcaption>trace 1</figcaption>\n%1</figure></div>\n")
                         .arg(graphSvg(in, r.traces[0].graph, {}, QStringLiteral("trace 1")));
        }

        if (!r.outputs.isEmpty()) {
            s += QStringLiteral("<%1>Outputs</%1>\n<p>%2</p>\n<table><tr><th>set</th><th>result</th></tr>\n")
                     .arg(h2,
                         r.tracedArchive
                             ? QStringLiteral("The traced archive's own graph run on each check set (no Python to "
                                              "compare it with).")
                             : QStringLiteral("Trace 1 run on each check set against %1, compared as "
                                              "<code>torch.testing.assert_close</code>.")
                                   .arg(esc(in.reference)));
            for (int k = 0; k < r.outputs.size(); ++k) {
                const OutputCheck& o = r.outputs[k];
                const QString text = r.tracedArchive ? archiveRunText(r, k + 1)
                    : !o.ran                         ? o.error
                    : o.comparison.equal             ? QStringLiteral("match (%1 elements)").arg(o.comparison.total)
                                                     : o.comparison.message;
                s += QStringLiteral("<tr><td>%1</td><td>%2</td></tr>\n").arg(k + 2).arg(esc(text));
            }
            s += QStringLiteral("</table>\n");
        }

        if (!r.warnings.isEmpty()) {
            s += QStringLiteral("<%1>Warnings</%1>\n<table><tr><th>kind</th><th>trace</th><th>message</th>"
                                "<th>where</th><th>fix</th></tr>\n")
                     .arg(h2);
            for (const TraceWarning& w : r.warnings)
                s += QStringLiteral("<tr><td><code>%1</code></td><td>%2</td><td>%3</td><td>%4</td><td>%5</td></tr>\n")
                         .arg(esc(warningKindName(w.kind)))
                         .arg(w.traceIndex + 1)
                         .arg(esc(w.message), link(w.location), esc(w.suggestion));
            s += QStringLiteral("</table>\n");
        }
        if (!single)
            s += QStringLiteral("</section>\n");
    }

    if (!in.source.isEmpty()) {
        s += QStringLiteral("<h2>Source</h2>\n<pre class=\"source\">");
        const QStringList lines = in.source.split(QLatin1Char('\n'));
        for (int i = 0; i < lines.size(); ++i) {
            const int line = i + 1;
            const bool hit = hitLines.contains(line);
            s += QStringLiteral("<span class=\"line%1\" id=\"L%2\"><span class=\"no\">%2</span>%3%4</span>")
                     .arg(hit ? QStringLiteral(" hit") : QString())
                     .arg(line)
                     .arg(esc(lines[i]), hit ? QStringLiteral("  <span class=\"mark\">&#9664;</span>") : QString());
        }
        s += QStringLiteral("</pre>\n");
    }
    s += QStringLiteral("<p><small>Made by jitscope-cli check --format html.</small></p>\n</body></html>\n");
    return s.toUtf8();
}

QString divergencesText(const CheckReport& r, const TraceDiff& d,
    const std::function<QString(const SourceLocation&)>& sourceLine, bool verbose)
{
    QString s;
    const IrGraph& base = r.traces[d.base].graph;
    const IrGraph& other = r.traces[d.other].graph;
    for (const Divergence& v : d.divergences) {
        s += QStringLiteral("  [%1] %2\n").arg(divergenceKindName(v.kind), v.message);
        if (!v.scope.isEmpty())
            s += QStringLiteral("    in %1%2\n")
                     .arg(v.scope, v.scopeType.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(v.scopeType));
        if (v.location.isValid()) {
            s += QStringLiteral("    --> %1:%2\n").arg(v.location.file).arg(v.location.line);
            const QString line = sourceLine ? sourceLine(v.location) : QString();
            if (!line.isEmpty())
                s += QStringLiteral("    %1 | %2\n").arg(v.location.line).arg(line);
        }
        if (v.stack.size() > 1) {
            QStringList frames;
            for (const SourceLocation& f : v.stack.mid(1))
                frames << QStringLiteral("%1:%2").arg(QFileInfo(f.file).fileName()).arg(f.line);
            s += QStringLiteral("    called from %1\n").arg(frames.join(QStringLiteral(" < ")));
        }
        for (const QString& e : v.evidence)
            s += QStringLiteral("    evidence: %1\n").arg(e);
        if (v.kind == DivergenceKind::Value) {
            // One node of trace 1, the same in both graphs: the first whose value differs.
            if (!v.baseNodes.isEmpty())
                s += QStringLiteral("    node: %1\n").arg(base.nodeLine(v.baseNodes.first()));
            continue;
        }
        s += QStringLiteral("    nodes: %1 in trace 1, %2 in trace %3\n")
                 .arg(v.baseNodes.size())
                 .arg(v.otherNodes.size())
                 .arg(d.other + 1);
        if (!verbose)
            continue;
        for (int i : v.changes) {
            const NodeChange& c = d.changes[i];
            if (c.baseNode >= 0)
                s += QStringLiteral("    - %1\n").arg(base.nodeLine(c.baseNode));
            if (c.otherNode >= 0)
                s += QStringLiteral("    + %1\n").arg(other.nodeLine(c.otherNode));
        }
    }
    return s;
}

QString archiveRunText(const CheckReport& r, int k)
{
    const OutputCheck& o = r.outputs.at(k - 1);
    if (!o.ran)
        return o.error;
    QStringList outputs;
    for (const ValueSummary& v : o.outputs)
        outputs << v.text;
    QString text = QStringLiteral("ran: %1").arg(outputs.join(QStringLiteral(", ")));
    for (const QString& baked : o.bakedSizes)
        text += QStringLiteral("; %1").arg(baked);
    return text;
}

QString outputsText(const CheckReport& r, const QString& reference)
{
    if (r.outputs.isEmpty())
        return {};
    QString s;
    if (r.tracedArchive) {
        s = QStringLiteral("\noutputs (the traced archive's own graph run on each set; no Python to compare with):\n");
        QVector<ValueSummary> values = r.traces.value(0).outputs;
        if (values.size() == 1 && values[0].kind == QLatin1String("tuple"))
            values = values[0].items;
        QStringList first;
        for (const ValueSummary& v : values)
            first << v.text;
        s += QStringLiteral("  set 1: ran: %1\n").arg(first.join(QStringLiteral(", ")));
    } else {
        s = QStringLiteral("\noutputs (trace 1 run on each check set vs %1):\n").arg(reference);
    }
    for (int k = 0; k < r.outputs.size(); ++k) {
        const OutputCheck& o = r.outputs[k];
        s += QStringLiteral("  set %1: ").arg(k + 2);
        if (r.tracedArchive) {
            QStringList outputs;
            for (const ValueSummary& v : o.outputs)
                outputs << v.text;
            s += o.ran ? QStringLiteral("ran: %1\n").arg(outputs.join(QStringLiteral(", ")))
                       : o.error + QLatin1Char('\n') + traceFailureText(r, k + 1);
            for (const QString& baked : o.bakedSizes)
                s += QStringLiteral("    %1\n").arg(baked);
        } else if (!o.ran) {
            s += (o.error.isEmpty() ? QStringLiteral("not compared") : o.error) + QLatin1Char('\n')
                + traceFailureText(r, k + 1);
        } else if (o.comparison.equal) {
            s += QStringLiteral("match (%1 elements)\n").arg(o.comparison.total);
        } else {
            s += o.comparison.message + QLatin1Char('\n');
        }
    }
    return s;
}

QString traceFailureText(const CheckReport& r, int set)
{
    if (set < 1 || set - 1 >= r.outputs.size() || !r.outputs[set - 1].failure.isValid() || r.traces.isEmpty())
        return {};
    const TraceFailure& f = r.outputs[set - 1].failure;
    const IrGraph& g = r.traces[0].graph;
    QStringList outputs;
    for (int v : g.node(f.node).outputs)
        outputs << QLatin1Char('%') + g.value(v).name;
    QString s = QStringLiteral("  %1 fails on set %2 at %3 = %4\n")
                    .arg(r.tracedArchive ? QStringLiteral("the traced archive") : QStringLiteral("trace 1"))
                    .arg(set + 1)
                    .arg(outputs.join(QStringLiteral(", ")), f.kind);
    if (!f.error.isEmpty())
        s += QStringLiteral("    error: %1\n").arg(f.error);
    if (f.location.isValid())
        s += QStringLiteral("    --> %1:%2%3\n")
                 .arg(f.location.file)
                 .arg(f.location.line)
                 .arg(f.scope.isEmpty() ? QString() : QStringLiteral(" (in %1)").arg(f.scope));
    for (const QString& op : f.operands)
        s += QStringLiteral("    operand %1\n").arg(op);
    return s;
}

namespace {

/// A call's warnings as Python raised them, each once (the same message at the same line in several traces).
QString pythonWarningsText(const PythonCall& c)
{
    QVector<PythonWarning> warnings;
    for (const PythonTrace& t : c.traces)
        for (const PythonWarning& w : t.warnings)
            if (std::none_of(warnings.cbegin(), warnings.cend(), [&](const PythonWarning& o) {
                    return o.message == w.message && o.location.line == w.location.line;
                }))
                warnings << w;
    if (warnings.isEmpty())
        return {};
    QString s = QStringLiteral("\nwarnings:\n");
    for (const PythonWarning& w : std::as_const(warnings)) {
        QStringList notes;
        if (w.count > 1)
            notes << QStringLiteral("%1 times").arg(w.count);
        if (w.hidden)
            notes << QStringLiteral("hidden by PyTorch's warning filter");
        s += QStringLiteral("  [%1] %2%3\n")
                 .arg(w.category, w.message.section(QLatin1Char('\n'), 0, 0),
                     notes.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(notes.join(QStringLiteral(", "))));
        s += QStringLiteral("    --> %1:%2\n").arg(w.location.file).arg(w.location.line);
        if (w.userLocation.isValid())
            s += QStringLiteral("    from %1:%2\n").arg(w.userLocation.file).arg(w.userLocation.line);
    }
    return s;
}

/// The report's warnings with their places and fixes.
QString traceWarningsText(const CheckOutput& in)
{
    const CheckReport& r = *in.entry.report;
    if (r.warnings.isEmpty())
        return {};
    QString s = QStringLiteral("\nwarnings:\n");
    for (const TraceWarning& w : r.warnings) {
        s += QStringLiteral("  [%1] trace %2: %3\n").arg(warningKindName(w.kind)).arg(w.traceIndex + 1).arg(w.message);
        if (w.location.isValid())
            s += QStringLiteral("    --> %1\n").arg(w.location.toString())
                + (in.warningExcerpt ? in.warningExcerpt(w.location) : QString());
        if (!w.suggestion.isEmpty())
            s += QStringLiteral("    fix: %1\n").arg(w.suggestion);
    }
    return s;
}

QJsonObject selfCheckJson(const SelfCheck& s)
{
    QJsonObject o { { QStringLiteral("status"), s.status }, { QStringLiteral("sets"), s.sets } };
    if (!s.reason.isEmpty())
        o.insert(QStringLiteral("reason"), s.reason);
    if (s.status == QLatin1String("defect"))
        o.insert(QStringLiteral("first_difference"),
            QJsonObject { { QStringLiteral("set"), s.set + 1 }, { QStringLiteral("dump_line"), s.line },
                { QStringLiteral("in"), s.inputs ? QStringLiteral("inputs") : QStringLiteral("node") },
                { QStringLiteral("jitscope"), s.jitscope }, { QStringLiteral("pytorch"), s.pytorch } });
    return o;
}

} // namespace

QString checkText(const CheckOutput& in)
{
    const CheckReport& r = *in.entry.report;
    const PythonCall* call = in.call;
    QString s = QStringLiteral("check %1: %2 input set(s)\n").arg(in.title).arg(r.traces.size());
    for (int k = 0; k < r.traces.size(); ++k) {
        const TraceResult& t = r.traces[k];
        s += QStringLiteral("  trace %1: %2").arg(k + 1).arg(in.entry.sets.value(k));
        if (call && !t.note.isEmpty()) // a recorded trace on the example inputs again
            s += QStringLiteral("  (%1)").arg(t.note);
        s += t.ok ? QStringLiteral("  (%1 nodes)\n").arg(t.graph.nodes.size())
                  : QStringLiteral("  FAILED: %1\n").arg(t.error.message);
    }
    for (const TraceDiff& d : r.diffs)
        s += QStringLiteral("\ntrace %1 vs trace 1: %2\n")
                 .arg(d.other + 1)
                 .arg(d.equal && d.divergences.isEmpty() ? QStringLiteral("same graph")
                         : d.equal ? QStringLiteral("same graph, other values: %1 divergence(s)").arg(d.divergences.size())
                                   : QStringLiteral("%1 divergence(s), %2 node difference(s)")
                                    .arg(d.divergences.size())
                                    .arg(d.changes.size()))
            + divergencesText(r, d, in.sourceLine, in.verbose);
    s += outputsText(r, call ? QStringLiteral("the Python code") : QStringLiteral("the script function"));
    s += call ? pythonWarningsText(*call) : traceWarningsText(in);
    // The conclusion: PyTorch's own check and the error the call raised, the verdict, the self-check.
    s += QLatin1Char('\n');
    if (call && call->checked)
        s += QStringLiteral("PyTorch's check: %1\n")
                 .arg(call->checkPassed ? QStringLiteral("passed")
                                        : call->checkMessage.section(QLatin1Char('\n'), 0, 1).simplified());
    if (call && call->raised())
        s += QStringLiteral("the call raised: %1\n").arg(call->error.toString());
    s += QStringLiteral("verdict: %1\n").arg(in.verdict.isEmpty() ? r.verdict() : in.verdict);
    if (in.selfCheck)
        s += QStringLiteral("self-check: %1\n").arg(selfCheckText(*in.selfCheck));
    return s;
}

QJsonObject checkJson(const CheckOutput& in)
{
    QJsonObject o = checkReportJson(*in.entry.report);
    QJsonArray traces = o.value(QStringLiteral("traces")).toArray();
    for (int k = 0; k < traces.size() && k < in.entry.sets.size(); ++k) {
        QJsonObject t = traces[k].toObject();
        t.insert(QStringLiteral("inputs"), in.entry.sets[k]);
        traces[k] = t;
    }
    o.insert(QStringLiteral("traces"), traces);
    o.insert(QStringLiteral("version"), checkJsonVersion);
    if (!in.verdict.isEmpty())
        o.insert(QStringLiteral("verdict"), in.verdict);
    if (in.call)
        o.insert(QStringLiteral("call"), pythonCallJson(*in.call, false));
    if (in.selfCheck)
        o.insert(QStringLiteral("self_check"), selfCheckJson(*in.selfCheck));
    return o;
}

QJsonObject diagnosticJson(const Diagnostic& d)
{
    return QJsonObject { { QStringLiteral("message"), d.message }, { QStringLiteral("file"), d.location.file },
        { QStringLiteral("line"), d.location.line }, { QStringLiteral("column"), d.location.column } };
}

QJsonArray pythonWarningsJson(const QVector<PythonWarning>& warnings)
{
    QJsonArray out;
    for (const PythonWarning& w : warnings) {
        QJsonObject o { { QStringLiteral("category"), w.category }, { QStringLiteral("message"), w.message },
            { QStringLiteral("file"), w.location.file }, { QStringLiteral("line"), w.location.line },
            { QStringLiteral("user_code"), w.userCode }, { QStringLiteral("count"), w.count },
            { QStringLiteral("hidden"), w.hidden } };
        if (w.userLocation.isValid())
            o.insert(QStringLiteral("user_place"),
                QJsonObject {
                    { QStringLiteral("file"), w.userLocation.file }, { QStringLiteral("line"), w.userLocation.line } });
        QJsonArray stack;
        for (const PythonFrame& f : w.stack)
            stack.append(QJsonObject { { QStringLiteral("file"), f.location.file },
                { QStringLiteral("line"), f.location.line }, { QStringLiteral("function"), f.function } });
        if (!stack.isEmpty())
            o.insert(QStringLiteral("stack"), stack);
        out.append(o);
    }
    return out;
}

QJsonObject pythonCallJson(const PythonCall& c, bool graphs)
{
    QJsonObject o { { QStringLiteral("index"), c.index }, { QStringLiteral("api"), c.api },
        { QStringLiteral("line"), c.location.line }, { QStringLiteral("target"), c.target },
        { QStringLiteral("target_kind"), c.targetKind }, { QStringLiteral("ok"), c.ok },
        { QStringLiteral("example_inputs"), c.exampleInputs },
        { QStringLiteral("check_inputs"), QJsonArray::fromStringList(c.checkInputs) },
        { QStringLiteral("warnings"), pythonWarningsJson(c.warnings) } };
    if (!c.ok)
        o.insert(QStringLiteral("error"), diagnosticJson(c.error));
    if (c.checked)
        o.insert(QStringLiteral("pytorch_check"),
            QJsonObject { { QStringLiteral("passed"), c.checkPassed }, { QStringLiteral("message"), c.checkMessage } });
    if (graphs && !c.text.isEmpty())
        o.insert(QStringLiteral("graph"), c.text);
    QJsonArray traces;
    for (const PythonTrace& t : c.traces) {
        QJsonObject to { { QStringLiteral("inputs"), t.inputs }, { QStringLiteral("ok"), t.ok },
            { QStringLiteral("nodes"), t.graph.nodes.size() },
            { QStringLiteral("warnings"), pythonWarningsJson(t.warnings) } };
        if (!t.ok)
            to.insert(QStringLiteral("error"), diagnosticJson(t.error));
        else if (graphs)
            to.insert(QStringLiteral("graph"), t.text);
        traces.append(to);
    }
    if (!traces.isEmpty())
        o.insert(QStringLiteral("traces"), traces);
    return o;
}

} // namespace jitscope
