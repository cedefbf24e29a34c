#include "graphexport.h"

#include "graphscene.h"
#include "report/graphlayout.h"
#include "report/graphsvg.h"

#include <QFileInfo>
#include <QImage>
#include <QObject>
#include <QPainter>
#include <QSaveFile>

namespace jitscope {

bool exportGraph(
    GraphScene* scene, const QString& path, const LayoutOptions& options, const QString& title, QString* error)
{
    if (path.endsWith(QLatin1String(".dot"), Qt::CaseInsensitive)) {
        // The graph the tab shows, as core lays it out (same folding and blocks), for Graphviz or other tools.
        if (!scene->hasGraph()) {
            if (error)
                *error = QObject::tr("Nothing to export");
            return false;
        }
        QSaveFile file(path);
        if (!file.open(QIODevice::WriteOnly | QIODevice::Text)
            || file.write(toDot(scene->graph(), options).toUtf8()) < 0 || !file.commit()) {
            if (error)
                *error = QObject::tr("Cannot write %1").arg(path);
            return false;
        }
        return true;
    }
    const QRectF source = scene->contentsRect().adjusted(-12, -12, 12, 12);
    if (source.isEmpty()) {
        if (error)
            *error = QObject::tr("Nothing to export");
        return false;
    }
    // Each format replaces the file whole or not at all (QSaveFile): a failed export never leaves half a file.
    QSaveFile file(path);
    if (path.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive)) {
        // The one picture of a laid-out graph, the CLI's graph --format svg and the HTML report's: the layout the
        // tab shows, with its diff colours.
        if (!scene->hasGraph()) {
            if (error)
                *error = QObject::tr("Nothing to export");
            return false;
        }
        GraphSvgOptions svg;
        svg.title = title;
        svg.marks = scene->nodeStatuses();
        if (!file.open(QIODevice::WriteOnly) || file.write(graphSvg(scene->layout(), svg).toUtf8()) < 0
            || !file.commit()) {
            if (error)
                *error = QObject::tr("Cannot write %1").arg(path);
            return false;
        }
        return true;
    }
    // PNG (or any raster format Qt knows by suffix) at twice the scene resolution, capped for huge graphs.
    const double scale = qMin(2.0, 16000.0 / qMax(source.width(), source.height()));
    QImage image((source.size() * scale).toSize(), QImage::Format_ARGB32_Premultiplied);
    image.fill(scene->backgroundBrush().color());
    {
        QPainter painter(&image);
        painter.setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing | QPainter::SmoothPixmapTransform);
        scene->render(&painter, QRectF(QPointF(0, 0), image.size()), source);
    }
    const QByteArray format = QFileInfo(path).suffix().toLower().toLatin1();
    if (!file.open(QIODevice::WriteOnly) || !image.save(&file, format.isEmpty() ? "png" : format.constData())
        || !file.commit()) {
        if (error)
            *error = QObject::tr("Cannot write %1").arg(path);
        return false;
    }
    return true;
}

} // namespace jitscope
