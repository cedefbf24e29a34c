#include "debugicons.h"

#include <QPainter>
#include <QPainterPath>
#include <QPixmap>

namespace jitscope {

QIcon debugIcon(DebugAction action)
{
    using A = DebugAction;
    const QColor blue(0x1f, 0x6f, 0xeb);
    const QColor green(0x1a, 0x7f, 0x37);
    const QColor red(0xcf, 0x22, 0x2e);
    QPixmap pixmap(32, 32);
    pixmap.fill(Qt::transparent);
    QPainter p(&pixmap);
    p.setRenderHint(QPainter::Antialiasing);
    const QPen stroke(blue, 3.2, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin);
    auto head = [&](QPointF tip, QPointF dir, const QColor& color) {
        const QPointF n(-dir.y(), dir.x());
        QPainterPath h;
        h.moveTo(tip);
        h.lineTo(tip - dir * 8 + n * 6);
        h.lineTo(tip - dir * 8 - n * 6);
        h.closeSubpath();
        p.setPen(Qt::NoPen);
        p.setBrush(color);
        p.drawPath(h);
    };
    auto dot = [&](QPointF c) {
        p.setPen(Qt::NoPen);
        p.setBrush(QColor(0x4b, 0x55, 0x63));
        p.drawEllipse(c, 3.5, 3.5);
    };
    switch (action) {
    case A::StartContinue: {
        QPainterPath play;
        play.moveTo(8, 5);
        play.lineTo(27, 16);
        play.lineTo(8, 27);
        play.closeSubpath();
        p.setPen(QPen(green.darker(120), 1.5, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
        p.setBrush(green);
        p.drawPath(play);
        break;
    }
    case A::StepOver: {
        QPainterPath arc;
        arc.moveTo(5, 20);
        arc.cubicTo(6, 6, 24, 5, 26, 15);
        p.setPen(stroke);
        p.setBrush(Qt::NoBrush);
        p.drawPath(arc);
        head(QPointF(27, 20), QPointF(0.2, 1), blue);
        dot(QPointF(16, 26));
        break;
    }
    case A::StepInto:
        p.setPen(stroke);
        p.drawLine(QPointF(16, 3), QPointF(16, 16));
        head(QPointF(16, 22), QPointF(0, 1), blue);
        dot(QPointF(16, 27));
        break;
    case A::StepOut:
        p.setPen(stroke);
        p.drawLine(QPointF(16, 24), QPointF(16, 11));
        head(QPointF(16, 4), QPointF(0, -1), blue);
        dot(QPointF(16, 28));
        break;
    case A::NextIteration: {
        // Round the loop once more: a circular arrow (blue, unlike Restart's green one).
        p.setPen(stroke);
        p.setBrush(Qt::NoBrush);
        p.drawArc(QRectF(5, 6, 21, 21), 100 * 16, 290 * 16);
        head(QPointF(10, 9), QPointF(-0.6, -0.8), blue);
        dot(QPointF(15.5, 16.5));
        break;
    }
    case A::RunToCursor:
        p.setPen(stroke);
        p.drawLine(QPointF(4, 16), QPointF(17, 16));
        head(QPointF(23, 16), QPointF(1, 0), blue);
        p.setPen(QPen(QColor(0x4b, 0x55, 0x63), 2.4, Qt::SolidLine, Qt::RoundCap));
        p.drawLine(QPointF(27, 6), QPointF(27, 26));
        break;
    case A::Restart: {
        p.setPen(QPen(green, 3.2, Qt::SolidLine, Qt::RoundCap));
        p.setBrush(Qt::NoBrush);
        p.drawArc(QRectF(6, 6, 20, 20), 60 * 16, 300 * 16);
        head(QPointF(24, 5), QPointF(0.8, -0.6), green);
        break;
    }
    case A::Stop:
        p.setPen(QPen(red.darker(120), 1.5));
        p.setBrush(red);
        p.drawRoundedRect(QRectF(7, 7, 18, 18), 3, 3);
        break;
    case A::TraceWhileDebugging: {
        const QColor node(0x8a, 0x5c, 0xd6);
        p.setPen(QPen(QColor(0x8c, 0x93, 0x9d), 2));
        p.drawLine(QPointF(16, 7), QPointF(8, 24));
        p.drawLine(QPointF(16, 7), QPointF(24, 24));
        p.setPen(QPen(node.darker(130), 1.2));
        p.setBrush(node);
        p.drawEllipse(QPointF(16, 7), 5, 5);
        p.drawEllipse(QPointF(8, 24), 5, 5);
        p.drawEllipse(QPointF(24, 24), 5, 5);
        break;
    }
    case A::DebugTraceFailure: {
        // A trace (three linked nodes) whose last node fails: a red one with a cross.
        const QColor node(0x8a, 0x5c, 0xd6);
        p.setPen(QPen(QColor(0x8c, 0x93, 0x9d), 2));
        p.drawLine(QPointF(8, 7), QPointF(8, 17));
        p.drawLine(QPointF(8, 17), QPointF(21, 22));
        p.setPen(QPen(node.darker(130), 1.2));
        p.setBrush(node);
        p.drawEllipse(QPointF(8, 7), 4.5, 4.5);
        p.drawEllipse(QPointF(8, 17), 4.5, 4.5);
        p.setPen(QPen(red.darker(130), 1.2));
        p.setBrush(red);
        p.drawEllipse(QPointF(22, 22), 8, 8);
        p.setPen(QPen(Qt::white, 2.4, Qt::SolidLine, Qt::RoundCap));
        p.drawLine(QPointF(18.5, 18.5), QPointF(25.5, 25.5));
        p.drawLine(QPointF(25.5, 18.5), QPointF(18.5, 25.5));
        break;
    }
    case A::ToggleBreakpoint:
        p.setPen(QPen(QColor(0xe5, 0x14, 0x00).darker(130), 1.5));
        p.setBrush(QColor(0xe5, 0x14, 0x00));
        p.drawEllipse(QPointF(16, 16), 9, 9);
        break;
    }
    p.end();
    return QIcon(pixmap);
}

} // namespace jitscope
