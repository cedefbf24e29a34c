#pragma once

// What the graph items share: the selection colour, the theme's text and edge colours (graphpalette.cpp), their
// fonts, the level of detail below which they paint plain, and cached text metrics. Private to views/graph.

#include <QColor>
#include <QFont>
#include <QFontMetricsF>
#include <QHash>
#include <QPainter>
#include <QString>
#include <QStyleOptionGraphicsItem>

namespace jitscope {

inline const QColor kSelectionColor(0x1f, 0x6f, 0xeb);
constexpr qreal kDimmedOpacity = 0.28;

QColor textColor();
QColor detailColor();
QColor edgeColor();
QColor edgeLabelColor();
/// The light pastel fills become deep tones of the same hue on a dark background, so light text stays readable.
QColor themedFill(const QColor& light);

inline QFont pixelFont(int pixelSize, bool bold = false)
{
    QFont font;
    font.setPixelSize(qMax(1, pixelSize));
    font.setBold(bold);
    return font;
}

inline qreal levelOfDetail(const QStyleOptionGraphicsItem* option, const QPainter* painter)
{
    return option ? option->levelOfDetailFromTransform(painter->worldTransform()) : 1.0;
}

/// Below this level of detail a box is a plain filled rectangle and an edge a plain line: at that size the text and
/// the rounded, antialiased outlines are a few pixels that nobody reads, and drawing them is what makes a zoomed-out
/// graph of thousands of boxes slow to paint.
constexpr qreal kPlainLevelOfDetail = 0.2;

/// Text metrics of the few fonts the items use, cached (GUI thread only): a graph's titles and shape labels repeat
/// (the same op kinds, the same shapes), and shaping each again is what building a big scene spends its time on.
class TextMetrics
{
public:
    static qreal width(const QFont& font, const QString& text)
    {
        QHash<QString, qreal>& cache = instance().m_widths[keyOf(font)];
        if (cache.size() > 50000)
            cache.clear();
        auto it = cache.constFind(text);
        if (it != cache.constEnd())
            return *it;
        const qreal w = QFontMetricsF(font).horizontalAdvance(text);
        cache.insert(text, w);
        return w;
    }
    static qreal height(const QFont& font)
    {
        QHash<int, qreal>& cache = instance().m_heights;
        const int key = keyOf(font);
        auto it = cache.constFind(key);
        if (it != cache.constEnd())
            return *it;
        const qreal h = QFontMetricsF(font).height();
        cache.insert(key, h);
        return h;
    }

private:
    static TextMetrics& instance()
    {
        static TextMetrics metrics;
        return metrics;
    }
    /// The items' fonts differ in pixel size and weight only (pixelFont()).
    static int keyOf(const QFont& font) { return font.pixelSize() * 2 + (font.bold() ? 1 : 0); }
    QHash<int, QHash<QString, qreal>> m_widths;
    QHash<int, qreal> m_heights;
};

} // namespace jitscope
