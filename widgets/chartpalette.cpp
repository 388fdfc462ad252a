#include "chartpalette.h"

#include <QPalette>
#include <cmath>

namespace {

// WCAG 2.1 relative luminance and contrast ratio.
double luminance(const QColor &color)
{
    const auto channel = [](double c) {
        return c <= 0.03928 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
    };
    return 0.2126 * channel(color.redF()) + 0.7152 * channel(color.greenF()) +
           0.0722 * channel(color.blueF());
}

double contrast(const QColor &a, const QColor &b)
{
    const double la = luminance(a);
    const double lb = luminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

} // namespace

ChartPalette ChartPalette::from(const QPalette &palette)
{
    ChartPalette result;
    result.dark = palette.color(QPalette::Window).lightness() < 128;
    result.background = palette.color(QPalette::Base);
    result.text = palette.color(QPalette::Text);
    // Grid lines recede; the crosshair must stand out from them on both themes.
    result.grid = result.text;
    result.grid.setAlpha(result.dark ? 45 : 35);
    result.crosshair = result.text;
    result.crosshair.setAlpha(210);
    result.labelBackground = result.background;
    result.labelBackground.setAlpha(245);
    result.labelBorder = palette.color(QPalette::Mid);
    // Magenta is not among the series colours panels pick (blue, orange,
    // green, red), so a marker never reads as data.
    result.marker =
        result.seriesColor(result.dark ? QColor(0xce, 0x93, 0xd8) : QColor(0x8e, 0x24, 0xaa));
    return result;
}

QColor ChartPalette::seriesColor(const QColor &requested) const
{
    QColor color = requested.toHsl();
    for (int step = 0; step < 20 && contrast(color, background) < 4.0; ++step) {
        const int lightness = std::clamp(color.lightness() + (dark ? 12 : -12), 0, 255);
        color.setHsl(color.hslHue(), color.hslSaturation(), lightness, color.alpha());
    }
    return color.toRgb();
}
