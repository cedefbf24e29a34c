#include "graphexport.h"

#include "graphscene.h"
#include "layout/graphlayout.h"

#include <QImage>
#include <QObject>
#include <QPainter>
#include <QSaveFile>
#include <QSvgGenerator>

namespace jitscope {

bool exportGraph(GraphScene* scene, const QString& path, const LayoutOptions& options, const QString& title,
    const QString& description, QString* error)
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
    if (path.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive)) {
        QSvgGenerator generator;
        generator.setFileName(path);
        generator.setSize(source.size().toSize());
        generator.setViewBox(QRectF(QPointF(0, 0), source.size()));
        generator.setTitle(title);
        generator.setDescription(description);
        QPainter painter;
        if (!painter.begin(&generator)) {
            if (error)
                *error = QObject::tr("Cannot write %1").arg(path);
            return false;
        }
        scene->render(&painter, QRectF(QPointF(0, 0), source.size()), source);
        painter.end();
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
    if (!image.save(path)) {
        if (error)
            *error = QObject::tr("Cannot write %1").arg(path);
        return false;
    }
    return true;
}

} // namespace jitscope
