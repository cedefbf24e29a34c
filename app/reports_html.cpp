// check --format html: one self-contained page, each trace graph drawn inline by graphSvg().

#include "reports_p.h"

#include "report/graphsvg.h"
#include "report/marks.h"
#include "report/tracewarning.h"

#include <QFileInfo>
#include <QHash>
#include <QSet>

namespace jitscope {

using namespace reports;

namespace {

QString esc(const QString& s)
{
    return s.toHtmlEscaped();
}

/// A trace graph for the page: laid out by the report's layout, drawn by graphSvg() and styled by the page.
QString graphFigure(
    const ReportInput& in, const IrGraph& graph, const QHash<int, DiffStatus>& marks, const QString& title)
{
    if (!in.layout)
        return QStringLiteral("<p>%1: %2 nodes (no layout)</p>").arg(esc(title)).arg(graph.nodes.size());
    static int serial = 0; // each inline SVG's arrowhead gets an id of its own on the page
    GraphSvgOptions options;
    options.title = title;
    options.marks = marks;
    options.standalone = false;
    options.arrowId = QStringLiteral("arrow%1").arg(++serial);
    const GraphLayout layout = in.layout(graph, LayoutOptions());
    if (!layout.error.isEmpty())
        return QStringLiteral("<p class=\"error\">%1</p>").arg(esc(layout.error));
    return graphSvg(layout, options);
}

const char* const kPageStyle = R"(
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
)";
// graphSvgStyle() comes between the two.
const char* const kLegendStyle
    = R"(.legend span { display: inline-block; padding: 0 .5em; margin-right: .5em; border: 2px solid; border-radius: 4px; }
.legend .inserted { background: {inserted.fill}; border-color: {inserted.color}; } .legend .deleted { background: {deleted.fill}; border-color: {deleted.color}; }
.legend .changed { background: {changed.fill}; border-color: {changed.color}; }
@media print { .graphs figure { break-inside: avoid; } body { max-width: none; } }
)";

/// The page's style sheet: its own rules, the graphs' (graphSvgStyle()), the legend's; the diff colours
/// ({inserted.fill}, {deleted.color}, ...) from the table of marks.
QString pageStyle()
{
    QString style = QString::fromUtf8(kPageStyle) + graphSvgStyle() + QString::fromUtf8(kLegendStyle);
    for (DiffStatus status : { DiffStatus::Inserted, DiffStatus::Deleted, DiffStatus::Changed }) {
        const DiffMark& m = diffMark(status);
        style.replace(QStringLiteral("{%1.fill}").arg(QLatin1String(m.name)), rgbName(m.fill));
        style.replace(QStringLiteral("{%1.color}").arg(QLatin1String(m.name)), rgbName(m.color));
    }
    return style;
}

} // namespace

QByteArray htmlReport(const ReportInput& in)
{
    const bool single = in.entries.size() == 1;
    const QString pageName = single ? in.entries.front().name : QFileInfo(in.path).fileName();
    QString s;
    s += QStringLiteral("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                        "<title>JitScope check: %1</title>\n<style>%2</style></head><body>\n")
             .arg(esc(pageName), pageStyle());
    // check --python: the interpreter the file ran under, under the page's heading.
    const QString python = in.python.path.isEmpty()
        ? QString()
        : QStringLiteral("<p class=\"python\">Run with <code>%1</code></p>\n").arg(esc(interpreterText(in.python)));
    if (!single) {
        s += QStringLiteral("<h1>JitScope check: <code>%1</code></h1>\n").arg(esc(in.path)) + python
            + QStringLiteral("<ul>\n");
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
        if (single)
            s += python;
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
                     .arg(esc(e.sets.value(0)), graphFigure(in, base, baseMarks, QStringLiteral("trace 1")));
            s += QStringLiteral("<figure><figcaption>trace %1: <code>%2</code></figcaption>\n%3</figure>\n")
                     .arg(d.other + 1)
                     .arg(esc(e.sets.value(d.other)),
                         graphFigure(in, other, otherMarks, QStringLiteral("trace %1").arg(d.other + 1)));
            s += QStringLiteral("</div>\n");
        }
        if (!any) {
            s += QStringLiteral("<p>Every trace records the same graph as trace 1.</p>\n");
            if (!r.traces.isEmpty() && r.traces[0].ok)
                s += QStringLiteral(
                    "<div class=\"graphs\"><figure><figcaption>trace 1</figcaption>\n%1</figure></div>\n")
                         .arg(graphFigure(in, r.traces[0].graph, {}, QStringLiteral("trace 1")));
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
        const ExportReport& x = r.exported;
        if (x.requested) {
            s += QStringLiteral("<%1>Export</%1>\n<p>torch %2: %3</p>\n")
                     .arg(h2, esc(x.torchVersion), esc(x.summary()));
            const QVector<ExportFinding> findings = x.findings + x.draft;
            if (!findings.isEmpty()) {
                s += QStringLiteral("<table><tr><th>kind</th><th>what</th><th>expression</th><th>user's line</th>"
                                    "<th>library's line</th><th>suggested fix</th></tr>\n");
                for (const ExportFinding& f : findings)
                    s += QStringLiteral("<tr><td><code>%1</code></td><td>%2</td><td><code>%3</code></td><td>%4</td>"
                                        "<td>%5</td><td>%6</td></tr>\n")
                             .arg(esc(f.kind), esc(f.message), esc(f.expression), link(f.userLocation),
                                 f.libraryLocation.isValid()
                                     ? esc(QStringLiteral("%1: %2").arg(shortWhere(f.libraryLocation), f.libraryText))
                                     : QString(),
                                 esc(f.suggestedFix));
                s += QStringLiteral("</table>\n");
            }
            if (!x.ranges.isEmpty() || !x.specializations.isEmpty()) {
                s += QStringLiteral("<ul>\n");
                for (const ExportFact& f : x.ranges + x.specializations)
                    s += QStringLiteral("<li>%1%2</li>\n")
                             .arg(esc(f.text),
                                 f.location.isValid() ? QStringLiteral(" at ") + link(f.location) : QString());
                s += QStringLiteral("</ul>\n");
            }
            if (!x.sets.isEmpty()) {
                s += QStringLiteral("<table><tr><th>set</th><th>trace</th><th>export</th></tr>\n");
                for (const ExportSetRow& row : x.sets)
                    s += QStringLiteral("<tr><td>%1</td><td>%2</td><td>%3%4</td></tr>\n")
                             .arg(row.set)
                             .arg(esc(row.trace), esc(exportResult(row)),
                                 row.message.isEmpty() ? QString() : esc(QStringLiteral(": ") + row.message));
                s += QStringLiteral("</table>\n");
            }
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

} // namespace jitscope
