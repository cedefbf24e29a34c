#include "theme.h"

#include "graphitems.h"
#include "graphscene.h"
#include "graphview.h"

#include <QApplication>
#include <QPalette>
#include <QStyle>

namespace jitscope {

namespace {
QPalette s_lightPalette; ///< the application palette before the dark theme replaced it
bool s_hasLightPalette = false;
} // namespace

bool applyDarkTheme(bool dark, QWidget* root)
{
    const bool wasDark = isDarkGraphTheme();
    if (!dark && !wasDark)
        return false; // leave the platform's palette alone
    if (dark && !wasDark) {
        s_lightPalette = QApplication::palette();
        s_hasLightPalette = true;
    }
    setDarkGraphTheme(dark);
    QPalette palette = s_hasLightPalette ? s_lightPalette : QApplication::style()->standardPalette();
    if (dark) {
        const QColor window(0x24, 0x29, 0x2f);
        const QColor base(0x16, 0x1b, 0x22);
        const QColor text(0xe6, 0xed, 0xf3);
        const QColor disabled(0x6e, 0x76, 0x81);
        palette.setColor(QPalette::Window, window);
        palette.setColor(QPalette::WindowText, text);
        palette.setColor(QPalette::Base, base);
        palette.setColor(QPalette::AlternateBase, window);
        palette.setColor(QPalette::ToolTipBase, window);
        palette.setColor(QPalette::ToolTipText, text);
        palette.setColor(QPalette::Text, text);
        palette.setColor(QPalette::Button, window);
        palette.setColor(QPalette::ButtonText, text);
        palette.setColor(QPalette::BrightText, QColor(0xff, 0x7b, 0x72));
        palette.setColor(QPalette::Link, QColor(0x58, 0xa6, 0xff));
        palette.setColor(QPalette::Highlight, QColor(0x1f, 0x6f, 0xeb));
        palette.setColor(QPalette::HighlightedText, Qt::white);
        palette.setColor(QPalette::PlaceholderText, disabled);
        for (QPalette::ColorRole role : { QPalette::WindowText, QPalette::Text, QPalette::ButtonText })
            palette.setColor(QPalette::Disabled, role, disabled);
    }
    QApplication::setPalette(palette);
    for (GraphView* view : root->findChildren<GraphView*>())
        view->setBackgroundBrush(graphBackgroundColor());
    for (GraphScene* scene : root->findChildren<GraphScene*>())
        scene->applyTheme();
    return true;
}

} // namespace jitscope
