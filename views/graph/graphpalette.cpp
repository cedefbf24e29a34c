// The graph's colours in the light and the dark theme: box fills by op category, diff marks, text, edges, background.

#include "graphitems.h"
#include "graphitems_p.h"

namespace jitscope {

namespace {

bool g_darkTheme = false;

} // namespace

QColor textColor()
{
    return g_darkTheme ? QColor(0xe6, 0xed, 0xf3) : QColor(0x1f, 0x23, 0x28);
}

QColor detailColor()
{
    return g_darkTheme ? QColor(0xaa, 0xb4, 0xc0) : QColor(0x4b, 0x55, 0x63);
}

QColor edgeColor()
{
    return g_darkTheme ? QColor(0x8b, 0x94, 0x9e) : QColor(0x8c, 0x93, 0x9d);
}

QColor edgeLabelColor()
{
    return g_darkTheme ? QColor(0xa0, 0xa8, 0xb2) : QColor(0x6b, 0x72, 0x80);
}

QColor themedFill(const QColor& light)
{
    if (!g_darkTheme)
        return light;
    QColor c = light.toHsl();
    return QColor::fromHslF(c.hslHueF() < 0 ? 0 : c.hslHueF(), qMin(1.0f, c.hslSaturationF() * 0.55f), 0.26f);
}

void setDarkGraphTheme(bool dark)
{
    g_darkTheme = dark;
}

bool isDarkGraphTheme()
{
    return g_darkTheme;
}

QColor graphBackgroundColor()
{
    return g_darkTheme ? QColor(0x16, 0x1b, 0x22) : QColor(0xfa, 0xfb, 0xfc);
}

QColor categoryColor(OpCategory category)
{
    switch (category) {
    case OpCategory::Input:
        return QColor(0xd9, 0xf2, 0xdc);
    case OpCategory::Output:
        return QColor(0xfc, 0xe2, 0xcf);
    case OpCategory::Constant:
        return QColor(0xee, 0xef, 0xf1);
    case OpCategory::ConvLinear:
        return QColor(0xcd, 0xe3, 0xfa);
    case OpCategory::Normalization:
        return QColor(0xdf, 0xd8, 0xf6);
    case OpCategory::Activation:
        return QColor(0xfd, 0xec, 0xc4);
    case OpCategory::Pooling:
        return QColor(0xcc, 0xef, 0xea);
    case OpCategory::ShapeView:
        return QColor(0xec, 0xe6, 0xda);
    case OpCategory::Arithmetic:
        return QColor(0xf7, 0xdb, 0xe8);
    case OpCategory::ControlFlow:
        return QColor(0xff, 0xf1, 0xa8);
    case OpCategory::Creation:
        return QColor(0xe4, 0xf4, 0xc9);
    case OpCategory::Call:
        return QColor(0xfa, 0xd4, 0xcf);
    case OpCategory::Attribute:
        return QColor(0xe1, 0xe8, 0xf0);
    case OpCategory::Container:
        return QColor(0xe9, 0xdd, 0xf3);
    case OpCategory::Other:
        break;
    }
    return QColor(0xf3, 0xf4, 0xf6);
}

QColor diffStatusColor(DiffStatus status)
{
    if (status == DiffStatus::Unchanged)
        return {};
    // On a dark background the same hues, lighter, so outlines and legend text keep their contrast.
    const DiffMark& m = diffMark(status);
    return QColor::fromRgb(QRgb(g_darkTheme ? m.darkColor : m.color));
}

QColor diffStatusFill(DiffStatus status)
{
    if (status == DiffStatus::Unchanged)
        return {};
    return QColor::fromRgb(QRgb(diffMark(status).fill));
}

QString diffStatusName(DiffStatus status)
{
    return QString::fromLatin1(diffMark(status).name);
}

} // namespace jitscope
